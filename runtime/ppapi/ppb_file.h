/*
 * Files: PPB_FileSystem;1.0, PPB_FileRef;1.0/1.1/1.2, PPB_FileIO;1.0/1.1 (ppapi.md §4.12),
 * the HTML5 file systems Chrome gave a plugin (nacl_io's html5fs mounts one; glbench
 * reads its data from it).
 *
 * The host holds the two local file systems (LOCALPERSISTENT, LOCALTEMPORARY) in its own
 * memory, which is what the plugin reads, and keeps them between runs as Chrome kept an
 * origin's (ppb_file_keep.h: in a page, in the origin's private file system; headless, in a
 * folder under PNACL_FS_ROOT): the first Open of a type brings in what earlier runs
 * kept, and each change is passed on as it is made. Paths are as Chrome took them: absolute ("/…"), no ".."
 * component, a trailing "/" dropped. A file a FileIO has open stays readable after it is
 * deleted or renamed, as an open file did. Sizes are bounded (PA_FS_MAX_BYTES for all
 * files, PA_FS_MAX_NODES files and folders): past them, PP_ERROR_NOSPACE.
 *
 * Every call with a completion callback completes through the calling thread's loop
 * (PP_OK_COMPLETIONPENDING), or blocks (off the main thread) and returns the result.
 */
#ifndef PA_PPB_FILE_H
#define PA_PPB_FILE_H

#include "loop.h"
#include "var.h"

static void pa_filesystem_gone(void *data) { pa_release_block(data); }
static void pa_fileref_gone(void *data);
static void pa_fileio_gone(void *data);
static const struct pa_kind pa_kind_filesystem = {"FileSystem", pa_filesystem_gone, NULL};
static const struct pa_kind pa_kind_fileref = {"FileRef", pa_fileref_gone, NULL};
static const struct pa_kind pa_kind_fileio = {"FileIO", pa_fileio_gone, NULL};
#define RES_FILESYSTEM (&pa_kind_filesystem)
#define RES_FILEREF (&pa_kind_fileref)
#define RES_FILEIO (&pa_kind_fileio)

#define PP_ERROR_NOSPACE (-9)
#define PP_ERROR_FILENOTFOUND (-20)
#define PP_ERROR_FILEEXISTS (-21)
#define PP_ERROR_NOTAFILE (-24)

enum { PP_FS_EXTERNAL = 1, PP_FS_PERSISTENT = 2, PP_FS_TEMPORARY = 3 };
enum { PP_FILETYPE_REGULAR = 0, PP_FILETYPE_DIRECTORY = 1 };
enum { PA_OPEN_READ = 1, PA_OPEN_WRITE = 2, PA_OPEN_CREATE = 4, PA_OPEN_TRUNCATE = 8, PA_OPEN_EXCLUSIVE = 16,
       PA_OPEN_APPEND = 32 };
enum { PA_MKDIR_ANCESTORS = 1, PA_MKDIR_EXCLUSIVE = 2 };

#define PA_FS_MAX_BYTES (256u << 20)
#define PA_FS_MAX_NODES 65536
#define PA_FS_MAX_PATH 4096

struct PP_FileInfo {
    i64 size;
    i32 type, system_type;
    double creation_time, last_access_time, last_modified_time;
};

struct PP_ArrayOutput {
    void *(*get_data_buffer)(void *user_data, u32 count, u32 size);
    void *user_data;
};

struct pa_fsnode {
    i32 fs, dir, refs; /* refs: the list's, and each open FileIO's */
    i32 unlinked;      /* deleted or replaced: its open files' writes are kept no more */
    char *path;
    u32 plen;
    u8 *data;
    u32 size, cap;
    double ctime, atime, mtime;
    struct pa_fsnode *next;
};

struct pa_filesystem { i32 type, opened; };
struct pa_fileref { i32 fs; char *path; u32 plen; };
struct pa_fileio { i32 flags; struct pa_fsnode *node; };

static struct pa_fsnode *pa_fs_nodes;
static u32 pa_fs_count;
static u64 pa_fs_bytes;
static volatile int pa_fs_lock;

static int pa_path_eq(const char *a, u32 an, const char *b, u32 bn) {
    return an == bn && !__builtin_memcmp(a, b, an);
}

/* The node at `path` of file system `fs` (NULL for the root, which is always there as a
   folder, and for a path with nothing at it). pa_fs_lock held. */
