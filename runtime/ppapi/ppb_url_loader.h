/*
 * URL loading, in a page only: PPB_URLRequestInfo;1.0, PPB_URLLoader;1.0,
 * PPB_URLResponseInfo;1.0. A loader sends its request to the page (PA_TO_URL_OPEN), which
 * fetches it and answers with the response's head, its body in pieces, its end or an
 * error (PA_FROM_URL_*).
 */
#ifndef PA_PPB_URL_LOADER_H
#define PA_PPB_URL_LOADER_H

#include "loop.h"
#include "page.h"
#include "json.h"

/* A request, as the plugin sets it; a loader sends it to the page (PA_TO_URL_OPEN: the
   loader, flags, then the URL, method, headers and body, each a length and its bytes),
   which fetches it relative to the page and answers with PA_FROM_URL_HEADERS (loader,
   status, lengths of the URL, status line and headers, then their bytes), DATA (loader,
   bytes), END and ERROR (loader, a PP_ERROR). */
#define PA_MAX_URL 8192
#define PA_MAX_BODY (16u << 20)

static void pa_request_gone(void *data);
static void pa_loader_gone(void *data);
static void pa_response_gone(void *data);
static const struct pa_kind pa_kind_request = {"URLRequestInfo", pa_request_gone, NULL};
static const struct pa_kind pa_kind_loader = {"URLLoader", pa_loader_gone, NULL};
static const struct pa_kind pa_kind_response = {"URLResponseInfo", pa_response_gone, NULL};
#define RES_REQUEST (&pa_kind_request)
#define RES_LOADER (&pa_kind_loader)
#define RES_RESPONSE (&pa_kind_response)

struct pa_request {
    struct pa_text_field url, method, headers, body;
    int follow_redirects, record_download, allow_cross_origin, allow_credentials;
};

struct pa_chunk { struct pa_chunk *next; u32 n, at; u8 bytes[]; };

struct pa_loader {
    i32 resource, state; /* 0 new, 1 opening, 2 open (headers), 3 done, 4 failed, 5 closed */
    i32 error, response, record_download;
    i64 received, total;
    struct pa_chunk *head, *tail;
    struct PP_CompletionCallback cb; /* the Open or the Read waiting */
    i32 cb_loop, cb_kind;            /* 1 open, 2 read */
    u8 *read_buf;
    u32 read_n;
    volatile int woken;              /* futex word of a blocking call */
};

struct pa_response {
    i32 status;
    struct pa_text_field url, status_line, headers;
};

static volatile int pa_url_lock;

static i32 request_create(i32 instance) {
    if (!pa_page || instance != pa_instance) return 0;
    struct pa_request *q = pa_alloc(sizeof *q);
    if (!q) return 0;
    pa_zero(q, sizeof *q);
    q->follow_redirects = 1;
    i32 r = pa_new_resource_with(RES_REQUEST, q);
    if (!r) pa_release_block(q);
    return r;
}

static i32 request_is(i32 r) { return pa_resource_kind(r) == RES_REQUEST; }

static i32 request_set_property(i32 r, i32 prop, const struct PP_Var *v) {
    PA_HOLD(struct pa_request, q, r, RES_REQUEST);
    if (!q || !v) return 0;
    struct PP_Var var = *v;
    lock(&pa_url_lock);
    i32 ok = 0;
    if (prop == 0 || prop == 1 || prop == 2) { /* URL, METHOD, HEADERS: strings */
        lock(&pa_var_lock);
        struct pa_object *o = pa_lookup(&var, PP_VARTYPE_STRING);
        struct pa_text_field *f = prop == 0 ? &q->url : prop == 1 ? &q->method : &q->headers;
        if (o) ok = pa_field_set(f, o->bytes, o->len, prop == 1 ? 32 : PA_MAX_URL);
        unlock(&pa_var_lock);
    } else if (prop >= 3 && prop <= 9 && prop != 7 && var.type == PP_VARTYPE_BOOL) {
        int b = var.value.as_int != 0;
        if (prop == 4) q->follow_redirects = b;
        if (prop == 5) q->record_download = b;
        if (prop == 8) q->allow_cross_origin = b;
        if (prop == 9) q->allow_credentials = b;
        ok = prop != 3 || !b; /* streaming to a file: not offered */
    } else if ((prop == 11 || prop == 12) && var.type == PP_VARTYPE_INT32) {
        ok = 1; /* prefetch thresholds: the page streams as it can */
    }
    unlock(&pa_url_lock);
    return ok;
}

