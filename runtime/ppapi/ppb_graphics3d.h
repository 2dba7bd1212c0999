/*
 * 3-D graphics in a page: PPB_Graphics3D;1.0 and PPB_OpenGLES2;1.0 with its extensions
 * (ppapi.md §4.14, §4.15), onto WebGL 2. For the WebAssembly backend only
 * (PA_HAVE_GL): the GL itself is the page's, reached through the `gl` imports that
 * runtime/host_gl.js gives each of the plugin's workers.
 *
 * Each OpenGLES2 entry is the import of the same name, called by the plugin straight
 * through the table with the header's signature (the context first; GLboolean, GLenum,
 * pointers and sizes as i32, GLfloat and GLclampf as f32): no copy of the arguments on
 * the way. The few entries that need the plugin's memory from the host's side
 * (GetString's text, ChromiumMapSub's buffers, EnableFeatureCHROMIUM) are C here.
 *
 * A context's WebGL lives in the worker of the first thread that draws with it (an
 * OffscreenCanvas there; the context may be made on another, as Chrome allowed);
 * SwapBuffers hands its frame to the page as an ImageBitmap
 * (PA_TO_BIND says the device is 3-D), and the page answers PA_FROM_FLUSHED when it is on
 * screen, at the display's rate, as for Graphics2D. Everything the plugin hands the
 * imports (names, pointers, sizes) is checked there: its memory is the plugin's.
 */

#ifndef PA_PPB_GRAPHICS3D_H
#define PA_PPB_GRAPHICS3D_H

#include "loop.h"
#include "page.h"

#define PP_ERROR_CONTEXT_LOST (-50)

static void g3d_gone(void *data);
static int g3d_bound(i32 r, i32 *w, i32 *h, float *scale);
static void g3d_swapped(i32 r);
static const struct pa_kind pa_kind_graphics3d = {"Graphics3D", g3d_gone, g3d_bound, g3d_swapped};
#define RES_GRAPHICS3D (&pa_kind_graphics3d)

enum {
    G3D_ALPHA_SIZE = 0x3021, G3D_BLUE_SIZE = 0x3022, G3D_GREEN_SIZE = 0x3023, G3D_RED_SIZE = 0x3024,
    G3D_DEPTH_SIZE = 0x3025, G3D_STENCIL_SIZE = 0x3026, G3D_SAMPLES = 0x3031, G3D_SAMPLE_BUFFERS = 0x3032,
    G3D_NONE = 0x3038, G3D_HEIGHT = 0x3056, G3D_WIDTH = 0x3057, G3D_SWAP_BEHAVIOR = 0x3093,
    G3D_BUFFER_PRESERVED = 0x3094, G3D_BUFFER_DESTROYED = 0x3095, G3D_SINGLE_BUFFER = 0x3085,
    G3D_GPU_PREFERENCE = 0x11000, G3D_LOW_POWER = 0x11001, G3D_PERFORMANCE = 0x11002
};

/* The attributes a context keeps, in the order of pa_g3d_names. */
#define G3D_NATTRS 12
static const i32 pa_g3d_names[G3D_NATTRS] = {G3D_ALPHA_SIZE, G3D_BLUE_SIZE,   G3D_GREEN_SIZE,    G3D_RED_SIZE,
                                             G3D_DEPTH_SIZE, G3D_STENCIL_SIZE, G3D_SAMPLES,       G3D_SAMPLE_BUFFERS,
                                             G3D_HEIGHT,     G3D_WIDTH,        G3D_SWAP_BEHAVIOR, G3D_GPU_PREFERENCE};

struct pa_g3d {
    i32 resource;
    i32 attrs[G3D_NATTRS];
    struct pa_pending swap;    /* a SwapBuffers on its way to the screen */
};

static volatile int pa_g3d_lock;

#define GL_IMPORT(name) __attribute__((import_module("gl"), import_name(#name)))

/* The imports of module "gl" (runtime/host_gl.js), from the one list of them: the
   context's side, then PPB_OpenGLES2's entries and its extensions'. */
