/*
 * Sound in a page: PPB_AudioConfig 1.0/1.1 and PPB_Audio 1.0/1.1 (ppapi.md §4, ppapi_cpp's
 * pp::Audio), onto an AudioWorklet of the page's.
 *
 * As Chrome's: stereo, 16-bit, 44,100 or 48,000 frames a second, 64 to 32,768 frames a
 * buffer. StartPlayback starts a thread (through the plugin's own thread functions, which
 * its start-up registered, as Chrome's audio thread was made) that calls the plugin's
 * callback for a buffer at a time and puts each into a ring in the host's memory; the
 * page's worklet plays from the ring (it reads the plugin's memory, shared) and says how
 * far it has read, which lets the thread fill the next buffer. PA_TO_AUDIO_START (audio,
 * the ring's address, its frames, the rate) and PA_TO_AUDIO_STOP (audio) tell the page.
 * The ring: [written frames, read frames] (counting on), then its samples.
 */
#ifndef PA_PPB_AUDIO_H
#define PA_PPB_AUDIO_H

#include "loop.h"
#include "page.h"

#define PA_AUDIO_MIN_FRAMES 64
#define PA_AUDIO_MAX_FRAMES 32768
#define PA_AUDIO_BUFFERS 4 /* the ring holds this many of the plugin's buffers */

struct PP_ThreadFunctions {
    i32 (*thread_create)(uptr *tid, void (*func)(void *), void *arg);
    i32 (*thread_join)(uptr tid);
};
static struct PP_ThreadFunctions pa_thread_functions;

static void ppapi_register_thread_creator(const struct PP_ThreadFunctions *f) {
    if (f) pa_thread_functions = *f;
}

struct pa_audio;
static void pa_audio_gone(void *data);
static void pa_audio_config_gone(void *data) { pa_release_block(data); }
static const struct pa_kind pa_kind_audio_config = {"AudioConfig", pa_audio_config_gone, NULL};
static const struct pa_kind pa_kind_audio = {"Audio", pa_audio_gone, NULL};
#define RES_AUDIO_CONFIG (&pa_kind_audio_config)
#define RES_AUDIO (&pa_kind_audio)

struct pa_audio_config { i32 rate, frames; };

struct pa_audio_ring {
    volatile u32 written, read;
    u32 frames; /* capacity */
    u32 pad;
    i16 samples[]; /* frames x 2 */
};

struct pa_audio {
    i32 resource, config, version;
    void *callback, *user_data;
    i32 rate, frames;
    volatile int playing, running; /* running: its thread is (or will be) there */
    struct pa_audio_ring *ring;
    i16 *buffer;
};

static volatile int pa_audio_lock;

static int pa_audio_rate_ok(i32 rate) { return rate == 44100 || rate == 48000; }

static i32 config_create(i32 instance, i32 rate, u32 frames) {
    if (instance != pa_instance || !pa_audio_rate_ok(rate) || frames < PA_AUDIO_MIN_FRAMES ||
        frames > PA_AUDIO_MAX_FRAMES)
        return 0;
    struct pa_audio_config *c = pa_alloc(sizeof *c);
    if (!c) return 0;
    c->rate = rate;
    c->frames = (i32)frames;
    i32 r = pa_new_resource_with(RES_AUDIO_CONFIG, c);
    if (!r) pa_release_block(c);
    return r;
}

/* The frames a buffer should have: what was asked, within the bounds, and at least what
   a worklet's rendering keeps up with comfortably (512). */
static u32 config_recommend_frames(i32 instance, i32 rate, u32 requested) {
    (void)instance;
    if (!pa_audio_rate_ok(rate)) return 0;
    if (requested < 512) requested = 512;
    return requested > PA_AUDIO_MAX_FRAMES ? PA_AUDIO_MAX_FRAMES : requested;
}
static u32 config_recommend_frames_1_0(i32 rate, u32 requested) { return config_recommend_frames(0, rate, requested); }
static i32 config_is(i32 r) { return pa_resource_kind(r) == RES_AUDIO_CONFIG; }
static i32 config_rate(i32 r) {
    PA_HOLD(struct pa_audio_config, c, r, RES_AUDIO_CONFIG);
    return c ? c->rate : 0;
}
static u32 config_frames(i32 r) {
    PA_HOLD(struct pa_audio_config, c, r, RES_AUDIO_CONFIG);
    return c ? (u32)c->frames : 0;
}
static i32 config_recommend_rate(i32 instance) { return instance == pa_instance ? 48000 : 0; }

