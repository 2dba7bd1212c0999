/*
 * PPB_VideoDecoder 0.1, 0.2, 1.0 and 1.1 (ppapi.md §4.18) in a page, onto the browser's
 * WebCodecs VideoDecoder (runtime/host_video.js, in the page's thread). For the
 * WebAssembly backend only (PA_HAVE_GL): pictures are textures of the plugin's Graphics3D
 * context, as Chrome's were. Headless the interface is absent: decoding untrusted video
 * in the runtime is attack surface we do not take on.
 *
 * As Chrome's VideoDecoderResource and its renderer host behaved:
 * - Initialize (once; profile 0-12, at most 100 pictures asked for) asks the page whether
 *   the browser decodes the profile with the acceleration asked (ONLY: hardware; NONE:
 *   software); PP_ERROR_NOTSUPPORTED if not. 0.1's allow_software_fallback is
 *   WITHFALLBACK or ONLY; 0.1 and 0.2 ask for no picture count.
 * - Decode copies the bitstream (at most 4 MiB) into one of 8 buffers of the host's and
 *   completes at once while another buffer is free, else once the page has read one
 *   (PA_FROM_VD_DECODED). Each picture carries the decode_id of the Decode it came from.
 * - Pictures: when the page has a frame of a new size (PA_FROM_VD_SIZE), the host makes a
 *   pool of max(5, min_picture_count) pictures of that size (pixel buffers here, each a
 *   texture name in the plugin's context) and hands the page each buffer that is free
 *   (PA_TO_VD_BUFFER); the page writes a frame's RGBA pixels into one and says so
 *   (PA_FROM_VD_PICTURE). GetPicture gives the next: its pixels go into its texture
 *   (GL_TEXTURE_2D, RGBA, linear, clamped) on the thread that called GetPicture, the
 *   worker that draws the context, just before the callback runs there.
 *   RecyclePicture gives the buffer back to the page. Pictures of an old size go when
 *   recycled.
 * - Flush completes once every picture decoded is out (a GetPicture waiting then ends
 *   PP_ERROR_ABORTED); Reset ends a waiting Decode and GetPicture with PP_ERROR_ABORTED at
 *   once, and on completion gives the page back the pictures the plugin has not taken.
 * - An error of the decoder's (PA_FROM_VD_ERROR: PP_ERROR_MALFORMED_INPUT for a stream
 *   the browser cannot read, PP_ERROR_RESOURCE_FAILED otherwise) ends every waiting call
 *   with it, and every call after returns it.
 * - A call's result known at once reaches a required callback as Chrome's thunks gave it
 *   (pa_result_now).
 *
 * What the page is sent sits in the plugin's memory (the bitstream buffers, the picture
 * buffers): the page checks each address and size against that memory. A decoder that
 * goes keeps its buffers until the page says it is done with them (PA_FROM_VD_DONE, 4).
 */
#ifndef PA_PPB_VIDEO_DECODER_H
#define PA_PPB_VIDEO_DECODER_H

#include "loop.h"
#include "page.h"
#include "ppb_graphics3d.h"

#define PA_VD_PENDING 8                  /* bitstream buffers (kMaximumPendingDecodes) */
#define PA_VD_MIN_BITSTREAM (100u << 10) /* a buffer's least size, to be reused */
#define PA_VD_MAX_BITSTREAM (4u << 20)   /* one Decode's bytes at most */
#define PA_VD_MAX_ASKED 100              /* min_picture_count at most */
#define PA_VD_POOL 5                     /* the pictures made when fewer are asked for */
#define PA_VD_PICTURES 128               /* pictures of a decoder at once, old sizes too */
#define PA_VD_DELAY 128                  /* decode ids remembered (kMaximumPictureDelay) */
#define PA_VD_MAX_PIXELS (256u << 20)    /* the bytes of one size's pool at most */
#define PA_VD_TEXTURES 0x40000000u       /* the first texture name the host gives */