typedef i32 GI;
typedef float GF;
#include "gles2.def"
#define GL_RESULT_v void
#define GL_RESULT_i GI
#define GL_DECLARE(result, name, params) GL_IMPORT(name) GL_RESULT_##result gl_##name params;
#define GL_SKIP(name)
PA_GL_IMPORTS(GL_DECLARE, GL_SKIP)

static i32 g3d_attr_index(i32 name) {
    for (i32 k = 0; k < G3D_NATTRS; k++)
        if (pa_g3d_names[k] == name) return k;
    return -1;
}

/* At most this many (name, value) pairs are read from a plugin's list. */
#define G3D_MAX_PAIRS 64

static i32 g3d_get_attrib_max_value(i32 instance, i32 attribute, i32 *value) {
    (void)instance;
    if (!value) return PP_ERROR_BADARGUMENT;
    switch (attribute) {
    case G3D_ALPHA_SIZE: case G3D_BLUE_SIZE: case G3D_GREEN_SIZE: case G3D_RED_SIZE: case G3D_STENCIL_SIZE:
        *value = 8;
        return PP_OK;
    case G3D_DEPTH_SIZE: *value = 24; return PP_OK;
    case G3D_SAMPLES: *value = 4; return PP_OK;
    case G3D_SAMPLE_BUFFERS: *value = 1; return PP_OK;
    case G3D_WIDTH: case G3D_HEIGHT: *value = PA_MAX_SIDE; return PP_OK;
    default: return PP_ERROR_BADARGUMENT;
    }
}

static i32 g3d_create(i32 instance, i32 share, const i32 *list) {
    (void)share; /* no sharing between WebGL contexts: each is its own, as when Chrome could not share */
    if (instance != pa_instance) return 0;
    struct pa_g3d *g = pa_alloc(sizeof *g);
    if (!g) return 0;
    pa_zero(g, sizeof *g);
    g->attrs[g3d_attr_index(G3D_SWAP_BEHAVIOR)] = G3D_BUFFER_DESTROYED;
    for (i32 k = 0; list && k < G3D_MAX_PAIRS && list[2 * k] != G3D_NONE; k++) {
        i32 name = list[2 * k], value = list[2 * k + 1], at = g3d_attr_index(name);
        if (name == G3D_SINGLE_BUFFER) continue;
        if (at < 0 || (name != G3D_SWAP_BEHAVIOR && name != G3D_GPU_PREFERENCE && value < 0)) {
            pa_release_block(g);
            return 0;
        }
        g->attrs[at] = value;
    }
    i32 w = g->attrs[g3d_attr_index(G3D_WIDTH)], h = g->attrs[g3d_attr_index(G3D_HEIGHT)];
    if (w > PA_MAX_SIDE || h > PA_MAX_SIDE) {
        pa_release_block(g);
        return 0;
    }
    i32 r = pa_new_resource_with(RES_GRAPHICS3D, g);
    if (!r) {
        pa_release_block(g);
        return 0;
    }
    g->resource = r;
    i32 *a = g->attrs;
    if (!gl_context_create(r, w, h, a[0] > 0, a[4] > 0, a[5] > 0, a[6] > 0 || a[7] > 0,
                           a[10] == G3D_BUFFER_PRESERVED)) {
        core_release_resource(r);
        return 0;
    }
    return r;
}

static i32 g3d_is(i32 r) { return pa_resource_kind(r) == RES_GRAPHICS3D; }

/* Context `r`'s size (1: it is 3-D), or 0 if it is not one; as the element's device, its
   frames are shown at scale 1. */
static int g3d_bound(i32 r, i32 *w, i32 *h, float *scale) {
    (void)scale;
    PA_HOLD(struct pa_g3d, g, r, RES_GRAPHICS3D);
    if (!g) return 0;
    *w = g->attrs[g3d_attr_index(G3D_WIDTH)];
    *h = g->attrs[g3d_attr_index(G3D_HEIGHT)];
    return 1;
}

static void gl_maps_gone(i32 c);

/* A context is gone: its WebGL (at once if this thread's worker draws it, else at that
   worker's next GL call), its mappings, its state. A pending SwapBuffers never completes. */
