/* A PPAPI plugin in C (built by pnacl-clang; tests/ppapi.rs) that sets the mouse cursor
   as Chrome's rules allow and refuse (PPB_MouseCursor;1.0): it posts SetCursor's answer
   for each call, a line each: the browser's cursors (POINTER 0, GRABBING 42, NONE 37),
   a type past the last (45) and before CUSTOM (-2), a custom 16 x 16 image with its hot
   spot inside, on its edge (16) and negative, a 33 x 33 image, no image, a stale one,
   another instance. */
#include "pp.h"

static const struct PPB_Core *core;
static const struct PPB_ImageData *images;
static const struct PPB_Messaging *messaging;
static const struct PPB_MouseCursor *cursor;


static int32_t did_create(PP_Instance instance, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    const struct PP_Size small = {16, 16}, big = {33, 33};
    PP_Resource image = images->Create(instance, 0, &small, 1);
    PP_Resource large = images->Create(instance, 0, &big, 1);
    PP_Resource gone = images->Create(instance, 0, &small, 1);
    core->ReleaseResource(gone);
    const struct PP_Point in = {3, 4}, edge = {16, 0}, negative = {-1, 2};
    int32_t answers[] = {
        cursor->SetCursor(instance, 0, 0, NULL),
        cursor->SetCursor(instance, 42, 0, NULL),
        cursor->SetCursor(instance, 37, 0, NULL),
        cursor->SetCursor(instance, 45, 0, NULL),
        cursor->SetCursor(instance, -2, 0, NULL),
        cursor->SetCursor(instance, -1, image, &in),
        cursor->SetCursor(instance, -1, image, &edge),
        cursor->SetCursor(instance, -1, image, &negative),
        cursor->SetCursor(instance, -1, large, &in),
        cursor->SetCursor(instance, -1, 0, &in),
        cursor->SetCursor(instance, -1, gone, &in),
        cursor->SetCursor(instance + 1, 0, 0, NULL),
    };
    for (unsigned k = 0; k < sizeof answers / sizeof answers[0]; k++) {
        struct PP_Var v = {3 /* INT32 */, 0, {.as_int = answers[k]}};
        messaging->PostMessage(instance, v);
    }
    return 1;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    core = get("PPB_Core;1.0");
    images = get("PPB_ImageData;1.0");
    messaging = get("PPB_Messaging;1.0");
    cursor = get("PPB_MouseCursor;1.0");
    return core && images && messaging && cursor ? 0 : -1;
}

PPAPI_PLUGIN(did_create, initialize)
