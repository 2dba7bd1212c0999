/* A PPAPI plugin in C (built by pnacl-clang; tests/site.rs's "decoder" page) that decodes
   the H.264 access units its page posts (each an ArrayBuffer, then the string "go"; or
   VP8 frames, then "vp8") with PPB_VideoDecoder, as Chrome's behaved, and posts, as
   integers, what it sees:
     thread A (blocking calls): Initialize (1.1, High or VP8, no acceleration) 0; Initialize again
       -2 (FAILED); a Decode of 5 MiB -8 (NOMEMORY); then each unit decoded, decode_id
       100 + its index; Flush 0;
     thread B, meanwhile (blocking GetPicture, a picture a unit): for each picture 1000,
       its decode_id, target, texture size, visible rect, and two pixels read back from
       its texture through a framebuffer (the centre and (10, 10), each 0xRRGGBB);
     thread C: a GetPicture that waits, ended by thread A's Reset: -3 (ABORTED); Reset 0;
     thread A again: the first unit again (decode_id 200), whose picture thread B takes
       (2000, decode_id, centre pixel: B's worker draws the context, as the first to use
       it, and a thread's GL calls are served in that worker only);
     a decoder of 0.2 (PP_VideoPicture_0_1, 20 bytes): Initialize 0, the first unit,
       GetPicture: 3000, decode_id, texture size, and whether the bytes past the 20 are
       untouched (1); then 99. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "pp.h"

struct PP_Rect {
    int32_t x, y, w, h;
};
struct PP_VideoPicture {
    uint32_t decode_id, texture_id, texture_target;
    struct PP_Size texture_size;
    struct PP_Rect visible_rect;
};
struct PPB_VideoDecoder_1_1 {
    PP_Resource (*Create)(PP_Instance);
    int32_t (*IsVideoDecoder)(PP_Resource);
    int32_t (*Initialize)(PP_Resource, PP_Resource g3d, int32_t profile, int32_t acceleration, uint32_t min_pictures,
                          struct PP_CompletionCallback);
    int32_t (*Decode)(PP_Resource, uint32_t decode_id, uint32_t size, const void *buffer, struct PP_CompletionCallback);
    int32_t (*GetPicture)(PP_Resource, struct PP_VideoPicture *, struct PP_CompletionCallback);
    void (*RecyclePicture)(PP_Resource, const struct PP_VideoPicture *);
    int32_t (*Flush)(PP_Resource, struct PP_CompletionCallback);
    int32_t (*Reset)(PP_Resource, struct PP_CompletionCallback);
};
struct PPB_VideoDecoder_0_2 {
    PP_Resource (*Create)(PP_Instance);
    int32_t (*IsVideoDecoder)(PP_Resource);
    int32_t (*Initialize)(PP_Resource, PP_Resource g3d, int32_t profile, int32_t acceleration, struct PP_CompletionCallback);
    int32_t (*Decode)(PP_Resource, uint32_t decode_id, uint32_t size, const void *buffer, struct PP_CompletionCallback);
    int32_t (*GetPicture)(PP_Resource, void *picture_0_1, struct PP_CompletionCallback);
    void (*RecyclePicture)(PP_Resource, const void *);
    int32_t (*Flush)(PP_Resource, struct PP_CompletionCallback);
    int32_t (*Reset)(PP_Resource, struct PP_CompletionCallback);
};
struct PPB_Graphics3D {
    int32_t (*GetAttribMaxValue)(PP_Resource, int32_t, int32_t *);
    PP_Resource (*Create)(PP_Instance, PP_Resource share, const int32_t *attribs);
};
struct PPB_VarArrayBuffer {
    struct PP_Var (*Create)(uint32_t);
    int32_t (*ByteLength)(struct PP_Var, uint32_t *);
    void *(*Map)(struct PP_Var);
    void (*Unmap)(struct PP_Var);
};
struct PPB_Var {
    void (*AddRef)(struct PP_Var);
    void (*Release)(struct PP_Var);
    struct PP_Var (*VarFromUtf8)(const char *, uint32_t);
    const char *(*VarToUtf8)(struct PP_Var, uint32_t *);
};
/* PPB_OpenGLES2;1.0's table: the entries used, by their place in it. */
enum { GL_BIND_FRAMEBUFFER = 4, GL_GEN_FRAMEBUFFERS = 51, GL_FRAMEBUFFER_TEXTURE_2D = 47, GL_READ_PIXELS = 92 };
struct PPB_OpenGLES2 {
    void *entry[142];
};

