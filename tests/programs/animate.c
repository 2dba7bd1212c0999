/* A PPAPI plugin in C (built by pnacl-clang; tests/ppapi.rs) that animates and posts
   nothing: from DidCreate on, a callback every 16 ms on its main thread (as an animation
   draws each frame) schedules the next, for ever. It posts one message, 1, at its first
   frame. Headless, once its input has ended it must still end: it has posted nothing
   for 2 s, however busy its own callbacks keep it. */
#include "pp.h"

static const struct PPB_Core *core;
static const struct PPB_Messaging *messaging;
static PP_Instance the_instance;
static int frames;

static void frame(void *user_data, int32_t result) {
    (void)user_data, (void)result;
    if (++frames == 1) {
        struct PP_Var v = {3 /* INT32 */, 0, {.as_int = 1}};
        messaging->PostMessage(the_instance, v);
    }
    struct PP_CompletionCallback next = {frame, NULL, 0};
    core->CallOnMainThread(16, next, 0);
}

static int32_t did_create(PP_Instance instance, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    the_instance = instance;
    struct PP_CompletionCallback first = {frame, NULL, 0};
    core->CallOnMainThread(16, first, 0);
    return 1;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    core = get("PPB_Core;1.0");
    messaging = get("PPB_Messaging;1.0");
    return core && messaging ? 0 : -1;
}

PPAPI_PLUGIN(did_create, initialize)