enum { VD_DONE_INIT = 1, VD_DONE_FLUSH = 2, VD_DONE_RESET = 3, VD_DONE_DESTROY = 4 };
/* A picture's state: unused, the page's to fill, decoded and waiting for GetPicture, the
   plugin's (given by GetPicture, until recycled). */
enum { VDP_NONE, VDP_PAGE, VDP_READY, VDP_PLUGIN };

#define GL_TEXTURE_2D_TARGET 0x0DE1

struct pa_vd_picture {
    u8 *pixels;
    i32 w, h;
    u32 texture, uid, pool; /* pool: the page's number for its size (PA_FROM_VD_SIZE) */
    int state, old; /* old: of a size before the pool's, gone when recycled */
};

struct pa_vd {
    i32 resource, g3d;
    int initialized, initializing;
    i32 last_error; /* PP_ERROR_FAILED until initialized (as Chrome's) */
    u32 asked;      /* min_picture_count */
    struct pa_pending init, decode, picture, flush, reset;
    struct {
        u8 *p;
        u32 cap, uid;
        int busy;
    } buffers[PA_VD_PENDING];
    u32 nbuffers;
    u32 decodes; /* Decode calls, mod 2^31: each one's uid */
    u32 decode_ids[PA_VD_DELAY];
    struct pa_vd_picture pics[PA_VD_PICTURES];
    u32 ready[PA_VD_PICTURES], ready_head, ready_n; /* pictures waiting for GetPicture */
    i32 pool_w, pool_h;
    u32 dead[PA_VD_PICTURES], ndead; /* texture names to delete, on the drawing thread */
    struct pa_vd *next_dying;
};

static volatile int pa_vd_lock;
static struct pa_vd *pa_vd_dying; /* gone, its buffers still the page's */
static u32 pa_vd_next_texture = PA_VD_TEXTURES;

static void vd_gone(void *data);
static const struct pa_kind pa_kind_video_decoder = {"VideoDecoder", vd_gone, NULL, NULL};
#define RES_VIDEO_DECODER (&pa_kind_video_decoder)

/* A record of words to the page about decoder `vd`. */
static void pa_vd_send(u32 kind, const u32 *words, u32 n) {
    u32 rec[8] = {8 + 4 * n, kind};
    for (u32 i = 0; i < n && i < 6; i++) rec[2 + i] = words[i];
    pa_to_page(rec, 8 + 4 * n);
}

static i32 vd_create(i32 instance) {
    if (instance != pa_instance) return 0;
    struct pa_vd *vd = pa_alloc(sizeof *vd);
    if (!vd) return 0;
    pa_zero(vd, sizeof *vd);
    vd->last_error = PP_ERROR_FAILED;
    i32 r = pa_new_resource_with(RES_VIDEO_DECODER, vd);
    if (!r) pa_release_block(vd);
    else vd->resource = r;
    return r;
}

static i32 vd_is(i32 r) { return pa_resource_kind(r) == RES_VIDEO_DECODER; }

static i32 vd_initialize(i32 r, i32 g3d, i32 profile, i32 acceleration, u32 asked,
                         const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd) return pa_result_now(cb, PP_ERROR_BADRESOURCE);
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    lock(&pa_vd_lock);
    i32 refused = vd->initialized ? PP_ERROR_FAILED
                  : profile < 0 || profile > 12 || acceleration < 0 || acceleration > 2 || asked > PA_VD_MAX_ASKED
                      ? PP_ERROR_BADARGUMENT
                  : vd->initializing ? PP_ERROR_INPROGRESS
                  : !pa_resource_live(g3d, RES_GRAPHICS3D) ? PP_ERROR_BADRESOURCE
                                                            : PP_OK;
    if (refused) {
        unlock(&pa_vd_lock);
        return pa_result_now(cb, refused);
    }
    core_addref_resource(g3d);
    if (vd->g3d) core_release_resource(vd->g3d); /* a failed Initialize's */
    vd->g3d = g3d;
    vd->asked = asked;
    vd->initializing = 1;
    struct pa_wait wait;
    pa_pending_start(&vd->init, cb, &wait);
    unlock(&pa_vd_lock);
    u32 words[3] = {(u32)r, (u32)profile, (u32)acceleration};
    pa_vd_send(PA_TO_VD_INIT, words, 3);
    return pa_pending_return(cb, &wait);
}