enum { ARRAY_BUFFER_VAR = 9, STRING_VAR = 5, MAX_UNITS = 64 };
enum { PP_ERROR_ABORTED = -3 };

static const struct PPB_Messaging *messaging;
static const struct PPB_VideoDecoder_1_1 *vd;
static const struct PPB_VideoDecoder_0_2 *vd02;
static const struct PPB_Graphics3D *g3d_api;
static const struct PPB_VarArrayBuffer *buffers;
static const struct PPB_Var *vars;
static const struct PPB_OpenGLES2 *gl;
static PP_Instance the_instance;
static PP_Resource g3d, dec;
static int32_t profile = 3; /* H264HIGH; VP8_ANY is 11 */
static const struct PP_CompletionCallback block = {NULL, NULL, 0};
static struct {
    void *bytes;
    uint32_t size;
} units[MAX_UNITS];
static int nunits;

static void post(int32_t n) {
    struct PP_Var v = {3 /* INT32 */, 0, {.as_int = n}};
    messaging->PostMessage(the_instance, v);
}

/* The pixel at (x, y) of texture `t` (row 0 the picture's top), as 0xRRGGBB. */
static int32_t pixel(uint32_t t, int32_t x, int32_t y) {
    static uint32_t fb;
    if (!fb) ((void (*)(PP_Resource, int32_t, uint32_t *))gl->entry[GL_GEN_FRAMEBUFFERS])(g3d, 1, &fb);
    ((void (*)(PP_Resource, uint32_t, uint32_t))gl->entry[GL_BIND_FRAMEBUFFER])(g3d, 0x8D40, fb);
    ((void (*)(PP_Resource, uint32_t, uint32_t, uint32_t, uint32_t, int32_t))gl->entry[GL_FRAMEBUFFER_TEXTURE_2D])(
        g3d, 0x8D40, 0x8CE0, 0x0DE1, t, 0);
    uint8_t p[4] = {0};
    ((void (*)(PP_Resource, int32_t, int32_t, int32_t, int32_t, uint32_t, uint32_t, void *))gl->entry[GL_READ_PIXELS])(
        g3d, x, y, 1, 1, 0x1908, 0x1401, p);
    ((void (*)(PP_Resource, uint32_t, uint32_t))gl->entry[GL_BIND_FRAMEBUFFER])(g3d, 0x8D40, 0);
    return p[0] << 16 | p[1] << 8 | p[2];
}

static volatile int again, taken;

static void *pictures(void *arg) {
    (void)arg;
    for (int i = 0; i < nunits; i++) {
        struct PP_VideoPicture pic;
        if (vd->GetPicture(dec, &pic, block) != 0) abort();
        post(1000);
        post((int32_t)pic.decode_id);
        post((int32_t)pic.texture_target);
        post(pic.texture_size.width), post(pic.texture_size.height);
        post(pic.visible_rect.x), post(pic.visible_rect.y), post(pic.visible_rect.w), post(pic.visible_rect.h);
        post(pixel(pic.texture_id, pic.texture_size.width / 2, pic.texture_size.height / 2));
        post(pixel(pic.texture_id, 10, 10));
        vd->RecyclePicture(dec, &pic);
        taken++;
    }
    while (!again) sched_yield();
    struct PP_VideoPicture pic;
    if (vd->GetPicture(dec, &pic, block) != 0) abort();
    post(2000), post((int32_t)pic.decode_id), post(pixel(pic.texture_id, pic.texture_size.width / 2, pic.texture_size.height / 2));
    vd->RecyclePicture(dec, &pic);
    return NULL;
}