static struct pa_fsnode *pa_fs_find(i32 fs, const char *path, u32 n) {
    for (struct pa_fsnode *e = pa_fs_nodes; e; e = e->next)
        if (e->fs == fs && pa_path_eq(e->path, e->plen, path, n)) return e;
    return NULL;
}

/* The length of `path`'s parent ("/" for a child of the root). */
static u32 pa_parent_len(const char *path, u32 n) {
    while (n > 1 && path[n - 1] != '/') n--;
    return n > 1 ? n - 1 : 1;
}

/* Whether `path` names a folder of `fs` (the root always does). pa_fs_lock held. */
static int pa_fs_is_dir(i32 fs, const char *path, u32 n) {
    if (n == 1) return 1;
    struct pa_fsnode *e = pa_fs_find(fs, path, n);
    return e && e->dir;
}

static void pa_node_unref(struct pa_fsnode *e) {
    if (--e->refs) return;
    pa_fs_bytes -= e->cap;
    pa_release_block(e->data);
    pa_release_block(e->path);
    pa_release_block(e);
}

/* A new node (its parent checked by the caller), or NULL past the bounds. pa_fs_lock held. */
static struct pa_fsnode *pa_fs_add(i32 fs, const char *path, u32 n, int dir) {
    if (pa_fs_count >= PA_FS_MAX_NODES) return NULL;
    struct pa_fsnode *e = pa_alloc(sizeof *e);
    char *p = pa_alloc(n + 1);
    if (!e || !p) {
        pa_release_block(e);
        pa_release_block(p);
        return NULL;
    }
    pa_zero(e, sizeof *e);
    copy(p, path, n);
    p[n] = 0;
    e->fs = fs;
    e->dir = dir;
    e->refs = 1;
    e->path = p;
    e->plen = n;
    e->ctime = e->atime = e->mtime = core_get_time();
    e->next = pa_fs_nodes;
    pa_fs_nodes = e;
    pa_fs_count++;
    return e;
}

/* Takes `e` off the list (its open files keep it). pa_fs_lock held. */
static void pa_fs_unlink(struct pa_fsnode *e) {
    for (struct pa_fsnode **at = &pa_fs_nodes; *at; at = &(*at)->next)
        if (*at == e) {
            *at = e->next;
            pa_fs_count--;
            e->unlinked = 1;
            pa_node_unref(e);
            return;
        }
}

/* Whether folder `path` has anything in it. pa_fs_lock held. */
static int pa_fs_has_children(i32 fs, const char *path, u32 n) {
    for (struct pa_fsnode *e = pa_fs_nodes; e; e = e->next)
        if (e->fs == fs && e->plen > n && pa_parent_len(e->path, e->plen) == n && !__builtin_memcmp(e->path, path, n))
            return 1;
    return 0;
}

static void pa_info_of(struct PP_FileInfo *info, i32 fs, const struct pa_fsnode *e) {
    pa_zero(info, sizeof *info);
    info->size = e ? e->size : 0;
    info->type = !e || e->dir ? PP_FILETYPE_DIRECTORY : PP_FILETYPE_REGULAR;
    info->system_type = fs;
    if (e) {
        info->creation_time = e->ctime;
        info->last_access_time = e->atime;
        info->last_modified_time = e->mtime;
    }
}

/* File `e`'s bytes made `size` long (new bytes zero); 0, or PP_ERROR_NOSPACE. */
static i32 pa_fs_resize(struct pa_fsnode *e, u64 size) {
    if (size > PA_FS_MAX_BYTES) return PP_ERROR_NOSPACE;
    if (size > e->cap) {
        u64 cap = e->cap ? e->cap : 256;
        while (cap < size) cap *= 2;
        if (pa_fs_bytes - e->cap + cap > PA_FS_MAX_BYTES) cap = size;
        if (pa_fs_bytes - e->cap + cap > PA_FS_MAX_BYTES) return PP_ERROR_NOSPACE;
        u8 *d = pa_alloc((size_t)cap);
        if (!d) return PP_ERROR_NOSPACE;
        if (e->size) copy(d, e->data, e->size);
        pa_release_block(e->data);
        pa_fs_bytes = pa_fs_bytes - e->cap + cap;
        e->data = d;
        e->cap = (u32)cap;
    }
    if (size > e->size) pa_zero(e->data + e->size, (size_t)(size - e->size));
    e->size = (u32)size;
    return PP_OK;
}