static i32 request_append_data(i32 r, const void *data, u32 len) {
    PA_HOLD(struct pa_request, q, r, RES_REQUEST);
    if (!q || (len && !data)) return 0;
    lock(&pa_url_lock);
    i32 ok = 0;
    if ((u64)q->body.n + len <= PA_MAX_BODY) {
        u8 *p = pa_alloc((size_t)q->body.n + len + 1);
        if (p) {
            if (q->body.n) copy(p, q->body.p, q->body.n);
            if (len) copy(p + q->body.n, data, len);
            pa_release_block(q->body.p);
            q->body.p = p;
            q->body.n += len;
            ok = 1;
        }
    }
    unlock(&pa_url_lock);
    return ok;
}

static i32 request_append_file(i32 r, i32 file, i64 start, i64 n, double mtime) {
    (void)r, (void)file, (void)start, (void)n, (void)mtime;
    return 0; /* no files in a page */
}

static i32 loader_create(i32 instance) {
    if (!pa_page || instance != pa_instance) return 0;
    struct pa_loader *l = pa_alloc(sizeof *l);
    if (!l) return 0;
    pa_zero(l, sizeof *l);
    l->total = -1;
    i32 r = pa_new_resource_with(RES_LOADER, l);
    if (!r) pa_release_block(l);
    else l->resource = r;
    return r;
}

static i32 loader_is(i32 r) { return pa_resource_kind(r) == RES_LOADER; }

/* Ends the loader's waiting call with `result` (pa_url_lock held; released here). */
static void pa_loader_complete_unlock(struct pa_loader *l, i32 result) {
    struct PP_CompletionCallback cb = l->cb;
    i32 loop = l->cb_loop, kind = l->cb_kind;
    l->cb_kind = 0;
    if (!kind) {
        unlock(&pa_url_lock);
        return;
    }
    if (!cb.func) {
        l->error = result < 0 ? result : l->error;
        l->read_n = result > 0 ? (u32)result : 0;
        unlock(&pa_url_lock);
        __atomic_store_n(&l->woken, 1, __ATOMIC_RELEASE);
        int n;
        irt_futex_wake(&l->woken, 1, &n);
        return;
    }
    unlock(&pa_url_lock);
    pa_complete_on(loop, cb, result, 0);
}

/* Waits for a blocking call's end (off the main thread): its result. */
static i32 pa_loader_wait(struct pa_loader *l, int read) {
    while (!__atomic_load_n(&l->woken, __ATOMIC_ACQUIRE)) irt_futex_wait_abs(&l->woken, 0, NULL);
    lock(&pa_url_lock);
    i32 r = l->state == 4 ? l->error : read ? (i32)l->read_n : PP_OK;
    unlock(&pa_url_lock);
    return r;
}

static i32 loader_open(i32 r, i32 request, const struct PP_CompletionCallback *cbp) {
    PA_HOLD(struct pa_loader, l, r, RES_LOADER);
    PA_HOLD(struct pa_request, q, request, RES_REQUEST);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (!q) return PP_ERROR_BADARGUMENT;
    struct PP_CompletionCallback cb = {0, 0, 0};
    if (cbp) cb = *cbp;
    if (!cb.func && core_is_main_thread()) return PP_ERROR_BLOCKS_MAIN_THREAD;
    lock(&pa_url_lock);
    if (l->state != 0) {
        unlock(&pa_url_lock);
        return PP_ERROR_INPROGRESS;
    }
    if (!q->url.n) {
        unlock(&pa_url_lock);
        return PP_ERROR_BADARGUMENT;
    }
    u32 flags = (u32)q->follow_redirects | (u32)q->allow_cross_origin << 1 | (u32)q->allow_credentials << 2;
    u32 head[2] = {(u32)r, flags}, size;
    u8 *rec = pa_new_record(PA_TO_URL_OPEN, 8 + 16 + q->url.n + q->method.n + q->headers.n + q->body.n, head, 2, &size);
    if (!rec) {
        unlock(&pa_url_lock);
        return PP_ERROR_FAILED;
    }
    u32 at = 16;
    struct pa_text_field *fields[4] = {&q->url, &q->method, &q->headers, &q->body};
    for (int k = 0; k < 4; k++) {
        pa_put_word(rec + at, fields[k]->n);
        at += 4;
        if (fields[k]->n) copy(rec + at, fields[k]->p, fields[k]->n);
        at += fields[k]->n;
    }
    l->state = 1;
    l->record_download = q->record_download;
    l->cb = cb;
    l->cb_loop = loop_get_current();
    l->cb_kind = 1;
    l->woken = 0;
    unlock(&pa_url_lock);
    pa_to_page(rec, size);
    pa_release_block(rec);
    if (!cb.func) return pa_loader_wait(l, 0);
    return PP_OK_COMPLETIONPENDING;
}