static i32 vd_initialize_0_2(i32 r, i32 g3d, i32 profile, i32 acceleration, const struct PP_CompletionCallback *cb) {
    return vd_initialize(r, g3d, profile, acceleration, 0, cb);
}

static i32 vd_initialize_0_1(i32 r, i32 g3d, i32 profile, i32 allow_software, const struct PP_CompletionCallback *cb) {
    return vd_initialize(r, g3d, profile, allow_software ? 1 : 0, 0, cb); /* WITHFALLBACK : ONLY */
}

static i32 vd_decode(i32 r, u32 decode_id, u32 size, const void *buffer, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd) return pa_result_now(cb, PP_ERROR_BADRESOURCE);
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    lock(&pa_vd_lock);
    i32 refused = vd->last_error                                ? vd->last_error
                  : vd->flush.active || vd->reset.active        ? PP_ERROR_FAILED
                  : vd->decode.active                           ? PP_ERROR_INPROGRESS
                  : size > PA_VD_MAX_BITSTREAM                  ? PP_ERROR_NOMEMORY
                  : size && !buffer                             ? PP_ERROR_BADARGUMENT
                                                                : PP_OK;
    if (refused) {
        unlock(&pa_vd_lock);
        return pa_result_now(cb, refused);
    }
    /* A free buffer, the smallest that holds it; else a new one, or a free one grown. */
    u32 k = PA_VD_PENDING;
    for (u32 i = 0; i < vd->nbuffers; i++)
        if (!vd->buffers[i].busy && vd->buffers[i].cap >= size && (k == PA_VD_PENDING || vd->buffers[i].cap < vd->buffers[k].cap))
            k = i;
    if (k == PA_VD_PENDING) {
        if (vd->nbuffers < PA_VD_PENDING) k = vd->nbuffers;
        else
            for (u32 i = 0; i < vd->nbuffers && k == PA_VD_PENDING; i++)
                if (!vd->buffers[i].busy) k = i;
        u32 cap = size < PA_VD_MIN_BITSTREAM ? PA_VD_MIN_BITSTREAM : size;
        u8 *p = k < PA_VD_PENDING ? pa_alloc(cap) : NULL;
        if (!p) {
            unlock(&pa_vd_lock);
            return pa_result_now(cb, PP_ERROR_FAILED);
        }
        if (k == vd->nbuffers) vd->nbuffers++;
        pa_release_block(vd->buffers[k].p);
        vd->buffers[k].p = p;
        vd->buffers[k].cap = cap;
    }
    u32 uid = ++vd->decodes;
    if (uid == 0x7fffffff) vd->decodes = 0;
    vd->decode_ids[uid % PA_VD_DELAY] = decode_id;
    if (size) copy(vd->buffers[k].p, buffer, size);
    vd->buffers[k].busy = 1;
    vd->buffers[k].uid = uid;
    u32 words[4] = {(u32)r, uid, (u32)(uptr)vd->buffers[k].p, size};
    pa_vd_send(PA_TO_VD_DECODE, words, 4);
    int more = vd->nbuffers < PA_VD_PENDING;
    for (u32 i = 0; i < vd->nbuffers; i++) more |= !vd->buffers[i].busy;
    if (more) {
        unlock(&pa_vd_lock);
        return pa_result_now(cb, PP_OK);
    }
    /* Every buffer is the page's: done once it has read one. */
    struct pa_wait wait;
    pa_pending_start(&vd->decode, cb, &wait);
    unlock(&pa_vd_lock);
    return pa_pending_return(cb, &wait);
}

