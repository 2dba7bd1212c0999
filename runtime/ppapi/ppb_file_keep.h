/*
 * The plugin's local file systems kept between runs (PPB_FileSystem's LOCALPERSISTENT and
 * LOCALTEMPORARY, as Chrome kept an origin's). ppb_file.h holds a file system in memory,
 * which is what the plugin reads; it tells this file each change as it makes it, and
 * asks it for the kept files the first time a file system of a type is opened. Where
 * they are kept:
 *
 * - In a page (PNACL_PAGE=1): by the page, in its origin's private file system (OPFS;
 *   pnacl.js's host_files.js), under `ppapi-fs/persistent` and `ppapi-fs/temporary`,
 *   through the channel. FS_LOAD asks for a type's files, which come back as FS_FILE
 *   pieces then FS_LOADED; the Open waits for them. Each change goes as a record, and
 *   the call that made it completes once the page says it is kept (FS_SYNC, FS_SYNCED),
 *   as a call completed in Chrome once the browser had written the file.
 * - Headless, with a root (PNACL_FS_ROOT): in its folders `ppapi-fs/persistent` and
 *   `ppapi-fs/temporary`, through the IRT's file calls: under the root and within the
 *   sandbox, as the plugin's own files are. Files put there beforehand are the plugin's.
 * - Headless without a root (or a store that refuses a change): not kept; the file
 *   systems live for the run, and standard error says so once.
 *
 * Every call here is made with pa_fs_lock held (ppb_file.h's), so the changes reach the
 * store in the order the plugin made them. ppb_file.h includes this file after its nodes
 * (pa_fs_find, pa_fs_add, pa_fs_resize), which it uses.
 */
#ifndef PA_PPB_FILE_KEEP_H
#define PA_PPB_FILE_KEEP_H

#include "loop.h"
#include "page.h"

#define PA_KEEP_PIECE (256u << 10) /* the bytes of one record, each way */
#define PA_KEEP_DEPTH 32           /* folders within folders, headless */

/* Per type (index 2, 3): 0 not asked for, 1 asked of the page, 2 loaded. */
static i32 pa_keep_loaded[4];
/* Whether the store has refused a change (said once; nothing more is tried). */
static int pa_keep_broken;

/* A call waiting for the page: an Open for its type's files (token 0), or a change's
   call for FS_SYNCED of its token (then its result). */
struct pa_keep_waiter {
    struct pa_pending p;
    i32 type, result;
    u32 token;
    struct pa_keep_waiter *next;
};
static u32 pa_keep_tokens;
static struct pa_keep_waiter *pa_keep_waiters;

static void pa_keep_refused(const char *why) {
    if (pa_keep_broken) return;
    pa_keep_broken = 1;
    write_str(2, "pnacl runtime: PPAPI: the plugin's local file systems are not kept after this run (");
    write_str(2, why);
    write_str(2, ")\n");
}

/* ---- Headless: files under the root ---- */

static const char *pa_keep_folder(i32 type) {
    return type == PP_FS_PERSISTENT ? "ppapi-fs/persistent" : "ppapi-fs/temporary";
}

/* The root-relative name of `path` (n bytes, "/" first) of file system `type`, in `buf`
   (PA_FS_MAX_PATH + 32 bytes): its folder, then the path but for the root's "/". */
static char *pa_keep_name(char *buf, i32 type, const char *path, u32 n) {
    const char *d = pa_keep_folder(type);
    u32 k = (u32)slen(d);
    copy(buf, d, k);
    if (n > 1) {
        copy(buf + k, path, n);
        k += n;
    }
    buf[k] = 0;
    return buf;
}

/* Makes folder `name` and each folder above it (root-relative); 0 or a NaCl errno. */
static int pa_keep_mkdirs(char *name) {
    int e = 0;
    for (u32 i = 1;; i++) {
        char c = name[i];
        if (c != '/' && c) continue;
        name[i] = 0;
        e = irt_mkdir(name, 0777);
        name[i] = c;
        if (e == NACL_EEXIST) e = 0;
        if (!c) return e;
    }
}

/* Writes `n` bytes at `offset` of file `name` (made, with the folders above it, if it is
   missing; emptied first with `truncate`). */