static i32 loader_follow_redirect(i32 r, const struct PP_CompletionCallback *cb) {
    (void)cb;
    return loader_is(r) ? PP_ERROR_FAILED : PP_ERROR_BADRESOURCE; /* the page follows them */
}

static i32 loader_upload_progress(i32 r, i64 *sent, i64 *total) {
    (void)r;
    if (sent) *sent = 0;
    if (total) *total = 0;
    return 0;
}

static i32 loader_download_progress(i32 r, i64 *received, i64 *total) {
    PA_HOLD(struct pa_loader, l, r, RES_LOADER);
    lock(&pa_url_lock);
    int ok = l && l->record_download;
    i64 got = ok ? l->received : 0, all = ok ? l->total : 0;
    unlock(&pa_url_lock);
    if (received) *received = got;
    if (total) *total = all;
    return ok;
}

static i32 loader_response_info(i32 r) {
    PA_HOLD(struct pa_loader, l, r, RES_LOADER);
    if (!l) return 0;
    lock(&pa_url_lock);
    i32 resp = l->response;
    unlock(&pa_url_lock);
    if (resp) core_addref_resource(resp);
    return resp;
}

/* Takes up to `n` bytes of the loader's body into `buf` (pa_url_lock held): the count. */
static u32 pa_loader_take(struct pa_loader *l, u8 *buf, u32 n) {
    u32 got = 0;
    while (got < n && l->head) {
        struct pa_chunk *c = l->head;
        u32 k = c->n - c->at < n - got ? c->n - c->at : n - got;
        copy(buf + got, c->bytes + c->at, k);
        c->at += k;
        got += k;
        if (c->at == c->n) {
            l->head = c->next;
            if (!l->head) l->tail = NULL;
            pa_release_block(c);
        }
    }
    return got;
}

static i32 loader_read(i32 r, void *buf, i32 n, const struct PP_CompletionCallback *cbp) {
    PA_HOLD(struct pa_loader, l, r, RES_LOADER);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (n < 0 || (n && !buf)) return PP_ERROR_BADARGUMENT;
    struct PP_CompletionCallback cb = {0, 0, 0};
    if (cbp) cb = *cbp;
    if (!cb.func && core_is_main_thread()) return PP_ERROR_BLOCKS_MAIN_THREAD;
    lock(&pa_url_lock);
    if (l->cb_kind) {
        unlock(&pa_url_lock);
        return PP_ERROR_INPROGRESS;
    }
    if (l->state < 2) {
        unlock(&pa_url_lock);
        return PP_ERROR_FAILED;
    }
    i32 result = 1; /* 1: none yet */
    if (l->head) result = (i32)pa_loader_take(l, buf, (u32)n);
    else if (l->state == 3 || l->state == 5) result = 0;
    else if (l->state == 4) result = l->error;
    if (result != 1 || n == 0) {
        if (n == 0 && result == 1) result = 0;
        unlock(&pa_url_lock);
        return pa_result_now(&cb, result);
    }
    l->cb = cb;
    l->cb_loop = loop_get_current();
    l->cb_kind = 2;
    l->read_buf = buf;
    l->read_n = (u32)n;
    l->woken = 0;
    unlock(&pa_url_lock);
    if (!cb.func) return pa_loader_wait(l, 1);
    return PP_OK_COMPLETIONPENDING;
}

static i32 loader_finish_to_file(i32 r, const struct PP_CompletionCallback *cb) {
    (void)cb;
    return loader_is(r) ? PP_ERROR_FAILED : PP_ERROR_BADRESOURCE;
}

