/*
 * PPB_Graphics2D;1.0, 1.1: 2-D devices, their frames handed to the page (PA_TO_FLUSH) and
 * shown there (PA_FROM_FLUSHED), or done at the display's rate headless.
 */
#ifndef PA_PPB_GRAPHICS2D_H
#define PA_PPB_GRAPHICS2D_H

#include "loop.h"
#include "ppb_image_data.h"

/* A 2-D device: its backing store (BGRA, premultiplied), the operations queued since the
   last Flush, and the Flush the page has not shown yet. */
static void g2d_gone(void *data);
static int g2d_bound(i32 r, i32 *w, i32 *h, float *scale);
static void g2d_flushed(i32 r);
static const struct pa_kind pa_kind_graphics2d = {"Graphics2D", g2d_gone, g2d_bound, g2d_flushed};
#define RES_GRAPHICS2D (&pa_kind_graphics2d)

enum { G2D_PAINT, G2D_REPLACE, G2D_SCROLL };
#define G2D_MAX_OPS 64

struct pa_g2d_op {
    i32 kind, image;
    struct PP_Point at;
    struct PP_Rect rect; /* PAINT: the source rectangle; SCROLL: the clip */
};

struct pa_g2d {
    i32 w, h, opaque, resource;
    float scale;
    u8 *store;
    struct pa_g2d_op ops[G2D_MAX_OPS];
    i32 nops;
    struct pa_pending flush;   /* a Flush on its way to the screen */
};

static volatile int pa_g2d_lock;

static i32 g2d_create(i32 instance, const struct PP_Size *size, i32 opaque) {
    if (!(pa_page || pa_headless_2d) || instance != pa_instance || !size) return 0;
    struct PP_Size sz = *size;
    if (!pa_size_ok(sz.width, sz.height)) return 0;
    u8 *store;
    struct pa_g2d *g = pa_with_pixels(sizeof *g, sz, &store);
    if (!g) return 0;
    g->w = sz.width;
    g->h = sz.height;
    g->opaque = opaque != 0;
    g->scale = 1;
    g->store = store;
    i32 r = pa_new_resource_with(RES_GRAPHICS2D, g);
    if (!r) {
        pa_release_block(store);
        pa_release_block(g);
        return 0;
    }
    g->resource = r;
    return r;
}

static i32 g2d_is(i32 r) { return pa_resource_kind(r) == RES_GRAPHICS2D; }

static i32 g2d_describe(i32 r, struct PP_Size *size, i32 *opaque) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (size) pa_zero(size, sizeof *size);
    if (opaque) *opaque = 0;
    if (!g) return 0;
    if (size) size->width = g->w, size->height = g->h;
    if (opaque) *opaque = g->opaque;
    return 1;
}

/* Queues operation `op` on device `r` (dropped if the device is not one, or its queue is
   full: a plugin that paints 64 times between two flushes loses the oldest frames' work
   only in order). The image is held until the Flush. */
static void g2d_queue(i32 r, struct pa_g2d_op op) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g || (op.kind != G2D_SCROLL && !image_is(op.image))) return;
    lock(&pa_g2d_lock);
    if (g->nops < G2D_MAX_OPS) {
        if (op.kind != G2D_SCROLL) core_addref_resource(op.image);
        g->ops[g->nops++] = op;
    }
    unlock(&pa_g2d_lock);
}