static int pa_keep_put(char *name, u64 offset, const u8 *data, u32 n, int truncate) {
    int fd, e = irt_open(name, NACL_O_WRONLY | NACL_O_CREAT | (truncate ? NACL_O_TRUNC : 0), 0666, &fd);
    if (e == NACL_ENOENT /* a folder above it is missing */) {
        u32 k = (u32)slen(name);
        while (k && name[k] != '/') k--;
        name[k] = 0;
        e = pa_keep_mkdirs(name);
        name[k] = '/';
        if (!e) e = irt_open(name, NACL_O_WRONLY | NACL_O_CREAT | (truncate ? NACL_O_TRUNC : 0), 0666, &fd);
    }
    if (e) return e;
    i64 at;
    if (n) e = irt_seek(fd, (i64)offset, 0, &at);
    while (!e && n) {
        size_t done = 0;
        e = irt_write(fd, data, n, &done);
        if (!e && !done) e = NACL_EIO;
        data += done;
        n -= (u32)done;
    }
    irt_close(fd);
    return e;
}

/* A folder read a name at a time: its descriptor, and NaCl's dirent records (ino, off,
   reclen, then the name, zero-padded) read from it. */
struct pa_keep_folder_reader {
    int fd;
    size_t at, got;
    u8 buf[1024];
};

/* The next name in the folder ("." and ".." left out), or NULL at its end. */
static const char *pa_keep_next_name(struct pa_keep_folder_reader *r) {
    for (;;) {
        if (r->at + 18 >= r->got) {
            r->at = 0;
            if (irt_getdents(r->fd, r->buf, sizeof r->buf, &r->got) || r->got <= 18) return NULL;
        }
        u16 len;
        copy(&len, r->buf + r->at + 16, 2);
        if (len < 19 || r->at + len > r->got || r->buf[r->at + len - 1]) return NULL;
        const char *d = (const char *)r->buf + r->at + 18;
        r->at += len;
        if (!(d[0] == '.' && (!d[1] || (d[1] == '.' && !d[2])))) return d;
    }
}

/* Removes `name`: a file, or a folder and everything in it (`depth` folders deep). */
static int pa_keep_remove_name(char *name, u32 depth) {
    int e = irt_unlink(name);
    if (!e || e == NACL_ENOENT) return 0;
    struct pa_keep_folder_reader r;
    if (depth >= PA_KEEP_DEPTH || irt_open(name, NACL_O_RDONLY | NACL_O_DIRECTORY, 0, &r.fd)) return e;
    u32 k = (u32)slen(name);
    int removed = 1;
    /* Each pass reads the folder from its start, as removing changes what it holds. */
    while (removed) {
        removed = 0;
        i64 at;
        irt_seek(r.fd, 0, 0, &at);
        r.at = r.got = 0;
        for (const char *d; (d = pa_keep_next_name(&r));) {
            u32 dn = (u32)slen(d);
            if (k + 1 + dn > PA_FS_MAX_PATH + 31) continue;
            name[k] = '/';
            copy(name + k + 1, d, dn + 1);
            if (!pa_keep_remove_name(name, depth + 1)) removed = 1;
            name[k] = 0;
        }
    }
    irt_close(r.fd);
    return irt_rmdir(name);
}

/* Reads the files of folder `name` (root-relative; the file system's path starts at
   byte `base` of it, with its "/") into file system `type`, `depth` folders deep. */
static void pa_keep_read_folder(i32 type, char *name, u32 base, u32 depth) {
    struct pa_keep_folder_reader r = {.at = 0, .got = 0};
    if (depth >= PA_KEEP_DEPTH || irt_open(name, NACL_O_RDONLY | NACL_O_DIRECTORY, 0, &r.fd)) return;
    u32 k = (u32)slen(name);
    for (const char *d; (d = pa_keep_next_name(&r));) {
        u32 dn = (u32)slen(d);
        /* A name a file system path cannot hold is left where it is. */
        if (k + 1 + dn - base > PA_FS_MAX_PATH || !pa_utf8((const u8 *)d, dn)) continue;
        name[k] = '/';
        copy(name + k + 1, d, dn + 1);
        const char *path = name + base;
        u32 n = k + 1 + dn - base;
        int sub;
        if (!irt_open(name, NACL_O_RDONLY | NACL_O_DIRECTORY, 0, &sub)) {
            irt_close(sub);
            if (pa_fs_find(type, path, n) || pa_fs_add(type, path, n, 1)) pa_keep_read_folder(type, name, base, depth + 1);
        } else if (!irt_open(name, NACL_O_RDONLY, 0, &sub)) {
            struct pa_fsnode *e = pa_fs_find(type, path, n);
            if (!e) e = pa_fs_add(type, path, n, 0);
            if (e && !e->dir) {
                pa_fs_resize(e, 0);
                static u8 chunk[4096]; /* (pa_fs_lock held) */
                size_t got;
                while (!irt_read(sub, chunk, sizeof chunk, &got) && got) {
                    u32 at = e->size;
                    if (pa_fs_resize(e, (u64)at + got) != PP_OK) break;
                    copy(e->data + at, chunk, got);
                }
            }
            irt_close(sub);
        }
        name[k] = 0;
    }
    irt_close(r.fd);
}

