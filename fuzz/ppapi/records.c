/*
 * libFuzzer target for the page's records of the kept file systems (runtime/ppapi/ppb_file_keep.h:
 * FS_FILE, FS_LOADED, FS_SYNCED), which the page sends the PPAPI host while a plugin's
 * file systems load. The page is trusted no more than the plugin (what it sends comes from
 * the origin's storage and its own script), so each record is hostile. Built for the build
 * machine with clang-14 -fsanitize=fuzzer,address,undefined by tests/ppapi.rs (and
 * `scripts/fuzz ppapi-records`).
 *
 * An input is records, each a kind byte (its low two bits: FS_FILE, FS_LOADED, FS_SYNCED,
 * FS_FILE), a length byte, then that many bytes of body. Both file systems are loading
 * when an input starts. After the input, the file systems in memory must be such as a
 * plugin could have made: every path one a FileRef takes, every node's folder there and a
 * folder, no path twice, the counts and bytes within their bounds and as the nodes add up.
 * Then every node is removed, and nothing may be left.
 */
#include "host.h"

static void fail(const char *why, const struct pa_fsnode *e) {
    fprintf(stderr, "%s: %.*s\n", why, e ? (int)e->plen : 0, e ? e->path : "");
    abort();
}

static void check(void) {
    u32 count = 0;
    u64 bytes = 0;
    for (struct pa_fsnode *e = pa_fs_nodes; e; e = e->next) {
        count++;
        bytes += e->cap;
        if (e->fs != PP_FS_PERSISTENT && e->fs != PP_FS_TEMPORARY) fail("a node of no local file system", e);
        if (!pa_keep_path_ok(e->path, e->plen) || e->path[e->plen] != 0) fail("a path no FileRef takes", e);
        if (e->size > e->cap || (e->dir && e->size)) fail("a size past its bytes, or a folder with bytes", e);
        if (!pa_fs_is_dir(e->fs, e->path, pa_parent_len(e->path, e->plen))) fail("a node outside any folder", e);
        for (struct pa_fsnode *x = e->next; x; x = x->next)
            if (x->fs == e->fs && pa_path_eq(x->path, x->plen, e->path, e->plen)) fail("a path twice", e);
    }
    if (count != pa_fs_count || bytes != pa_fs_bytes || pa_fs_bytes > PA_FS_MAX_BYTES || count > PA_FS_MAX_NODES)
        fail("the counts are not what the nodes add up to", NULL);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size) {
    static const u32 kinds[4] = {PA_FROM_FS_FILE, PA_FROM_FS_LOADED, PA_FROM_FS_SYNCED, PA_FROM_FS_FILE};
    pa_keep_loaded[PP_FS_PERSISTENT] = pa_keep_loaded[PP_FS_TEMPORARY] = 1;
    for (size_t i = 0; i + 2 <= size;) {
        u32 kind = kinds[data[i] & 3], n = data[i + 1];
        i += 2;
        if (n > size - i) n = (u32)(size - i);
        /* The body where the page reader leaves it: its own buffer, 4-aligned. */
        u8 *body = malloc(n + 4);
        memcpy(body, data + i, n);
        if (n >= 4) pa_keep_from_page(kind, body, n);
        free(body);
        i += n;
    }
    check();
    while (pa_fs_nodes) pa_fs_unlink(pa_fs_nodes);
    if (pa_fs_count || pa_fs_bytes) fail("nodes left after every one was removed", NULL);
    return 0;
}