static void pa_loader_close_locked(struct pa_loader *l) {
    if (l->state == 1 || l->state == 2) {
        u32 rec[3] = {12, PA_TO_URL_CLOSE, (u32)l->resource};
        pa_to_page(rec, sizeof rec);
    }
    l->state = 5;
    while (l->head) {
        struct pa_chunk *c = l->head;
        l->head = c->next;
        pa_release_block(c);
    }
    l->tail = NULL;
}

static void loader_close(i32 r) {
    PA_HOLD(struct pa_loader, l, r, RES_LOADER);
    if (!l) return;
    lock(&pa_url_lock);
    pa_loader_close_locked(l);
    pa_loader_complete_unlock(l, PP_ERROR_ABORTED);
}

static i32 response_is(i32 r) { return pa_resource_kind(r) == RES_RESPONSE; }

static void response_get_property(struct PP_Var *out, i32 r, i32 prop) {
    PA_HOLD(struct pa_response, p, r, RES_RESPONSE);
    pa_zero(out, sizeof *out);
    if (!p) return;
    if (prop == 3) {
        out->type = PP_VARTYPE_INT32;
        out->value.as_int = p->status;
        return;
    }
    struct pa_text_field *f = prop == 0 ? &p->url : prop == 4 ? &p->status_line : prop == 5 ? &p->headers : NULL;
    if (!f) return; /* redirects: the page followed them */
    lock(&pa_var_lock);
    pa_string_locked(out, f->p ? (const char *)f->p : "", f->n);
    unlock(&pa_var_lock);
}

static i32 response_body_file(i32 r) { (void)r; return 0; }

/* A record of the page's about a loader (`n` bytes of body after the kind). */
static void pa_url_from_page(u32 kind, const u8 *body, u32 n) {
    if (n < 4) return;
    PA_HOLD(struct pa_loader, l, (i32)pa_word(body), RES_LOADER); /* NULL: gone */
    if (!l) return;
    lock(&pa_url_lock);
    if (l->state == 5) {
        unlock(&pa_url_lock);
        return;
    }
    if (kind == PA_FROM_URL_HEADERS && l->state == 1 && n >= 20) {
        u32 status = pa_word(body + 4), nu = pa_word(body + 8), ns = pa_word(body + 12), nh = pa_word(body + 16);
        u64 need = 20ull + nu + ns + nh;
        struct pa_response *p = need <= n ? pa_alloc(sizeof *p) : NULL;
        if (p) {
            pa_zero(p, sizeof *p);
            p->status = (i32)status;
            pa_field_set(&p->url, body + 20, nu, PA_MAX_URL);
            pa_field_set(&p->status_line, body + 20 + nu, ns, 1024);
            pa_field_set(&p->headers, body + 20 + nu + ns, nh, 1u << 20);
            l->response = pa_new_resource_with(RES_RESPONSE, p);
            if (!l->response) pa_release_block(p);
            /* Content-Length, for the progress */
            for (u32 i = 0; p && i + 16 <= p->headers.n; i++) {
                const char *h = (const char *)p->headers.p + i;
                if ((i == 0 || h[-1] == '\n') && !__builtin_memcmp(h, "content-length: ", 16)) {
                    i64 v = 0;
                    for (const char *d = h + 16; *d >= '0' && *d <= '9' && v < (1ll << 50); d++) v = v * 10 + (*d - '0');
                    l->total = v;
                }
            }
        }
        l->state = 2;
        pa_loader_complete_unlock(l, PP_OK);
        return;
    }
    if (kind == PA_FROM_URL_DATA && l->state == 2 && n > 4) {
        u32 k = n - 4;
        l->received += k;
        if (l->cb_kind == 2 && !l->head) {
            /* A read waits: straight into its buffer, the rest queued. */
            u32 m = k < l->read_n ? k : l->read_n;
            copy(l->read_buf, body + 4, m);
            body += m;
            k -= m;
            if (k) {
                struct pa_chunk *c = pa_alloc(sizeof *c + k);
                if (c) {
                    c->next = NULL, c->n = k, c->at = 0;
                    copy(c->bytes, body + 4, k);
                    l->head = l->tail = c;
                }
            }
            pa_loader_complete_unlock(l, (i32)m);
            return;
        }
        struct pa_chunk *c = pa_alloc(sizeof *c + k);
        if (!c) {
            l->state = 4;
            l->error = PP_ERROR_FAILED;
        } else {
            c->next = NULL, c->n = k, c->at = 0;
            copy(c->bytes, body + 4, k);
            if (l->tail) l->tail->next = c;
            else l->head = c;
            l->tail = c;
        }
        unlock(&pa_url_lock);
        return;
    }
    if (kind == PA_FROM_URL_END && l->state == 2) {
        l->state = 3;
        if (l->cb_kind == 2) {
            pa_loader_complete_unlock(l, 0);
            return;
        }
    } else if (kind == PA_FROM_URL_ERROR && (l->state == 1 || l->state == 2) && n >= 8) {
        i32 e = (i32)pa_word(body + 4);
        l->state = 4;
        l->error = e == PP_ERROR_NOACCESS ? e : PP_ERROR_FAILED;
        if (l->cb_kind) {
            pa_loader_complete_unlock(l, l->error);
            return;
        }
    }
    unlock(&pa_url_lock);
}