#include "ppb_file_keep.h"

/* ---- PPB_FileSystem ---- */

static i32 fs_create(i32 instance, i32 type) {
    if (instance != pa_instance || (type != PP_FS_PERSISTENT && type != PP_FS_TEMPORARY)) return 0;
    struct pa_filesystem *f = pa_alloc(sizeof *f);
    if (!f) return 0;
    f->type = type;
    f->opened = 0;
    i32 r = pa_new_resource_with(RES_FILESYSTEM, f);
    if (!r) pa_release_block(f);
    return r;
}

static i32 fs_is(i32 r) { return pa_resource_kind(r) == RES_FILESYSTEM; }

static i32 fs_open(i32 r, i64 expected_size, const struct PP_CompletionCallback *cb) {
    (void)expected_size; /* quota: the host's own bound */
    PA_START(struct pa_filesystem, f, r, RES_FILESYSTEM, 1, cb);
    lock(&pa_fs_lock);
    if (f->opened) {
        unlock(&pa_fs_lock);
        return pa_result_now(cb, PP_ERROR_FAILED);
    }
    f->opened = 1;
    /* What earlier runs kept comes in first (from a page, the Open waits for it). */
    i32 result = pa_keep_load(f->type, cb);
    unlock(&pa_fs_lock);
    return result == PP_OK_COMPLETIONPENDING ? result : pa_result_now(cb, result);
}

static i32 fs_get_type(i32 r) {
    PA_HOLD(struct pa_filesystem, f, r, RES_FILESYSTEM);
    return f ? f->type : 0;
}

/* ---- PPB_FileRef ---- */

/* A file reference for `path` (n bytes, already checked) in `fs`'s file system. */
static i32 pa_ref_new(i32 fs, const char *path, u32 n) {
    struct pa_fileref *f = pa_alloc(sizeof *f);
    char *p = pa_alloc(n + 1);
    if (!f || !p) {
        pa_release_block(f);
        pa_release_block(p);
        return 0;
    }
    copy(p, path, n);
    p[n] = 0;
    f->path = p;
    f->plen = n;
    f->fs = fs;
    core_addref_resource(fs);
    i32 r = pa_new_resource_with(RES_FILEREF, f);
    if (!r) {
        core_release_resource(fs);
        pa_release_block(p);
        pa_release_block(f);
    }
    return r;
}

static i32 ref_create(i32 fs, const char *path) {
    if (!pa_resource_live(fs, RES_FILESYSTEM) || !path || path[0] != '/') return 0;
    u32 n = 0;
    while (n <= PA_FS_MAX_PATH && path[n]) n++;
    if (n > PA_FS_MAX_PATH || !pa_utf8((const u8 *)path, n)) return 0;
    while (n > 1 && path[n - 1] == '/') n--;
    /* No "..", no empty component. */
    for (u32 i = 0; i < n; i++) {
        if (path[i] != '/') continue;
        if (i + 1 < n && path[i + 1] == '/') return 0;
        if (i + 2 < n + 1 && path[i + 1] == '.' && path[i + 2] == '.' && (i + 3 == n || path[i + 3] == '/')) return 0;
    }
    return pa_ref_new(fs, path, n);
}

static i32 ref_is(i32 r) { return pa_resource_kind(r) == RES_FILEREF; }

static i32 ref_get_fs_type(i32 r) {
    PA_HOLD(struct pa_fileref, f, r, RES_FILEREF);
    return f ? fs_get_type(f->fs) : 0;
}

/* The last component ("/" for the root). */
static void ref_get_name(struct PP_Var *out, i32 r) {
    PA_HOLD(struct pa_fileref, f, r, RES_FILEREF);
    pa_zero(out, sizeof *out);
    if (!f) return;
    u32 at = f->plen;
    while (at > 0 && f->path[at - 1] != '/') at--;
    if (f->plen == 1) at = 0;
    lock(&pa_var_lock);
    pa_string_locked(out, f->path + at, f->plen - at);
    unlock(&pa_var_lock);
}

static void ref_get_path(struct PP_Var *out, i32 r) {
    PA_HOLD(struct pa_fileref, f, r, RES_FILEREF);
    pa_zero(out, sizeof *out);
    if (!f) return;
    lock(&pa_var_lock);
    pa_string_locked(out, f->path, f->plen);
    unlock(&pa_var_lock);
}