/* ---- In a page: records ---- */

/* A record of `kind`: `words`, then `a` (na bytes) and `b` (nb bytes). */
static void pa_keep_send(u32 kind, const u32 *words, u32 nw, const void *a, u32 na, const void *b, u32 nb) {
    u32 size;
    u8 *rec = pa_new_record(kind, 4 * nw + na + nb, words, nw, &size);
    if (!rec) {
        pa_keep_refused("out of memory");
        return;
    }
    if (na) copy(rec + 8 + 4 * nw, a, na);
    if (nb) copy(rec + 8 + 4 * nw + na, b, nb);
    pa_to_page(rec, size);
    pa_release_block(rec);
}

/* Whether `p` (n bytes) is a path a file system holds: "/" first, components neither
   empty nor "." nor "..", no NUL, UTF-8. */
static int pa_keep_path_ok(const char *p, u32 n) {
    if (n < 2 || n > PA_FS_MAX_PATH || p[0] != '/' || !pa_utf8((const u8 *)p, n)) return 0;
    for (u32 i = 1, start = 1; i <= n; i++) {
        if (i < n && p[i] == 0) return 0;
        if (i < n && p[i] != '/') continue;
        u32 len = i - start;
        if (len == 0 || (len == 1 && p[start] == '.') || (len == 2 && p[start] == '.' && p[start + 1] == '.')) return 0;
        start = i + 1;
    }
    return 1;
}

/* FS_FILE (type, folder, offset, path length, byte count, path, bytes) and FS_LOADED
   (type): the page's kept files, added to memory as they come, not sent back. */
static void pa_keep_from_page(u32 kind, const u8 *body, u32 n) {
    u32 type = pa_word(body);
    lock(&pa_fs_lock);
    if (kind == PA_FROM_FS_SYNCED || kind == PA_FROM_FS_LOADED) {
        /* FS_SYNCED's word is a token, FS_LOADED's a type. */
        int synced = kind == PA_FROM_FS_SYNCED;
        if (!synced && (type == PP_FS_PERSISTENT || type == PP_FS_TEMPORARY)) pa_keep_loaded[type] = 2;
        for (struct pa_keep_waiter **at = &pa_keep_waiters; *at;) {
            struct pa_keep_waiter *w = *at;
            if (synced ? !w->token || w->token != type : w->token || w->type != (i32)type) {
                at = &w->next;
                continue;
            }
            *at = w->next;
            pa_pending_end(&w->p, w->result, 0);
            pa_release_block(w);
        }
    } else if ((type == PP_FS_PERSISTENT || type == PP_FS_TEMPORARY) && n >= 20 && pa_keep_loaded[type] == 1) {
        u32 dir = pa_word(body + 4), offset = pa_word(body + 8), plen = pa_word(body + 12), k = pa_word(body + 16);
        const char *path = (const char *)body + 20;
        /* The page is trusted no more than the plugin: each path is checked as a FileRef's. */
        int ok = (u64)plen + k <= n - 20 && pa_keep_path_ok(path, plen);
        /* Each folder above it, then it. */
        for (u32 i = 1; ok && i <= plen; i++) {
            if (i < plen && path[i] != '/') continue;
            struct pa_fsnode *e = pa_fs_find((i32)type, path, i);
            int want_dir = i < plen || dir;
            if (!e) e = pa_fs_add((i32)type, path, i, want_dir);
            if (!e || e->dir != want_dir) ok = 0;
            if (ok && i == plen && !dir && (u64)offset + k <= PA_FS_MAX_BYTES) {
                if ((u64)offset + k > e->size && pa_fs_resize(e, (u64)offset + k) != PP_OK) ok = 0;
                else if (k) copy(e->data + offset, path + plen, k);
            }
        }
    }
    unlock(&pa_fs_lock);
}

