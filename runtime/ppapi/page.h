/*
 * The page: the channel to it (PNACL_PAGE=1, set by pnacl.js), besides the messages: the
 * backend's host_channel_write/host_channel_read (fd 3 of the WebAssembly host). Its
 * records' kinds are channel.def's. Records to the page go whole (pa_to_page); records
 * from it are read by a thread of the host's own and handed to the parts that asked for
 * their kinds (pa_on_page): the channel names no interface.
 */
#ifndef PA_PAGE_H
#define PA_PAGE_H

#include "mem.h"
#include "channel.h"

static int pa_page; /* PNACL_PAGE=1: in a page, with its channel */
/* PNACL_GRAPHICS=headless: 2-D graphics without a page (ImageData, Graphics2D), drawn into
   buffers no one sees, each Flush done at the display's rate (a plugin that draws runs
   headless, and its speed can be measured). */
static int pa_headless_2d;

/* A word of a record, at any byte. */
static u32 pa_word(const u8 *p) {
    u32 v;
    copy(&v, p, 4);
    return v;
}

static void pa_put_word(u8 *p, u32 v) { copy(p, &v, 4); }

/* A record to the page of `kind` with `n` bytes after its length and kind, its words
   after them `words` (`nw` of them), zeroed past them and to a whole word: its length in
   *size; NULL without memory. Sent with pa_to_page, then released. */
static u8 *pa_new_record(u32 kind, u32 n, const u32 *words, u32 nw, u32 *size) {
    *size = (8 + n + 3) & ~3u;
    u8 *rec = pa_alloc(*size);
    if (!rec) return NULL;
    pa_zero(rec, *size);
    pa_put_word(rec, *size);
    pa_put_word(rec + 4, kind);
    for (u32 k = 0; k < nw; k++) pa_put_word(rec + 8 + 4 * k, words[k]);
    return rec;
}

static volatile int pa_channel_lock;

/* Sends record `rec` (`n` bytes, its length first) to the page, whole. */
static void pa_to_page(const void *rec, u32 n) {
    if (!pa_page) return;
    lock(&pa_channel_lock);
    host_channel_write(rec, n);
    unlock(&pa_channel_lock);
}

/* A part's handler of records from the page: the record's kind, its body (after the
   length and the kind: `n` bytes, at least the `min` it asked for, 4-aligned). */
typedef void (*pa_page_fn)(u32 kind, const u8 *body, u32 n);

#define PA_MAX_PAGE_HANDLERS 16
static struct {
    u32 first, last, min;
    pa_page_fn fn;
} pa_page_handlers[PA_MAX_PAGE_HANDLERS];
static u32 pa_page_nhandlers;

/* Asks for the records of kinds `first`..`last` with bodies of at least `min` bytes
   (at start-up, before the page's reader runs; in the order asked). */
static void pa_on_page(u32 first, u32 last, u32 min, pa_page_fn fn) {
    if (pa_page_nhandlers == PA_MAX_PAGE_HANDLERS) pa_fail("too many handlers of the page's records");
    pa_page_handlers[pa_page_nhandlers].first = first;
    pa_page_handlers[pa_page_nhandlers].last = last;
    pa_page_handlers[pa_page_nhandlers].min = min;
    pa_page_handlers[pa_page_nhandlers].fn = fn;
    pa_page_nhandlers++;
}

/* The page's side of the channel, read by a thread of the host's own. */
static void pa_page_reader(void) {
    /* Records of up to 1 MiB (the page sends a body in pieces of 256 KiB). */
    u32 *body = pa_alloc(1u << 20);
    if (!body) pa_fail("out of memory for the page's channel");
    for (;;) {
        u32 head[2];
        if (host_channel_read(head, 8) != 8 || head[0] < 8 || head[0] > (1u << 20) + 8) break;
        u32 n = head[0] - 8;
        if (n && host_channel_read(body, n) != (i32)n) break;
        for (u32 i = 0; i < pa_page_nhandlers; i++)
            if (head[1] >= pa_page_handlers[i].first && head[1] <= pa_page_handlers[i].last &&
                n >= pa_page_handlers[i].min)
                pa_page_handlers[i].fn(head[1], (const u8 *)body, n);
    }
    irt_thread_exit(NULL);
}

#endif
