/*
 * PPB_WebSocket;1.0 (ppapi.md §4.17) in a page: the page's own WebSocket (binary frames as
 * ArrayBuffers), opened with the page's origin, reached over the host channel. Its records
 * are channel.def's WS_ ones.
 *
 * To the page: PA_TO_WS_OPEN (socket, the URL's length, the protocols' (joined by ",")
 * length, their bytes), PA_TO_WS_SEND (socket, binary, the bytes), PA_TO_WS_CLOSE (socket,
 * code (0: none), the reason's bytes). From the page: PA_FROM_WS_OPEN (socket, the
 * protocol's length, the extensions' length, their bytes), PA_FROM_WS_MESSAGE (socket,
 * binary, last piece, bytes: a message comes in pieces of at most 256 KiB), PA_FROM_WS_CLOSED
 * (socket, code, clean, the reason's bytes), PA_FROM_WS_ERROR (socket).
 *
 * As Chrome's: Connect takes ws:// and wss:// URLs without a fragment and completes with
 * PP_OK once open (PP_ERROR_FAILED if the connection fails, PP_ERROR_ABORTED if closed
 * first); ReceiveMessage completes at once with a message already received, else with the
 * next; SendMessage needs an open socket (a string is a text frame, an ArrayBuffer a
 * binary one); Close takes 1000 or 3000-4999 (or none) and a reason of at most 123 bytes
 * and completes when the socket is closed. A result known at once reaches a required
 * callback as Chrome's thunks gave it (pa_result_now). Received messages wait in a queue bounded in
 * bytes (PA_WS_MAX_QUEUED; past it the socket is closed, code 1009, as too big).
 */
#ifndef PA_PPB_WEBSOCKET_H
#define PA_PPB_WEBSOCKET_H

#include "loop.h"
#include "page.h"
#include "ppb_var.h"

static void pa_ws_gone(void *data);
static const struct pa_kind pa_kind_websocket = {"WebSocket", pa_ws_gone, NULL};
#define RES_WEBSOCKET (&pa_kind_websocket)

enum { WS_INVALID = -1, WS_CONNECTING = 0, WS_OPEN = 1, WS_CLOSING = 2, WS_CLOSED = 3 };
#define PA_WS_MAX_QUEUED (64u << 20)
#define PA_WS_MAX_URL 8192

struct pa_ws_message {
    struct PP_Var var;
    u32 size;
    struct pa_ws_message *next;
};

struct pa_ws {
    i32 resource, state;
    struct pa_text_field url, protocol, extensions, reason;
    i32 close_code, clean;
    struct pa_pending connect, close, receive;
    struct PP_Var *receive_out;
    struct pa_ws_message *head, *tail;
    u32 queued;
    u8 *piece;          /* the message being received, in pieces */
    u32 piece_len, piece_cap;
    u64 sent_after_close;
};

static volatile int pa_ws_lock;

static i32 ws_create(i32 instance) {
    if (instance != pa_instance) return 0;
    struct pa_ws *w = pa_alloc(sizeof *w);
    if (!w) return 0;
    pa_zero(w, sizeof *w);
    w->state = WS_INVALID;
    w->close_code = 0;
    i32 r = pa_new_resource_with(RES_WEBSOCKET, w);
    if (!r) pa_release_block(w);
    else w->resource = r;
    return r;
}

static i32 ws_is(i32 r) { return pa_resource_kind(r) == RES_WEBSOCKET; }

/* A string var's bytes (NULL if it is not a string). */
static const char *pa_var_text(const struct PP_Var *v, u32 *n) {
    *n = 0;
    if (!v || v->type != PP_VARTYPE_STRING) return NULL;
    return var_to_utf8(v, n);
}

