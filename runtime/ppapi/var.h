/*
 * Vars: one table of ref-counted objects, ids never reused while alive, never 0; strings,
 * and the insides of arrays and dictionaries (what PPB_VarArray and PPB_VarDictionary
 * and the JSON reader share).
 */
#ifndef PA_VAR_H
#define PA_VAR_H

#include "mem.h"

struct pa_object {
    i32 refs;   /* 0: a free slot */
    i32 type;
    u32 len;    /* bytes of a string or buffer; elements of an array; entries of a dict */
    u32 cap;
    u32 gen;    /* the generation in its id */
    u8 *bytes;  /* string (NUL-terminated) or buffer bytes */
    struct PP_Var *items; /* array elements; dictionary: key, value, key, value... */
};

static volatile int pa_var_lock;
static struct pa_object *pa_objects;
static u32 pa_nobjects, pa_capobjects, pa_free_slot;
static u32 pa_generation = 1;

/* An id: the slot (plus one: never 0) in the low 24 bits, a generation above, so that a
   dead id does not name the slot's next object. */
static i64 pa_id(u32 slot, u32 gen) { return ((i64)gen << 24) | (i64)(slot + 1); }

static int pa_counted(const struct PP_Var *v) { return v->type >= PP_VARTYPE_STRING; }

/* The live object `v` names (the lock held), or NULL. */
static struct pa_object *pa_lookup(const struct PP_Var *v, i32 type) {
    if (!v || v->type != type) return NULL;
    i64 id = v->value.as_id;
    u32 slot = (u32)(id & 0xffffff);
    if (slot == 0 || slot > pa_nobjects) return NULL;
    struct pa_object *o = &pa_objects[slot - 1];
    if (o->refs <= 0 || o->type != type || (u64)id >> 24 != o->gen) return NULL;
    return o;
}

static void pa_set_undefined(struct PP_Var *v) {
    pa_zero(v, sizeof *v);
}

static void pa_set_null(struct PP_Var *v) {
    pa_zero(v, sizeof *v);
    v->type = PP_VARTYPE_NULL;
}

/* A new object of `type` (the lock held): its var written to `out`, or NULL (no room). */
static struct pa_object *pa_new(i32 type, struct PP_Var *out) {
    u32 slot = pa_nobjects;
    for (u32 tries = 0; tries < 64 && pa_free_slot < pa_nobjects; tries++, pa_free_slot++) {
        if (pa_objects[pa_free_slot].refs == 0) {
            slot = pa_free_slot++;
            break;
        }
    }
    if (slot == pa_nobjects && pa_nobjects >= PA_MAX_VARS) {
        /* Full: a free slot anywhere, or the plugin really holds that many. */
        for (u32 i = 0; i < pa_nobjects; i++)
            if (pa_objects[i].refs == 0) {
                slot = i;
                break;
            }
        if (slot == pa_nobjects) pa_fail("the plugin holds more than 1048576 vars at once");
    }
    if (slot == pa_nobjects) {
        if (pa_nobjects == pa_capobjects) {
            u32 cap = pa_capobjects ? pa_capobjects * 2 : 1024;
            struct pa_object *t = pa_alloc(cap * sizeof *t);
            if (!t) pa_fail("out of memory for the plugin's vars");
            pa_zero(t, cap * sizeof *t);
            if (pa_objects) copy(t, pa_objects, pa_nobjects * sizeof *t);
            pa_release_block(pa_objects);
            pa_objects = t;
            pa_capobjects = cap;
        }
        pa_nobjects++;
    }
    struct pa_object *o = &pa_objects[slot];
    pa_zero(o, sizeof *o);
    o->refs = 1;
    o->type = type;
    o->gen = pa_generation++ & 0x7ffffff;
    if (!o->gen) o->gen = pa_generation++;
    pa_zero(out, sizeof *out);
    out->type = type;
    out->value.as_id = pa_id(slot, o->gen);
    return o;
}

static void pa_release_locked(const struct PP_Var *v);

static void pa_destroy(struct pa_object *o) {
    struct PP_Var *items = o->items;
    u32 n = o->type == PP_VARTYPE_DICTIONARY ? 2 * o->len : o->type == PP_VARTYPE_ARRAY ? o->len : 0;
    pa_release_block(o->bytes);
    o->bytes = NULL;
    o->items = NULL;
    o->refs = 0;
    u32 slot = (u32)(o - pa_objects);
    if (slot < pa_free_slot) pa_free_slot = slot;
    for (u32 i = 0; i < n; i++) pa_release_locked(&items[i]);
    pa_release_block(items);
}

