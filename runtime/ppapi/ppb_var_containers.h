/*
 * PPB_VarArrayBuffer;1.0, PPB_VarArray;1.0, PPB_VarDictionary;1.0.
 */
#ifndef PA_PPB_VAR_CONTAINERS_H
#define PA_PPB_VAR_CONTAINERS_H

#include "var.h"

static void buffer_create(struct PP_Var *out, u32 size) {
    if (size > PA_MAX_BYTES) {
        pa_set_null(out);
        return;
    }
    lock(&pa_var_lock);
    u8 *b = pa_alloc((size_t)size + 1);
    if (!b) {
        unlock(&pa_var_lock);
        pa_set_null(out);
        return;
    }
    pa_zero(b, (size_t)size + 1);
    struct pa_object *o = pa_new(PP_VARTYPE_ARRAY_BUFFER, out);
    o->bytes = b;
    o->len = size;
    unlock(&pa_var_lock);
}

static i32 buffer_byte_length(const struct PP_Var *v, u32 *out) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(v, PP_VARTYPE_ARRAY_BUFFER);
    if (o && out) *out = o->len;
    unlock(&pa_var_lock);
    return o != NULL;
}

static void *buffer_map(const struct PP_Var *v) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(v, PP_VARTYPE_ARRAY_BUFFER);
    void *p = o ? o->bytes : NULL;
    unlock(&pa_var_lock);
    return p;
}

static void buffer_unmap(const struct PP_Var *v) { (void)v; }

static void array_create(struct PP_Var *out) {
    lock(&pa_var_lock);
    pa_new(PP_VARTYPE_ARRAY, out);
    unlock(&pa_var_lock);
}

static void array_get(struct PP_Var *out, const struct PP_Var *array, u32 index) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(array, PP_VARTYPE_ARRAY);
    if (o && index < o->len) {
        *out = o->items[index];
        pa_addref_locked(out);
    } else {
        pa_set_undefined(out);
    }
    unlock(&pa_var_lock);
}

static i32 array_set(const struct PP_Var *array, u32 index, const struct PP_Var *value) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(array, PP_VARTYPE_ARRAY);
    i32 r = o ? array_set_locked(o, index, value) : 0;
    unlock(&pa_var_lock);
    return r;
}

static u32 array_get_length(const struct PP_Var *array) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(array, PP_VARTYPE_ARRAY);
    u32 n = o ? o->len : 0;
    unlock(&pa_var_lock);
    return n;
}

static i32 array_set_length(const struct PP_Var *array, u32 length) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(array, PP_VARTYPE_ARRAY);
    i32 r = 0;
    if (o && !pa_reserve(o, length)) {
        while (o->len > length) {
            struct PP_Var old = o->items[--o->len];
            pa_zero(&o->items[o->len], sizeof old);
            pa_release_locked(&old);
        }
        o->len = length;
        r = 1;
    }
    unlock(&pa_var_lock);
    return r;
}

static void dict_create(struct PP_Var *out) {
    lock(&pa_var_lock);
    pa_new(PP_VARTYPE_DICTIONARY, out);
    unlock(&pa_var_lock);
}

static void dict_get(struct PP_Var *out, const struct PP_Var *dict, const struct PP_Var *key) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    i32 i = o ? dict_find(o, key) : -1;
    if (i >= 0) {
        *out = o->items[2 * i + 1];
        pa_addref_locked(out);
    } else {
        pa_set_undefined(out);
    }
    unlock(&pa_var_lock);
}

static i32 dict_set(const struct PP_Var *dict, const struct PP_Var *key, const struct PP_Var *value) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    i32 r = o ? dict_set_locked(o, key, value) : 0;
    unlock(&pa_var_lock);
    return r;
}

static void dict_delete(const struct PP_Var *dict, const struct PP_Var *key) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    i32 i = o ? dict_find(o, key) : -1;
    if (i >= 0) {
        struct PP_Var k = o->items[2 * i], v = o->items[2 * i + 1];
        o->len--;
        o->items[2 * i] = o->items[2 * o->len];
        o->items[2 * i + 1] = o->items[2 * o->len + 1];
        pa_release_locked(&k);
        pa_release_locked(&v);
    }
    unlock(&pa_var_lock);
}

static i32 dict_has_key(const struct PP_Var *dict, const struct PP_Var *key) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    i32 r = o && dict_find(o, key) >= 0;
    unlock(&pa_var_lock);
    return r;
}

static void dict_get_keys(struct PP_Var *out, const struct PP_Var *dict) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    if (!o) {
        unlock(&pa_var_lock);
        pa_set_null(out);
        return;
    }
    struct pa_object *a = pa_new(PP_VARTYPE_ARRAY, out);
    /* `o` may have moved with the table: look again. */
    o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
    for (u32 i = 0; o && i < o->len; i++) {
        struct pa_object *k = pa_lookup(&o->items[2 * i], PP_VARTYPE_STRING);
        struct PP_Var s;
        if (!k || pa_string_locked(&s, (const char *)k->bytes, k->len)) break;
        o = pa_lookup(dict, PP_VARTYPE_DICTIONARY);
        a = pa_lookup(out, PP_VARTYPE_ARRAY);
        if (!a || !o) break;
        array_set_locked(a, a->len, &s);
        pa_release_locked(&s);
    }
    unlock(&pa_var_lock);
}

#define PPB_VARARRAYBUFFER_1_0(X)                                              \
    X(void, Create, (struct PP_Var *out, u32 size), buffer_create)             \
    X(i32, ByteLength, (const struct PP_Var *v, u32 *out), buffer_byte_length) \
    X(void *, Map, (const struct PP_Var *v), buffer_map)                       \
    X(void, Unmap, (const struct PP_Var *v), buffer_unmap)
PA_TABLE(PPB_VarArrayBuffer_1_0, ppb_var_array_buffer_1_0, PPB_VARARRAYBUFFER_1_0)

#define PPB_VARARRAY_1_0(X)                                                                     \
    X(void, Create, (struct PP_Var *out), array_create)                                         \
    X(void, Get, (struct PP_Var *out, const struct PP_Var *array, u32 index), array_get)        \
    X(i32, Set, (const struct PP_Var *array, u32 index, const struct PP_Var *value), array_set) \
    X(u32, GetLength, (const struct PP_Var *array), array_get_length)                           \
    X(i32, SetLength, (const struct PP_Var *array, u32 length), array_set_length)
PA_TABLE(PPB_VarArray_1_0, ppb_var_array_1_0, PPB_VARARRAY_1_0)

#define PPB_VARDICTIONARY_1_0(X)                                                                             \
    X(void, Create, (struct PP_Var *out), dict_create)                                                       \
    X(void, Get, (struct PP_Var *out, const struct PP_Var *dict, const struct PP_Var *key), dict_get)        \
    X(i32, Set, (const struct PP_Var *dict, const struct PP_Var *key, const struct PP_Var *value), dict_set) \
    X(void, Delete, (const struct PP_Var *dict, const struct PP_Var *key), dict_delete)                      \
    X(i32, HasKey, (const struct PP_Var *dict, const struct PP_Var *key), dict_has_key)                      \
    X(void, GetKeys, (struct PP_Var *out, const struct PP_Var *dict), dict_get_keys)
PA_TABLE(PPB_VarDictionary_1_0, ppb_var_dictionary_1_0, PPB_VARDICTIONARY_1_0)

#endif
