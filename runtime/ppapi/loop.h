/*
 * Message loops: the main thread's and the plugin's own threads' (a queue each, run by
 * PPB_MessageLoop.Run); callbacks due on a loop; calls that wait for the page (struct
 * pa_pending), the one way such a call waits.
 */
#ifndef PA_LOOP_H
#define PA_LOOP_H

#include "events.h"
#include "resource.h"

/* Message loops for the plugin's own threads: a queue each, run by Run. */
struct pa_loop {
    volatile int lock, signal;
    uptr thread;
    int running, quit, destroyed;
    struct pa_event *head, *tail;
};
#define PA_MAX_LOOPS 64
static struct pa_loop pa_loops[PA_MAX_LOOPS];
static i32 pa_loop_resource[PA_MAX_LOOPS];
static i32 pa_main_loop;

/* Loops are resources of their own kind (the main thread's too). */
static const struct pa_kind pa_kind_loop = {"MessageLoop", NULL, NULL};
#define RES_LOOP (&pa_kind_loop)

static struct pa_loop *pa_loop_of(i32 r) {
    if (pa_resource_kind(r) != RES_LOOP) return NULL;
    for (int i = 0; i < PA_MAX_LOOPS; i++)
        if (pa_loop_resource[i] == r) return &pa_loops[i];
    return NULL;
}

/* The loop the calling thread runs (attached to), or 0. */
static i32 loop_get_current(void) {
    uptr me = host_thread_id();
    if (me == pa_main_thread) return pa_main_loop;
    for (int i = 0; i < PA_MAX_LOOPS; i++)
        if (pa_loop_resource[i] && pa_loops[i].thread == me) return pa_loop_resource[i];
    return 0;
}

/* Queues event `e` (due at e->due_ns) on loop `l`. */
static void pa_loop_push(struct pa_loop *l, struct pa_event *e) {
    e->next = NULL;
    lock(&l->lock);
    if (l->tail) l->tail->next = e;
    else l->head = e;
    l->tail = e;
    l->signal++;
    unlock(&l->lock);
    int n;
    irt_futex_wake(&l->signal, 1, &n);
}

/* PPB_Core's: `cb` with `result` on the main thread after `delay_ms`; whether the
   calling thread is the main one. */
static void core_call_on_main_thread(i32 delay_ms, const struct PP_CompletionCallback *cb, i32 result) {
    if (!cb || !cb->func) return;
    struct pa_event *e = pa_new_event(EV_CALLBACK);
    e->cb = *cb;
    e->result = result;
    e->due_ns = pa_now_ns(1) + (delay_ms > 0 ? (i64)delay_ms * 1000000 : 0);
    pa_push(e);
}

static i32 core_is_main_thread(void) { return host_thread_id() == pa_main_thread; }

/* Runs `cb` with `result` on loop `loop` (the main thread's when it is 0), after
   `delay_ms` (at most 2^31 - 1 ms). */
static void pa_complete_on(i32 loop, struct PP_CompletionCallback cb, i32 result, i64 delay_ms) {
    if (!cb.func) return;
    if (delay_ms < 0) delay_ms = 0;
    if (delay_ms > 0x7fffffff) delay_ms = 0x7fffffff;
    if (!loop || loop == pa_main_loop) {
        core_call_on_main_thread((i32)delay_ms, &cb, result);
        return;
    }
    struct pa_loop *l = pa_loop_of(loop);
    if (!l) return;
    struct pa_event *e = pa_new_event(EV_CALLBACK);
    e->cb = cb;
    e->result = result;
    e->due_ns = pa_now_ns(1) + delay_ms * 1000000;
    pa_loop_push(l, e);
}

/* A call that waits for the page (a frame shown, a socket's answer): its callback on the
   caller's loop, or the caller blocked (off the main thread) until it ends. The one way
   such a call waits. */
struct pa_wait { volatile int done; i32 result; };
struct pa_pending {
    int active;
    struct PP_CompletionCallback cb;
    i32 loop;
    struct pa_wait *wait;
};

/* Starts `p` (under its owner's lock): the callback kept, or `w` to block on. */
static void pa_pending_start(struct pa_pending *p, const struct PP_CompletionCallback *cbp, struct pa_wait *w) {
    p->active = 1;
    p->cb = cbp ? *cbp : (struct PP_CompletionCallback){0, 0, 0};
    p->loop = loop_get_current();
    p->wait = p->cb.func ? NULL : w;
    if (w) w->done = 0;
}

/* Ends `p` with `result` (under its owner's lock): a blocked caller wakes at once, a
   callback runs after `delay_ms`. */
static void pa_pending_end(struct pa_pending *p, i32 result, i64 delay_ms) {
    if (!p->active) return;
    p->active = 0;
    if (p->wait) {
        p->wait->result = result;
        __atomic_store_n(&p->wait->done, 1, __ATOMIC_RELEASE);
        int n;
        irt_futex_wake(&p->wait->done, 1, &n);
        p->wait = NULL;
    } else {
        pa_complete_on(p->loop, p->cb, result, delay_ms);
    }
}

/* pa_pending_end under `owner_lock`, the lock of the state `p` is part of. */
static void pa_pending_end_under(volatile int *owner_lock, struct pa_pending *p, i32 result, i64 delay_ms) {
    lock(owner_lock);
    pa_pending_end(p, result, delay_ms);
    unlock(owner_lock);
}

/* What a call returns: pending, or (blocking) the result once it comes. */
static i32 pa_pending_return(const struct PP_CompletionCallback *cbp, struct pa_wait *w) {
    if (cbp && cbp->func) return PP_OK_COMPLETIONPENDING;
    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) irt_futex_wait_abs(&w->done, 0, NULL);
    return w->result;
}

/* A call's result known at once, as Chrome's thunks returned it (EnterBase::SetResult): a
   required callback (one not optional, not blocking) runs with it on the caller's loop
   and the call says PP_OK_COMPLETIONPENDING; otherwise the result is the call's. */
static i32 pa_result_now(const struct PP_CompletionCallback *cbp, i32 result) {
    if (result == PP_OK_COMPLETIONPENDING || !cbp || !cbp->func || (cbp->flags & PP_COMPLETIONCALLBACK_FLAG_OPTIONAL))
        return result;
    pa_complete_on(loop_get_current(), *cbp, result, 0);
    return PP_OK_COMPLETIONPENDING;
}

/* Whether a call with `cbp` may go on: not a blocking call on the main thread. */
static int pa_may_block(const struct PP_CompletionCallback *cbp) {
    return (cbp && cbp->func) || !core_is_main_thread();
}

/* Whether a call with callback `cbp` may start: PP_OK, or why not, in the order Chrome
   checked: its resource's state not held (`held` NULL), its arguments not good
   (`args_ok` 0), a blocking call on the main thread. */
static i32 pa_may_start(const void *held, int args_ok, const struct PP_CompletionCallback *cbp) {
    if (!held) return PP_ERROR_BADRESOURCE;
    if (!args_ok) return PP_ERROR_BADARGUMENT;
    if (!pa_may_block(cbp)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    return PP_OK;
}

/* The start of a call with a completion callback: PA_HOLD(type, name, r, kind), then
   the return of what pa_may_start refuses (`args_ok` its arguments' check). */
#define PA_START(type, name, r, kind, args_ok, cb)                \
    PA_HOLD(type, name, r, kind);                                 \
    do {                                                          \
        i32 pa_refused = pa_may_start(name, args_ok, cb);         \
        if (pa_refused) return pa_refused;                        \
    } while (0)

#endif