static i32 ws_connect(i32 r, const struct PP_Var *url, const struct PP_Var *protocols, u32 count,
                      const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_ws, w, r, RES_WEBSOCKET, 1, cb);
    u32 n = 0;
    const char *u = pa_var_text(url, &n);
    int scheme = u && ((n > 5 && !__builtin_memcmp(u, "ws://", 5)) || (n > 6 && !__builtin_memcmp(u, "wss://", 6)));
    if (!scheme || n > PA_WS_MAX_URL || count > 64 || (count && !protocols)) return PP_ERROR_BADARGUMENT;
    for (u32 i = 0; i < n; i++)
        if (u[i] == '#' || (u8)u[i] <= ' ') return PP_ERROR_BADARGUMENT;
    /* The protocols: tokens, none twice, joined by ",". */
    u32 plen = 0;
    for (u32 k = 0; k < count; k++) {
        u32 m = 0;
        const char *p = pa_var_text(&protocols[k], &m);
        if (!p || !m || m > 256) return PP_ERROR_BADARGUMENT;
        for (u32 i = 0; i < m; i++) {
            if ((u8)p[i] <= ' ' || (u8)p[i] >= 127) return PP_ERROR_BADARGUMENT;
            for (const char *sep = "()<>@,;:\\\"/[]?={}"; *sep; sep++)
                if (p[i] == *sep) return PP_ERROR_BADARGUMENT;
        }
        plen += m + 1;
    }
    u32 head[2] = {(u32)r, n}, size;
    u8 *rec = pa_new_record(PA_TO_WS_OPEN, 12 + n + plen, head, 2, &size);
    if (!rec) return PP_ERROR_NOMEMORY;
    copy(rec + 20, u, n);
    u32 at = 20 + n, joined = 0;
    for (u32 k = 0; k < count; k++) {
        u32 m = 0;
        const char *p = pa_var_text(&protocols[k], &m);
        if (k) rec[at + joined++] = ',';
        copy(rec + at + joined, p, m);
        joined += m;
    }
    pa_put_word(rec + 16, joined);
    struct pa_wait wait;
    lock(&pa_ws_lock);
    if (w->state != WS_INVALID) {
        unlock(&pa_ws_lock);
        pa_release_block(rec);
        return PP_ERROR_INPROGRESS;
    }
    pa_field_set(&w->url, (const u8 *)u, n, PA_WS_MAX_URL);
    w->state = WS_CONNECTING;
    pa_pending_start(&w->connect, cb, &wait);
    unlock(&pa_ws_lock);
    pa_to_page(rec, size);
    pa_release_block(rec);
    return pa_pending_return(cb, &wait);
}

static i32 ws_close(i32 r, i32 code, const struct PP_Var *reason, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_ws, w, r, RES_WEBSOCKET, 1, cb);
    code &= 0xffff;
    if (code != 1005 && code != 1000 && (code < 3000 || code > 4999)) return PP_ERROR_NOACCESS;
    u32 n = 0;
    const char *why = reason && reason->type == PP_VARTYPE_STRING ? var_to_utf8(reason, &n) : NULL;
    if (reason && reason->type != PP_VARTYPE_STRING && reason->type != PP_VARTYPE_UNDEFINED) return PP_ERROR_BADARGUMENT;
    if (n > 123) return PP_ERROR_BADARGUMENT;
    struct pa_wait wait;
    lock(&pa_ws_lock);
    if (w->state == WS_INVALID) {
        unlock(&pa_ws_lock);
        return PP_ERROR_FAILED;
    }
    if (w->state == WS_CLOSING || w->close.active) {
        unlock(&pa_ws_lock);
        return PP_ERROR_INPROGRESS;
    }
    if (w->state == WS_CLOSED) {
        unlock(&pa_ws_lock);
        return pa_result_now(cb, PP_OK);
    }
    if (w->state == WS_CONNECTING) pa_pending_end(&w->connect, PP_ERROR_ABORTED, 0);
    w->state = WS_CLOSING;
    pa_pending_start(&w->close, cb, &wait);
    unlock(&pa_ws_lock);
    u32 head[2] = {(u32)r, code == 1005 ? 0 : (u32)code}, size;
    u8 *rec = pa_new_record(PA_TO_WS_CLOSE, 8 + n, head, 2, &size);
    if (rec) {
        if (n) copy(rec + 16, why, n);
        pa_to_page(rec, size);
        pa_release_block(rec);
    }
    return pa_pending_return(cb, &wait);
}

