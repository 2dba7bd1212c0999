/*
 * The main thread's queue of events: messages, callbacks, the plugin-side calls it is due.
 */
#ifndef PA_EVENTS_H
#define PA_EVENTS_H

#include "var.h"

enum { EV_MESSAGE, EV_CALLBACK, EV_END, EV_HANDLER_DESTROY, EV_VIEW, EV_INPUT };

/* PPP_MessageHandler;0.2 (PPB_Messaging 1.2's RegisterMessageHandler): the plugin's
   functions, copied when it registers them. */
struct pa_handler {
    void (*handle_message)(i32 instance, void *user_data, const struct PP_Var *message);
    void (*handle_blocking_message)(i32 instance, void *user_data, const struct PP_Var *message,
                                    struct PP_Var *response);
    void (*destroy)(i32 instance, void *user_data);
};

struct pa_event {
    struct pa_event *next;
    int kind;
    struct PP_Var message;
    struct PP_CompletionCallback cb;
    i32 result;
    i64 due_ns; /* a callback's time (CLOCK_MONOTONIC) */
    struct pa_handler handler; /* EV_MESSAGE on a loop, EV_HANDLER_DESTROY */
    void *handler_data;
    u32 handler_gen; /* the registration an EV_MESSAGE on a loop was queued for */
};

static volatile int pa_handler_lock;
static u32 pa_handler_gen; /* bumped at each registration and unregistration */

static volatile int pa_queue_lock;
static volatile int pa_queue_signal; /* futex word: bumped at each push */
static struct pa_event *pa_head, *pa_tail;
static int pa_queued_messages;
static volatile int pa_reader_signal;

static i64 pa_now_ns(u32 clk) {
    struct nacl_timespec ts;
    if (irt_clock_gettime(clk, &ts)) return 0;
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pa_push(struct pa_event *e) {
    lock(&pa_queue_lock);
    e->next = NULL;
    if (pa_tail) pa_tail->next = e;
    else pa_head = e;
    pa_tail = e;
    if (e->kind == EV_MESSAGE) pa_queued_messages++;
    unlock(&pa_queue_lock);
    __atomic_add_fetch(&pa_queue_signal, 1, __ATOMIC_SEQ_CST);
    int n;
    irt_futex_wake(&pa_queue_signal, 1, &n);
}

static struct pa_event *pa_new_event(int kind) {
    struct pa_event *e = pa_alloc(sizeof *e);
    if (!e) pa_fail("out of memory for the plugin's events");
    pa_zero(e, sizeof *e);
    e->kind = kind;
    return e;
}

/* The first event of the queue at *head (*tail its last) that is due at `now` (any but
   a callback is due at once), taken off the queue; or NULL, with *wait the nanoseconds
   until the next one is due (-1: none). The queue's lock held. */
static struct pa_event *pa_take_due(struct pa_event **head, struct pa_event **tail, i64 now, i64 *wait) {
    *wait = -1;
    for (struct pa_event *x = *head, *prev = NULL; x; prev = x, x = x->next) {
        if (x->kind != EV_CALLBACK || x->due_ns <= now) {
            if (prev) prev->next = x->next;
            else *head = x->next;
            if (*tail == x) *tail = prev;
            return x;
        }
        if (*wait < 0 || x->due_ns - now < *wait) *wait = x->due_ns - now;
    }
    return NULL;
}

/* Waits until futex word `word` is no longer `seen` (or a spurious wake), or `wait`
   nanoseconds pass (-1: no end). */
static void pa_wait_word(volatile int *word, int seen, i64 wait) {
    struct nacl_timespec abs, *at = NULL;
    if (wait >= 0) {
        i64 t = pa_now_ns(0) + wait;
        abs.tv_sec = t / 1000000000;
        abs.tv_nsec = (i32)(t % 1000000000);
        at = &abs;
    }
    irt_futex_wait_abs(word, seen, at);
}

#endif