static void g3d_gone(void *data) {
    struct pa_g3d *g = data;
    gl_context_destroy(g->resource);
    gl_maps_gone(g->resource);
    pa_release_block(g);
}

static i32 g3d_get_attribs(i32 r, i32 *list) {
    PA_HOLD(struct pa_g3d, g, r, RES_GRAPHICS3D);
    if (!g) return PP_ERROR_BADRESOURCE;
    if (!list) return PP_ERROR_BADARGUMENT;
    for (i32 k = 0; k < G3D_MAX_PAIRS && list[2 * k] != G3D_NONE; k++) {
        i32 at = g3d_attr_index(list[2 * k]);
        if (at < 0) return PP_ERROR_BADARGUMENT;
        list[2 * k + 1] = g->attrs[at];
    }
    return PP_OK;
}

static i32 g3d_set_attribs(i32 r, const i32 *list) {
    PA_HOLD(struct pa_g3d, g, r, RES_GRAPHICS3D);
    if (!g) return PP_ERROR_BADRESOURCE;
    if (!list) return PP_ERROR_BADARGUMENT;
    for (i32 k = 0; k < G3D_MAX_PAIRS && list[2 * k] != G3D_NONE; k++) {
        i32 v = list[2 * k + 1];
        if (list[2 * k] != G3D_SWAP_BEHAVIOR || (v != G3D_BUFFER_PRESERVED && v != G3D_BUFFER_DESTROYED))
            return PP_ERROR_BADARGUMENT;
        g->attrs[g3d_attr_index(G3D_SWAP_BEHAVIOR)] = v;
    }
    return PP_OK;
}

static i32 g3d_get_error(i32 r) { return pa_resource_live(r, RES_GRAPHICS3D) ? PP_OK : PP_ERROR_BADRESOURCE; }

static i32 g3d_resize_buffers(i32 r, i32 w, i32 h) {
    PA_HOLD(struct pa_g3d, g, r, RES_GRAPHICS3D);
    if (!g) return PP_ERROR_BADRESOURCE;
    if (w < 0 || h < 0) return PP_ERROR_BADARGUMENT;
    if (w > PA_MAX_SIDE || h > PA_MAX_SIDE) return PP_ERROR_NOMEMORY;
    g->attrs[g3d_attr_index(G3D_WIDTH)] = w;
    g->attrs[g3d_attr_index(G3D_HEIGHT)] = h;
    gl_context_resize(r, w, h);
    if (pa_bound_device == r) pa_bind_to_page(r);
    return PP_OK;
}

static i32 g3d_swap_buffers(i32 r, const struct PP_CompletionCallback *cbp) {
    PA_START(struct pa_g3d, g, r, RES_GRAPHICS3D, 1, cbp);
    lock(&pa_g3d_lock);
    if (g->swap.active) {
        unlock(&pa_g3d_lock);
        return PP_ERROR_INPROGRESS;
    }
    struct pa_wait wait;
    pa_pending_start(&g->swap, cbp, &wait);
    int bound = pa_bound_device == r;
    unlock(&pa_g3d_lock);
    if (!gl_context_swap(r, bound)) {
        /* Not on screen: done at the display's rate all the same. */
        pa_pending_end_under(&pa_g3d_lock, &g->swap, PP_OK, 16);
    }
    return pa_pending_return(cbp, &wait);
}

/* The page has shown context `r`'s frame. */
static void g3d_swapped(i32 r) {
    PA_HOLD(struct pa_g3d, g, r, RES_GRAPHICS3D);
    if (g) pa_pending_end_under(&pa_g3d_lock, &g->swap, PP_OK, 0);
}

/* ----------------------------------------------------------------------------------- */
/* PPB_OpenGLES2 and its extensions: the entries written in C (the imports: gles2.def)   */

/* GetString: the text lives in the plugin's memory (the host's constants), as the
   command buffer's client kept it; the names Chrome's gave. */