/* Hands the queue's first message to a waiting ReceiveMessage (pa_ws_lock held). */
static void pa_ws_deliver(struct pa_ws *w) {
    if (!w->receive.active) return;
    struct pa_ws_message *m = w->head;
    if (m) {
        w->head = m->next;
        if (!w->head) w->tail = NULL;
        w->queued -= m->size;
        *w->receive_out = m->var; /* the reference passes to the plugin */
        pa_release_block(m);
        pa_pending_end(&w->receive, PP_OK, 0);
    } else if (w->state == WS_CLOSED) {
        pa_pending_end(&w->receive, PP_ERROR_FAILED, 0);
    }
}

static i32 ws_receive(i32 r, struct PP_Var *out, const struct PP_CompletionCallback *cb) {
    PA_START(struct pa_ws, w, r, RES_WEBSOCKET, out != NULL, cb);
    struct pa_wait wait;
    lock(&pa_ws_lock);
    if (w->state == WS_INVALID || w->state == WS_CONNECTING) {
        unlock(&pa_ws_lock);
        return PP_ERROR_BADARGUMENT;
    }
    if (w->receive.active) {
        unlock(&pa_ws_lock);
        return PP_ERROR_INPROGRESS;
    }
    struct pa_ws_message *m = w->head;
    if (m) {
        /* One already here: at once. */
        w->head = m->next;
        if (!w->head) w->tail = NULL;
        w->queued -= m->size;
        *out = m->var;
        unlock(&pa_ws_lock);
        pa_release_block(m);
        return pa_result_now(cb, PP_OK);
    }
    if (w->state == WS_CLOSED) {
        unlock(&pa_ws_lock);
        return PP_ERROR_FAILED;
    }
    w->receive_out = out;
    pa_pending_start(&w->receive, cb, &wait);
    unlock(&pa_ws_lock);
    return pa_pending_return(cb, &wait);
}

static i32 ws_send(i32 r, const struct PP_Var *message) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    if (!w) return PP_ERROR_BADRESOURCE;
    if (!message || (message->type != PP_VARTYPE_STRING && message->type != PP_VARTYPE_ARRAY_BUFFER))
        return PP_ERROR_BADARGUMENT;
    u32 n = 0;
    const u8 *bytes;
    int binary = message->type == PP_VARTYPE_ARRAY_BUFFER;
    if (binary) {
        if (!buffer_byte_length(message, &n)) return PP_ERROR_BADARGUMENT;
        bytes = buffer_map(message);
    } else {
        bytes = (const u8 *)var_to_utf8(message, &n);
    }
    lock(&pa_ws_lock);
    i32 state = w->state;
    if (state == WS_CLOSING || state == WS_CLOSED) w->sent_after_close += n;
    unlock(&pa_ws_lock);
    if (state != WS_OPEN) return PP_ERROR_FAILED; /* not yet open, or closing or closed */
    if (n > PA_MAX_BYTES - 32) return PP_ERROR_NOMEMORY;
    u32 head[2] = {(u32)r, (u32)binary | n << 1}, size;
    u8 *rec = pa_new_record(PA_TO_WS_SEND, 8 + n, head, 2, &size);
    if (!rec) return PP_ERROR_NOMEMORY;
    if (n && bytes) copy(rec + 16, bytes, n);
    pa_to_page(rec, size);
    pa_release_block(rec);
    return PP_OK;
}

static u64 ws_buffered(i32 r) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    if (!w) return 0;
    lock(&pa_ws_lock);
    u64 v = w->sent_after_close;
    unlock(&pa_ws_lock);
    return v;
}

static i32 ws_close_code(i32 r) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    return w ? w->close_code : 0;
}

