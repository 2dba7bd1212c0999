/*
 * PPB_View;1.0, 1.1, 1.2: the element's view (0 x 0 headless, PNACL_VIEW=WxH), which the
 * page tells as it changes (PA_FROM_VIEW).
 */
#ifndef PA_PPB_VIEW_H
#define PA_PPB_VIEW_H

#include "events.h"
#include "resource.h"
#include "page.h"

static const struct pa_kind pa_kind_view = {"View", NULL, NULL};
#define RES_VIEW (&pa_kind_view)
static i32 pa_view; /* the view the plugin was given last */

static i32 view_is_view(i32 r) { return pa_resource_kind(r) == RES_VIEW; }

/* The view's size: 0 x 0 headless, the element's in a page (PNACL_VIEW=WxH, then what
   the page says when it changes: pa_next_view_*, taken by the main thread before it calls
   DidChangeView). */
static i32 pa_view_w, pa_view_h, pa_view_visible = 1;
static volatile int pa_view_lock;
static i32 pa_next_view_w, pa_next_view_h, pa_next_view_visible;
static float pa_next_view_scale;

static i32 view_get_rect(i32 r, struct PP_Rect *out) {
    if (!view_is_view(r) || !out) return 0;
    pa_zero(out, sizeof *out);
    out->w = pa_view_w;
    out->h = pa_view_h;
    return 1;
}

static i32 view_is_fullscreen(i32 r) {
    (void)r;
    return 0;
}

static i32 view_is_visible(i32 r) { return view_is_view(r) && pa_view_visible; }
/* The page is visible when the element is; the element is never clipped. */
static i32 view_is_page_visible(i32 r) { return view_is_visible(r); }
static i32 view_get_clip_rect(i32 r, struct PP_Rect *out) { return view_get_rect(r, out); }
static float pa_device_scale_of_view = 1;
static float view_get_device_scale(i32 r) { return view_is_view(r) ? pa_device_scale_of_view : 0.0f; }
static float view_get_scale(i32 r) { return view_is_view(r) ? 1.0f : 0.0f; }

static i32 view_get_scroll_offset(i32 r, struct PP_Point *out) {
    if (!view_is_view(r) || !out) return 0;
    pa_zero(out, sizeof *out);
    return 1;
}

/* PA_FROM_VIEW: the view the plugin gets next (DidChangeView, on its main thread). */
static void view_from_page(u32 kind, const u8 *body, u32 n) {
    (void)kind, (void)n;
    u32 w = pa_word(body), h = pa_word(body + 4), visible = pa_word(body + 12);
    float scale;
    __builtin_memcpy(&scale, body + 8, 4);
    lock(&pa_view_lock);
    pa_next_view_w = w < 32768 ? (i32)w : 32767;
    pa_next_view_h = h < 32768 ? (i32)h : 32767;
    pa_next_view_scale = scale >= 0.25f && scale <= 16 ? scale : 1;
    pa_next_view_visible = visible != 0;
    unlock(&pa_view_lock);
    pa_push(pa_new_event(EV_VIEW));
}

static void pa_view_init(void) { pa_on_page(PA_FROM_VIEW, PA_FROM_VIEW, 16, view_from_page); }

#define PPB_VIEW_1_2(X)                                                            \
    X(i32, IsView, (i32 r), view_is_view)                                          \
    X(i32, GetRect, (i32 r, struct PP_Rect *out), view_get_rect)                   \
    X(i32, IsFullscreen, (i32 r), view_is_fullscreen)                              \
    X(i32, IsVisible, (i32 r), view_is_visible)                                    \
    X(i32, IsPageVisible, (i32 r), view_is_page_visible)                           \
    X(i32, GetClipRect, (i32 r, struct PP_Rect *out), view_get_clip_rect)          \
    X(float, GetDeviceScale, (i32 r), view_get_device_scale)                       \
    X(float, GetCSSScale, (i32 r), view_get_scale)                                 \
    X(i32, GetScrollOffset, (i32 r, struct PP_Point *out), view_get_scroll_offset)
PA_TABLE(PPB_View_1_2, ppb_view_1_2, PPB_VIEW_1_2)

#endif
