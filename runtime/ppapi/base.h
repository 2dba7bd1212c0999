/*
 * The PPAPI host's floor: PPAPI's own types and error codes (ppapi.md §2, §3) as the
 * plugin's side of each call sees them, the host's limits, and its one way to fail.
 */
#ifndef PA_BASE_H
#define PA_BASE_H

#include "../backend.h"

enum {
    PP_VARTYPE_UNDEFINED, PP_VARTYPE_NULL, PP_VARTYPE_BOOL, PP_VARTYPE_INT32, PP_VARTYPE_DOUBLE,
    PP_VARTYPE_STRING, PP_VARTYPE_OBJECT, PP_VARTYPE_ARRAY, PP_VARTYPE_DICTIONARY,
    PP_VARTYPE_ARRAY_BUFFER, PP_VARTYPE_RESOURCE
};

struct PP_Var {
    i32 type;
    i32 padding;
    union {
        i32 as_int; /* also as_bool */
        double as_double;
        i64 as_id;
    } value;
};

struct PP_CompletionCallback {
    void (*func)(void *user_data, i32 result);
    void *user_data;
    i32 flags;
};

struct PP_Rect { i32 x, y, w, h; };
struct PP_Point { i32 x, y; };

#define PP_OK 0
#define PP_OK_COMPLETIONPENDING (-1)
#define PP_ERROR_FAILED (-2)
#define PP_ERROR_BADARGUMENT (-4)
#define PP_ERROR_BADRESOURCE (-5)
#define PP_ERROR_NOTSUPPORTED (-12)
#define PP_ERROR_BLOCKS_MAIN_THREAD (-13)
#define PP_ERROR_INPROGRESS (-11)
#define PP_ERROR_WRONG_THREAD (-52)
#define PP_ERROR_ABORTED (-3)
#define PP_ERROR_NOACCESS (-7)
#define PP_ERROR_NOMEMORY (-8)
#define PP_ERROR_MALFORMED_INPUT (-14)
#define PP_ERROR_RESOURCE_FAILED (-15)
#define PP_COMPLETIONCALLBACK_FLAG_OPTIONAL 1

/* An interface table's entry, untyped (the GL tables, made from their import lists). */
typedef void (*pa_fn)(void);
#define PF(f) ((pa_fn)(f))

/* An interface's typed table: a struct of its functions in its header's order, each by
   its name there, each slot checked against its function's type (-Werror). `slots` lists
   them: X(result, name, (parameters), function) a slot. */
#define PA_SLOT_TYPE(result, name, params, fn) result(*name) params;
#define PA_SLOT_INIT(result, name, params, fn) .name = fn,
#define PA_TABLE(type, table, slots) \
    static const struct type { slots(PA_SLOT_TYPE) } table = {slots(PA_SLOT_INIT)};

/* The limits that keep a plugin's flood of vars or messages from taking memory without
   bound (it gets an error and the program ends, status 134). */
#define PA_MAX_BYTES (512u << 20)  /* the host's memory for vars */
#define PA_MAX_VARS (1u << 20)
#define PA_MAX_LINE (64u << 20)    /* one message on standard input */
#define PA_MAX_QUEUED 4096         /* messages read ahead of the plugin */
#define PA_MAX_DEPTH 64            /* arrays and dictionaries within each other */

__attribute__((noreturn)) static void pa_fail(const char *why) {
    write_str(2, "pnacl runtime: PPAPI: ");
    write_str(2, why);
    write_str(2, "\n");
    exit_process(134);
}

#endif