/* The first of the pictures waiting for GetPicture, taken off their queue (pa_vd_lock
   held): its slot, or -1. */
static i32 pa_vd_pop_ready(struct pa_vd *vd) {
    if (!vd->ready_n) return -1;
    u32 k = vd->ready[vd->ready_head];
    vd->ready_head = (vd->ready_head + 1) % PA_VD_PICTURES;
    vd->ready_n--;
    return (i32)k;
}

/* The picture `vd`'s GetPicture takes next, now the plugin's (pa_vd_lock held): its
   slot, or -1. */
static i32 pa_vd_take_ready(struct pa_vd *vd) {
    i32 k = pa_vd_pop_ready(vd);
    if (k >= 0) vd->pics[k].state = VDP_PLUGIN;
    return k;
}

/* Picture `k` given to the plugin at `out` (1.0's 36 bytes, or 0.1's first 20), its
   pixels put into its texture on this thread, the textures of gone pictures deleted. */
static void pa_vd_deliver(struct pa_vd *vd, i32 k, void *out, int v01) {
    lock(&pa_vd_lock);
    struct pa_vd_picture p = vd->pics[k];
    u32 dead[PA_VD_PICTURES], ndead = vd->ndead;
    copy(dead, vd->dead, ndead * sizeof dead[0]);
    vd->ndead = 0;
    u32 id = vd->decode_ids[p.uid % PA_VD_DELAY];
    unlock(&pa_vd_lock);
    for (u32 i = 0; i < ndead; i++) gl_context_picture(vd->g3d, (GI)dead[i], 0, 0, 0);
    gl_context_picture(vd->g3d, (GI)p.texture, (GI)(uptr)p.pixels, p.w, p.h);
    u32 pic[9] = {id, p.texture, GL_TEXTURE_2D_TARGET, (u32)p.w, (u32)p.h, 0, 0, (u32)p.w, (u32)p.h};
    copy(out, pic, v01 ? 20 : 36);
}

/* A GetPicture that waited: on its caller's loop, once a picture came (or it ended). */
struct pa_vd_waiting {
    i32 resource;
    void *out;
    int v01;
    struct PP_CompletionCallback cb;
};

static void pa_vd_picture_came(void *data, i32 result) {
    struct pa_vd_waiting w = *(struct pa_vd_waiting *)data;
    pa_release_block(data);
    if (result == PP_OK) {
        PA_HOLD(struct pa_vd, vd, w.resource, RES_VIDEO_DECODER);
        i32 k = -1;
        if (vd) {
            lock(&pa_vd_lock);
            k = pa_vd_take_ready(vd);
            unlock(&pa_vd_lock);
        }
        if (k < 0) result = PP_ERROR_ABORTED; /* taken back by a Reset meanwhile */
        else pa_vd_deliver(vd, k, w.out, w.v01);
    }
    w.cb.func(w.cb.user_data, result);
}

static i32 vd_get_picture_v(i32 r, void *out, int v01, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd) return pa_result_now(cb, PP_ERROR_BADRESOURCE);
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    if (!out) return pa_result_now(cb, PP_ERROR_BADARGUMENT);
    for (;;) {
        lock(&pa_vd_lock);
        i32 refused = vd->last_error ? vd->last_error
                      : vd->reset.active ? PP_ERROR_FAILED
                      : vd->picture.active ? PP_ERROR_INPROGRESS
                                           : PP_OK;
        if (refused) {
            unlock(&pa_vd_lock);
            return pa_result_now(cb, refused);
        }
        i32 k = pa_vd_take_ready(vd);
        if (k >= 0) {
            unlock(&pa_vd_lock);
            pa_vd_deliver(vd, k, out, v01);
            return pa_result_now(cb, PP_OK);
        }
        if (cb && cb->func) {
            struct pa_vd_waiting *w = pa_alloc(sizeof *w);
            if (!w) {
                unlock(&pa_vd_lock);
                return pa_result_now(cb, PP_ERROR_NOMEMORY);
            }
            *w = (struct pa_vd_waiting){r, out, v01, *cb};
            struct PP_CompletionCallback mine = {pa_vd_picture_came, w, 0};
            pa_pending_start(&vd->picture, &mine, NULL);
            unlock(&pa_vd_lock);
            return PP_OK_COMPLETIONPENDING;
        }
        /* Blocking (off the main thread): wait for one, then take it as above. */
        struct pa_wait wait;
        pa_pending_start(&vd->picture, NULL, &wait);
        unlock(&pa_vd_lock);
        i32 result = pa_pending_return(NULL, &wait);
        if (result != PP_OK) return result;
    }
}