static i32 pa_audio_create(i32 instance, i32 config, void *callback, void *user_data, i32 version) {
    PA_HOLD(struct pa_audio_config, c, config, RES_AUDIO_CONFIG);
    if (instance != pa_instance || !c || !callback) return 0;
    struct pa_audio *a = pa_alloc(sizeof *a);
    size_t ring = sizeof(struct pa_audio_ring) + (size_t)c->frames * PA_AUDIO_BUFFERS * 4;
    struct pa_audio_ring *g = pa_alloc(ring);
    i16 *buffer = pa_alloc((size_t)c->frames * 4);
    if (!a || !g || !buffer) {
        pa_release_block(a), pa_release_block(g), pa_release_block(buffer);
        return 0;
    }
    pa_zero(a, sizeof *a);
    pa_zero(g, ring);
    g->frames = (u32)c->frames * PA_AUDIO_BUFFERS;
    a->config = config, a->version = version, a->callback = callback, a->user_data = user_data;
    a->rate = c->rate, a->frames = c->frames, a->ring = g, a->buffer = buffer;
    core_addref_resource(config);
    i32 r = pa_new_resource_with(RES_AUDIO, a);
    if (!r) {
        core_release_resource(config);
        pa_release_block(a), pa_release_block(g), pa_release_block(buffer);
        return 0;
    }
    a->resource = r;
    return r;
}

static i32 audio_create_1_0(i32 instance, i32 config, void *callback, void *user_data) {
    return pa_audio_create(instance, config, callback, user_data, 0);
}
static i32 audio_create_1_1(i32 instance, i32 config, void *callback, void *user_data) {
    return pa_audio_create(instance, config, callback, user_data, 1);
}
static i32 audio_is(i32 r) { return pa_resource_kind(r) == RES_AUDIO; }
static i32 audio_config(i32 r) {
    PA_HOLD(struct pa_audio, a, r, RES_AUDIO);
    if (!a) return 0;
    core_addref_resource(a->config);
    return a->config;
}

/* The audio thread: a buffer from the plugin whenever the ring has room for one, while
   the sound plays. (It parks, on the ring's read count, when it does not.) */
static void pa_audio_thread(void *arg) {
    struct pa_audio *a = arg;
    struct pa_audio_ring *g = a->ring;
    u32 frames = (u32)a->frames;
    for (;;) {
        u32 read = __atomic_load_n(&g->read, __ATOMIC_ACQUIRE);
        if (!__atomic_load_n(&a->playing, __ATOMIC_ACQUIRE)) {
            if (!__atomic_load_n(&a->running, __ATOMIC_ACQUIRE)) return;
            irt_futex_wait_abs((volatile int *)&g->read, (int)read, NULL);
            continue;
        }
        u32 written = __atomic_load_n(&g->written, __ATOMIC_RELAXED);
        if (written - read + frames > g->frames) {
            /* Until the worklet reads on (it wakes this word), or 50 ms. */
            i64 t = pa_now_ns(0) + 50000000;
            struct nacl_timespec at = {t / 1000000000, (i32)(t % 1000000000), 0};
            irt_futex_wait_abs((volatile int *)&g->read, (int)read, &at);
            continue;
        }
        if (a->version)
            ((void (*)(void *, u32, double, void *))a->callback)(a->buffer, frames * 4,
                                                                 (double)(written - read) / a->rate, a->user_data);
        else
            ((void (*)(void *, u32, void *))a->callback)(a->buffer, frames * 4, a->user_data);
        for (u32 k = 0; k < frames; k++) {
            u32 at = (written + k) % g->frames;
            g->samples[2 * at] = a->buffer[2 * k];
            g->samples[2 * at + 1] = a->buffer[2 * k + 1];
        }
        __atomic_store_n(&g->written, written + frames, __ATOMIC_RELEASE);
    }
}

/* A thread of the host's for `a` (1 if none can be had): its stack from the host's
   memory, kept (a thread a sound). */
static struct pa_audio *pa_audio_queue[16];
static u32 pa_audio_queued;
static void pa_audio_host_entry(void) {
    lock(&pa_audio_lock);
    struct pa_audio *a = pa_audio_queued ? pa_audio_queue[--pa_audio_queued] : NULL;
    unlock(&pa_audio_lock);
    if (a) pa_audio_thread(a);
    irt_thread_exit(NULL);
}
static int pa_audio_host_thread(struct pa_audio *a) {
    u8 *stack = pa_alloc(256 << 10);
    if (!stack) return 1;
    lock(&pa_audio_lock);
    int full = pa_audio_queued == sizeof pa_audio_queue / sizeof pa_audio_queue[0];
    if (!full) pa_audio_queue[pa_audio_queued++] = a;
    unlock(&pa_audio_lock);
    if (full || irt_thread_create(pa_audio_host_entry, stack + (256 << 10), NULL)) {
        pa_release_block(stack);
        return 1;
    }
    return 0;
}

