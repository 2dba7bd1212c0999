/*
 * The PPAPI host: what a browser plugin pexe (one that asks for nacl-irt-ppapihook-0.1)
 * finds instead of Chrome, headless. One implementation for every target, over what
 * each backend (irt.c natively, wasi.c for WebAssembly) provides: backend.h declares it.
 * The backend hands the start-up's arguments over through ppapi_set_args.
 *
 * The pexe's side of each call follows ../shared/notes/ppapi.md §2.3: a PP_Var (or any
 * struct) passed by value arrives as a pointer to a copy, a struct result is written
 * through a first pointer argument.
 *
 * Messages (ppapi.md §5.4, headless): each line of standard input is one message to
 * PPP_Messaging.HandleMessage, each message the plugin posts one line of standard output.
 * By default a message is a string (the line without its newline); with
 * PNACL_MESSAGES=json both directions are one JSON value a line (an integral number that
 * fits in 32 bits an INT32 var, other numbers DOUBLE, arrays, objects as dictionaries, an
 * ArrayBuffer as {"$arraybuffer": "<base64>"}). The plugin's own writes to standard
 * output go to standard error, as console messages do. At the end of input the plugin
 * runs on until it is idle (no event to deliver and no CPU used by any of its threads for
 * 0.2 s) or has posted nothing for 2 s, then gets DidDestroy and PPP_ShutdownModule, and
 * the program ends (status 0), as when its page went away. A text message that is `quit` alone (PNACL_QUIT says
 * another; empty, none) is delivered and then ends the input: a line protocol's last word
 * (UCI, xboard) ends the program too, whether the plugin exits on it or not.
 *
 * The host's tables and vars live in the plugin's own memory (natively it can write all of
 * it): nothing here is trusted more than the plugin; every id it hands in is checked, and
 * the number of vars, their bytes and queued messages are bounded.
 */
#ifndef PNACL_RT_PPAPI_H
#define PNACL_RT_PPAPI_H

/* The host's rooms (runtime/ppapi/, docs/ARCHITECTURE.md): the core below (what every
   interface uses; it names none of them), then each interface in a file of its own. */
#include "ppapi/base.h"
#include "ppapi/mem.h"
#include "ppapi/var.h"
#include "ppapi/json.h"
#include "ppapi/out.h"
#include "ppapi/events.h"
#include "ppapi/resource.h"
#include "ppapi/loop.h"
#include "ppapi/page.h"

#include "ppapi/ppb_core.h"
#include "ppapi/ppb_var.h"
#include "ppapi/ppb_var_containers.h"
#include "ppapi/ppb_messaging.h"
#include "ppapi/ppb_console.h"
#include "ppapi/ppb_instance.h"
#include "ppapi/ppb_view.h"
#include "ppapi/ppb_input_event.h"
#include "ppapi/ppb_message_loop.h"
#include "ppapi/ppb_mouse_cursor.h"
#include "ppapi/ppb_image_data.h"
#include "ppapi/ppb_graphics2d.h"
#include "ppapi/ppb_url_loader.h"
#include "ppapi/ppb_websocket.h"
#include "ppapi/ppb_audio.h"
#include "ppapi/ppb_file.h"
#include "ppapi/ppb_file_keep.h" /* (ppb_file.h includes it after its nodes) */
#ifdef PA_HAVE_GL
#include "ppapi/ppb_graphics3d.h"
#include "ppapi/ppb_video_decoder.h"
#endif

/* ----------------------------------------------------------------------------------- */
/* The interface tables and their lookup (ppapi.md §1.7, §4): interfaces.def             */

enum { PA_ANYWHERE, PA_SCREEN, PA_PAGE };

static const struct {
    const char *name;
    const void *table;
    u32 size; /* the table's bytes: its functions, none NULL */
    u32 where;
} pa_interfaces[] = {
#define PA_INTERFACE(name, table, where) {name, &table, sizeof table, PA_##where},
#include "ppapi/interfaces.def"
#undef PA_INTERFACE
};

/* The parts that read records from the page, asking for them before its reader runs. */
static void pa_parts_init(void) {
    pa_instance_init();
    pa_view_init();
    pa_input_init();
    pa_url_loader_init();
    pa_keep_init();
    pa_websocket_init();
#ifdef PA_HAVE_GL
    pa_video_decoder_init();
#endif
}