static volatile int waiting;

static void *waiter(void *arg) {
    (void)arg;
    struct PP_VideoPicture pic;
    waiting = 1;
    post(vd->GetPicture(dec, &pic, block));
    return NULL;
}

static void *work(void *arg) {
    (void)arg;
    post(vd->Initialize(dec, g3d, profile, 2 /* NONE */, 0, block));
    post(vd->Initialize(dec, g3d, profile, 2, 0, block));
    static char big[5 << 20];
    post(vd->Decode(dec, 1, sizeof big, big, block));
    pthread_t b;
    if (pthread_create(&b, NULL, pictures, NULL)) abort();
    for (int i = 0; i < nunits; i++)
        if (vd->Decode(dec, 100 + i, units[i].size, units[i].bytes, block) != 0) abort();
    int32_t flushed = vd->Flush(dec, block);
    while (taken < nunits) sched_yield(); /* (its posts first) */
    post(flushed);

    pthread_t c;
    if (pthread_create(&c, NULL, waiter, NULL)) abort();
    while (!waiting) sched_yield();
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    int32_t reset = vd->Reset(dec, block);
    pthread_join(c, NULL);
    post(reset);
    if (vd->Decode(dec, 200, units[0].size, units[0].bytes, block) != 0) abort();
    again = 1;
    pthread_join(b, NULL);

    PP_Resource old = vd02->Create(the_instance);
    post(vd02->Initialize(old, g3d, profile, 2, block));
    if (vd02->Decode(old, 7, units[0].size, units[0].bytes, block) != 0) abort();
    uint8_t p01[36];
    memset(p01, 0xAB, sizeof p01);
    if (vd02->GetPicture(old, p01, block) != 0) abort();
    uint32_t w[5];
    memcpy(w, p01, sizeof w);
    int untouched = 1;
    for (int i = 20; i < 36; i++) untouched &= p01[i] == 0xAB;
    post(3000), post((int32_t)w[0]), post((int32_t)w[3]), post((int32_t)w[4]), post(untouched);
    post(99);
    return NULL;
}

static void handle_message(PP_Instance instance, struct PP_Var message) {
    (void)instance;
    if (message.type == ARRAY_BUFFER_VAR && nunits < MAX_UNITS) {
        uint32_t n = 0;
        buffers->ByteLength(message, &n);
        void *copy = malloc(n);
        memcpy(copy, buffers->Map(message), n);
        units[nunits].bytes = copy;
        units[nunits++].size = n;
    } else if (message.type == STRING_VAR) {
        uint32_t n = 0;
        const char *text = vars->VarToUtf8(message, &n);
        if (n == 3 && !memcmp(text, "vp8", 3)) profile = 11;
        pthread_t t;
        if (pthread_create(&t, NULL, work, NULL)) abort();
    }
}

static int32_t did_create(PP_Instance instance, uint32_t argc, const char *argn[], const char *argv[]) {
    (void)argc, (void)argn, (void)argv;
    the_instance = instance;
    static const int32_t attribs[] = {0x3057 /* WIDTH */, 64, 0x3056 /* HEIGHT */, 64, 0x3038 /* NONE */};
    g3d = g3d_api->Create(instance, 0, attribs);
    dec = vd->Create(instance);
    return g3d && dec;
}

static int32_t initialize(PP_Module m, PPB_GetInterface get) {
    (void)m;
    messaging = get("PPB_Messaging;1.0");
    vd = get("PPB_VideoDecoder;1.1");
    vd02 = get("PPB_VideoDecoder;0.2");
    g3d_api = get("PPB_Graphics3D;1.0");
    buffers = get("PPB_VarArrayBuffer;1.0");
    vars = get("PPB_Var;1.0");
    gl = get("PPB_OpenGLES2;1.0");
    return messaging && vd && vd02 && g3d_api && buffers && vars && gl ? 0 : -1;
}

PPAPI_PLUGIN_WITH_MESSAGES(did_create, initialize, handle_message)
