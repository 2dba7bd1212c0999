/*
 * Resources: one table of ref-counted ids, each of a kind an interface defines (struct
 * pa_kind), with the kind's state; holds that keep a state alive while the host uses it.
 * core_addref_resource and core_release_resource are PPB_Core's own entries.
 */
#ifndef PA_RESOURCE_H
#define PA_RESOURCE_H

#include "mem.h"

static uptr pa_main_thread;
static i32 pa_instance = 0x1001; /* ids as Chrome gave them: small, distinct */
static i32 pa_module = 0x1000;

/* A kind of resource: each interface that makes resources defines its kinds (in its own
   file) and the core calls them through this, naming none. */
struct pa_kind {
    const char *name;
    /* Its state released, with the resource's last reference (NULL: nothing to do). */
    void (*gone)(void *data);
    /* A device the instance can bind (PPB_Instance.BindGraphics; NULL: not one): its size
       and scale, 1 when it is 3-D, for resource `r` (0: none). */
    int (*bound)(i32 r, i32 *w, i32 *h, float *scale);
    /* A device the page has shown a frame of (PA_FROM_FLUSHED; NULL: not one). */
    void (*shown)(i32 r);
};

#define PA_MAX_RESOURCES 4096
/* A resource's id: 0x2000 + its slot + 4096 x the slot's generation, which each new
   resource in the slot takes one further: an id the plugin kept after releasing it names
   nothing, not the slot's next resource. */
#define PA_RESOURCE_BASE 0x2000
#define PA_RESOURCE_GENS (1u << 18)
static struct {
    const struct pa_kind *kind;
    i32 refs;
    u32 gen;
    void *data; /* the kind's own state (an image, a 2-D device), released with it */
} pa_resources[PA_MAX_RESOURCES];
static volatile int pa_res_lock;

static i32 pa_new_resource(const struct pa_kind *kind) {
    lock(&pa_res_lock);
    for (i32 i = 1; i < PA_MAX_RESOURCES; i++) {
        if (!pa_resources[i].refs) {
            pa_resources[i].kind = kind;
            pa_resources[i].refs = 1;
            u32 gen = pa_resources[i].gen;
            unlock(&pa_res_lock);
            return PA_RESOURCE_BASE + (i32)(gen * PA_MAX_RESOURCES) + i;
        }
    }
    unlock(&pa_res_lock);
    return 0;
}

/* The slot of live resource `r` (pa_res_lock held), or 0. */
static i32 pa_slot_locked(i32 r) {
    u32 v = (u32)r - PA_RESOURCE_BASE;
    if (r < PA_RESOURCE_BASE || v >= PA_RESOURCE_GENS * PA_MAX_RESOURCES) return 0;
    i32 i = (i32)(v % PA_MAX_RESOURCES);
    return i && pa_resources[i].refs && pa_resources[i].gen == v / PA_MAX_RESOURCES ? i : 0;
}

static const struct pa_kind *pa_resource_kind(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    const struct pa_kind *k = i ? pa_resources[i].kind : NULL;
    unlock(&pa_res_lock);
    return k;
}

static void core_addref_resource(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    if (i && pa_resources[i].refs < 0x7fffffff) pa_resources[i].refs++;
    unlock(&pa_res_lock);
}

static void core_release_resource(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    const struct pa_kind *kind = NULL;
    void *data = NULL;
    if (i && --pa_resources[i].refs == 0) {
        kind = pa_resources[i].kind;
        data = pa_resources[i].data;
        pa_resources[i].data = NULL;
        pa_resources[i].gen = (pa_resources[i].gen + 1) % PA_RESOURCE_GENS;
    }
    unlock(&pa_res_lock);
    if (data && kind->gone) kind->gone(data);
}

/* Whether `r` is a live resource of `kind` with its state (a moment's answer: to use the
   state, hold it, PA_HOLD below). */
static int pa_resource_live(i32 r, const struct pa_kind *kind) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    int live = i && pa_resources[i].kind == kind && pa_resources[i].data;
    unlock(&pa_res_lock);
    return live;
}

/* A hold on a resource: a reference the host takes while it uses the resource's state,
   so that a release meanwhile (on any thread) frees nothing under it; the state goes when
   the last reference does. PA_HOLD(type, name, r, kind) declares `name`, the state of
   `r` if it is a live resource of `kind` (else NULL), held until the end of the
   enclosing block, however the block is left. */
struct pa_hold {
    i32 r;
    void *data;
};

static struct pa_hold pa_hold(i32 r, const struct pa_kind *kind) {
    struct pa_hold h = {r, NULL};
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    if (i && pa_resources[i].kind == kind && pa_resources[i].data && pa_resources[i].refs < 0x7fffffff) {
        pa_resources[i].refs++;
        h.data = pa_resources[i].data;
    }
    unlock(&pa_res_lock);
    return h;
}

static void pa_drop(struct pa_hold *h) {
    if (h->data) core_release_resource(h->r);
}

#define PA_HOLD(type, name, r, kind)                                                    \
    struct pa_hold pa_hold_##name __attribute__((cleanup(pa_drop))) = pa_hold(r, kind); \
    type *name = pa_hold_##name.data

/* A new resource of `kind` holding `data` (0 if the table is full). */
static i32 pa_new_resource_with(const struct pa_kind *kind, void *data) {
    i32 r = pa_new_resource(kind);
    if (r) {
        lock(&pa_res_lock);
        pa_resources[pa_slot_locked(r)].data = data;
        unlock(&pa_res_lock);
    }
    return r;
}

#endif