static int pa_report_missing; /* PNACL_PPAPI_MISSING=1 */
static volatile int pa_missing_lock;
static char pa_missing_seen[2048];
static u32 pa_missing_len;

/* Says once, on standard error, that the plugin asked for `name` and got NULL. */
static void pa_missing(const char *name) {
    u32 n = (u32)slen(name);
    if (n > 200) n = 200;
    lock(&pa_missing_lock);
    for (u32 i = 0; i < pa_missing_len; i += (u32)slen(pa_missing_seen + i) + 1)
        if (slen(pa_missing_seen + i) == n && !__builtin_memcmp(pa_missing_seen + i, name, n)) {
            unlock(&pa_missing_lock);
            return;
        }
    if (pa_missing_len + n + 1 < sizeof pa_missing_seen) {
        copy(pa_missing_seen + pa_missing_len, name, n);
        pa_missing_seen[pa_missing_len + n] = 0;
        pa_missing_len += n + 1;
    }
    unlock(&pa_missing_lock);
    lock(&pa_out_lock);
    write_str(2, "pnacl runtime: PPAPI: the plugin asked for ");
    pa_write_all(2, (const u8 *)name, n);
    write_str(2, ", which this host does not provide (NULL)\n");
    unlock(&pa_out_lock);
}

/* PPB_GetInterface: the table for `name`, or NULL as Chrome answered unknown names. */
static const void *pa_get_interface(const char *name) {
    if (!name) return NULL;
    int screen = pa_page || pa_headless_2d;
    for (unsigned i = 0; i < sizeof pa_interfaces / sizeof pa_interfaces[0]; i++) {
        u32 w = pa_interfaces[i].where;
        if ((w == PA_ANYWHERE || (w == PA_SCREEN && screen) || (w == PA_PAGE && pa_page)) &&
            streq(name, pa_interfaces[i].name))
            return pa_interfaces[i].table;
    }
    if (pa_report_missing) pa_missing(name);
    return NULL;
}

/* ----------------------------------------------------------------------------------- */
/* Start-up and the main loop (ppapi.md §1)                                             */

static const char *pa_quit = "quit"; /* PNACL_QUIT */

struct PP_StartFunctions {
    i32 (*initialize_module)(i32 module, const void *(*get_interface)(const char *));
    void (*shutdown_module)(void);
    const void *(*get_interface)(const char *);
};

struct PPP_Instance {
    i32 (*did_create)(i32 instance, u32 argc, const char **argn, const char **argv);
    void (*did_destroy)(i32 instance);
    void (*did_change_view)(i32 instance, i32 view); /* 1.0: (instance, rect*, rect*) */
    void (*did_change_focus)(i32 instance, i32 focus);
    i32 (*handle_document_load)(i32 instance, i32 loader);
};

struct PPP_Messaging {
    void (*handle_message)(i32 instance, struct PP_Var *message);
};

static u32 pa_argc;
static const char **pa_argn, **pa_argv;

/* The attributes: each program argument NAME=VALUE (argv[0] is not one). */
static void ppapi_set_args(int argc, char **argv) {
    pa_argn = pa_alloc(sizeof(char *) * (argc > 0 ? argc : 1));
    pa_argv = pa_alloc(sizeof(char *) * (argc > 0 ? argc : 1));
    if (!pa_argn || !pa_argv) return;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *eq = a;
        while (*eq && *eq != '=') eq++;
        if (!*eq || eq == a) continue;
        u32 n = (u32)(eq - a);
        char *name = pa_alloc(n + 1);
        if (!name) continue;
        copy(name, a, n);
        name[n] = 0;
        pa_argn[pa_argc] = name;
        pa_argv[pa_argc] = eq + 1;
        pa_argc++;
    }
}

