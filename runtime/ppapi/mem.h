/*
 * Memory: blocks of power-of-two sizes, from pages the backend gives.
 */
#ifndef PA_MEM_H
#define PA_MEM_H

#include "base.h"

static volatile int pa_mem_lock;
static size_t pa_mem_used;
static void *pa_free_list[32];

static void *pa_alloc(size_t n) {
    if (n > PA_MAX_BYTES) return NULL; /* and n + 8 cannot wrap */
    int c = 4;
    while (((size_t)1 << c) < n + 8) {
        c++;
        if (c >= 31) return NULL;
    }
    lock(&pa_mem_lock);
    void *p = pa_free_list[c];
    if (p) {
        pa_free_list[c] = *(void **)p;
    } else {
        size_t size = (size_t)1 << c;
        if (pa_mem_used + size > PA_MAX_BYTES) {
            unlock(&pa_mem_lock);
            return NULL;
        }
        size_t chunk = size < 65536 ? 65536 : size;
        u8 *block = host_pages(chunk);
        if (!block) {
            unlock(&pa_mem_lock);
            return NULL;
        }
        pa_mem_used += chunk;
        /* The rest of a chunk of small blocks goes to the free list. */
        for (size_t o = size; o + size <= chunk; o += size) {
            *(void **)(block + o) = pa_free_list[c];
            pa_free_list[c] = block + o;
        }
        p = block;
    }
    unlock(&pa_mem_lock);
    *(u32 *)p = (u32)c;
    return (u8 *)p + 8;
}

static void pa_release_block(void *p) {
    if (!p) return;
    u8 *b = (u8 *)p - 8;
    u32 c = *(u32 *)b;
    if (c < 4 || c >= 31) return;
    lock(&pa_mem_lock);
    *(void **)b = pa_free_list[c];
    pa_free_list[c] = b;
    unlock(&pa_mem_lock);
}

static void pa_zero(void *p, size_t n) { __builtin_memset(p, 0, n); }

/* A field of bytes (a URL, a header, a reason) in a block of its own, NUL-terminated. */
struct pa_text_field { u8 *p; u32 n; };

static void pa_field_free(struct pa_text_field *f) {
    pa_release_block(f->p);
    f->p = NULL;
    f->n = 0;
}

/* Sets field `f` to the `n` bytes at `s` (at most `max`): 1, or 0. */
static int pa_field_set(struct pa_text_field *f, const u8 *s, u32 n, u32 max) {
    if (n > max) return 0;
    u8 *p = pa_alloc((size_t)n + 1);
    if (!p) return 0;
    copy(p, s, n);
    p[n] = 0;
    pa_field_free(f);
    f->p = p;
    f->n = n;
    return 1;
}

#endif
