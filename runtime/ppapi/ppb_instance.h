/*
 * PPB_Instance;1.0: the device the plugin's element shows.
 */
#ifndef PA_PPB_INSTANCE_H
#define PA_PPB_INSTANCE_H

#include "page.h"
#include "resource.h"

static i32 pa_bound_device;

/* Tells the page which device shows in the element (its size, scale, and whether it is
   3-D: its frames then come as images from the worker that draws them). */
static void pa_bind_to_page(i32 device) {
    const struct pa_kind *kind = device ? pa_resource_kind(device) : NULL; /* (device 0: none) */
    float scale = 1;
    i32 w = 0, h = 0, is3d = 0;
    if (kind && kind->bound) is3d = kind->bound(device, &w, &h, &scale);
    u32 bits;
    __builtin_memcpy(&bits, &scale, 4);
    u32 rec[7] = {28, PA_TO_BIND, (u32)device, (u32)w, (u32)h, bits, (u32)is3d};
    pa_to_page(rec, sizeof rec);
}

/* The device shown in the element: a 2-D or 3-D one (headless, none exists; a kind that
   can be bound says so, pa_kind.bound), or 0 to unbind. */
static i32 instance_bind_graphics(i32 instance, i32 device) {
    if (instance != pa_instance) return 0;
    if (device) {
        const struct pa_kind *kind = pa_resource_kind(device);
        if (!kind || !kind->bound) return 0;
    }
    if (device == pa_bound_device) return 1;
    if (device) core_addref_resource(device);
    i32 old = pa_bound_device;
    pa_bound_device = device;
    if (old) core_release_resource(old);
    pa_bind_to_page(device);
    return 1;
}

static i32 instance_is_full_frame(i32 instance) {
    (void)instance;
    return 0;
}

/* PA_FROM_FLUSHED: the page has shown a frame of a device (its kind's `shown`). */
static void instance_from_page(u32 kind, const u8 *body, u32 n) {
    (void)kind, (void)n;
    i32 device = (i32)pa_word(body);
    const struct pa_kind *k = pa_resource_kind(device);
    if (k && k->shown) k->shown(device);
}

static void pa_instance_init(void) { pa_on_page(PA_FROM_FLUSHED, PA_FROM_FLUSHED, 4, instance_from_page); }

#define PPB_INSTANCE_1_0(X)                                                  \
    X(i32, BindGraphics, (i32 instance, i32 device), instance_bind_graphics) \
    X(i32, IsFullFrame, (i32 instance), instance_is_full_frame)
PA_TABLE(PPB_Instance_1_0, ppb_instance_1_0, PPB_INSTANCE_1_0)

#endif
