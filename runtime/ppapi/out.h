/*
 * Output: messages to standard output, console to standard error; PNACL_STDOUT=messages.
 */
#ifndef PA_OUT_H
#define PA_OUT_H

#include "json.h"

static volatile int pa_out_lock;

static void pa_write_all(int fd, const u8 *p, u32 n) {
    while (n > 0) {
        long r = raw_write(fd, p, n);
        if (r <= 0) return;
        p += r;
        n -= (u32)r;
    }
}

/* One line for var `v`: a string as it is (or as JSON with PNACL_MESSAGES=json), anything
   else as JSON. */
/* Ends line `t` and writes it whole to `fd` (a message that could not be made is said on
   standard error); the text is released. */
static void pa_send_line(int fd, struct pa_text *t) {
    text_put(t, "\n", 1);
    if (!t->failed) {
        lock(&pa_out_lock);
        pa_write_all(fd, t->p, t->len);
        unlock(&pa_out_lock);
    } else if (fd == 1) {
        write_str(2, "pnacl runtime: PPAPI: a message the plugin posted cannot be sent (too large or too deep)\n");
    }
    pa_release_block(t->p);
}

static void pa_emit(int fd, const char *prefix, const struct PP_Var *v) {
    struct pa_text t = {0};
    text_str(&t, prefix);
    lock(&pa_var_lock);
    struct pa_object *s = !pa_json ? pa_lookup(v, PP_VARTYPE_STRING) : NULL;
    if (s) text_put(&t, s->bytes, s->len);
    else text_json(&t, v, 0);
    unlock(&pa_var_lock);
    pa_send_line(fd, &t);
}

static u32 pa_activity; /* bumped at each event delivered and message posted */
static u32 pa_posted;   /* bumped at each message posted (the end of input's quiet rule) */

/* A message the plugin posts: activity, and what the end of input's quiet rule counts. */
static void pa_note_post(void) {
    __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pa_posted, 1, __ATOMIC_RELAXED);
}

/* PNACL_STDOUT=messages: what the plugin writes to its own standard output is posted, a
   message a line, as if it had called PostMessage with the line (without its newline). For
   plugins whose page never saw their output but whose users want it (stockfish_2017 writes
   its UCI answers to stdout). A line longer than PA_STDOUT_LINE is posted in pieces. */
#define PA_STDOUT_LINE 65536
static int pa_stdout_messages;
static volatile int pa_stdout_lock;
static u8 pa_stdout_line[PA_STDOUT_LINE];
static u32 pa_stdout_len;

/* Posts the `n` bytes at `s` as a string message (as JSON with PNACL_MESSAGES=json, where
   bytes that are not UTF-8 become U+FFFD, as a browser decodes them). */
static void pa_post_bytes(const u8 *s, u32 n) {
    struct pa_text t = {0};
    if (!pa_json) {
        text_put(&t, s, n);
    } else if (pa_utf8(s, n)) {
        text_json_string(&t, s, n);
    } else {
        struct pa_text fixed = {0};
        for (u32 i = 0; i < n;) {
            u8 c = s[i];
            u32 len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            if (i + len <= n && pa_utf8(s + i, len)) {
                text_put(&fixed, s + i, len);
                i += len;
            } else {
                text_put(&fixed, "\xef\xbf\xbd", 3);
                i++;
            }
        }
        text_json_string(&t, fixed.p, fixed.len);
        if (fixed.failed) t.failed = 1;
        pa_release_block(fixed.p);
    }
    pa_note_post();
    pa_send_line(1, &t);
}

/* The plugin's write of `count` bytes to its standard output, with PNACL_STDOUT=messages. */
static int ppapi_stdout_write(const void *buf, size_t count, size_t *nwrote) {
    const u8 *p = buf;
    lock(&pa_stdout_lock);
    for (size_t i = 0; i < count; i++) {
        if (p[i] != '\n') pa_stdout_line[pa_stdout_len++] = p[i];
        if (p[i] == '\n' || pa_stdout_len == PA_STDOUT_LINE) {
            pa_post_bytes(pa_stdout_line, pa_stdout_len);
            pa_stdout_len = 0;
        }
    }
    unlock(&pa_stdout_lock);
    *nwrote = count;
    return 0;
}

/* Posts what is left of an unfinished line (at the plugin's end, or when it closes stdout). */
static void ppapi_stdout_flush(void) {
    if (!pa_stdout_messages) return;
    lock(&pa_stdout_lock);
    if (pa_stdout_len) pa_post_bytes(pa_stdout_line, pa_stdout_len);
    pa_stdout_len = 0;
    unlock(&pa_stdout_lock);
}

#endif