static i32 vd_get_picture(i32 r, void *out, const struct PP_CompletionCallback *cb) { return vd_get_picture_v(r, out, 0, cb); }
static i32 vd_get_picture_0_1(i32 r, void *out, const struct PP_CompletionCallback *cb) { return vd_get_picture_v(r, out, 1, cb); }

/* Picture `k`'s buffer to the page, to fill (pa_vd_lock held). */
static void pa_vd_offer(struct pa_vd *vd, u32 k) {
    struct pa_vd_picture *p = &vd->pics[k];
    p->state = VDP_PAGE;
    u32 words[6] = {(u32)vd->resource, k, (u32)(uptr)p->pixels, (u32)p->w, (u32)p->h, p->pool};
    pa_vd_send(PA_TO_VD_BUFFER, words, 6);
}

/* Picture `k` gone: its pixels freed, its texture deleted at the next picture given. */
static void pa_vd_drop(struct pa_vd *vd, u32 k) {
    struct pa_vd_picture *p = &vd->pics[k];
    pa_release_block(p->pixels);
    if (p->texture && vd->ndead < PA_VD_PICTURES) vd->dead[vd->ndead++] = p->texture;
    pa_zero(p, sizeof *p);
}

static void vd_recycle_picture(i32 r, const void *picture) {
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd || !picture) return;
    u32 texture = pa_word((const u8 *)picture + 4);
    lock(&pa_vd_lock);
    for (u32 k = 0; !vd->last_error && k < PA_VD_PICTURES; k++) {
        struct pa_vd_picture *p = &vd->pics[k];
        if (p->state != VDP_PLUGIN || p->texture != texture) continue;
        if (p->old) pa_vd_drop(vd, k);
        else pa_vd_offer(vd, k);
        break;
    }
    unlock(&pa_vd_lock);
}

/* Flush, or Reset (`reset`): each refused while the other is under way, as Chrome's
   were. A Reset ends a waiting Decode and GetPicture now, aborted (they run after this
   call returns). */
static i32 pa_vd_flush_or_reset(i32 r, int reset, const struct PP_CompletionCallback *cb) {
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd) return pa_result_now(cb, PP_ERROR_BADRESOURCE);
    if (!pa_may_block(cb)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    struct pa_pending *mine = reset ? &vd->reset : &vd->flush, *other = reset ? &vd->flush : &vd->reset;
    lock(&pa_vd_lock);
    i32 refused = vd->last_error ? vd->last_error
                  : other->active ? PP_ERROR_FAILED
                  : mine->active  ? PP_ERROR_INPROGRESS
                                  : PP_OK;
    if (refused) {
        unlock(&pa_vd_lock);
        return pa_result_now(cb, refused);
    }
    if (reset) {
        pa_pending_end(&vd->decode, PP_ERROR_ABORTED, 0);
        pa_pending_end(&vd->picture, PP_ERROR_ABORTED, 0);
    }
    struct pa_wait wait;
    pa_pending_start(mine, cb, &wait);
    u32 words[1] = {(u32)r};
    pa_vd_send(reset ? PA_TO_VD_RESET : PA_TO_VD_FLUSH, words, 1);
    unlock(&pa_vd_lock);
    return pa_pending_return(cb, &wait);
}