static i32 audio_start(i32 r) {
    PA_HOLD(struct pa_audio, a, r, RES_AUDIO);
    if (!a) return 0;
    lock(&pa_audio_lock);
    if (a->playing) {
        unlock(&pa_audio_lock);
        return 1;
    }
    a->playing = 1;
    int start = !a->running;
    if (start) a->running = 1;
    unlock(&pa_audio_lock);
    int n;
    irt_futex_wake((volatile int *)&a->ring->read, 1, &n);
    if (start) {
        /* The plugin's own thread functions (registered at its start), as Chrome made its
           audio thread: the callback runs on a thread the plugin's library knows. A plugin
           that registered none gets a thread of the host's. */
        uptr tid;
        int failed = pa_thread_functions.thread_create ? pa_thread_functions.thread_create(&tid, pa_audio_thread, a) != 0
                                                       : pa_audio_host_thread(a);
        if (failed) {
            lock(&pa_audio_lock);
            a->playing = a->running = 0;
            unlock(&pa_audio_lock);
            return 0;
        }
    }
    u32 rec[6] = {24, PA_TO_AUDIO_START, (u32)r, (u32)(uptr)a->ring, a->ring->frames, (u32)a->rate};
    pa_to_page(rec, sizeof rec);
    return 1;
}

static i32 audio_stop(i32 r) {
    PA_HOLD(struct pa_audio, a, r, RES_AUDIO);
    if (!a) return 0;
    lock(&pa_audio_lock);
    a->playing = 0;
    unlock(&pa_audio_lock);
    u32 rec[3] = {12, PA_TO_AUDIO_STOP, (u32)r};
    pa_to_page(rec, sizeof rec);
    return 1;
}

/* An audio resource is gone: the page stops; its thread ends at its next look. Its memory
   stays (the thread and the worklet may still read it): a small price a sound. */
static void pa_audio_gone(void *data) {
    struct pa_audio *a = data;
    u32 rec[3] = {12, PA_TO_AUDIO_STOP, (u32)a->resource};
    pa_to_page(rec, sizeof rec);
    lock(&pa_audio_lock);
    a->playing = 0;
    a->running = 0;
    unlock(&pa_audio_lock);
    int n;
    irt_futex_wake((volatile int *)&a->ring->read, 1, &n);
    core_release_resource(a->config);
}

#define PPB_AUDIOCONFIG(X)                              \
    X(i32, IsAudioConfig, (i32 r), config_is)           \
    X(i32, GetSampleRate, (i32 r), config_rate)         \
    X(u32, GetSampleFrameCount, (i32 r), config_frames)
#define PPB_AUDIOCONFIG_1_0(X)                                                                \
    X(i32, CreateStereo16Bit, (i32 instance, i32 rate, u32 frames), config_create)            \
    X(u32, RecommendSampleFrameCount, (i32 rate, u32 requested), config_recommend_frames_1_0) \
    PPB_AUDIOCONFIG(X)
#define PPB_AUDIOCONFIG_1_1(X)                                                                          \
    X(i32, CreateStereo16Bit, (i32 instance, i32 rate, u32 frames), config_create)                      \
    X(u32, RecommendSampleFrameCount, (i32 instance, i32 rate, u32 requested), config_recommend_frames) \
    PPB_AUDIOCONFIG(X)                                                                                  \
    X(i32, RecommendSampleRate, (i32 instance), config_recommend_rate)
PA_TABLE(PPB_AudioConfig_1_0, ppb_audio_config_1_0, PPB_AUDIOCONFIG_1_0)
PA_TABLE(PPB_AudioConfig_1_1, ppb_audio_config_1_1, PPB_AUDIOCONFIG_1_1)


/* PPB_Audio 1.0 and 1.1: the same functions but Create (1.1's callback takes the latency). */
#define PPB_AUDIO(X, create)                                                                    \
    X(i32, Create, (i32 instance, i32 config, void *callback, void *user_data), create) \
    X(i32, IsAudio, (i32 r), audio_is)                                                  \
    X(i32, GetCurrentConfig, (i32 r), audio_config)                                     \
    X(i32, StartPlayback, (i32 r), audio_start)                                         \
    X(i32, StopPlayback, (i32 r), audio_stop)
#define PPB_AUDIO_1_0(X) PPB_AUDIO(X, audio_create_1_0)
#define PPB_AUDIO_1_1(X) PPB_AUDIO(X, audio_create_1_1)
PA_TABLE(PPB_Audio_1_0, ppb_audio_1_0, PPB_AUDIO_1_0)
PA_TABLE(PPB_Audio_1_1, ppb_audio_1_1, PPB_AUDIO_1_1)


#endif