/* The thread that reads standard input, a message a line. */
static void pa_reader(void) {
    u32 cap = 65536, len = 0, scanned = 0;
    u8 *buf = pa_alloc(cap);
    int eof = 0, too_long = 0;
    while (buf) {
        /* A line in the buffer: a message. */
        u32 nl = scanned;
        while (nl < len && buf[nl] != '\n') nl++;
        if (nl < len || (eof && len > 0)) {
            u32 end = nl < len && nl > 0 && buf[nl - 1] == '\r' ? nl - 1 : nl;
            if (too_long) {
                too_long = 0;
            } else {
                struct pa_event *e = pa_new_event(EV_MESSAGE);
                if (pa_message_of_line(buf, end, &e->message)) {
                    write_str(2, "pnacl runtime: PPAPI: a line of input is not a message");
                    write_str(2, pa_json ? " (JSON, in UTF-8)\n" : " (text in UTF-8)\n");
                    pa_release_block(e);
                } else {
                    /* Read no further ahead of the plugin than PA_MAX_QUEUED messages. */
                    for (;;) {
                        lock(&pa_queue_lock);
                        int full = pa_queued_messages >= PA_MAX_QUEUED;
                        int seen = pa_reader_signal;
                        unlock(&pa_queue_lock);
                        if (!full) break;
                        irt_futex_wait_abs(&pa_reader_signal, seen, NULL);
                    }
                    pa_push(e);
                    if (!pa_json && pa_quit[0] && slen(pa_quit) == end && !__builtin_memcmp(buf, pa_quit, end))
                        break;
                }
            }
            u32 next = nl < len ? nl + 1 : len;
            __builtin_memmove(buf, buf + next, len - next);
            len -= next;
            scanned = 0;
            continue;
        }
        scanned = len;
        if (eof) break;
        if (len == cap) {
            if (cap >= PA_MAX_LINE) {
                /* The rest of this line is dropped, and said once. */
                if (!too_long) write_str(2, "pnacl runtime: PPAPI: a line of input is longer than 64 MiB: dropped\n");
                too_long = 1;
                len = 0;
                scanned = 0;
            } else {
                u8 *b = pa_alloc(cap * 2);
                if (!b) break;
                copy(b, buf, len);
                pa_release_block(buf);
                buf = b;
                cap *= 2;
            }
        }
        size_t got = 0;
        if (irt_read(0, buf + len, cap - len, &got) || got == 0) eof = 1;
        len += (u32)got;
    }
    pa_push(pa_new_event(EV_END));
    int never = 0;
    for (;;) irt_futex_wait_abs(&never, 0, NULL); /* this thread's work is done */
}

/* Whether every thread has been idle (no CPU) for `ms` milliseconds, no event came and no
   message went meanwhile. */
static int pa_idle(int ms) {
    i64 cpu = pa_now_ns(2);
    u32 act = __atomic_load_n(&pa_activity, __ATOMIC_RELAXED);
    int word = 0;
    pa_wait_word(&word, 0, (i64)ms * 1000000);
    lock(&pa_queue_lock);
    int empty = pa_head == NULL;
    unlock(&pa_queue_lock);
    return empty && act == __atomic_load_n(&pa_activity, __ATOMIC_RELAXED) && pa_now_ns(2) - cpu < 2000000;
}