/* ---- What ppb_file.h calls (pa_fs_lock held) ---- */

static int pa_keep_headless(void) { return !pa_page && !pa_keep_broken; }

/* A call waits for the page (pa_fs_lock held, and held again on return): waiter `w`
   (new) ends on FS_LOADED of `type` (`token` 0) or on FS_SYNCED of `token`, with
   `result`, once record `kind` (0: none) with its one word `word` has gone. The call's
   return: pending, with a callback; else (blocking, the lock given up meanwhile) the
   result. */
static i32 pa_keep_wait(struct pa_keep_waiter *w, i32 type, u32 token, i32 result,
                        const struct PP_CompletionCallback *cbp, u32 kind, u32 word) {
    struct pa_wait wait;
    pa_pending_start(&w->p, cbp, &wait);
    w->type = type;
    w->token = token;
    w->result = result;
    w->next = pa_keep_waiters;
    pa_keep_waiters = w;
    if (kind) pa_keep_send(kind, &word, 1, NULL, 0, NULL, 0);
    if (cbp && cbp->func) return PP_OK_COMPLETIONPENDING;
    unlock(&pa_fs_lock);
    i32 r = pa_pending_return(cbp, &wait);
    lock(&pa_fs_lock);
    return r;
}

/* Whether file system `type`'s kept files are in memory; if not (a page still sending
   them), the Open of `cbp` waits for them: it is pending, or blocks (off the main thread)
   with the lock given up meanwhile. Returns PP_OK when they are, else the call's return. */
static i32 pa_keep_load(i32 type, const struct PP_CompletionCallback *cbp) {
    if (pa_keep_loaded[type] == 2) return PP_OK;
    if (!pa_page) {
        pa_keep_loaded[type] = 2;
        char name[PA_FS_MAX_PATH + 32];
        pa_keep_name(name, type, "/", 1);
        int fd;
        if (irt_open(name, NACL_O_RDONLY | NACL_O_DIRECTORY, 0, &fd)) {
            /* Nothing kept yet: the folder is made now, or the store is not there. */
            int e = pa_keep_mkdirs(name);
            if (e) pa_keep_refused(e == NACL_EACCES ? "no PNACL_FS_ROOT to keep them in, or one that may not be written"
                                           : "the root refuses their folder ppapi-fs");
            return PP_OK;
        }
        irt_close(fd);
        pa_keep_read_folder(type, name, (u32)slen(pa_keep_folder(type)), 0);
        return PP_OK;
    }
    struct pa_keep_waiter *w = pa_alloc(sizeof *w);
    if (!w) return PP_ERROR_NOMEMORY;
    /* The first Open of the type asks; any other waits with it. */
    u32 ask = pa_keep_loaded[type] == 0 ? PA_TO_FS_LOAD : 0;
    pa_keep_loaded[type] = 1;
    return pa_keep_wait(w, type, 0, PP_OK, cbp, ask, (u32)type);
}

/* Headless: `n` bytes at `offset` of file `e` put in its file (emptied first with
   `truncate`), or the store said to refuse. */
static void pa_keep_put_file(const struct pa_fsnode *e, u64 offset, const u8 *data, u32 n, int truncate) {
    char name[PA_FS_MAX_PATH + 32];
    if (pa_keep_put(pa_keep_name(name, e->fs, e->path, e->plen), offset, data, n, truncate))
        pa_keep_refused("a write to its folder failed");
}

/* `n` bytes at `offset` of file `e` written. */
static int pa_keep_write(const struct pa_fsnode *e, u64 offset, const u8 *data, u32 n) {
    if (e->unlinked || pa_keep_loaded[e->fs] != 2) return 0;
    if (pa_page) {
        for (u32 done = 0; done < n;) {
            u32 k = n - done < PA_KEEP_PIECE ? n - done : PA_KEEP_PIECE;
            u64 at = offset + done;
            u32 words[5] = {(u32)e->fs, (u32)at, (u32)(at >> 32), e->plen, k};
            pa_keep_send(PA_TO_FS_WRITE, words, 5, e->path, e->plen, data + done, k);
            done += k;
        }
        return 1;
    }
    if (pa_keep_headless()) pa_keep_put_file(e, offset, data, n, 0);
    return 0;
}

