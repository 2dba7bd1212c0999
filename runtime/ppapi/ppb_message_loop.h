/*
 * PPB_MessageLoop;1.0: loops of the plugin's own threads (the loops themselves: loop.h).
 */
#ifndef PA_PPB_MESSAGE_LOOP_H
#define PA_PPB_MESSAGE_LOOP_H

#include "loop.h"

static i32 loop_create(i32 instance) {
    if (instance != pa_instance) return 0;
    i32 r = pa_new_resource(RES_LOOP);
    if (!r) return 0;
    lock(&pa_res_lock);
    for (int i = 0; i < PA_MAX_LOOPS; i++) {
        if (!pa_loop_resource[i]) {
            pa_loop_resource[i] = r;
            pa_zero(&pa_loops[i], sizeof pa_loops[i]);
            unlock(&pa_res_lock);
            return r;
        }
    }
    unlock(&pa_res_lock);
    core_release_resource(r);
    return 0;
}

static i32 loop_get_for_main_thread(void) { return pa_main_loop; }

static i32 loop_attach(i32 r) {
    if (r == pa_main_loop) return PP_ERROR_INPROGRESS;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (loop_get_current()) return PP_ERROR_INPROGRESS;
    if (l->thread) return PP_ERROR_INPROGRESS;
    l->thread = host_thread_id();
    return PP_OK;
}

static i32 loop_run(i32 r) {
    if (r == pa_main_loop) return PP_ERROR_INPROGRESS;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (l->thread != host_thread_id()) return PP_ERROR_WRONG_THREAD;
    if (l->running) return PP_ERROR_INPROGRESS;
    l->running = 1;
    for (;;) {
        lock(&l->lock);
        i64 wait;
        struct pa_event *e = pa_take_due(&l->head, &l->tail, pa_now_ns(1), &wait);
        int quit = l->quit && !e;
        int seen = l->signal;
        unlock(&l->lock);
        if (e) {
            __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
            if (e->kind == EV_MESSAGE) {
                /* The handler gets a pointer to the var; the host's reference ends after.
                   A message queued for a handler since unregistered reaches nobody. */
                lock(&pa_handler_lock);
                int current = e->handler_gen == pa_handler_gen;
                unlock(&pa_handler_lock);
                struct PP_Var m = e->message;
                if (current) e->handler.handle_message(pa_instance, e->handler_data, &m);
                var_release(&e->message);
            } else if (e->kind == EV_HANDLER_DESTROY) {
                e->handler.destroy(pa_instance, e->handler_data);
            } else {
                e->cb.func(e->cb.user_data, e->result);
            }
            pa_release_block(e);
            continue;
        }
        if (quit) break;
        pa_wait_word(&l->signal, seen, wait);
    }
    l->running = 0;
    l->quit = 0;
    if (l->destroyed) l->thread = 0;
    return PP_OK;
}

static i32 loop_post_work(i32 r, const struct PP_CompletionCallback *cb, i64 delay_ms) {
    if (!cb || !cb->func) return PP_ERROR_BADARGUMENT;
    if (r != pa_main_loop) {
        struct pa_loop *l = pa_loop_of(r);
        if (!l) return PP_ERROR_BADRESOURCE;
        if (l->destroyed) return PP_ERROR_FAILED;
    }
    pa_complete_on(r, *cb, PP_OK, delay_ms);
    return PP_OK;
}

static i32 loop_post_quit(i32 r, i32 should_destroy) {
    if (r == pa_main_loop) return PP_ERROR_WRONG_THREAD;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    lock(&l->lock);
    l->quit = 1;
    if (should_destroy) l->destroyed = 1;
    l->signal++;
    unlock(&l->lock);
    int n;
    irt_futex_wake(&l->signal, 1, &n);
    return PP_OK;
}

#define PPB_MESSAGELOOP_1_0(X)                                                                      \
    X(i32, Create, (i32 instance), loop_create)                                                     \
    X(i32, GetForMainThread, (void), loop_get_for_main_thread)                                      \
    X(i32, GetCurrent, (void), loop_get_current)                                                    \
    X(i32, AttachToCurrentThread, (i32 r), loop_attach)                                             \
    X(i32, Run, (i32 r), loop_run)                                                                  \
    X(i32, PostWork, (i32 r, const struct PP_CompletionCallback *cb, i64 delay_ms), loop_post_work) \
    X(i32, PostQuit, (i32 r, i32 should_destroy), loop_post_quit)
PA_TABLE(PPB_MessageLoop_1_0, ppb_message_loop_1_0, PPB_MESSAGELOOP_1_0)

#endif