static void pa_ws_field(struct PP_Var *out, i32 r, int which) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    pa_zero(out, sizeof *out);
    if (!w) return;
    lock(&pa_ws_lock);
    struct pa_text_field *f = which == 0 ? &w->reason : which == 1 ? &w->extensions : which == 2 ? &w->protocol : &w->url;
    lock(&pa_var_lock);
    pa_string_locked(out, f->p ? (const char *)f->p : "", f->n);
    unlock(&pa_var_lock);
    unlock(&pa_ws_lock);
}

static void ws_close_reason(struct PP_Var *out, i32 r) { pa_ws_field(out, r, 0); }
static i32 ws_close_was_clean(i32 r) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    return w ? w->clean : 0;
}
static void ws_extensions(struct PP_Var *out, i32 r) { pa_ws_field(out, r, 1); }
static void ws_protocol(struct PP_Var *out, i32 r) { pa_ws_field(out, r, 2); }
static i32 ws_ready_state(i32 r) {
    PA_HOLD(struct pa_ws, w, r, RES_WEBSOCKET);
    return w ? w->state : WS_INVALID;
}
static void ws_url(struct PP_Var *out, i32 r) { pa_ws_field(out, r, 3); }

/* A record of the page's about socket `r` (`n` bytes of body after the kind). */
static void pa_ws_from_page(u32 kind, const u8 *body, u32 n) {
    if (n < 4) return;
    PA_HOLD(struct pa_ws, w, (i32)pa_word(body), RES_WEBSOCKET);
    if (!w) return;
    lock(&pa_ws_lock);
    if (kind == PA_FROM_WS_OPEN && n >= 12 && w->state == WS_CONNECTING) {
        u32 a = pa_word(body + 4), b = pa_word(body + 8);
        if (a <= n - 12 && b <= n - 12 - a) {
            pa_field_set(&w->protocol, body + 12, a, 4096);
            pa_field_set(&w->extensions, body + 12 + a, b, 4096);
        }
        w->state = WS_OPEN;
        pa_pending_end(&w->connect, PP_OK, 0);
    } else if (kind == PA_FROM_WS_MESSAGE && n >= 12 && (w->state == WS_OPEN || w->state == WS_CLOSING)) {
        int binary = pa_word(body + 4) & 1, last = (pa_word(body + 4) >> 1) & 1;
        u32 m = n - 8;
        u64 want = (u64)w->piece_len + m;
        if (want + w->queued > PA_WS_MAX_QUEUED) {
            /* Too much waiting: the socket ends as Chrome's did, with 1009. */
            pa_release_block(w->piece);
            w->piece = NULL;
            w->piece_len = w->piece_cap = 0;
            unlock(&pa_ws_lock);
            u32 rec[4] = {16, PA_TO_WS_CLOSE, (u32)w->resource, 1009};
            pa_to_page(rec, sizeof rec);
            return;
        }
        if (want > w->piece_cap) {
            u32 cap = w->piece_cap ? w->piece_cap : 4096;
            while (cap < want) cap *= 2;
            u8 *p = pa_alloc(cap);
            if (!p) {
                unlock(&pa_ws_lock);
                return;
            }
            if (w->piece_len) copy(p, w->piece, w->piece_len);
            pa_release_block(w->piece);
            w->piece = p;
            w->piece_cap = cap;
        }
        copy(w->piece + w->piece_len, body + 8, m);
        w->piece_len += m;
        if (last) {
            struct pa_ws_message *msg = pa_alloc(sizeof *msg);
            if (msg) {
                pa_zero(msg, sizeof *msg);
                msg->size = w->piece_len;
                if (binary) {
                    buffer_create(&msg->var, w->piece_len);
                    void *dst = buffer_map(&msg->var);
                    if (dst && w->piece_len) copy(dst, w->piece, w->piece_len);
                } else {
                    var_from_utf8(&msg->var, (const char *)w->piece, w->piece_len);
                }
                if (w->tail) w->tail->next = msg;
                else w->head = msg;
                w->tail = msg;
                w->queued += msg->size;
            }
            w->piece_len = 0;
            pa_ws_deliver(w);
        }
    } else if (kind == PA_FROM_WS_CLOSED && n >= 12) {
        w->close_code = (i32)(pa_word(body + 4) & 0xffff);
        w->clean = pa_word(body + 8) != 0;
        pa_field_set(&w->reason, body + 12, n - 12 > 123 ? 123 : n - 12, 123);
        w->state = WS_CLOSED;
        pa_pending_end(&w->connect, PP_ERROR_FAILED, 0);
        pa_pending_end(&w->close, PP_OK, 0);
        pa_ws_deliver(w);
    } else if (kind == PA_FROM_WS_ERROR && w->state == WS_CONNECTING) {
        /* The close record follows; the Connect fails now. */
        pa_pending_end(&w->connect, PP_ERROR_FAILED, 0);
    }
    unlock(&pa_ws_lock);
}

