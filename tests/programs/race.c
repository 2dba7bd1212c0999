/* A PPAPI plugin in C (built by pnacl-clang, with the few declarations of ppapi/c it needs
   written here) that races the host's resource table from two threads, as a hostile or
   careless plugin may (tests/ppapi.rs):
   - a maker makes 16 x 16 images, publishes each id, then releases it as the reader
     starts to describe it, and makes a 2-D device (whose state may take the freed image's
     memory), 20,000 times;
   - a reader describes whatever id is published meanwhile: a description it gets must be
     16 x 16 with a stride of 64, never another's state or freed memory;
   - then a stale id: an image made and released, another made (in the same slot), and
     the old id described: it must name nothing.
   It posts three numbers: wrong descriptions, stale ids that named something, and how
   many descriptions the reader got (some, or the race was not run). */
#include <pthread.h>

#include "pp.h"

static const struct PPB_Core *core;
static const struct PPB_ImageData *images;
static const struct PPB_Graphics2D *g2d;
static const struct PPB_Messaging *messaging;
static PP_Instance instance;
static volatile PP_Resource published, reading;
static volatile int done, wrong, described;

static const struct PP_Size small = {16, 16};

static void *maker(void *arg) {
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        PP_Resource r = images->Create(instance, 0, &small, 1);
        __atomic_store_n(&published, r, __ATOMIC_SEQ_CST);
        /* Released as the reader starts to describe it (or soon after, if it is slow). */
        for (int spin = 0; spin < 100000 && __atomic_load_n(&reading, __ATOMIC_SEQ_CST) != r; spin++) {
        }
        core->ReleaseResource(r);
        struct PP_Size big = {8 + i % 64, 8};
        PP_Resource d = g2d->Create(instance, &big, 0);
        core->ReleaseResource(d);
    }
    __atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST)) {
        struct PP_ImageDataDesc d;
        memset(&d, 0x55, sizeof d);
        PP_Resource r = __atomic_load_n(&published, __ATOMIC_SEQ_CST);
        __atomic_store_n(&reading, r, __ATOMIC_SEQ_CST);
        if (images->Describe(r, &d)) {
            described++;
            if (d.size.width != 16 || d.size.height != 16 || d.stride != 64 || d.format != 0) wrong++;
        }
    }
    return NULL;
}

static void post(int32_t n) {
    struct PP_Var v = {3 /* INT32 */, 0, {.as_int = n}};
    messaging->PostMessage(instance, v);
}

static int32_t did_create(PP_Instance i, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    instance = i;
    pthread_t a, b;
    pthread_create(&b, NULL, reader, NULL);
    pthread_create(&a, NULL, maker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    PP_Resource old = images->Create(instance, 0, &small, 1);
    core->ReleaseResource(old);
    PP_Resource now = images->Create(instance, 0, &small, 1);
    struct PP_ImageDataDesc d;
    int stale = images->Describe(old, &d) != 0 && old != now;
    core->ReleaseResource(now);
    post(wrong);
    post(stale);
    post(described > 0 ? 1 : 0);
    return 1;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    core = get("PPB_Core;1.0");
    images = get("PPB_ImageData;1.0");
    g2d = get("PPB_Graphics2D;1.0");
    messaging = get("PPB_Messaging;1.0");
    return core && images && g2d && messaging ? 0 : -1;
}


PPAPI_PLUGIN(did_create, initialize)
