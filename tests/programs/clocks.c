/* A PPAPI plugin in C (built by pnacl-clang; tests/ppapi.rs, tests/site.rs) that reads the
   monotonic clock on two of its threads: its main thread reads it, sleeps 500 ms, then
   starts a thread (in a page, a new worker) that reads it again. It posts the thread's
   reading less the main thread's, in milliseconds: one clock for all threads makes it
   500 or a little more, never less (each worker counting from its own start made it
   negative). */
#include <pthread.h>
#include <time.h>

#include "pp.h"

static const struct PPB_Messaging *messaging;
static struct timespec on_thread;

static void *read_clock(void *arg) {
    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &on_thread);
    return NULL;
}

static int32_t did_create(PP_Instance instance, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    struct timespec on_main, half = {0, 500000000};
    clock_gettime(CLOCK_MONOTONIC, &on_main);
    nanosleep(&half, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, read_clock, NULL)) return 0;
    pthread_join(t, NULL);
    int64_t ms = ((int64_t)on_thread.tv_sec - on_main.tv_sec) * 1000 +
                 ((int64_t)on_thread.tv_nsec - on_main.tv_nsec) / 1000000;
    struct PP_Var v = {3 /* INT32 */, 0, {.as_int = (int32_t)ms}};
    messaging->PostMessage(instance, v);
    return 1;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    messaging = get("PPB_Messaging;1.0");
    return messaging ? 0 : -1;
}

PPAPI_PLUGIN(did_create, initialize)