static const char *gl_GetString(i32 c, i32 name) {
    if (!pa_resource_live(c, RES_GRAPHICS3D)) return NULL;
    switch (name) {
    case 0x1F00: return "Chromium";                                      /* VENDOR */
    case 0x1F01: return "Chromium";                                      /* RENDERER */
    case 0x1F02: return "OpenGL ES 2.0 Chromium";                        /* VERSION */
    case 0x8B8C: return "OpenGL ES GLSL ES 1.0 Chromium";                /* SHADING_LANGUAGE_VERSION */
    case 0x1F03:                                                         /* EXTENSIONS */
        return "GL_ANGLE_instanced_arrays GL_ANGLE_framebuffer_blit GL_ANGLE_framebuffer_multisample "
               "GL_CHROMIUM_map_sub GL_EXT_draw_buffers GL_EXT_occlusion_query_boolean "
               "GL_EXT_texture_format_BGRA8888 GL_OES_element_index_uint GL_OES_packed_depth_stencil "
               "GL_OES_rgb8_rgba8 GL_OES_standard_derivatives GL_OES_texture_float GL_OES_texture_half_float "
               "GL_OES_vertex_array_object GL_OES_depth24 GL_EXT_texture_filter_anisotropic";
    default: return NULL;
    }
}

/* No Chromium feature is offered (the call's answer for an unknown one). */
static i32 gl_EnableFeatureCHROMIUM(i32 c, const char *feature) {
    (void)c, (void)feature;
    return 0;
}

/* ChromiumMapSub: memory of the host's, handed to the plugin; its bytes go to the buffer
   or texture at Unmap. */
struct pa_gl_map {
    i32 context, kind; /* 1 a buffer, 2 a texture */
    i32 target, level, x, y, w, h, format, type, offset, size;
    void *memory;
    struct pa_gl_map *next;
};
static struct pa_gl_map *pa_gl_maps;
static volatile int pa_gl_map_lock;

#define GL_WRITE_ONLY 0x88B9

static void *gl_map(struct pa_gl_map m) {
    if (!pa_resource_live(m.context, RES_GRAPHICS3D) || m.size <= 0 || m.size > (64 << 20)) return NULL;
    struct pa_gl_map *e = pa_alloc(sizeof *e);
    void *p = pa_alloc((size_t)m.size);
    if (!e || !p) {
        pa_release_block(e);
        pa_release_block(p);
        return NULL;
    }
    *e = m;
    e->memory = p;
    lock(&pa_gl_map_lock);
    e->next = pa_gl_maps;
    pa_gl_maps = e;
    unlock(&pa_gl_map_lock);
    return p;
}

/* The mapping of `p` by context `c`, taken off the list (NULL: none). */
static struct pa_gl_map *gl_unmap(i32 c, const void *p) {
    lock(&pa_gl_map_lock);
    struct pa_gl_map **at = &pa_gl_maps;
    while (*at && ((*at)->memory != p || (*at)->context != c)) at = &(*at)->next;
    struct pa_gl_map *e = *at;
    if (e) *at = e->next;
    unlock(&pa_gl_map_lock);
    return e;
}

static void *gl_MapBufferSubDataCHROMIUM(i32 c, i32 target, i32 offset, i32 size, i32 access) {
    if (access != GL_WRITE_ONLY || offset < 0) return NULL;
    return gl_map((struct pa_gl_map){.context = c, .kind = 1, .target = target, .offset = offset, .size = size});
}

static void gl_UnmapBufferSubDataCHROMIUM(i32 c, const void *p) {
    struct pa_gl_map *e = gl_unmap(c, p);
    if (!e) return;
    if (e->kind == 1) gl_BufferSubData(c, e->target, e->offset, e->size, (GI)(uptr)e->memory);
    pa_release_block(e->memory);
    pa_release_block(e);
}

/* The bytes of a w x h image of `format`/`type` with rows aligned to 8, room for any
   UNPACK_ALIGNMENT the plugin lays them out with (0: not one of ES 2's). */
