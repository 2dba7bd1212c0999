/*
 * libFuzzer target for a video decoder's records from the page (runtime/ppapi/ppb_video_decoder.h:
 * VD_DONE, VD_DECODED, VD_SIZE, VD_PICTURE, VD_ERROR), interleaved with the plugin's own
 * calls (Decode, GetPicture, RecyclePicture, Flush, Reset), as a hostile page and a
 * hostile plugin might make them. Built for the build machine with clang-14
 * -fsanitize=fuzzer,address,undefined by tests/ppapi.rs (and `scripts/fuzz ppapi-video`),
 * with the `gl` imports doing nothing (no page).
 *
 * An input is steps, each a kind byte and three argument bytes: the kind's low three bits
 * a record of the page's (the first five) or a call of the plugin's. Each input starts
 * with a new decoder, initialized. After the input the decoder must be one the host could
 * have made: its pictures waiting for GetPicture each once and each READY, no more of a
 * state than there are, every picture's pixels there when it has a size, the pool within
 * its bounds; then it goes (its buffers kept until the page answers, which it does).
 */
#define PA_HAVE_GL 1
#pragma clang diagnostic ignored "-Wunknown-attributes" /* the imports' wasm attributes */
#include "host.h"

/* The `gl` imports: nothing, no page (a context can be made). */
#define GL_STUB(result, name, params) GL_RESULT_##result gl_##name params { return (GL_RESULT_##result)1; }
#define GL_NOT_STUB(name)
PA_GL_IMPORTS(GL_STUB, GL_NOT_STUB)

static void fail(const char *why) {
    fprintf(stderr, "%s\n", why);
    abort();
}

static void ignore(void *data, i32 result) { (void)data, (void)result; }

/* Runs the callbacks queued for the main thread (a GetPicture's that waited among them). */
static void run_events(void) {
    while (pa_head) {
        struct pa_event *e = pa_head;
        pa_head = e->next;
        if (!pa_head) pa_tail = NULL;
        if (e->kind == EV_CALLBACK && e->cb.func) e->cb.func(e->cb.user_data, e->result);
        pa_release_block(e);
    }
}

static void check(struct pa_vd *vd) {
    u32 ready = 0;
    for (u32 k = 0; k < PA_VD_PICTURES; k++) {
        struct pa_vd_picture *p = &vd->pics[k];
        if (p->state < VDP_NONE || p->state > VDP_PLUGIN) fail("a picture of no state");
        if (p->state != VDP_NONE && (!p->pixels || p->w <= 0 || p->h <= 0)) fail("a picture without its pixels");
        if (p->state == VDP_READY) ready++;
    }
    if (ready != vd->ready_n || vd->ready_n > PA_VD_PICTURES) fail("the pictures waiting are not the READY ones");
    for (u32 i = 0; i < vd->ready_n; i++) {
        u32 k = vd->ready[(vd->ready_head + i) % PA_VD_PICTURES];
        if (k >= PA_VD_PICTURES || vd->pics[k].state != VDP_READY) fail("a picture waiting that is not READY");
        for (u32 j = i + 1; j < vd->ready_n; j++)
            if (vd->ready[(vd->ready_head + j) % PA_VD_PICTURES] == k) fail("a picture waiting twice");
    }
    if (vd->nbuffers > PA_VD_PENDING || vd->ndead > PA_VD_PICTURES) fail("more buffers than there may be");
    if ((u64)vd->pool_w * (u64)vd->pool_h * 4 * PA_VD_POOL > PA_VD_MAX_PIXELS) fail("a pool past its bound");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size) {
    static const u32 kinds[5] = {PA_FROM_VD_DONE, PA_FROM_VD_DECODED, PA_FROM_VD_SIZE, PA_FROM_VD_PICTURE, PA_FROM_VD_ERROR};
    static u8 bitstream[4096];
    static u8 picture[36];
    if (!pa_main_thread) pa_main_thread = 1;
    i32 g3d = g3d_create(pa_instance, 0, NULL);
    i32 r = vd_create(pa_instance);
    if (!g3d || !r) fail("no decoder");
    struct PP_CompletionCallback cb = {ignore, NULL, 0};
    vd_initialize(r, g3d, 3, 1, 0, &cb);
    u32 done[3] = {(u32)r, VD_DONE_INIT, PP_OK};
    pa_vd_from_page(PA_FROM_VD_DONE, (const u8 *)done, 12);
    struct pa_hold hold = pa_hold(r, RES_VIDEO_DECODER);
    struct pa_vd *vd = hold.data;
    if (!vd) fail("the decoder is not there");
    for (size_t i = 0; i + 4 <= size; i += 4) {
        u8 k = data[i], a = data[i + 1], b = data[i + 2], c = data[i + 3];
        if ((k & 7) < 5) {
            /* A record of the page's: the decoder, then words made of the arguments (a
               small size, a picture, a uid near the decodes made, any word). */
            u32 body[5] = {(u32)r, a & 0x80 ? (u32)a * 0x01010101u : (u32)a, (u32)b * 4 + 1, (u32)c, (u32)b};
            if (kinds[k & 7] == PA_FROM_VD_SIZE) body[1] = (u32)a * 8 + 1, body[2] = (u32)b * 8 + 1;
            if (kinds[k & 7] == PA_FROM_VD_PICTURE) body[1] = a % PA_VD_PICTURES, body[2] = b, body[3] = vd->pool_w, body[4] = vd->pool_h;
            if (kinds[k & 7] == PA_FROM_VD_DECODED) body[1] = vd->decodes - (a & 15);
            u32 n = 8 + 4 * (u32)(k >> 3) % 16;
            pa_vd_from_page(kinds[k & 7], (const u8 *)body, n > 20 ? 20 : n);
        } else if ((k & 7) == 5) {
            vd_decode(r, a, (u32)b * 16, bitstream, &cb);
        } else if ((k & 7) == 6) {
            if (a & 1) vd_get_picture(r, picture, &cb);
            else vd_get_picture_0_1(r, picture, &cb);
            /* (A waiting GetPicture's picture is taken when its callback runs.) */
            if (b & 1) run_events();
        } else {
            u32 texture = PA_VD_TEXTURES + c;
            u32 pic[9] = {0, a & 1 ? texture : vd->pics[b % PA_VD_PICTURES].texture};
            if (k & 0x10) vd_recycle_picture(r, pic);
            else if (k & 0x20) vd_flush(r, &cb);
            else if (k & 0x40) vd_reset(r, &cb);
        }
        check(vd);
    }
    run_events();
    check(vd);
    /* It goes: its buffers stay until the page says it is done with them. */
    pa_drop(&hold);
    core_release_resource(r);
    core_release_resource(g3d);
    u32 gone[3] = {(u32)r, VD_DONE_DESTROY, PP_OK};
    pa_vd_from_page(PA_FROM_VD_DONE, (const u8 *)gone, 12);
    if (pa_vd_dying) fail("a gone decoder kept after the page's answer");
    run_events();
    return 0;
}
