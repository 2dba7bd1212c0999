/*
 * PPB_ImageData;1.0: images of BGRA or RGBA pixels, premultiplied (in a page, or headless
 * with PNACL_GRAPHICS=headless).
 */
#ifndef PA_PPB_IMAGE_DATA_H
#define PA_PPB_IMAGE_DATA_H

#include "resource.h"
#include "page.h"

#define PP_IMAGEDATAFORMAT_BGRA_PREMUL 0
#define PP_IMAGEDATAFORMAT_RGBA_PREMUL 1
#define PA_MAX_SIDE 16384

struct PP_Size { i32 width, height; };
struct PP_ImageDataDesc { i32 format; struct PP_Size size; i32 stride; };

static void pa_image_gone(void *data);
static const struct pa_kind pa_kind_image = {"ImageData", pa_image_gone, NULL};
#define RES_IMAGE (&pa_kind_image)

struct pa_image {
    i32 format, w, h, stride;
    u8 *pixels;
};

static i32 image_native_format(void) { return PP_IMAGEDATAFORMAT_BGRA_PREMUL; }
static i32 image_format_supported(i32 f) {
    return f == PP_IMAGEDATAFORMAT_BGRA_PREMUL || f == PP_IMAGEDATAFORMAT_RGBA_PREMUL;
}

/* Whether `w` x `h` pixels can be had (each side 1..16384, the bytes within the bound). */
static int pa_size_ok(i32 w, i32 h) {
    return w > 0 && h > 0 && w <= PA_MAX_SIDE && h <= PA_MAX_SIDE && (u64)w * (u64)h * 4 < PA_MAX_BYTES;
}

/* A zeroed state of `n` bytes, and zeroed pixels for `sz` (4 bytes each) in *pixels:
   both, or neither (NULL). */
static void *pa_with_pixels(size_t n, struct PP_Size sz, u8 **pixels) {
    size_t bytes = (size_t)sz.width * (size_t)sz.height * 4;
    void *state = pa_alloc(n);
    u8 *px = pa_alloc(bytes);
    if (!state || !px) {
        pa_release_block(state);
        pa_release_block(px);
        return NULL;
    }
    pa_zero(state, n);
    pa_zero(px, bytes);
    *pixels = px;
    return state;
}

static i32 image_create(i32 instance, i32 format, const struct PP_Size *size, i32 init_to_zero) {
    (void)init_to_zero; /* the host's memory is always given zeroed */
    if (instance != pa_instance || !size || !image_format_supported(format)) return 0;
    struct PP_Size sz = *size;
    if (!pa_size_ok(sz.width, sz.height)) return 0;
    u8 *px;
    struct pa_image *im = pa_with_pixels(sizeof *im, sz, &px);
    if (!im) return 0;
    im->format = format;
    im->w = sz.width;
    im->h = sz.height;
    im->stride = sz.width * 4;
    im->pixels = px;
    i32 r = pa_new_resource_with(RES_IMAGE, im);
    if (!r) {
        pa_release_block(px);
        pa_release_block(im);
    }
    return r;
}

static i32 image_is(i32 r) { return pa_resource_kind(r) == RES_IMAGE; }

static i32 image_describe(i32 r, struct PP_ImageDataDesc *out) {
    PA_HOLD(struct pa_image, im, r, RES_IMAGE);
    if (!out) return 0;
    pa_zero(out, sizeof *out);
    if (!im) return 0;
    out->format = im->format;
    out->size.width = im->w;
    out->size.height = im->h;
    out->stride = im->stride;
    return 1;
}

static void *image_map(i32 r) {
    PA_HOLD(struct pa_image, im, r, RES_IMAGE);
    return im ? im->pixels : NULL;
}

static void image_unmap(i32 r) { (void)r; }

static void pa_image_gone(void *data) {
    struct pa_image *im = data;
    pa_release_block(im->pixels);
    pa_release_block(im);
}

#define PPB_IMAGEDATA_1_0(X)                                                                               \
    X(i32, GetNativeImageDataFormat, (void), image_native_format)                                          \
    X(i32, IsImageDataFormatSupported, (i32 f), image_format_supported)                                    \
    X(i32, Create, (i32 instance, i32 format, const struct PP_Size *size, i32 init_to_zero), image_create) \
    X(i32, IsImageData, (i32 r), image_is)                                                                 \
    X(i32, Describe, (i32 r, struct PP_ImageDataDesc *out), image_describe)                                \
    X(void *, Map, (i32 r), image_map)                                                                     \
    X(void, Unmap, (i32 r), image_unmap)
PA_TABLE(PPB_ImageData_1_0, ppb_image_data_1_0, PPB_IMAGEDATA_1_0)

#endif