static i32 ref_get_parent(i32 r) {
    PA_HOLD(struct pa_fileref, f, r, RES_FILEREF);
    if (!f) return 0;
    return pa_ref_new(f->fs, f->path, pa_parent_len(f->path, f->plen));
}

static i32 ref_make_directory_flags(i32 r, i32 flags, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileref, f, r, RES_FILEREF, 1, cb);
    i32 fs = fs_get_type(f->fs), result = PP_OK;
    int sent = 0;
    lock(&pa_fs_lock);
    if (f->plen == 1 || pa_fs_find(fs, f->path, f->plen)) {
        struct pa_fsnode *e = f->plen == 1 ? NULL : pa_fs_find(fs, f->path, f->plen);
        result = (flags & PA_MKDIR_EXCLUSIVE) || (e && !e->dir) ? PP_ERROR_FILEEXISTS : PP_OK;
    } else {
        /* Each missing ancestor (with WITH_ANCESTORS), then the folder itself. */
        for (u32 i = 1; i <= f->plen && result == PP_OK; i++) {
            if (i < f->plen && f->path[i] != '/') continue;
            struct pa_fsnode *e = pa_fs_find(fs, f->path, i);
            if (e) {
                if (!e->dir) result = PP_ERROR_FILENOTFOUND;
                continue;
            }
            if (i < f->plen && !(flags & PA_MKDIR_ANCESTORS)) result = PP_ERROR_FILENOTFOUND;
            else if (!pa_fs_add(fs, f->path, i, 1)) result = PP_ERROR_NOSPACE;
            else sent |= pa_keep_path(PA_KEEP_MKDIR, fs, f->path, i);
        }
    }
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

/* 1.0 and 1.1: a bool, which Chrome took as WITH_ANCESTORS, or else EXCLUSIVE. */
static i32 ref_make_directory(i32 r, i32 make_ancestors, const struct PP_CompletionCallback *cb) {
    return ref_make_directory_flags(r, make_ancestors ? PA_MKDIR_ANCESTORS : PA_MKDIR_EXCLUSIVE, cb);
}

static i32 ref_touch(i32 r, double atime, double mtime, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileref, f, r, RES_FILEREF, 1, cb);
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_fs_find(fs_get_type(f->fs), f->path, f->plen);
    if (e) e->atime = atime, e->mtime = mtime;
    unlock(&pa_fs_lock);
    return pa_result_now(cb, e || f->plen == 1 ? PP_OK : PP_ERROR_FILENOTFOUND);
}

static i32 ref_delete(i32 r, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileref, f, r, RES_FILEREF, 1, cb);
    i32 fs = fs_get_type(f->fs), result = PP_OK;
    int sent = 0;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_fs_find(fs, f->path, f->plen);
    if (f->plen == 1) result = PP_ERROR_FAILED;
    else if (!e) result = PP_ERROR_FILENOTFOUND;
    else if (e->dir && pa_fs_has_children(fs, f->path, f->plen)) result = PP_ERROR_FAILED;
    else {
        pa_fs_unlink(e);
        sent = pa_keep_path(PA_KEEP_REMOVE, fs, f->path, f->plen);
    }
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