static void g2d_paint(i32 r, i32 image, const struct PP_Point *top_left, const struct PP_Rect *src) {
    struct pa_g2d_op op = {G2D_PAINT, image, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    if (top_left) op.at = *top_left;
    if (src) op.rect = *src;
    g2d_queue(r, op);
}

static void g2d_scroll(i32 r, const struct PP_Rect *clip, const struct PP_Point *amount) {
    struct pa_g2d_op op = {G2D_SCROLL, 0, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    if (amount) op.at = *amount;
    if (clip) op.rect = *clip;
    g2d_queue(r, op);
}

static void g2d_replace(i32 r, i32 image) {
    struct pa_g2d_op op = {G2D_REPLACE, image, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    g2d_queue(r, op);
}

/* Clips rectangle `r` to 0..w x 0..h (empty: w or h 0). */
static struct PP_Rect pa_clip(struct PP_Rect r, i32 w, i32 h) {
    i64 x0 = r.x, y0 = r.y, x1 = (i64)r.x + (r.w > 0 ? r.w : 0), y1 = (i64)r.y + (r.h > 0 ? r.h : 0);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    struct PP_Rect c = {(i32)x0, (i32)y0, x1 > x0 ? (i32)(x1 - x0) : 0, y1 > y0 ? (i32)(y1 - y0) : 0};
    return c;
}

/* Copies the `src` rectangle of image `im` to the device's store at `at` + src's corner,
   as BGRA. */
static void g2d_blit(struct pa_g2d *g, struct pa_image *im, struct PP_Point at, struct PP_Rect src) {
    src = pa_clip(src, im->w, im->h);
    /* Where it lands, clipped to the store, and back. */
    struct PP_Rect dst = {(i32)((i64)at.x + src.x), (i32)((i64)at.y + src.y), src.w, src.h};
    i64 dx = (i64)at.x + src.x, dy = (i64)at.y + src.y;
    if (dx < -PA_MAX_SIDE || dx > PA_MAX_SIDE || dy < -PA_MAX_SIDE || dy > PA_MAX_SIDE) return;
    struct PP_Rect d = pa_clip(dst, g->w, g->h);
    if (!d.w || !d.h) return;
    i32 sx = src.x + (d.x - dst.x), sy = src.y + (d.y - dst.y);
    int swap = im->format == PP_IMAGEDATAFORMAT_RGBA_PREMUL;
    for (i32 y = 0; y < d.h; y++) {
        const u8 *s = im->pixels + (size_t)(sy + y) * (size_t)im->stride + (size_t)sx * 4;
        u8 *o = g->store + ((size_t)(d.y + y) * (size_t)g->w + (size_t)d.x) * 4;
        if (!swap) {
            copy(o, s, (size_t)d.w * 4);
        } else {
            for (i32 x = 0; x < d.w; x++) {
                o[4 * x] = s[4 * x + 2];
                o[4 * x + 1] = s[4 * x + 1];
                o[4 * x + 2] = s[4 * x];
                o[4 * x + 3] = s[4 * x + 3];
            }
        }
    }
}

static void g2d_scroll_store(struct pa_g2d *g, struct PP_Rect clip, struct PP_Point by) {
    struct PP_Rect c = pa_clip(clip, g->w, g->h);
    if (!c.w || !c.h || by.x <= -c.w || by.x >= c.w || by.y <= -c.h || by.y >= c.h) return;
    i32 w = c.w - (by.x > 0 ? by.x : -by.x), h = c.h - (by.y > 0 ? by.y : -by.y);
    i32 sx = c.x + (by.x < 0 ? -by.x : 0), sy = c.y + (by.y < 0 ? -by.y : 0);
    i32 tx = c.x + (by.x > 0 ? by.x : 0), ty = c.y + (by.y > 0 ? by.y : 0);
    size_t row = (size_t)g->w * 4;
    if (ty > sy) {
        for (i32 y = h; y-- > 0;)
            __builtin_memmove(g->store + (size_t)(ty + y) * row + (size_t)tx * 4,
                              g->store + (size_t)(sy + y) * row + (size_t)sx * 4, (size_t)w * 4);
    } else {
        for (i32 y = 0; y < h; y++)
            __builtin_memmove(g->store + (size_t)(ty + y) * row + (size_t)tx * 4,
                              g->store + (size_t)(sy + y) * row + (size_t)sx * 4, (size_t)w * 4);
    }
}

static i32 g2d_flush(i32 r, const struct PP_CompletionCallback *cbp) {
    PA_START(struct pa_g2d, g, r, RES_GRAPHICS2D, 1, cbp);
    lock(&pa_g2d_lock);
    if (g->flush.active) {
        unlock(&pa_g2d_lock);
        return PP_ERROR_INPROGRESS;
    }
    for (i32 k = 0; k < g->nops; k++) {
        struct pa_g2d_op op = g->ops[k];
        if (op.kind == G2D_SCROLL) {
            g2d_scroll_store(g, op.rect, op.at);
            continue;
        }
        PA_HOLD(struct pa_image, im, op.image, RES_IMAGE);
        if (im && (op.kind == G2D_PAINT || (im->w == g->w && im->h == g->h)))
            g2d_blit(g, im, op.at, op.kind == G2D_PAINT ? op.rect : (struct PP_Rect){0, 0, im->w, im->h});
        core_release_resource(op.image);
    }
    g->nops = 0;
    struct pa_wait wait;
    pa_pending_start(&g->flush, cbp, &wait);
    int shown = pa_page && pa_bound_device == r;
    /* Not on screen: done at the display's rate all the same. */
    if (!shown) pa_pending_end(&g->flush, PP_OK, 16);
    unlock(&pa_g2d_lock);
    if (shown) {
        u32 rec[8] = {32, PA_TO_FLUSH, (u32)r, (u32)(uptr)g->store, (u32)g->w, (u32)g->h, (u32)g->w * 4,
                      PP_IMAGEDATAFORMAT_BGRA_PREMUL};
        pa_to_page(rec, sizeof rec);
    }
    return pa_pending_return(cbp, &wait);
}

/* The page has shown device `r`'s frame. */
static void g2d_flushed(i32 r) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (g) pa_pending_end_under(&pa_g2d_lock, &g->flush, PP_OK, 0);
}

static i32 g2d_set_scale(i32 r, float scale) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g || !(scale > 0) || scale > 1000) return 0;
    g->scale = scale;
    return 1;
}