static void pa_addref_locked(const struct PP_Var *v) {
    if (!pa_counted(v)) return;
    struct pa_object *o = pa_lookup(v, v->type);
    if (o && o->refs < 0x7fffffff) o->refs++;
}

static void pa_release_locked(const struct PP_Var *v) {
    if (!pa_counted(v)) return;
    struct pa_object *o = pa_lookup(v, v->type);
    if (o && --o->refs == 0) pa_destroy(o);
}

/* A new string var of the `n` bytes at `s` (the lock held): 0, or -1 out of memory. */
static int pa_string_locked(struct PP_Var *out, const char *s, u32 n) {
    u8 *b = n < PA_MAX_BYTES ? pa_alloc((size_t)n + 1) : NULL;
    if (!b) {
        pa_set_null(out);
        return -1;
    }
    struct pa_object *o = pa_new(PP_VARTYPE_STRING, out);
    if (n) copy(b, s, n);
    b[n] = 0;
    o->bytes = b;
    o->len = n;
    return 0;
}

/* Whether the `n` bytes at `s` are UTF-8 (no overlong forms, surrogates or values past
   U+10FFFF: what Chrome's VarFromUtf8 accepted). */
static int pa_utf8(const u8 *s, u32 n) {
    for (u32 i = 0; i < n;) {
        u8 c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        u32 len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        if (!len || c > 0xf4 || i + len > n) return 0;
        u32 cp = c & (0x3f >> (len - 1));
        for (u32 k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
            (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        i += len;
    }
    return 1;
}

/* Makes room for `n` items in `o` (the lock held): 0, or -1. */
static int pa_reserve(struct pa_object *o, u32 n) {
    if (n <= o->cap) return 0;
    if (n > (1u << 24)) return -1;
    u32 cap = o->cap ? o->cap : 4;
    while (cap < n) cap *= 2;
    struct PP_Var *t = pa_alloc((size_t)cap * sizeof *t);
    if (!t) return -1;
    pa_zero(t, (size_t)cap * sizeof *t);
    u32 used = o->type == PP_VARTYPE_DICTIONARY ? 2 * o->len : o->len;
    if (o->items) copy(t, o->items, used * sizeof *t);
    pa_release_block(o->items);
    o->items = t;
    o->cap = cap;
    return 0;
}

static i32 array_set_locked(struct pa_object *o, u32 index, const struct PP_Var *value) {
    if (index >= o->len) {
        if (index == 0xffffffffu || pa_reserve(o, index + 1)) return 0;
        o->len = index + 1;
    }
    struct PP_Var old = o->items[index];
    o->items[index] = *value;
    pa_addref_locked(value);
    pa_release_locked(&old);
    return 1;
}

/* The index of string key `key` in dictionary `o` (the lock held), or -1. */
static i32 dict_find(struct pa_object *o, const struct PP_Var *key) {
    struct pa_object *k = pa_lookup(key, PP_VARTYPE_STRING);
    if (!k) return -1;
    for (u32 i = 0; i < o->len; i++) {
        struct pa_object *ki = pa_lookup(&o->items[2 * i], PP_VARTYPE_STRING);
        if (ki && ki->len == k->len && !__builtin_memcmp(ki->bytes, k->bytes, k->len)) return (i32)i;
    }
    return -1;
}

static i32 dict_set_locked(struct pa_object *o, const struct PP_Var *key, const struct PP_Var *value) {
    if (!pa_lookup(key, PP_VARTYPE_STRING)) return 0;
    i32 i = dict_find(o, key);
    if (i < 0) {
        if (o->len >= (1u << 23) || pa_reserve(o, 2 * (o->len + 1))) return 0;
        i = (i32)o->len++;
        o->items[2 * i] = *key;
        pa_addref_locked(key);
        pa_zero(&o->items[2 * i + 1], sizeof *value);
    }
    struct PP_Var old = o->items[2 * i + 1];
    o->items[2 * i + 1] = *value;
    pa_addref_locked(value);
    pa_release_locked(&old);
    return 1;
}

#endif