static int ppapi_start(const struct PP_StartFunctions *funcs) {
    pa_main_thread = host_thread_id();
    if (!funcs || !funcs->initialize_module || !funcs->get_interface)
        pa_fail("the plugin's start functions are missing");
    struct PP_StartFunctions f = *funcs;
    pa_main_loop = pa_new_resource(RES_LOOP);
    if (f.initialize_module(pa_module, pa_get_interface) != PP_OK)
        pa_fail("the plugin's PPP_InitializeModule failed");
    const struct PPP_Instance *inst = f.get_interface("PPP_Instance;1.1");
    int v1_0 = 0;
    if (!inst) inst = f.get_interface("PPP_Instance;1.0"), v1_0 = 1;
    if (!inst) pa_fail("the plugin has no PPP_Instance");
    struct PPP_Instance pi = *inst;
    /* The reader starts first, so that input is queued while the instance is made. */
    static u8 reader_stack[65536] __attribute__((aligned(16)));
    if (host_thread_create(pa_reader, reader_stack + sizeof reader_stack, NULL))
        pa_fail("cannot start the thread that reads messages");
    pa_parts_init();
    if (pa_page) {
        static u8 page_stack[65536] __attribute__((aligned(16)));
        if (host_thread_create(pa_page_reader, page_stack + sizeof page_stack, NULL))
            pa_fail("cannot start the thread that reads the page's channel");
    }
    if (!pi.did_create || !pi.did_create(pa_instance, pa_argc, pa_argn, pa_argv))
        pa_fail("the plugin refused its instance (DidCreate)");
    /* The instance is made: a page's `load`, as Chrome fired it once DidCreate had
       returned, whatever the plugin then does with its first view (glbench draws its
       whole benchmark inside DidChangeView). */
    ppapi_ready();
    pa_view = pa_new_resource(RES_VIEW);
    if (pi.did_change_view) {
        if (v1_0) {
            static struct PP_Rect position, clip;
            ((void (*)(i32, struct PP_Rect *, struct PP_Rect *))pi.did_change_view)(pa_instance, &position, &clip);
        } else {
            pi.did_change_view(pa_instance, pa_view);
        }
    }
    const struct PPP_Messaging *messaging = NULL;
    const struct PPP_InputEvent { i32 (*handle_input_event)(i32, i32); } *input = NULL;
    int asked_messaging = 0, asked_input = 0, ending = 0;
    u32 quiet_mark = 0;
    i64 quiet_since = 0;
    for (;;) {
        if (ending) {
            /* The end of input: a plugin that has posted nothing for 2 s is destroyed,
               however busy it keeps itself (an animation's callbacks are its own). */
            u32 posted = __atomic_load_n(&pa_posted, __ATOMIC_RELAXED);
            if (posted != quiet_mark) quiet_mark = posted, quiet_since = pa_now_ns(1);
            if (pa_now_ns(1) - quiet_since > 2000000000LL) break;
        }
        lock(&pa_queue_lock);
        i64 wait;
        struct pa_event *e = pa_take_due(&pa_head, &pa_tail, pa_now_ns(1), &wait);
        if (e && e->kind == EV_MESSAGE) pa_queued_messages--;
        int seen = pa_queue_signal;
        unlock(&pa_queue_lock);
        if (e) {
            __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
            if (e->kind == EV_MESSAGE) {
                __atomic_add_fetch(&pa_reader_signal, 1, __ATOMIC_SEQ_CST);
                int n;
                irt_futex_wake(&pa_reader_signal, 1, &n);
                if (pa_to_handler(e)) continue;
                if (!asked_messaging) {
                    messaging = f.get_interface("PPP_Messaging;1.0");
                    asked_messaging = 1;
                }
                if (messaging && messaging->handle_message) {
                    /* The plugin gets the var with its reference, on a copy it may change. */
                    static struct PP_Var m;
                    m = e->message;
                    messaging->handle_message(pa_instance, &m);
                } else {
                    var_release(&e->message);
                }
            } else if (e->kind == EV_INPUT) {
                if (!asked_input) {
                    input = f.get_interface("PPP_InputEvent;0.1");
                    asked_input = 1;
                }
                /* The plugin borrows the event for the call. */
                if (input && input->handle_input_event) input->handle_input_event(pa_instance, e->result);
                core_release_resource(e->result);
            } else if (e->kind == EV_VIEW) {
                lock(&pa_view_lock);
                int changed = pa_view_w != pa_next_view_w || pa_view_h != pa_next_view_h ||
                              pa_device_scale_of_view != pa_next_view_scale ||
                              pa_view_visible != pa_next_view_visible;
                pa_view_w = pa_next_view_w;
                pa_view_h = pa_next_view_h;
                pa_device_scale_of_view = pa_next_view_scale;
                pa_view_visible = pa_next_view_visible;
                unlock(&pa_view_lock);
                if (changed && pi.did_change_view && !v1_0) {
                    /* A new view resource, as Chrome gave one for each change. */
                    i32 old = pa_view;
                    pa_view = pa_new_resource(RES_VIEW);
                    if (old) core_release_resource(old);
                    if (pa_view) pi.did_change_view(pa_instance, pa_view);
                }
            } else if (e->kind == EV_CALLBACK) {
                e->cb.func(e->cb.user_data, e->result);
            } else if (!ending) {
                ending = 1;
                quiet_mark = __atomic_load_n(&pa_posted, __ATOMIC_RELAXED);
                quiet_since = pa_now_ns(1);
            }
            pa_release_block(e);
            continue;
        }
        if (ending) {
            /* The end of input: once the plugin is idle it is destroyed (the quiet rule
               above bounds the rest). A timed event due waits no longer than the rule. */
            if (wait < 0) {
                if (pa_idle(200)) break;
                continue;
            }
            if (wait > 200000000LL) wait = 200000000LL;
        }
        pa_wait_word(&pa_queue_signal, seen, wait);
    }
    if (pi.did_destroy) pi.did_destroy(pa_instance);
    if (f.shutdown_module) f.shutdown_module();
    ppapi_stdout_flush();
    exit_process(0);
}