static i32 vd_flush(i32 r, const struct PP_CompletionCallback *cb) { return pa_vd_flush_or_reset(r, 0, cb); }
static i32 vd_reset(i32 r, const struct PP_CompletionCallback *cb) { return pa_vd_flush_or_reset(r, 1, cb); }

/* Decoder `vd` fails with `error` (pa_vd_lock held): all that waits ends with it. */
static void pa_vd_fail(struct pa_vd *vd, i32 error) {
    vd->last_error = error;
    vd->initializing = 0;
    pa_pending_end(&vd->init, error, 0);
    pa_pending_end(&vd->decode, error, 0);
    pa_pending_end(&vd->picture, error, 0);
    pa_pending_end(&vd->flush, error, 0);
    pa_pending_end(&vd->reset, error, 0);
}

/* A new pool of pictures of w x h (pa_vd_lock held): 1, or 0 without room. */
static int pa_vd_pool(struct pa_vd *vd, i32 w, i32 h, u32 pool) {
    if (w <= 0 || h <= 0 || w > PA_MAX_SIDE || h > PA_MAX_SIDE) return 0;
    u32 count = vd->asked > PA_VD_POOL ? vd->asked : PA_VD_POOL;
    u64 bytes = (u64)w * (u64)h * 4;
    if (bytes * count > PA_VD_MAX_PIXELS) return 0;
    /* The pictures of the size before: those the page holds go now, the plugin's when
       recycled, those waiting for GetPicture stay until then. */
    for (u32 k = 0; k < PA_VD_PICTURES; k++) {
        struct pa_vd_picture *p = &vd->pics[k];
        if (p->state == VDP_PAGE) pa_vd_drop(vd, k);
        else if (p->state != VDP_NONE) p->old = 1;
    }
    vd->pool_w = w, vd->pool_h = h;
    u32 made = 0;
    for (u32 k = 0; k < PA_VD_PICTURES && made < count; k++) {
        struct pa_vd_picture *p = &vd->pics[k];
        if (p->state != VDP_NONE) continue;
        p->pixels = pa_alloc((size_t)bytes);
        if (!p->pixels) return 0;
        p->w = w, p->h = h, p->old = 0, p->pool = pool;
        p->texture = pa_vd_next_texture++;
        if (pa_vd_next_texture >= 0x7fffff00u) pa_vd_next_texture = PA_VD_TEXTURES;
        pa_vd_offer(vd, k);
        made++;
    }
    return made == count;
}

