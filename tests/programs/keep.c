/* A PPAPI plugin in C (built by pnacl-clang; tests/ppapi.rs, tests/site.rs) that keeps
   files in its local file systems and finds them in its next run, as Chrome kept an
   origin's. On a thread of its own (blocking calls), it opens its persistent file system
   and posts, as integers, what it finds there (then changes it for the next run):
     1. the number in /notes/count (0 without the file), which it then writes one more;
     2. whether /notes/big holds its 300,000 bytes (1), is missing (0, and is written
        now, in two writes), or holds other bytes (-1);
     3. whether /notes/a is there (it is written now, then renamed /notes/b);
     4. /notes/b's first byte (0 without the file);
     5. whether /notes/gone is there (it is written now, then deleted);
     6. its temporary file system's /t's first byte (0 without it; written "t" now);
     7. 99, the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pp.h"

struct PPB_FileSystem {
    PP_Resource (*Create)(PP_Instance, int32_t type);
    int32_t (*IsFileSystem)(PP_Resource);
    int32_t (*Open)(PP_Resource, int64_t expected_size, struct PP_CompletionCallback);
    int32_t (*GetType)(PP_Resource);
};
struct PPB_FileRef {
    PP_Resource (*Create)(PP_Resource fs, const char *path);
    int32_t (*IsFileRef)(PP_Resource);
    int32_t (*GetFileSystemType)(PP_Resource);
    void *GetName, *GetPath;
    PP_Resource (*GetParent)(PP_Resource);
    int32_t (*MakeDirectory)(PP_Resource, int32_t make_ancestors, struct PP_CompletionCallback);
    int32_t (*Touch)(PP_Resource, double, double, struct PP_CompletionCallback);
    int32_t (*Delete)(PP_Resource, struct PP_CompletionCallback);
    int32_t (*Rename)(PP_Resource, PP_Resource to, struct PP_CompletionCallback);
};
struct PPB_FileIO {
    PP_Resource (*Create)(PP_Instance);
    int32_t (*IsFileIO)(PP_Resource);
    int32_t (*Open)(PP_Resource, PP_Resource ref, int32_t flags, struct PP_CompletionCallback);
    int32_t (*Query)(PP_Resource, void *info, struct PP_CompletionCallback);
    int32_t (*Touch)(PP_Resource, double, double, struct PP_CompletionCallback);
    int32_t (*Read)(PP_Resource, int64_t offset, char *buf, int32_t n, struct PP_CompletionCallback);
    int32_t (*Write)(PP_Resource, int64_t offset, const char *buf, int32_t n, struct PP_CompletionCallback);
    int32_t (*SetLength)(PP_Resource, int64_t length, struct PP_CompletionCallback);
    int32_t (*Flush)(PP_Resource, struct PP_CompletionCallback);
    void (*Close)(PP_Resource);
};

enum { PERSISTENT = 2, TEMPORARY = 3 };
enum { READ = 1, WRITE = 2, CREATE = 4, TRUNCATE = 8 };
#define BIG 300000

static const struct PPB_Messaging *messaging;
static const struct PPB_FileSystem *fs_api;
static const struct PPB_FileRef *ref_api;
static const struct PPB_FileIO *io_api;
static PP_Instance the_instance;
static const struct PP_CompletionCallback block = {NULL, NULL, 0};

static void post(int32_t n) {
    struct PP_Var v = {3 /* INT32 */, 0, {.as_int = n}};
    messaging->PostMessage(the_instance, v);
}

/* The first `max` bytes of `path`, into `buf`: their count, or -1 without the file. */
static int32_t read_file(PP_Resource fs, const char *path, char *buf, int32_t max) {
    PP_Resource ref = ref_api->Create(fs, path), io = io_api->Create(the_instance);
    int32_t n = -1;
    if (io_api->Open(io, ref, READ, block) == 0) {
        n = 0;
        for (int32_t got; n < max && (got = io_api->Read(io, n, buf + n, max - n, block)) > 0;) n += got;
    }
    io_api->Close(io);
    return n;
}

/* `n` bytes of `buf` as all of file `path`, in writes of at most `piece` bytes. */
static void write_file(PP_Resource fs, const char *path, const char *buf, int32_t n, int32_t piece) {
    PP_Resource ref = ref_api->Create(fs, path), io = io_api->Create(the_instance);
    if (io_api->Open(io, ref, WRITE | CREATE | TRUNCATE, block) != 0) abort();
    for (int32_t at = 0; at < n; at += piece)
        if (io_api->Write(io, at, buf + at, n - at < piece ? n - at : piece, block) <= 0) abort();
    io_api->Close(io);
}

static void *work(void *arg) {
    (void)arg;
    static char buf[BIG + 1], big[BIG];
    PP_Resource fs = fs_api->Create(the_instance, PERSISTENT);
    if (fs_api->Open(fs, 1 << 20, block) != 0) abort();
    ref_api->MakeDirectory(ref_api->Create(fs, "/notes"), 1, block);

    int32_t n = read_file(fs, "/notes/count", buf, 20);
    buf[n > 0 ? n : 0] = 0;
    int count = atoi(buf);
    post(count);
    n = snprintf(buf, sizeof buf, "%d", count + 1);
    write_file(fs, "/notes/count", buf, n, n);

    for (int32_t i = 0; i < BIG; i++) big[i] = (char)(i * 7 + i / 251);
    n = read_file(fs, "/notes/big", buf, BIG + 1);
    post(n < 0 ? 0 : n == BIG && !memcmp(buf, big, BIG) ? 1 : -1);
    if (n < 0) write_file(fs, "/notes/big", big, BIG, 200000);

    post(read_file(fs, "/notes/a", buf, 1) >= 0);
    write_file(fs, "/notes/a", "A", 1, 1);
    ref_api->Rename(ref_api->Create(fs, "/notes/a"), ref_api->Create(fs, "/notes/b"), block);
    post(read_file(fs, "/notes/b", buf, 1) == 1 ? buf[0] : 0);

    post(read_file(fs, "/notes/gone", buf, 1) >= 0);
    write_file(fs, "/notes/gone", "G", 1, 1);
    ref_api->Delete(ref_api->Create(fs, "/notes/gone"), block);

    PP_Resource tmp = fs_api->Create(the_instance, TEMPORARY);
    if (fs_api->Open(tmp, 1 << 20, block) != 0) abort();
    post(read_file(tmp, "/t", buf, 1) == 1 ? buf[0] : 0);
    write_file(tmp, "/t", "t", 1, 1);
    post(99);
    return NULL;
}

static int32_t did_create(PP_Instance instance, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    the_instance = instance;
    pthread_t t;
    return pthread_create(&t, NULL, work, NULL) == 0;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    messaging = get("PPB_Messaging;1.0");
    fs_api = get("PPB_FileSystem;1.0");
    ref_api = get("PPB_FileRef;1.1");
    io_api = get("PPB_FileIO;1.1");
    return messaging && fs_api && ref_api && io_api ? 0 : -1;
}

PPAPI_PLUGIN(did_create, initialize)