static const pa_fn ppapi_hook[] = {PF(ppapi_start), PF(ppapi_register_thread_creator)};

/* The answer to a query for nacl-irt-ppapihook-0.1: the hook, copied into `table` (its
   bytes, or 0 where it does not fit). The first makes the program a plugin, its
   attributes taken from the arguments. */
static size_t ppapi_hook_query(void *table, size_t size, int argc, char **argv) {
    if (size < sizeof ppapi_hook) return 0;
    if (!ppapi_plugin) {
        ppapi_plugin = 1;
        ppapi_set_args(argc, argv);
    }
    copy(table, ppapi_hook, sizeof ppapi_hook);
    return sizeof ppapi_hook;
}

/* The value of environment entry `e` if it is `key` (ending in '='), else NULL. */
static const char *pa_setting_value(const char *e, const char *key) {
    while (*key && *e == *key) e++, key++;
    return *key ? NULL : e;
}

/* Takes environment entry `e` if it is one of the host's settings (PNACL_MESSAGES=json or
   text, PNACL_PPAPI_MISSING=1, PNACL_STDOUT=messages or stderr, PNACL_QUIT=TEXT): 1, or 2 when the host goes on using the
   entry's string (PNACL_QUIT's, which must then stay as it is); 0 for any other entry. The
   backends' start-up hands it every PNACL_ entry. */
static int ppapi_setting(const char *e) {
    const char *v;
    if ((v = pa_setting_value(e, "PNACL_MESSAGES="))) {
        if (!streq(v, "json") && !streq(v, "text")) fatal("PNACL_MESSAGES is json or text");
        pa_json = streq(v, "json");
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_PPAPI_MISSING="))) {
        pa_report_missing = streq(v, "1");
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_STDOUT="))) {
        if (!streq(v, "messages") && !streq(v, "stderr")) fatal("PNACL_STDOUT is messages or stderr");
        pa_stdout_messages = streq(v, "messages");
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_VIEW="))) {
        /* WxH, each 0..32767 */
        i32 d[2] = {0, 0};
        int k = 0;
        for (; *v && k < 2; v++) {
            if (*v == 'x' && k == 0) k = 1;
            else if (*v >= '0' && *v <= '9' && d[k] < 32768) d[k] = d[k] * 10 + (*v - '0');
            else fatal("PNACL_VIEW is WIDTHxHEIGHT");
        }
        pa_view_w = d[0] < 32768 ? d[0] : 32767;
        pa_view_h = d[1] < 32768 ? d[1] : 32767;
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_PAGE="))) {
        pa_page = streq(v, "1");
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_GRAPHICS="))) {
        if (!streq(v, "headless") && *v) fatal("PNACL_GRAPHICS is headless (or empty)");
        pa_headless_2d = *v != 0;
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_DEVICE_SCALE="))) {
        /* D or D.DD..., within 0.25..16 */
        float f = 0, unit = 1;
        int point = 0;
        for (; *v; v++) {
            if (*v == '.' && !point) point = 1;
            else if (*v >= '0' && *v <= '9' && f < 100) {
                if (point) unit /= 10, f += (float)(*v - '0') * unit;
                else f = f * 10 + (float)(*v - '0');
            } else fatal("PNACL_DEVICE_SCALE is a number");
        }
        pa_device_scale_of_view = f < 0.25f ? 0.25f : f > 16 ? 16 : f;
        return 1;
    }
    if ((v = pa_setting_value(e, "PNACL_QUIT="))) {
        pa_quit = v;
        return 2;
    }
    return 0;
}


#endif