/* A record of the page's about a decoder (`n` bytes of body after the kind, at least 8). */
static void pa_vd_from_page(u32 kind, const u8 *body, u32 n) {
    i32 r = (i32)pa_word(body);
    u32 a = pa_word(body + 4), b = n >= 12 ? pa_word(body + 8) : 0;
    if (kind == PA_FROM_VD_DONE && n >= 12 && a == VD_DONE_DESTROY) {
        /* The page is done with a gone decoder's buffers: they go now. */
        lock(&pa_vd_lock);
        struct pa_vd **at = &pa_vd_dying;
        while (*at && (*at)->resource != r) at = &(*at)->next_dying;
        struct pa_vd *vd = *at;
        if (vd) *at = vd->next_dying;
        unlock(&pa_vd_lock);
        if (!vd) return;
        for (u32 i = 0; i < vd->nbuffers; i++) pa_release_block(vd->buffers[i].p);
        for (u32 k = 0; k < PA_VD_PICTURES; k++) pa_release_block(vd->pics[k].pixels);
        pa_release_block(vd);
        return;
    }
    PA_HOLD(struct pa_vd, vd, r, RES_VIDEO_DECODER);
    if (!vd) return;
    lock(&pa_vd_lock);
    if (kind == PA_FROM_VD_DONE && n < 12) {
        /* (too short) */
    } else if (kind == PA_FROM_VD_DONE && a == VD_DONE_INIT && vd->initializing) {
        i32 result = (i32)b == PP_OK ? PP_OK : (i32)b == PP_ERROR_NOTSUPPORTED ? PP_ERROR_NOTSUPPORTED : PP_ERROR_FAILED;
        vd->initializing = 0;
        vd->initialized = result == PP_OK;
        vd->last_error = result;
        pa_pending_end(&vd->init, result, 0);
    } else if (kind == PA_FROM_VD_DONE && a == VD_DONE_FLUSH && vd->flush.active) {
        pa_pending_end(&vd->picture, PP_ERROR_ABORTED, 0);
        pa_pending_end(&vd->flush, (i32)b == PP_OK ? PP_OK : PP_ERROR_FAILED, 0);
    } else if (kind == PA_FROM_VD_DONE && a == VD_DONE_RESET && vd->reset.active) {
        for (u32 i = 0; i < vd->nbuffers; i++) vd->buffers[i].busy = 0;
        for (i32 k; (k = pa_vd_pop_ready(vd)) >= 0;) {
            if (vd->pics[k].old) pa_vd_drop(vd, (u32)k);
            else pa_vd_offer(vd, (u32)k);
        }
        pa_pending_end(&vd->reset, (i32)b == PP_OK ? PP_OK : PP_ERROR_FAILED, 0);
    } else if (kind == PA_FROM_VD_DECODED) {
        for (u32 i = 0; i < vd->nbuffers; i++)
            if (vd->buffers[i].busy && vd->buffers[i].uid == a) {
                vd->buffers[i].busy = 0;
                pa_pending_end(&vd->decode, PP_OK, 0);
                break;
            }
    } else if (kind == PA_FROM_VD_SIZE && n >= 16 && vd->initialized && !vd->last_error) {
        if (!pa_vd_pool(vd, (i32)a, (i32)b, pa_word(body + 12))) pa_vd_fail(vd, PP_ERROR_RESOURCE_FAILED);
    } else if (kind == PA_FROM_VD_PICTURE && n >= 20 && a < PA_VD_PICTURES && !vd->last_error) {
        struct pa_vd_picture *p = &vd->pics[a];
        if (p->state == VDP_PAGE && !p->old && (i32)pa_word(body + 12) == p->w && (i32)pa_word(body + 16) == p->h &&
            vd->ready_n < PA_VD_PICTURES) {
            p->state = VDP_READY;
            p->uid = b;
            vd->ready[(vd->ready_head + vd->ready_n++) % PA_VD_PICTURES] = a;
            pa_pending_end(&vd->picture, PP_OK, 0);
        }
    } else if (kind == PA_FROM_VD_ERROR && vd->initialized && !vd->last_error) {
        pa_vd_fail(vd, (i32)a == PP_ERROR_MALFORMED_INPUT ? PP_ERROR_MALFORMED_INPUT : PP_ERROR_RESOURCE_FAILED);
    }
    unlock(&pa_vd_lock);
}

/* A decoder is gone (its last reference): the page closes its decoder; its buffers stay
   until the page says it is done with them. What waited ends PP_ERROR_ABORTED. Its
   textures are deleted now if this thread draws the context (else with the context). */
static void vd_gone(void *data) {
    struct pa_vd *vd = data;
    u32 names[2 * PA_VD_PICTURES], n = 0;
    lock(&pa_vd_lock);
    pa_vd_fail(vd, PP_ERROR_ABORTED);
    for (u32 i = 0; i < vd->ndead; i++) names[n++] = vd->dead[i];
    for (u32 k = 0; k < PA_VD_PICTURES; k++)
        if (vd->pics[k].texture) names[n++] = vd->pics[k].texture;
    i32 g3d = vd->g3d;
    /* (Once the page is told, it may answer, and the reader free `vd`, at any time.) */
    vd->next_dying = pa_vd_dying;
    pa_vd_dying = vd;
    u32 words[1] = {(u32)vd->resource};
    pa_vd_send(PA_TO_VD_DESTROY, words, 1);
    unlock(&pa_vd_lock);
    for (u32 i = 0; g3d && i < n; i++) gl_context_picture(g3d, (GI)names[i], 0, 0, 0);
    if (g3d) core_release_resource(g3d);
}