static i32 ref_rename(i32 r, i32 to, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_fileref, f, r, RES_FILEREF);
    PA_HOLD(struct pa_fileref, t, to, RES_FILEREF);
    if (!f || !t) return PP_ERROR_BADRESOURCE;
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    i32 fs = fs_get_type(f->fs), result = PP_OK;
    int sent = 0;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_fs_find(fs, f->path, f->plen);
    struct pa_fsnode *d = pa_fs_find(fs, t->path, t->plen);
    int into_itself = t->plen > f->plen && t->path[f->plen] == '/' && !__builtin_memcmp(t->path, f->path, f->plen);
    if (fs != fs_get_type(t->fs) || f->plen == 1 || t->plen == 1 || into_itself) result = PP_ERROR_FAILED;
    else if (!e) result = PP_ERROR_FILENOTFOUND;
    else if (!pa_fs_is_dir(fs, t->path, pa_parent_len(t->path, t->plen))) result = PP_ERROR_FILENOTFOUND;
    else if (d == e) result = PP_OK;
    else if (d && (d->dir != e->dir || (d->dir && pa_fs_has_children(fs, t->path, t->plen)))) result = PP_ERROR_FAILED;
    else {
        /* The node and everything under it get the new path's prefix. */
        if (d) pa_fs_unlink(d);
        u32 old = f->plen;
        for (struct pa_fsnode *x = pa_fs_nodes; x && result == PP_OK; x = x->next) {
            int under = x == e || (e->dir && x->fs == fs && x->plen > old && x->path[old] == '/' &&
                                   !__builtin_memcmp(x->path, f->path, old));
            if (!under) continue;
            u32 n = t->plen + (x->plen - old);
            char *p = n <= PA_FS_MAX_PATH ? pa_alloc(n + 1) : NULL;
            if (!p) {
                result = PP_ERROR_NOSPACE;
                break;
            }
            copy(p, t->path, t->plen);
            copy(p + t->plen, x->path + old, x->plen - old);
            p[n] = 0;
            pa_release_block(x->path);
            x->path = p;
            x->plen = n;
        }
        if (result == PP_OK) sent = pa_keep_rename(fs, f->path, f->plen, t->path, t->plen);
    }
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

/* A Query's end: `got` into *info if the result is PP_OK, then the result (pa_result_now). */
static i32 pa_fs_info(const struct PP_CompletionCallback *cb, i32 result, const struct PP_FileInfo *got,
                      struct PP_FileInfo *info) {
    if (result == PP_OK) *info = *got;
    return pa_result_now(cb, result);
}

static i32 ref_query(i32 r, struct PP_FileInfo *info, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileref, f, r, RES_FILEREF, info != NULL, cb);
    i32 fs = fs_get_type(f->fs);
    struct PP_FileInfo got;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_fs_find(fs, f->path, f->plen);
    pa_info_of(&got, fs, e);
    unlock(&pa_fs_lock);
    return pa_fs_info(cb, !e && f->plen != 1 ? PP_ERROR_FILENOTFOUND : PP_OK, &got, info);
}

struct PP_DirectoryEntry { i32 file_ref, file_type; };

static i32 ref_read_entries(i32 r, const struct PP_ArrayOutput *output, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileref, f, r, RES_FILEREF, output && output->get_data_buffer, cb);
    struct PP_ArrayOutput out = *output;
    i32 fs = fs_get_type(f->fs);
    /* The entries' paths are copied out under the lock, their references made after. */
    lock(&pa_fs_lock);
    if (!pa_fs_is_dir(fs, f->path, f->plen)) {
        int exists = pa_fs_find(fs, f->path, f->plen) != NULL;
        unlock(&pa_fs_lock);
        return pa_result_now(cb, exists ? PP_ERROR_NOTAFILE : PP_ERROR_FILENOTFOUND);
    }
    u32 count = 0;
    size_t bytes = 0;
    for (struct pa_fsnode *e = pa_fs_nodes; e; e = e->next)
        if (e->fs == fs && e->plen > f->plen && pa_parent_len(e->path, e->plen) == f->plen &&
            !__builtin_memcmp(e->path, f->path, f->plen))
            count++, bytes += e->plen + 1;
    char *names = pa_alloc(bytes + 1);
    i32 *types = pa_alloc(sizeof(i32) * (count + 1));
    if (!names || !types) {
        unlock(&pa_fs_lock);
        pa_release_block(names);
        pa_release_block(types);
        return pa_result_now(cb, PP_ERROR_NOMEMORY);
    }
    u32 k = 0;
    size_t at = 0;
    for (struct pa_fsnode *e = pa_fs_nodes; e && k < count; e = e->next)
        if (e->fs == fs && e->plen > f->plen && pa_parent_len(e->path, e->plen) == f->plen &&
            !__builtin_memcmp(e->path, f->path, f->plen)) {
            copy(names + at, e->path, e->plen);
            names[at + e->plen] = 0;
            at += e->plen + 1;
            types[k++] = e->dir ? PP_FILETYPE_DIRECTORY : PP_FILETYPE_REGULAR;
        }
    unlock(&pa_fs_lock);
    i32 result = PP_OK;
    struct PP_DirectoryEntry *list = out.get_data_buffer(out.user_data, count, sizeof(struct PP_DirectoryEntry));
    if (count && !list) result = PP_ERROR_FAILED;
    at = 0;
    for (u32 i = 0; i < count && list; i++) {
        u32 n = (u32)slen(names + at);
        struct PP_DirectoryEntry entry = {pa_ref_new(f->fs, names + at, n), types[i]};
        copy(&list[i], &entry, sizeof entry);
        at += n + 1;
    }
    pa_release_block(names);
    pa_release_block(types);
    return pa_result_now(cb, result);
}