static void pa_request_gone(void *data) {
    struct pa_request *q = data;
    pa_field_free(&q->url), pa_field_free(&q->method), pa_field_free(&q->headers), pa_field_free(&q->body);
    pa_release_block(q);
}

static void pa_response_gone(void *data) {
    struct pa_response *p = data;
    pa_field_free(&p->url), pa_field_free(&p->status_line), pa_field_free(&p->headers);
    pa_release_block(p);
}

/* A loader's memory stays (a small struct): the page's records may still name it, and a
   blocked caller may still read it. Its body and response go. */
static void pa_loader_gone(void *data) {
    struct pa_loader *l = data;
    lock(&pa_url_lock);
    pa_loader_close_locked(l);
    i32 resp = l->response;
    l->response = 0;
    pa_loader_complete_unlock(l, PP_ERROR_ABORTED);
    if (resp) core_release_resource(resp);
}

static void pa_url_loader_init(void) { pa_on_page(PA_FROM_URL_HEADERS, PA_FROM_URL_ERROR, 0, pa_url_from_page); }

#define PPB_URLREQUESTINFO_1_0(X)                                                                    \
    X(i32, Create, (i32 instance), request_create)                                                   \
    X(i32, IsURLRequestInfo, (i32 r), request_is)                                                    \
    X(i32, SetProperty, (i32 r, i32 prop, const struct PP_Var *v), request_set_property)             \
    X(i32, AppendDataToBody, (i32 r, const void *data, u32 len), request_append_data)                \
    X(i32, AppendFileToBody, (i32 r, i32 file, i64 start, i64 n, double mtime), request_append_file)
PA_TABLE(PPB_URLRequestInfo_1_0, ppb_url_request_info_1_0, PPB_URLREQUESTINFO_1_0)

#define PPB_URLLOADER_1_0(X)                                                                                  \
    X(i32, Create, (i32 instance), loader_create)                                                             \
    X(i32, IsURLLoader, (i32 r), loader_is)                                                                   \
    X(i32, Open, (i32 r, i32 request, const struct PP_CompletionCallback *cbp), loader_open)                  \
    X(i32, FollowRedirect, (i32 r, const struct PP_CompletionCallback *cb), loader_follow_redirect)           \
    X(i32, GetUploadProgress, (i32 r, i64 *sent, i64 *total), loader_upload_progress)                         \
    X(i32, GetDownloadProgress, (i32 r, i64 *received, i64 *total), loader_download_progress)                 \
    X(i32, GetResponseInfo, (i32 r), loader_response_info)                                                    \
    X(i32, ReadResponseBody, (i32 r, void *buf, i32 n, const struct PP_CompletionCallback *cbp), loader_read) \
    X(i32, FinishStreamingToFile, (i32 r, const struct PP_CompletionCallback *cb), loader_finish_to_file)     \
    X(void, Close, (i32 r), loader_close)
PA_TABLE(PPB_URLLoader_1_0, ppb_url_loader_1_0, PPB_URLLOADER_1_0)

#define PPB_URLRESPONSEINFO_1_0(X)                                                     \
    X(i32, IsURLResponseInfo, (i32 r), response_is)                                    \
    X(void, GetProperty, (struct PP_Var *out, i32 r, i32 prop), response_get_property) \
    X(i32, GetBodyAsFileRef, (i32 r), response_body_file)
PA_TABLE(PPB_URLResponseInfo_1_0, ppb_url_response_info_1_0, PPB_URLRESPONSEINFO_1_0)

#endif