static void pa_video_decoder_init(void) { pa_on_page(PA_FROM_VD_DONE, PA_FROM_VD_ERROR, 8, pa_vd_from_page); }

/* The four versions' tables: 1.1's Initialize takes min_picture_count, 1.0's and 0.2's
   do not, 0.1's takes allow_software_fallback; 0.1 and 0.2 fill PP_VideoPicture_0_1. */
#define VD_INITIALIZE_1_1(X) \
    X(i32, Initialize, (i32 r, i32 g3d, i32 profile, i32 acceleration, u32 asked, const struct PP_CompletionCallback *cb), vd_initialize)
#define VD_INITIALIZE_0_2(X) \
    X(i32, Initialize, (i32 r, i32 g3d, i32 profile, i32 acceleration, const struct PP_CompletionCallback *cb), vd_initialize_0_2)
#define VD_INITIALIZE_0_1(X) \
    X(i32, Initialize, (i32 r, i32 g3d, i32 profile, i32 allow_software, const struct PP_CompletionCallback *cb), vd_initialize_0_1)
#define VD_GET_PICTURE_1_0(X) X(i32, GetPicture, (i32 r, void *out, const struct PP_CompletionCallback *cb), vd_get_picture)
#define VD_GET_PICTURE_0_1(X) X(i32, GetPicture, (i32 r, void *out, const struct PP_CompletionCallback *cb), vd_get_picture_0_1)
#define PPB_VIDEO_DECODER(X, INITIALIZE, GET_PICTURE)                                                                  \
    X(i32, Create, (i32 instance), vd_create)                                                                           \
    X(i32, IsVideoDecoder, (i32 r), vd_is)                                                                              \
    INITIALIZE(X)                                                                                                       \
    X(i32, Decode, (i32 r, u32 decode_id, u32 size, const void *buffer, const struct PP_CompletionCallback *cb), vd_decode) \
    GET_PICTURE(X)                                                                                                      \
    X(void, RecyclePicture, (i32 r, const void *picture), vd_recycle_picture)                                          \
    X(i32, Flush, (i32 r, const struct PP_CompletionCallback *cb), vd_flush)                                            \
    X(i32, Reset, (i32 r, const struct PP_CompletionCallback *cb), vd_reset)
#define PPB_VIDEO_DECODER_1_1(X) PPB_VIDEO_DECODER(X, VD_INITIALIZE_1_1, VD_GET_PICTURE_1_0)
#define PPB_VIDEO_DECODER_1_0(X) PPB_VIDEO_DECODER(X, VD_INITIALIZE_0_2, VD_GET_PICTURE_1_0)
#define PPB_VIDEO_DECODER_0_2(X) PPB_VIDEO_DECODER(X, VD_INITIALIZE_0_2, VD_GET_PICTURE_0_1)
#define PPB_VIDEO_DECODER_0_1(X) PPB_VIDEO_DECODER(X, VD_INITIALIZE_0_1, VD_GET_PICTURE_0_1)
PA_TABLE(PPB_VideoDecoder_1_1, ppb_video_decoder_1_1, PPB_VIDEO_DECODER_1_1)
PA_TABLE(PPB_VideoDecoder_1_0, ppb_video_decoder_1_0, PPB_VIDEO_DECODER_1_0)
PA_TABLE(PPB_VideoDecoder_0_2, ppb_video_decoder_0_2, PPB_VIDEO_DECODER_0_2)
PA_TABLE(PPB_VideoDecoder_0_1, ppb_video_decoder_0_1, PPB_VIDEO_DECODER_0_1)

#endif