/* ---- PPB_FileIO ---- */

static i32 io_create(i32 instance) {
    if (instance != pa_instance) return 0;
    struct pa_fileio *f = pa_alloc(sizeof *f);
    if (!f) return 0;
    pa_zero(f, sizeof *f);
    i32 r = pa_new_resource_with(RES_FILEIO, f);
    if (!r) pa_release_block(f);
    return r;
}

static i32 io_is(i32 r) { return pa_resource_kind(r) == RES_FILEIO; }

static i32 io_open(i32 r, i32 ref, i32 flags, const struct PP_CompletionCallback *cb) {
    /* In Chrome's order: the resource, a blocking call on the main thread, then the
       arguments. */
    PA_START(struct pa_fileio, io, r, RES_FILEIO, 1, cb);
    PA_HOLD(struct pa_fileref, f, ref, RES_FILEREF);
    if (!f) return PP_ERROR_BADRESOURCE;
    int bad = !(flags & (PA_OPEN_READ | PA_OPEN_WRITE | PA_OPEN_APPEND)) || (flags & ~63) ||
              ((flags & PA_OPEN_TRUNCATE) && !(flags & PA_OPEN_WRITE)) ||
              ((flags & PA_OPEN_EXCLUSIVE) && !(flags & PA_OPEN_CREATE)) ||
              ((flags & PA_OPEN_WRITE) && (flags & PA_OPEN_APPEND));
    if (bad) return PP_ERROR_BADARGUMENT;
    i32 fs = fs_get_type(f->fs), result = PP_OK;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_fs_find(fs, f->path, f->plen);
    int existed = e != NULL, sent = 0;
    if (io->node) result = PP_ERROR_FAILED;
    else if (f->plen == 1 || (e && e->dir)) result = PP_ERROR_NOTAFILE;
    else if (e && (flags & PA_OPEN_EXCLUSIVE)) result = PP_ERROR_FILEEXISTS;
    else if (!e && !(flags & PA_OPEN_CREATE)) result = PP_ERROR_FILENOTFOUND;
    else if (!e && !pa_fs_is_dir(fs, f->path, pa_parent_len(f->path, f->plen))) result = PP_ERROR_FILENOTFOUND;
    else if (!e && !(e = pa_fs_add(fs, f->path, f->plen, 0))) result = PP_ERROR_NOSPACE;
    if (result == PP_OK) {
        if (flags & PA_OPEN_TRUNCATE) pa_fs_resize(e, 0);
        if (!existed || (flags & PA_OPEN_TRUNCATE)) sent = pa_keep_size(e);
        e->refs++;
        io->node = e;
        io->flags = flags;
    }
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

static i32 io_query(i32 r, struct PP_FileInfo *info, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileio, io, r, RES_FILEIO, info != NULL, cb);
    struct PP_FileInfo got;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = io->node;
    if (e) pa_info_of(&got, e->fs, e);
    unlock(&pa_fs_lock);
    return pa_fs_info(cb, e ? PP_OK : PP_ERROR_FAILED, &got, info);
}

static i32 io_touch(i32 r, double atime, double mtime, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileio, io, r, RES_FILEIO, 1, cb);
    lock(&pa_fs_lock);
    struct pa_fsnode *e = io->node;
    if (e) e->atime = atime, e->mtime = mtime;
    unlock(&pa_fs_lock);
    return pa_result_now(cb, e ? PP_OK : PP_ERROR_FAILED);
}