static float g2d_get_scale(i32 r) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    return g ? g->scale : 0.0f;
}

static int g2d_bound(i32 r, i32 *w, i32 *h, float *scale) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (g) *w = g->w, *h = g->h, *scale = g->scale;
    return 0;
}

static void g2d_gone(void *data) {
    struct pa_g2d *g = data;
    lock(&pa_g2d_lock);
    for (i32 k = 0; k < g->nops; k++)
        if (g->ops[k].kind != G2D_SCROLL) core_release_resource(g->ops[k].image);
    g->nops = 0;
    unlock(&pa_g2d_lock);
    pa_release_block(g->store);
    pa_release_block(g);
}

#define PPB_GRAPHICS2D_1_1(X)                                                                                          \
    X(i32, Create, (i32 instance, const struct PP_Size *size, i32 opaque), g2d_create)                                 \
    X(i32, IsGraphics2D, (i32 r), g2d_is)                                                                              \
    X(i32, Describe, (i32 r, struct PP_Size *size, i32 *opaque), g2d_describe)                                         \
    X(void, PaintImageData, (i32 r, i32 image, const struct PP_Point *top_left, const struct PP_Rect *src), g2d_paint) \
    X(void, Scroll, (i32 r, const struct PP_Rect *clip, const struct PP_Point *amount), g2d_scroll)                    \
    X(void, ReplaceContents, (i32 r, i32 image), g2d_replace)                                                          \
    X(i32, Flush, (i32 r, const struct PP_CompletionCallback *cbp), g2d_flush)                                         \
    X(i32, SetScale, (i32 r, float scale), g2d_set_scale)                                                              \
    X(float, GetScale, (i32 r), g2d_get_scale)
PA_TABLE(PPB_Graphics2D_1_1, ppb_graphics_2d_1_1, PPB_GRAPHICS2D_1_1)

#endif