/* File `e` made (if it was not) and made its size: the bytes in memory are what it holds. */
static int pa_keep_size(const struct pa_fsnode *e) {
    if (e->unlinked || pa_keep_loaded[e->fs] != 2) return 0;
    if (pa_page) {
        u32 words[4] = {(u32)e->fs, e->size, 0, e->plen};
        pa_keep_send(PA_TO_FS_SIZE, words, 4, e->path, e->plen, NULL, 0);
        return 1;
    }
    if (pa_keep_headless()) pa_keep_put_file(e, 0, e->data, e->size, 1);
    return 0;
}

enum { PA_KEEP_MKDIR, PA_KEEP_REMOVE };

/* Folder `path` (n bytes) of file system `type` made (PA_KEEP_MKDIR), or `path` (a file,
   or a folder and all in it) removed (PA_KEEP_REMOVE). */
static int pa_keep_path(int what, i32 type, const char *path, u32 n) {
    if (pa_keep_loaded[type] != 2) return 0;
    if (pa_page) {
        u32 words[2] = {(u32)type, n};
        pa_keep_send(what == PA_KEEP_REMOVE ? PA_TO_FS_REMOVE : PA_TO_FS_MKDIR, words, 2, path, n, NULL, 0);
        return 1;
    }
    if (pa_keep_headless()) {
        char name[PA_FS_MAX_PATH + 32];
        pa_keep_name(name, type, path, n);
        if (what == PA_KEEP_REMOVE ? pa_keep_remove_name(name, 0) : pa_keep_mkdirs(name))
            pa_keep_refused(what == PA_KEEP_REMOVE ? "a removal from its folder failed" : "a folder could not be made in it");
    }
    return 0;
}

/* `from` renamed `to` (its nodes in memory already renamed, `to` replaced if it was
   there). Headless, the files under `to` are written anew from memory, then `from`
   removed: the IRT has no rename. */
static int pa_keep_rename(i32 type, const char *from, u32 fn, const char *to, u32 tn) {
    if (pa_keep_loaded[type] != 2) return 0;
    if (pa_page) {
        u32 words[3] = {(u32)type, fn, tn};
        pa_keep_send(PA_TO_FS_RENAME, words, 3, from, fn, to, tn);
        return 1;
    }
    if (!pa_keep_headless()) return 0;
    pa_keep_path(PA_KEEP_REMOVE, type, to, tn);
    for (struct pa_fsnode *x = pa_fs_nodes; x; x = x->next) {
        int under = x->fs == type && x->plen >= tn && !__builtin_memcmp(x->path, to, tn) &&
                    (x->plen == tn || x->path[tn] == '/');
        if (!under) continue;
        if (x->dir) pa_keep_path(PA_KEEP_MKDIR, type, x->path, x->plen);
        else pa_keep_size(x);
    }
    pa_keep_path(PA_KEEP_REMOVE, type, from, fn);
    return 0;
}

/* The end of a call (pa_fs_lock not held) with `result`: where it sent the page a change
   (`sent`), once the page has kept it, through the callback or (blocking) returned; else
   as pa_result_now. */
static i32 pa_keep_done(const struct PP_CompletionCallback *cbp, i32 result, int sent) {
    if (!sent) return pa_result_now(cbp, result);
    struct pa_keep_waiter *w = pa_alloc(sizeof *w);
    if (!w) return pa_result_now(cbp, result);
    lock(&pa_fs_lock);
    u32 token = ++pa_keep_tokens ? pa_keep_tokens : ++pa_keep_tokens;
    i32 r = pa_keep_wait(w, 0, token, result, cbp, PA_TO_FS_SYNC, token);
    unlock(&pa_fs_lock);
    return r;
}

static void pa_keep_init(void) { pa_on_page(PA_FROM_FS_FILE, PA_FROM_FS_SYNCED, 4, pa_keep_from_page); }

#endif