/* Copies up to `n` bytes from `offset` out (`to`, or a buffer `out` gives); the count. */
static i32 pa_io_read(struct pa_fileio *io, i64 offset, void *to, i32 n, const struct PP_ArrayOutput *out) {
    if (offset < 0 || n < 0) return PP_ERROR_FAILED;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = io->node;
    if (!e || !(io->flags & PA_OPEN_READ)) {
        unlock(&pa_fs_lock);
        return e ? PP_ERROR_NOACCESS : PP_ERROR_FAILED;
    }
    i64 have = (i64)e->size - offset;
    i32 k = have <= 0 ? 0 : have < n ? (i32)have : n;
    /* The bytes are copied out under the lock only where they go straight to the
       plugin; a buffer the plugin's own function gives is asked for first. */
    u8 *tmp = NULL;
    if (out && k) {
        tmp = pa_alloc((size_t)k);
        if (!tmp) {
            unlock(&pa_fs_lock);
            return PP_ERROR_NOMEMORY;
        }
        copy(tmp, e->data + offset, (size_t)k);
    } else if (k) {
        copy(to, e->data + offset, (size_t)k);
    }
    e->atime = core_get_time();
    unlock(&pa_fs_lock);
    if (out) {
        void *buf = out->get_data_buffer(out->user_data, (u32)k, 1);
        if (k && !buf) k = PP_ERROR_FAILED;
        else if (k) copy(buf, tmp, (size_t)k);
        pa_release_block(tmp);
    }
    return k;
}

static i32 io_read(i32 r, i64 offset, char *buf, i32 n, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileio, io, r, RES_FILEIO, n <= 0 || buf, cb);
    return pa_result_now(cb, pa_io_read(io, offset, buf, n, NULL));
}

static i32 io_read_to_array(i32 r, i64 offset, i32 max, const struct PP_ArrayOutput *output,
                            const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileio, io, r, RES_FILEIO, output && output->get_data_buffer, cb);
    struct PP_ArrayOutput out = *output;
    return pa_result_now(cb, pa_io_read(io, offset, NULL, max, &out));
}

/* The file an open FileIO may write (pa_fs_lock held), or NULL with *result why not. */
static struct pa_fsnode *pa_io_writable(struct pa_fileio *io, i32 *result) {
    *result = !io->node ? PP_ERROR_FAILED : !(io->flags & (PA_OPEN_WRITE | PA_OPEN_APPEND)) ? PP_ERROR_NOACCESS : PP_OK;
    return *result == PP_OK ? io->node : NULL;
}

static i32 io_write(i32 r, i64 offset, const char *buf, i32 n, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_fileio, io, r, RES_FILEIO);
    if (!io) return PP_ERROR_BADRESOURCE;
    if (n < 0 || offset < 0 || (n > 0 && !buf)) return PP_ERROR_FAILED;
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    i32 result;
    int sent = 0;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_io_writable(io, &result);
    if (e) {
        u64 at = io->flags & PA_OPEN_APPEND ? e->size : (u64)offset;
        result = at + (u64)n > e->size ? pa_fs_resize(e, at + (u64)n) : PP_OK;
        if (result == PP_OK) {
            if (n) copy(e->data + at, buf, (size_t)n);
            e->mtime = core_get_time();
            sent = pa_keep_write(e, at, (const u8 *)buf, (u32)n);
            result = n;
        }
    }
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

static i32 io_set_length(i32 r, i64 length, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_fileio, io, r, RES_FILEIO);
    if (!io) return PP_ERROR_BADRESOURCE;
    if (length < 0) return PP_ERROR_FAILED;
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    i32 result;
    int sent = 0;
    lock(&pa_fs_lock);
    struct pa_fsnode *e = pa_io_writable(io, &result);
    if (e) result = pa_fs_resize(e, (u64)length);
    if (e && result == PP_OK) sent = pa_keep_size(e);
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, result, sent);
}

/* In a page, once the page has kept every change before it (each write waits for that
   already); headless, each change is in its file when its call returns. */
static i32 io_flush(i32 r, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_fileio, io, r, RES_FILEIO, 1, cb);
    lock(&pa_fs_lock);
    struct pa_fsnode *e = io->node;
    int kept = pa_page && e && !e->unlinked && pa_keep_loaded[e->fs] == 2;
    unlock(&pa_fs_lock);
    return pa_keep_done(cb, e ? PP_OK : PP_ERROR_FAILED, kept);
}

static void io_close(i32 r) {
    PA_HOLD(struct pa_fileio, io, r, RES_FILEIO);
    if (!io) return;
    lock(&pa_fs_lock);
    if (io->node) pa_node_unref(io->node);
    io->node = NULL;
    unlock(&pa_fs_lock);
}

static void pa_fileref_gone(void *data) {
    struct pa_fileref *f = data;
    core_release_resource(f->fs);
    pa_release_block(f->path);
    pa_release_block(f);
}