/* A socket is gone: the page closes it (1001, going away); what waited for it ends with
   PP_ERROR_ABORTED, as Chrome's did once the resource was released. */
static void pa_ws_gone(void *data) {
    struct pa_ws *w = data;
    u32 rec[4] = {16, PA_TO_WS_CLOSE, (u32)w->resource, 1001};
    if (w->state != WS_INVALID && w->state != WS_CLOSED) pa_to_page(rec, sizeof rec);
    lock(&pa_ws_lock);
    pa_pending_end(&w->connect, PP_ERROR_ABORTED, 0);
    pa_pending_end(&w->close, PP_ERROR_ABORTED, 0);
    pa_pending_end(&w->receive, PP_ERROR_ABORTED, 0);
    for (struct pa_ws_message *m = w->head, *next; m; m = next) {
        next = m->next;
        var_release(&m->var);
        pa_release_block(m);
    }
    w->head = w->tail = NULL;
    pa_release_block(w->piece);
    pa_field_free(&w->url), pa_field_free(&w->protocol), pa_field_free(&w->extensions), pa_field_free(&w->reason);
    unlock(&pa_ws_lock);
    pa_release_block(w);
}

static void pa_websocket_init(void) { pa_on_page(PA_FROM_WS_OPEN, PA_FROM_WS_ERROR, 0, pa_ws_from_page); }

#define PPB_WEBSOCKET_1_0(X)                                                                                                                          \
    X(i32, Create, (i32 instance), ws_create)                                                                                                         \
    X(i32, IsWebSocket, (i32 r), ws_is)                                                                                                               \
    X(i32, Connect, (i32 r, const struct PP_Var *url, const struct PP_Var *protocols, u32 count, const struct PP_CompletionCallback *cb), ws_connect) \
    X(i32, Close, (i32 r, i32 code, const struct PP_Var *reason, const struct PP_CompletionCallback *cb), ws_close)                                   \
    X(i32, ReceiveMessage, (i32 r, struct PP_Var *out, const struct PP_CompletionCallback *cb), ws_receive)                                           \
    X(i32, SendMessage, (i32 r, const struct PP_Var *message), ws_send)                                                                               \
    X(u64, GetBufferedAmount, (i32 r), ws_buffered)                                                                                                   \
    X(i32, GetCloseCode, (i32 r), ws_close_code)                                                                                                      \
    X(void, GetCloseReason, (struct PP_Var *out, i32 r), ws_close_reason)                                                                             \
    X(i32, GetCloseWasClean, (i32 r), ws_close_was_clean)                                                                                             \
    X(void, GetExtensions, (struct PP_Var *out, i32 r), ws_extensions)                                                                                \
    X(void, GetProtocol, (struct PP_Var *out, i32 r), ws_protocol)                                                                                    \
    X(i32, GetReadyState, (i32 r), ws_ready_state)                                                                                                    \
    X(void, GetURL, (struct PP_Var *out, i32 r), ws_url)
PA_TABLE(PPB_WebSocket_1_0, ppb_websocket_1_0, PPB_WEBSOCKET_1_0)

#endif
