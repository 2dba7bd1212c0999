/*
 * PPB_Var;1.0, 1.1, 1.2: references to vars, strings.
 */
#ifndef PA_PPB_VAR_H
#define PA_PPB_VAR_H

#include "var.h"

static void var_addref(const struct PP_Var *v) {
    lock(&pa_var_lock);
    pa_addref_locked(v);
    unlock(&pa_var_lock);
}

static void var_release(const struct PP_Var *v) {
    lock(&pa_var_lock);
    pa_release_locked(v);
    unlock(&pa_var_lock);
}

static void var_from_utf8(struct PP_Var *out, const char *data, u32 len) {
    if (len > PA_MAX_BYTES || (len && (!data || !pa_utf8((const u8 *)data, len)))) {
        pa_set_null(out);
        return;
    }
    lock(&pa_var_lock);
    pa_string_locked(out, data, len);
    unlock(&pa_var_lock);
}

static void var_from_utf8_1_0(struct PP_Var *out, i32 module, const char *data, u32 len) {
    (void)module;
    var_from_utf8(out, data, len);
}

static const char *var_to_utf8(const struct PP_Var *v, u32 *len) {
    lock(&pa_var_lock);
    struct pa_object *o = pa_lookup(v, PP_VARTYPE_STRING);
    const char *s = o ? (const char *)o->bytes : NULL;
    u32 n = o ? o->len : 0;
    unlock(&pa_var_lock);
    if (len) *len = n;
    return s;
}

static i32 var_to_resource(const struct PP_Var *v) {
    (void)v;
    return 0;
}

static void var_from_resource(struct PP_Var *out, i32 resource) {
    (void)resource;
    pa_set_null(out);
}

#define PPB_VAR_1_0(X)                                                                                   \
    X(void, AddRef, (const struct PP_Var *v), var_addref)                                                \
    X(void, Release, (const struct PP_Var *v), var_release)                                              \
    X(void, VarFromUtf8, (struct PP_Var *out, i32 module, const char *data, u32 len), var_from_utf8_1_0) \
    X(const char *, VarToUtf8, (const struct PP_Var *v, u32 *len), var_to_utf8)
PA_TABLE(PPB_Var_1_0, ppb_var_1_0, PPB_VAR_1_0)

#define PPB_VAR_1_2(X)                                                                   \
    X(void, AddRef, (const struct PP_Var *v), var_addref)                                \
    X(void, Release, (const struct PP_Var *v), var_release)                              \
    X(void, VarFromUtf8, (struct PP_Var *out, const char *data, u32 len), var_from_utf8) \
    X(const char *, VarToUtf8, (const struct PP_Var *v, u32 *len), var_to_utf8)          \
    X(i32, VarToResource, (const struct PP_Var *v), var_to_resource)                     \
    X(void, VarFromResource, (struct PP_Var *out, i32 resource), var_from_resource)
PA_TABLE(PPB_Var_1_2, ppb_var_1_2, PPB_VAR_1_2)

#endif