static void pa_fileio_gone(void *data) {
    struct pa_fileio *io = data;
    lock(&pa_fs_lock);
    if (io->node) pa_node_unref(io->node);
    unlock(&pa_fs_lock);
    pa_release_block(io);
}

#define PPB_FILESYSTEM_1_0(X)                                                                 \
    X(i32, Create, (i32 instance, i32 type), fs_create)                                       \
    X(i32, IsFileSystem, (i32 r), fs_is)                                                      \
    X(i32, Open, (i32 r, i64 expected_size, const struct PP_CompletionCallback *cb), fs_open) \
    X(i32, GetType, (i32 r), fs_get_type)
PA_TABLE(PPB_FileSystem_1_0, ppb_file_system_1_0, PPB_FILESYSTEM_1_0)

/* PPB_FileRef 1.0 and 1.1, and 1.2: the same but MakeDirectory, which takes a PP_Bool
   (make_ancestors) before 1.2 and flags from it. */
#define PPB_FILEREF(X, make_directory)                                                                                                                   \
    X(i32, Create, (i32 fs, const char *path), ref_create)                                                                               \
    X(i32, IsFileRef, (i32 r), ref_is)                                                                                                   \
    X(i32, GetFileSystemType, (i32 r), ref_get_fs_type)                                                                                  \
    X(void, GetName, (struct PP_Var *out, i32 r), ref_get_name)                                                                          \
    X(void, GetPath, (struct PP_Var *out, i32 r), ref_get_path)                                                                          \
    X(i32, GetParent, (i32 r), ref_get_parent)                                                                                           \
    X(i32, MakeDirectory, (i32 r, i32 flags, const struct PP_CompletionCallback *cb), make_directory)                                    \
    X(i32, Touch, (i32 r, double atime, double mtime, const struct PP_CompletionCallback *cb), ref_touch)                                \
    X(i32, Delete, (i32 r, const struct PP_CompletionCallback *cb), ref_delete)                                                          \
    X(i32, Rename, (i32 r, i32 to, const struct PP_CompletionCallback *cb), ref_rename)                                                  \
    X(i32, Query, (i32 r, struct PP_FileInfo *info, const struct PP_CompletionCallback *cb), ref_query)                                  \
    X(i32, ReadDirectoryEntries, (i32 r, const struct PP_ArrayOutput *output, const struct PP_CompletionCallback *cb), ref_read_entries)
#define PPB_FILEREF_1_1(X) PPB_FILEREF(X, ref_make_directory)
#define PPB_FILEREF_1_2(X) PPB_FILEREF(X, ref_make_directory_flags)
PA_TABLE(PPB_FileRef_1_1, ppb_file_ref_1_1, PPB_FILEREF_1_1)
PA_TABLE(PPB_FileRef_1_2, ppb_file_ref_1_2, PPB_FILEREF_1_2)


#define PPB_FILEIO_1_1(X)                                                                                                                            \
    X(i32, Create, (i32 instance), io_create)                                                                                                        \
    X(i32, IsFileIO, (i32 r), io_is)                                                                                                                 \
    X(i32, Open, (i32 r, i32 ref, i32 flags, const struct PP_CompletionCallback *cb), io_open)                                                       \
    X(i32, Query, (i32 r, struct PP_FileInfo *info, const struct PP_CompletionCallback *cb), io_query)                                               \
    X(i32, Touch, (i32 r, double atime, double mtime, const struct PP_CompletionCallback *cb), io_touch)                                             \
    X(i32, Read, (i32 r, i64 offset, char *buf, i32 n, const struct PP_CompletionCallback *cb), io_read)                                             \
    X(i32, Write, (i32 r, i64 offset, const char *buf, i32 n, const struct PP_CompletionCallback *cb), io_write)                                     \
    X(i32, SetLength, (i32 r, i64 length, const struct PP_CompletionCallback *cb), io_set_length)                                                    \
    X(i32, Flush, (i32 r, const struct PP_CompletionCallback *cb), io_flush)                                                                         \
    X(void, Close, (i32 r), io_close)                                                                                                                \
    X(i32, ReadToArray, (i32 r, i64 offset, i32 max, const struct PP_ArrayOutput *output, const struct PP_CompletionCallback *cb), io_read_to_array)
PA_TABLE(PPB_FileIO_1_1, ppb_file_io_1_1, PPB_FILEIO_1_1)

#endif
