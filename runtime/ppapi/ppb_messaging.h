/*
 * PPB_Messaging;1.0 and 1.2: messages to the page (standard output headless), and the
 * message handler a plugin registers on a loop of its own (1.2).
 */
#ifndef PA_PPB_MESSAGING_H
#define PA_PPB_MESSAGING_H

#include "out.h"
#include "loop.h"

static void messaging_post(i32 instance, const struct PP_Var *message) {
    if (instance != pa_instance || !message) return;
    pa_note_post();
    pa_emit(1, "", message);
}

/* The registered message handler (PPB_Messaging 1.2): messages go to it, on its loop,
   instead of PPP_Messaging; its Destroy runs on that loop when it is replaced or
   unregistered. (Headless, no message blocks: HandleBlockingMessage is never called.) */
static struct pa_handler pa_handler_fns;
static void *pa_handler_data;
static i32 pa_handler_loop; /* 0: none */

/* Ends the registered handler (its Destroy queued on its loop); pa_handler_lock held. */
static void pa_handler_end_locked(void) {
    if (!pa_handler_loop) return;
    pa_handler_gen++;
    struct pa_loop *l = pa_loop_of(pa_handler_loop);
    if (l) {
        struct pa_event *e = pa_new_event(EV_HANDLER_DESTROY);
        e->handler = pa_handler_fns;
        e->handler_data = pa_handler_data;
        pa_loop_push(l, e);
    }
    pa_handler_loop = 0;
}

static i32 messaging_register_handler(i32 instance, void *user, const struct pa_handler *handler, i32 loop) {
    if (instance != pa_instance || !handler) return PP_ERROR_BADARGUMENT;
    struct pa_handler h = *handler;
    if (!h.handle_message || !h.handle_blocking_message || !h.destroy) return PP_ERROR_BADARGUMENT;
    if (loop == pa_main_loop) return PP_ERROR_WRONG_THREAD;
    struct pa_loop *l = pa_loop_of(loop);
    if (!l || l->destroyed) return PP_ERROR_BADARGUMENT;
    lock(&pa_handler_lock);
    pa_handler_end_locked();
    pa_handler_gen++;
    pa_handler_fns = h;
    pa_handler_data = user;
    pa_handler_loop = loop;
    unlock(&pa_handler_lock);
    return PP_OK;
}

static void messaging_unregister_handler(i32 instance) {
    if (instance != pa_instance) return;
    lock(&pa_handler_lock);
    pa_handler_end_locked();
    unlock(&pa_handler_lock);
}

/* Hands message event `e` to the registered handler's loop: 1, or 0 when there is none. */
static int pa_to_handler(struct pa_event *e) {
    lock(&pa_handler_lock);
    struct pa_loop *l = pa_handler_loop ? pa_loop_of(pa_handler_loop) : NULL;
    if (l) {
        e->handler = pa_handler_fns;
        e->handler_data = pa_handler_data;
        e->handler_gen = pa_handler_gen;
        e->due_ns = 0;
        pa_loop_push(l, e);
    }
    unlock(&pa_handler_lock);
    return l != NULL;
}

#define PPB_MESSAGING_1_2(X)                                                                                                           \
    X(void, PostMessage, (i32 instance, const struct PP_Var *message), messaging_post)                                                 \
    X(i32, RegisterMessageHandler, (i32 instance, void *user, const struct pa_handler *handler, i32 loop), messaging_register_handler) \
    X(void, UnregisterMessageHandler, (i32 instance), messaging_unregister_handler)
PA_TABLE(PPB_Messaging_1_2, ppb_messaging_1_2, PPB_MESSAGING_1_2)

#endif