static i32 gl_image_bytes(i32 w, i32 h, i32 format, i32 type) {
    i32 per;
    if (type == 0x8033 || type == 0x8034 || type == 0x8363) per = 2; /* packed 16-bit */
    else {
        i32 n = format == 0x1906 || format == 0x1909 ? 1 : format == 0x190A ? 2 : format == 0x1907 ? 3
              : format == 0x1908 || format == 0x80E1 ? 4 : 0;
        i32 size = type == 0x1401 ? 1 : type == 0x1406 ? 4 : type == 0x8D61 ? 2 : 0;
        per = n * size;
    }
    if (!per || w <= 0 || h <= 0 || w > PA_MAX_SIDE || h > PA_MAX_SIDE) return 0;
    i64 row = ((i64)w * per + 7) & ~(i64)7;
    i64 all = row * (h - 1) + (i64)w * per;
    return all > (64 << 20) ? 0 : (i32)all;
}

static void *gl_MapTexSubImage2DCHROMIUM(i32 c, i32 target, i32 level, i32 x, i32 y, i32 w, i32 h, i32 format,
                                         i32 type, i32 access) {
    i32 size = gl_image_bytes(w, h, format, type);
    if (access != GL_WRITE_ONLY || !size) return NULL;
    return gl_map((struct pa_gl_map){.context = c, .kind = 2, .target = target, .level = level, .x = x, .y = y,
                                     .w = w, .h = h, .format = format, .type = type, .size = size});
}

static void gl_UnmapTexSubImage2DCHROMIUM(i32 c, const void *p) {
    struct pa_gl_map *e = gl_unmap(c, p);
    if (!e) return;
    /* Its rows as the plugin laid them out: by its UNPACK_ALIGNMENT, as the command
       buffer's client read them. */
    if (e->kind == 2)
        gl_TexSubImage2D(c, e->target, e->level, e->x, e->y, e->w, e->h, e->format, e->type, (GI)(uptr)e->memory);
    pa_release_block(e->memory);
    pa_release_block(e);
}

/* A context is gone: its mappings with it. */
static void gl_maps_gone(i32 c) {
    lock(&pa_gl_map_lock);
    struct pa_gl_map **at = &pa_gl_maps;
    while (*at) {
        struct pa_gl_map *e = *at;
        if (e->context == c) {
            *at = e->next;
            pa_release_block(e->memory);
            pa_release_block(e);
        } else {
            at = &e->next;
        }
    }
    unlock(&pa_gl_map_lock);
}

#define GL_ENTRY(result, name, params) PF(gl_##name),
#define GL_C_ENTRY(name) PF(gl_##name),
static const pa_fn ppb_gles2[] = {PA_GLES2(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_instanced[] = {PA_GLES2_INSTANCED(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_blit[] = {PA_GLES2_BLIT(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_multisample[] = {PA_GLES2_MULTISAMPLE(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_feature[] = {PA_GLES2_FEATURE(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_mapsub[] = {PA_GLES2_MAPSUB(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_query[] = {PA_GLES2_QUERY(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_vao[] = {PA_GLES2_VAO(GL_ENTRY, GL_C_ENTRY)};
static const pa_fn ppb_gles2_drawbuffers[] = {PA_GLES2_DRAWBUFFERS(GL_ENTRY, GL_C_ENTRY)};
_Static_assert(sizeof ppb_gles2 / sizeof ppb_gles2[0] == 142, "PPB_OpenGLES2;1.0 has 142 entries");

#define PPB_GRAPHICS3D_1_0(X)                                                                      \
    X(i32, GetAttribMaxValue, (i32 instance, i32 attribute, i32 *value), g3d_get_attrib_max_value) \
    X(i32, Create, (i32 instance, i32 share, const i32 *list), g3d_create)                         \
    X(i32, IsGraphics3D, (i32 r), g3d_is)                                                          \
    X(i32, GetAttribs, (i32 r, i32 *list), g3d_get_attribs)                                        \
    X(i32, SetAttribs, (i32 r, const i32 *list), g3d_set_attribs)                                  \
    X(i32, GetError, (i32 r), g3d_get_error)                                                       \
    X(i32, ResizeBuffers, (i32 r, i32 w, i32 h), g3d_resize_buffers)                               \
    X(i32, SwapBuffers, (i32 r, const struct PP_CompletionCallback *cbp), g3d_swap_buffers)
PA_TABLE(PPB_Graphics3D_1_0, ppb_graphics_3d_1_0, PPB_GRAPHICS3D_1_0)

#endif
