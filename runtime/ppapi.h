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

/* ----------------------------------------------------------------------------------- */
/* Types (ppapi.md §2, §3)                                                              */

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
#define PP_COMPLETIONCALLBACK_FLAG_OPTIONAL 1

/* An interface table's entry (each table: these, in the interface's order). */
typedef void (*pa_fn)(void);
#define PF(f) ((pa_fn)(f))

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

/* ----------------------------------------------------------------------------------- */
/* Memory: blocks of power-of-two sizes, from pages the backend gives                 */

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

/* ----------------------------------------------------------------------------------- */
/* Vars: one table of ref-counted objects, ids never reused while alive, never 0        */

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

/* ----------------------------------------------------------------------------------- */
/* PPB_Var                                                                             */

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

/* ----------------------------------------------------------------------------------- */
/* PPB_VarArrayBuffer, PPB_VarArray, PPB_VarDictionary                                 */

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

/* ----------------------------------------------------------------------------------- */
/* Messages as text: strings, and JSON (PNACL_MESSAGES=json)                           */

static int pa_json; /* PNACL_MESSAGES=json */
static int pa_page; /* PNACL_PAGE=1: in a page, with its channel (below) */
/* PNACL_GRAPHICS=headless: 2-D graphics without a page (ImageData, Graphics2D), drawn into
   buffers no one sees, each Flush done at the display's rate (a plugin that draws runs
   headless, and its speed can be measured). */
static int pa_headless_2d;
static const char *pa_quit = "quit"; /* PNACL_QUIT */

struct pa_text {
    u8 *p;
    u32 len, cap;
    int failed;
};

static void text_put(struct pa_text *t, const void *s, u32 n) {
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        u32 cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1) {
            if (cap > PA_MAX_LINE) {
                t->failed = 1;
                return;
            }
            cap *= 2;
        }
        u8 *q = pa_alloc(cap);
        if (!q) {
            t->failed = 1;
            return;
        }
        if (t->p) copy(q, t->p, t->len);
        pa_release_block(t->p);
        t->p = q;
        t->cap = cap;
    }
    copy(t->p + t->len, s, n);
    t->len += n;
}

static void text_str(struct pa_text *t, const char *s) { text_put(t, s, (u32)slen(s)); }

static void text_uint(struct pa_text *t, u64 v) {
    char b[24];
    int i = 24;
    do b[--i] = (char)('0' + v % 10); while ((v /= 10) != 0);
    text_put(t, b + i, (u32)(24 - i));
}

static void text_int(struct pa_text *t, i64 v) {
    if (v < 0) {
        text_put(t, "-", 1);
        text_uint(t, (u64)0 - (u64)v);
    } else {
        text_uint(t, (u64)v);
    }
}

/* Numbers, exactly: a JSON number reads as the double nearest to it, and a double writes
   as the shortest decimal that reads back as the same double (as V8's JSON did). Both
   work on big integers, so no digit is lost to floating-point arithmetic. */

#define PA_BIG_WORDS 160 /* 5120 bits: 10^1130 times 2^64, and 2^53 times 5^1074, fit */
#define PA_MAX_DIGITS 800 /* significant digits kept (767 decide any double) */

struct pa_big {
    u32 n; /* words in use; w[n - 1] != 0 unless n == 0 */
    u32 w[PA_BIG_WORDS];
};

static void big_copy(struct pa_big *to, const struct pa_big *from) {
    to->n = from->n;
    copy(to->w, from->w, from->n * sizeof(u32));
}

static void big_set(struct pa_big *b, u64 v) {
    b->n = 0;
    while (v) b->w[b->n++] = (u32)v, v >>= 32;
}

static void big_mul_add(struct pa_big *b, u32 m, u32 a) {
    u64 carry = a;
    for (u32 i = 0; i < b->n; i++) {
        u64 t = (u64)b->w[i] * m + carry;
        b->w[i] = (u32)t;
        carry = t >> 32;
    }
    if (carry && b->n < PA_BIG_WORDS) b->w[b->n++] = (u32)carry;
}

static void big_mul_pow(struct pa_big *b, u32 base, u32 e) {
    /* base^13 < 2^32 for base 5 and 10 (10^9 used for 10) */
    u32 step = base == 10 ? 9 : 13, chunk = base == 10 ? 1000000000u : 1220703125u;
    for (; e >= step; e -= step) big_mul_add(b, chunk, 0);
    u32 m = 1;
    while (e--) m *= base;
    if (m != 1) big_mul_add(b, m, 0);
}

static u32 big_bits(const struct pa_big *b) {
    return b->n ? 32 * b->n - (u32)__builtin_clz(b->w[b->n - 1]) : 0;
}

static void big_shl(struct pa_big *b, u32 k) {
    if (!b->n) return;
    u32 words = k / 32, bits = k % 32;
    u32 n = b->n + words + 1;
    if (n > PA_BIG_WORDS) n = PA_BIG_WORDS; /* callers keep within the bound */
    for (u32 i = n; i-- > 0;) {
        u32 hi = i >= words && i - words < b->n ? b->w[i - words] : 0;
        u32 lo = i >= words + 1 && i - words - 1 < b->n ? b->w[i - words - 1] : 0;
        b->w[i] = bits ? (hi << bits) | (lo >> (32 - bits)) : hi;
    }
    b->n = n;
    while (b->n && !b->w[b->n - 1]) b->n--;
}

static int big_cmp(const struct pa_big *a, const struct pa_big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (u32 i = a->n; i-- > 0;)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void big_sub(struct pa_big *a, const struct pa_big *b) { /* a >= b */
    i64 borrow = 0;
    for (u32 i = 0; i < a->n; i++) {
        i64 t = (i64)a->w[i] - (i < b->n ? b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (u32)(t + (borrow << 32));
    }
    while (a->n && !a->w[a->n - 1]) a->n--;
}

/* The double nearest to q * 2^e2 (q's top bit set; `sticky`: something below q). */
static double pa_make_double(u64 q, int sticky, int e2) {
    int shift = -1074 - e2 > 11 ? -1074 - e2 : 11;
    if (shift > 64) return 0;
    u64 keep = shift == 64 ? 0 : q >> shift;
    u64 rem = shift == 64 ? q : q & (((u64)1 << shift) - 1);
    u64 half = (u64)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (keep & 1)))) keep++;
    int e = e2 + shift;
    if (keep == (u64)1 << 53) keep >>= 1, e++;
    u64 bits;
    if (keep >= (u64)1 << 52) {
        int be = e + 52 + 1023;
        if (be >= 2047) bits = (u64)2047 << 52;
        else bits = ((u64)be << 52) | (keep & (((u64)1 << 52) - 1));
    } else {
        bits = keep; /* subnormal (or zero): e is -1074 */
    }
    double d;
    __builtin_memcpy(&d, &bits, 8);
    return d;
}

/* The double nearest to the decimal digits[0..nd) (no leading zero) times 10^exp10;
   `sticky`: nonzero digits were dropped after them. */
static double pa_decimal_to_double(const u8 *digits, u32 nd, int exp10, int sticky) {
    if (!nd) return 0;
    if (nd <= 15 && exp10 >= -22 && exp10 <= 22 && !sticky) {
        /* Clinger's fast path: the digits and 10^|exp10| are exact doubles, so one
           correctly rounded operation gives the nearest double. */
        static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        i64 v = 0;
        for (u32 i = 0; i < nd; i++) v = v * 10 + digits[i];
        return exp10 < 0 ? (double)v / pow10[-exp10] : (double)v * pow10[exp10];
    }
    if ((int)nd + exp10 > 310) return __builtin_inf();
    if ((int)nd + exp10 < -330) return 0;
    struct pa_big num, den;
    big_set(&num, 0);
    for (u32 i = 0; i < nd; i++) {
        if (!num.n) big_set(&num, digits[i]);
        else big_mul_add(&num, 10, digits[i]);
    }
    if (exp10 >= 0) {
        big_mul_pow(&num, 10, (u32)exp10);
        u32 bits = big_bits(&num);
        if (bits <= 64) {
            u64 v = num.w[0] | (num.n > 1 ? (u64)num.w[1] << 32 : 0);
            return pa_make_double(v << (64 - bits), sticky, (int)bits - 64);
        }
        /* The top 64 bits, and whether anything is below them. */
        u64 q = 0;
        for (u32 i = 0; i < 64; i++) {
            u32 bit = bits - 1 - i;
            q = q << 1 | ((num.w[bit / 32] >> (bit % 32)) & 1);
        }
        int below = sticky;
        for (u32 bit = 0; bit < bits - 64 && !below; bit++) below = (num.w[bit / 32] >> (bit % 32)) & 1;
        return pa_make_double(q, below, (int)bits - 64);
    }
    big_set(&den, 1);
    big_mul_pow(&den, 10, (u32)-exp10);
    /* q = floor(num * 2^k / den) with 2^63 <= q < 2^64 */
    int k = 64 + (int)big_bits(&den) - (int)big_bits(&num);
    if (k > 0) big_shl(&num, (u32)k);
    else big_shl(&den, (u32)-k);
    /* num/den is now in [2^63, 2^65): halve den once if needed so it is below 2^64 */
    struct pa_big top;
    big_copy(&top, &den);
    big_shl(&top, 64);
    if (big_cmp(&num, &top) >= 0) {
        big_shl(&den, 1);
        k--;
    }
    u64 q = 0;
    for (int i = 63; i >= 0; i--) {
        struct pa_big t;
        big_copy(&t, &den);
        big_shl(&t, (u32)i);
        if (big_cmp(&num, &t) >= 0) {
            big_sub(&num, &t);
            q |= (u64)1 << i;
        }
    }
    if (!(q >> 63)) { /* num/den was below 2^63: one more bit */
        big_shl(&num, 1);
        k++;
        q <<= 1;
        if (big_cmp(&num, &den) >= 0) big_sub(&num, &den), q |= 1;
    }
    return pa_make_double(q, sticky || num.n != 0, -k);
}

/* The exact decimal digits of finite d > 0 (at most 800 of them, then `*more` set),
   with *exp10 such that d = 0.DIGITS x 10^exp10. */
static u32 pa_double_digits(double d, u8 *out, int *exp10, int *more) {
    u64 bits;
    __builtin_memcpy(&bits, &d, 8);
    int be = (int)(bits >> 52) & 2047;
    u64 m = bits & (((u64)1 << 52) - 1);
    int e2 = be ? be - 1075 : -1074;
    if (be) m |= (u64)1 << 52;
    struct pa_big b;
    big_set(&b, m);
    int point = 0; /* d = b x 10^-point */
    if (e2 >= 0) big_shl(&b, (u32)e2);
    else big_mul_pow(&b, 5, (u32)-e2), point = -e2;
    /* Digits, nine at a time from the bottom, by division by 10^9. */
    static const u32 size = 9 * PA_BIG_WORDS * 32 / 29 + 9;
    u8 rev[9 * PA_BIG_WORDS * 32 / 29 + 9];
    u32 nr = 0;
    while (b.n) {
        u64 r = 0;
        for (u32 i = b.n; i-- > 0;) {
            u64 cur = r << 32 | b.w[i];
            b.w[i] = (u32)(cur / 1000000000u);
            r = cur % 1000000000u;
        }
        while (b.n && !b.w[b.n - 1]) b.n--;
        for (int j = 0; j < 9 && nr < size; j++) rev[nr++] = (u8)(r % 10), r /= 10;
    }
    while (nr && !rev[nr - 1]) nr--;
    u32 lead_zeros = 0; /* trailing zeros of the number */
    while (lead_zeros < nr && !rev[lead_zeros]) lead_zeros++;
    *exp10 = (int)nr - point;
    u32 n = 0;
    *more = 0;
    for (u32 i = nr; i-- > lead_zeros;) {
        if (n < PA_MAX_DIGITS) out[n++] = rev[i];
        else *more = 1;
    }
    return n;
}

/* A double as JSON, as JavaScript writes a number: the shortest decimal that reads back as
   the same double; integral values within 2^53 as integers (with ".0" in JSON messages,
   to say the var was a DOUBLE); NaN and infinities as null (JSON has none, as
   JSON.stringify says). */
static void text_double(struct pa_text *t, double d) {
    if (d != d || d - d != 0) {
        text_str(t, "null");
        return;
    }
    if (d < 9007199254740992.0 && d > -9007199254740992.0 && d == (double)(i64)d) {
        if (d == 0 && 1 / d < 0) text_put(t, "-", 1);
        text_int(t, (i64)d);
        if (pa_json) text_str(t, ".0");
        return;
    }
    if (d < 0) {
        text_put(t, "-", 1);
        d = -d;
    }
    u8 exact[PA_MAX_DIGITS], c[18];
    int n10, more;
    u32 ne = pa_double_digits(d, exact, &n10, &more);
    u32 p = 1;
    int n = n10;
    for (;; p++) {
        n = n10;
        u32 k = ne < p ? ne : p;
        copy(c, exact, k);
        if (ne > p) {
            int up = exact[p] > 5 || (exact[p] == 5 && (more || (c[p - 1] & 1)));
            for (u32 i = p + 1; exact[p] == 5 && !up && i < ne; i++) up = exact[i] != 0;
            for (u32 i = k; up && i-- > 0;) {
                if (c[i] < 9) {
                    c[i]++;
                    up = 0;
                } else {
                    c[i] = 0;
                }
            }
            if (up) { /* 99..9 became 100..0 */
                c[0] = 1;
                for (u32 i = 1; i < k; i++) c[i] = 0;
                n++;
            }
        }
        while (k > 1 && !c[k - 1]) k--;
        if (p >= 17 || pa_decimal_to_double(c, k, n - (int)k, 0) == d) {
            p = k;
            break;
        }
    }
    for (u32 i = 0; i < p; i++) c[i] = (u8)('0' + c[i]);
    if ((int)p <= n && n <= 21) {
        text_put(t, c, p);
        for (int i = (int)p; i < n; i++) text_put(t, "0", 1);
    } else if (0 < n && n <= 21) {
        text_put(t, c, (u32)n);
        text_put(t, ".", 1);
        text_put(t, c + n, p - (u32)n);
    } else if (-6 < n && n <= 0) {
        text_put(t, "0.", 2);
        for (int i = n; i < 0; i++) text_put(t, "0", 1);
        text_put(t, c, p);
    } else {
        text_put(t, c, 1);
        if (p > 1) {
            text_put(t, ".", 1);
            text_put(t, c + 1, p - 1);
        }
        text_put(t, n - 1 < 0 ? "e-" : "e+", 2);
        text_int(t, n - 1 < 0 ? 1 - n : n - 1);
    }
}

static void text_json_string(struct pa_text *t, const u8 *s, u32 n) {
    static const char hex[] = "0123456789abcdef";
    text_put(t, "\"", 1);
    for (u32 i = 0; i < n; i++) {
        u8 c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            text_put(t, e, 2);
        } else if (c == '\n') {
            text_put(t, "\\n", 2);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            text_put(t, e, 6);
        } else {
            text_put(t, &c, 1);
        }
    }
    text_put(t, "\"", 1);
}

static void text_base64(struct pa_text *t, const u8 *s, u32 n) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (u32 i = 0; i < n; i += 3) {
        u32 v = (u32)s[i] << 16 | (i + 1 < n ? (u32)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '='};
        text_put(t, q, 4);
    }
}

/* Var `v` as JSON (the lock held). Cycles and too deep nesting fail, as Chrome refused
   them. */
static void text_json(struct pa_text *t, const struct PP_Var *v, int depth) {
    if (depth > PA_MAX_DEPTH) {
        t->failed = 1;
        return;
    }
    switch (v->type) {
    case PP_VARTYPE_UNDEFINED:
    case PP_VARTYPE_NULL:
        text_str(t, "null");
        return;
    case PP_VARTYPE_BOOL:
        text_str(t, v->value.as_int ? "true" : "false");
        return;
    case PP_VARTYPE_INT32:
        text_int(t, v->value.as_int);
        return;
    case PP_VARTYPE_DOUBLE:
        text_double(t, v->value.as_double);
        return;
    default:
        break;
    }
    struct pa_object *o = pa_lookup(v, v->type);
    if (!o) {
        text_str(t, "null");
        return;
    }
    if (v->type == PP_VARTYPE_STRING) {
        text_json_string(t, o->bytes, o->len);
    } else if (v->type == PP_VARTYPE_ARRAY_BUFFER) {
        text_str(t, "{\"$arraybuffer\":\"");
        text_base64(t, o->bytes, o->len);
        text_str(t, "\"}");
    } else if (v->type == PP_VARTYPE_ARRAY) {
        text_put(t, "[", 1);
        for (u32 i = 0; i < o->len && !t->failed; i++) {
            if (i) text_put(t, ",", 1);
            struct PP_Var item = o->items[i];
            text_json(t, &item, depth + 1);
            o = pa_lookup(v, v->type);
            if (!o) break;
        }
        text_put(t, "]", 1);
    } else if (v->type == PP_VARTYPE_DICTIONARY) {
        text_put(t, "{", 1);
        for (u32 i = 0; i < o->len && !t->failed; i++) {
            if (i) text_put(t, ",", 1);
            struct PP_Var key = o->items[2 * i], value = o->items[2 * i + 1];
            text_json(t, &key, depth + 1);
            text_put(t, ":", 1);
            text_json(t, &value, depth + 1);
            o = pa_lookup(v, v->type);
            if (!o) break;
        }
        text_put(t, "}", 1);
    } else {
        text_str(t, "null");
    }
}

/* JSON text → var (the lock held). */
struct pa_parse {
    const u8 *s;
    u32 n, i;
    int failed;
};

static void parse_space(struct pa_parse *p) {
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r' || p->s[p->i] == '\n'))
        p->i++;
}

static int parse_literal(struct pa_parse *p, const char *word) {
    u32 n = (u32)slen(word);
    if (p->n - p->i < n || __builtin_memcmp(p->s + p->i, word, n)) return 0;
    p->i += n;
    return 1;
}

static int hexval(u8 c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A JSON string at p->i (after its quote) into `t` as UTF-8. */
static void parse_string(struct pa_parse *p, struct pa_text *t) {
    for (;;) {
        if (p->i >= p->n) {
            p->failed = 1;
            return;
        }
        u8 c = p->s[p->i++];
        if (c == '"') return;
        if (c < 0x20) {
            p->failed = 1;
            return;
        }
        if (c != '\\') {
            text_put(t, &c, 1);
            continue;
        }
        if (p->i >= p->n) {
            p->failed = 1;
            return;
        }
        c = p->s[p->i++];
        const char *simple = "\"\\/bfnrt", *meaning = "\"\\/\b\f\n\r\t";
        int k = 0;
        while (simple[k] && simple[k] != c) k++;
        if (simple[k]) {
            text_put(t, &meaning[k], 1);
            continue;
        }
        if (c != 'u') {
            p->failed = 1;
            return;
        }
        u32 cp = 0;
        for (int round = 0; round < 2; round++) {
            if (p->n - p->i < 4) {
                p->failed = 1;
                return;
            }
            u32 u = 0;
            for (int j = 0; j < 4; j++) {
                int h = hexval(p->s[p->i++]);
                if (h < 0) {
                    p->failed = 1;
                    return;
                }
                u = u << 4 | (u32)h;
            }
            if (round == 0) {
                cp = u;
                if (u < 0xd800 || u >= 0xe000) break;
                if (u >= 0xdc00 || !parse_literal(p, "\\u")) {
                    p->failed = 1; /* a lone surrogate: not UTF-8 */
                    return;
                }
            } else {
                if (u < 0xdc00 || u >= 0xe000) {
                    p->failed = 1;
                    return;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (u - 0xdc00);
            }
        }
        u8 b[4];
        u32 len;
        if (cp < 0x80) b[0] = (u8)cp, len = 1;
        else if (cp < 0x800) b[0] = (u8)(0xc0 | cp >> 6), b[1] = (u8)(0x80 | (cp & 63)), len = 2;
        else if (cp < 0x10000)
            b[0] = (u8)(0xe0 | cp >> 12), b[1] = (u8)(0x80 | ((cp >> 6) & 63)), b[2] = (u8)(0x80 | (cp & 63)), len = 3;
        else
            b[0] = (u8)(0xf0 | cp >> 18), b[1] = (u8)(0x80 | ((cp >> 12) & 63)), b[2] = (u8)(0x80 | ((cp >> 6) & 63)),
            b[3] = (u8)(0x80 | (cp & 63)), len = 4;
        text_put(t, b, len);
    }
}

/* A JSON number at p->i: an INT32 var if integral and within 32 bits, else DOUBLE. */
static int pa_digit(const struct pa_parse *p) { return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9'; }

/* A JSON number: the double nearest to it, an INT32 var when that is an integer that fits
   in 32 bits (not -0), as Chrome made page numbers. */
static void parse_number(struct pa_parse *p, struct PP_Var *out) {
    int neg = 0;
    if (p->s[p->i] == '-') neg = 1, p->i++;
    if (!pa_digit(p) || (p->s[p->i] == '0' && p->i + 1 < p->n && p->s[p->i + 1] >= '0' && p->s[p->i + 1] <= '9')) {
        p->failed = 1;
        return;
    }
    u8 digits[PA_MAX_DIGITS];
    u32 nd = 0;
    int sticky = 0;
    i64 exp10 = 0; /* the number is 0.DIGITS (and beyond) x 10^exp10 */
    for (; pa_digit(p); p->i++) {
        u8 v = (u8)(p->s[p->i] - '0');
        if (nd == 0 && v == 0) continue;
        if (nd < PA_MAX_DIGITS) digits[nd++] = v;
        else sticky |= v != 0;
        if (exp10 < 100000000) exp10++;
    }
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!pa_digit(p)) {
            p->failed = 1;
            return;
        }
        for (; pa_digit(p); p->i++) {
            u8 v = (u8)(p->s[p->i] - '0');
            if (nd == 0 && v == 0) {
                if (exp10 > -100000000) exp10--;
                continue;
            }
            if (nd < PA_MAX_DIGITS) digits[nd++] = v;
            else sticky |= v != 0;
        }
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        int eneg = 0;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) eneg = p->s[p->i++] == '-';
        if (!pa_digit(p)) {
            p->failed = 1;
            return;
        }
        i64 e = 0;
        for (; pa_digit(p); p->i++)
            if (e < 100000000) e = e * 10 + (p->s[p->i] - '0');
        exp10 += eneg ? -e : e;
    }
    while (nd > 0 && digits[nd - 1] == 0) nd--;
    double d = 0;
    if (nd) {
        i64 e = exp10 - (i64)nd;
        d = e > 1000 ? __builtin_inf() : e < -2000 ? 0 : pa_decimal_to_double(digits, nd, (int)e, sticky);
    }
    if (neg) d = -d;
    pa_zero(out, sizeof *out);
    if (d >= -2147483648.0 && d <= 2147483647.0 && d == (double)(i32)d && !(d == 0 && neg)) {
        out->type = PP_VARTYPE_INT32;
        out->value.as_int = (i32)d;
    } else {
        out->type = PP_VARTYPE_DOUBLE;
        out->value.as_double = d;
    }
}

static void parse_value(struct pa_parse *p, struct PP_Var *out, int depth);

static int b64val(u8 c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
         : c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* An ArrayBuffer of base64 text `t` into `out`: 0, or -1. */
static int parse_arraybuffer(struct pa_text *t, struct PP_Var *out) {
    u32 n = t->len;
    if (n % 4) return -1;
    u32 size = n / 4 * 3 - (n && t->p[n - 1] == '=') - (n > 1 && t->p[n - 2] == '=');
    u8 *b = pa_alloc((size_t)size + 1);
    if (!b) return -1;
    u32 o = 0;
    for (u32 i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = t->p[i + k] == '=' && i + 4 == n && k >= 2 ? 0 : b64val(t->p[i + k]);
            if (v[k] < 0) {
                pa_release_block(b);
                return -1;
            }
        }
        u32 w = (u32)v[0] << 18 | (u32)v[1] << 12 | (u32)v[2] << 6 | (u32)v[3];
        if (o < size) b[o++] = (u8)(w >> 16);
        if (o < size) b[o++] = (u8)(w >> 8);
        if (o < size) b[o++] = (u8)w;
    }
    struct pa_object *a = pa_new(PP_VARTYPE_ARRAY_BUFFER, out);
    a->bytes = b;
    a->len = size;
    return 0;
}

static void parse_value(struct pa_parse *p, struct PP_Var *out, int depth) {
    pa_set_undefined(out);
    parse_space(p);
    if (p->failed || p->i >= p->n || depth > PA_MAX_DEPTH) {
        p->failed = 1;
        return;
    }
    u8 c = p->s[p->i];
    if (c == '"') {
        p->i++;
        struct pa_text t = {0};
        parse_string(p, &t);
        if (!p->failed && !t.failed && pa_string_locked(out, (const char *)t.p, t.len)) p->failed = 1;
        if (t.failed) p->failed = 1;
        pa_release_block(t.p);
    } else if (c == '[') {
        p->i++;
        pa_new(PP_VARTYPE_ARRAY, out);
        parse_space(p);
        if (p->i < p->n && p->s[p->i] == ']') {
            p->i++;
            return;
        }
        for (;;) {
            struct PP_Var item;
            parse_value(p, &item, depth + 1);
            struct pa_object *a = pa_lookup(out, PP_VARTYPE_ARRAY);
            if (!p->failed && (!a || !array_set_locked(a, a->len, &item))) p->failed = 1;
            pa_release_locked(&item);
            parse_space(p);
            if (p->failed || p->i >= p->n) break;
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i] == ']') {
                p->i++;
                return;
            }
            break;
        }
        p->failed = 1;
    } else if (c == '{') {
        p->i++;
        pa_new(PP_VARTYPE_DICTIONARY, out);
        parse_space(p);
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            return;
        }
        for (;;) {
            parse_space(p);
            if (p->i >= p->n || p->s[p->i] != '"') break;
            struct PP_Var key, value;
            parse_value(p, &key, depth + 1);
            parse_space(p);
            if (p->failed || p->i >= p->n || p->s[p->i] != ':') {
                pa_release_locked(&key);
                break;
            }
            p->i++;
            parse_value(p, &value, depth + 1);
            struct pa_object *d = pa_lookup(out, PP_VARTYPE_DICTIONARY);
            if (!p->failed && (!d || !dict_set_locked(d, &key, &value))) p->failed = 1;
            pa_release_locked(&key);
            pa_release_locked(&value);
            parse_space(p);
            if (p->failed || p->i >= p->n) break;
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i] == '}') {
                p->i++;
                /* {"$arraybuffer": "<base64>"} alone is an ArrayBuffer. */
                struct pa_object *o = pa_lookup(out, PP_VARTYPE_DICTIONARY);
                struct pa_object *k = o && o->len == 1 ? pa_lookup(&o->items[0], PP_VARTYPE_STRING) : NULL;
                struct pa_object *s = o && o->len == 1 ? pa_lookup(&o->items[1], PP_VARTYPE_STRING) : NULL;
                if (k && s && k->len == 12 && !__builtin_memcmp(k->bytes, "$arraybuffer", 12)) {
                    struct pa_text t = {s->bytes, s->len, s->len, 0};
                    struct PP_Var buffer;
                    if (parse_arraybuffer(&t, &buffer)) {
                        p->failed = 1;
                        return;
                    }
                    pa_release_locked(out);
                    *out = buffer;
                }
                return;
            }
            break;
        }
        p->failed = 1;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        parse_number(p, out);
    } else if (parse_literal(p, "true") || parse_literal(p, "false")) {
        out->type = PP_VARTYPE_BOOL;
        out->value.as_int = c == 't';
    } else if (parse_literal(p, "null")) {
        out->type = PP_VARTYPE_NULL;
    } else {
        p->failed = 1;
    }
}

/* The var a line of standard input is (`len` bytes, without the newline): 0, or -1 when
   it is not a message (bad JSON, not UTF-8). */
static int pa_message_of_line(const u8 *line, u32 len, struct PP_Var *out) {
    if (!pa_utf8(line, len)) return -1;
    lock(&pa_var_lock);
    int r = 0;
    if (!pa_json) {
        r = pa_string_locked(out, (const char *)line, len);
    } else {
        struct pa_parse p = {line, len, 0, 0};
        parse_value(&p, out, 0);
        parse_space(&p);
        if (p.failed || p.i != p.n) {
            pa_release_locked(out);
            pa_set_undefined(out);
            r = -1;
        }
    }
    unlock(&pa_var_lock);
    return r;
}

/* ----------------------------------------------------------------------------------- */
/* Output: messages to standard output, console to standard error                      */

static volatile int pa_out_lock;

static void pa_write_all(int fd, const u8 *p, u32 n) {
    while (n > 0) {
        long r = raw_write(fd, p, n);
        if (r <= 0) return;
        p += r;
        n -= (u32)r;
    }
}

/* One line for var `v`: a string as it is (or as JSON with PNACL_MESSAGES=json), anything
   else as JSON. */
/* Ends line `t` and writes it whole to `fd` (a message that could not be made is said on
   standard error); the text is released. */
static void pa_send_line(int fd, struct pa_text *t) {
    text_put(t, "\n", 1);
    if (!t->failed) {
        lock(&pa_out_lock);
        pa_write_all(fd, t->p, t->len);
        unlock(&pa_out_lock);
    } else if (fd == 1) {
        write_str(2, "pnacl runtime: PPAPI: a message the plugin posted cannot be sent (too large or too deep)\n");
    }
    pa_release_block(t->p);
}

static void pa_emit(int fd, const char *prefix, const struct PP_Var *v) {
    struct pa_text t = {0};
    text_str(&t, prefix);
    lock(&pa_var_lock);
    struct pa_object *s = !pa_json ? pa_lookup(v, PP_VARTYPE_STRING) : NULL;
    if (s) text_put(&t, s->bytes, s->len);
    else text_json(&t, v, 0);
    unlock(&pa_var_lock);
    pa_send_line(fd, &t);
}

static u32 pa_activity; /* bumped at each event delivered and message posted */

/* PNACL_STDOUT=messages: what the plugin writes to its own standard output is posted, a
   message a line, as if it had called PostMessage with the line (without its newline). For
   plugins whose page never saw their output but whose users want it (stockfish_2017 writes
   its UCI answers to stdout). A line longer than PA_STDOUT_LINE is posted in pieces. */
#define PA_STDOUT_LINE 65536
static int pa_stdout_messages;
static volatile int pa_stdout_lock;
static u8 pa_stdout_line[PA_STDOUT_LINE];
static u32 pa_stdout_len;

/* Posts the `n` bytes at `s` as a string message (as JSON with PNACL_MESSAGES=json, where
   bytes that are not UTF-8 become U+FFFD, as a browser decodes them). */
static void pa_post_bytes(const u8 *s, u32 n) {
    struct pa_text t = {0};
    if (!pa_json) {
        text_put(&t, s, n);
    } else if (pa_utf8(s, n)) {
        text_json_string(&t, s, n);
    } else {
        struct pa_text fixed = {0};
        for (u32 i = 0; i < n;) {
            u8 c = s[i];
            u32 len = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            if (i + len <= n && pa_utf8(s + i, len)) {
                text_put(&fixed, s + i, len);
                i += len;
            } else {
                text_put(&fixed, "\xef\xbf\xbd", 3);
                i++;
            }
        }
        text_json_string(&t, fixed.p, fixed.len);
        if (fixed.failed) t.failed = 1;
        pa_release_block(fixed.p);
    }
    __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
    pa_send_line(1, &t);
}

/* The plugin's write of `count` bytes to its standard output, with PNACL_STDOUT=messages. */
static int ppapi_stdout_write(const void *buf, size_t count, size_t *nwrote) {
    const u8 *p = buf;
    lock(&pa_stdout_lock);
    for (size_t i = 0; i < count; i++) {
        if (p[i] != '\n') pa_stdout_line[pa_stdout_len++] = p[i];
        if (p[i] == '\n' || pa_stdout_len == PA_STDOUT_LINE) {
            pa_post_bytes(pa_stdout_line, pa_stdout_len);
            pa_stdout_len = 0;
        }
    }
    unlock(&pa_stdout_lock);
    *nwrote = count;
    return 0;
}

/* Posts what is left of an unfinished line (at the plugin's end, or when it closes stdout). */
static void ppapi_stdout_flush(void) {
    if (!pa_stdout_messages) return;
    lock(&pa_stdout_lock);
    if (pa_stdout_len) pa_post_bytes(pa_stdout_line, pa_stdout_len);
    pa_stdout_len = 0;
    unlock(&pa_stdout_lock);
}

/* ----------------------------------------------------------------------------------- */
/* The main thread's queue of events                                                    */

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

/* ----------------------------------------------------------------------------------- */
/* PPB_Core, resources                                                                 */

static uptr pa_main_thread;
static i32 pa_instance = 0x1001; /* ids as Chrome gave them: small, distinct */
static i32 pa_module = 0x1000;

enum { RES_VIEW = 1, RES_LOOP, RES_IMAGE, RES_GRAPHICS2D, RES_REQUEST, RES_LOADER, RES_RESPONSE, RES_INPUT,
       RES_GRAPHICS3D, RES_FILESYSTEM, RES_FILEREF, RES_FILEIO, RES_WEBSOCKET, RES_AUDIO_CONFIG, RES_AUDIO };
#define PA_MAX_RESOURCES 4096
/* A resource's id: 0x2000 + its slot + 4096 x the slot's generation, which each new
   resource in the slot takes one further: an id the plugin kept after releasing it names
   nothing, not the slot's next resource. */
#define PA_RESOURCE_BASE 0x2000
#define PA_RESOURCE_GENS (1u << 18)
static struct {
    i32 kind, refs;
    u32 gen;
    void *data; /* the kind's own state (an image, a 2-D device), released with it */
} pa_resources[PA_MAX_RESOURCES];
static void pa_resource_gone(i32 kind, void *data); /* the kinds' destructors */
static void pa_fs_gone(i32 kind, void *data);     /* ppapi_fs.h's */
struct pa_ws;
static void pa_ws_gone(struct pa_ws *w);          /* ppapi_ws.h's */
struct pa_audio;
static void pa_audio_gone(struct pa_audio *a);    /* ppapi_audio.h's */
#ifdef PA_HAVE_GL
static void g3d_gone(void *data);                 /* ppapi_gl.h's */
static int g3d_size(i32 r, i32 *w, i32 *h);
static void g3d_swapped(i32 r);
#endif
static volatile int pa_res_lock;
static i32 pa_view;

static i32 pa_new_resource(i32 kind) {
    lock(&pa_res_lock);
    for (i32 i = 1; i < PA_MAX_RESOURCES; i++) {
        if (!pa_resources[i].refs) {
            pa_resources[i].kind = kind;
            pa_resources[i].refs = 1;
            u32 gen = pa_resources[i].gen;
            unlock(&pa_res_lock);
            return PA_RESOURCE_BASE + (i32)(gen * PA_MAX_RESOURCES) + i;
        }
    }
    unlock(&pa_res_lock);
    return 0;
}

/* The slot of live resource `r` (pa_res_lock held), or 0. */
static i32 pa_slot_locked(i32 r) {
    u32 v = (u32)r - PA_RESOURCE_BASE;
    if (r < PA_RESOURCE_BASE || v >= PA_RESOURCE_GENS * PA_MAX_RESOURCES) return 0;
    i32 i = (i32)(v % PA_MAX_RESOURCES);
    return i && pa_resources[i].refs && pa_resources[i].gen == v / PA_MAX_RESOURCES ? i : 0;
}

static i32 pa_resource_kind(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    i32 k = i ? pa_resources[i].kind : 0;
    unlock(&pa_res_lock);
    return k;
}

static void core_addref_resource(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    if (i && pa_resources[i].refs < 0x7fffffff) pa_resources[i].refs++;
    unlock(&pa_res_lock);
}

static void core_release_resource(i32 r) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    i32 kind = 0;
    void *data = NULL;
    if (i && --pa_resources[i].refs == 0) {
        kind = pa_resources[i].kind;
        data = pa_resources[i].data;
        pa_resources[i].data = NULL;
        pa_resources[i].gen = (pa_resources[i].gen + 1) % PA_RESOURCE_GENS;
    }
    unlock(&pa_res_lock);
    if (data) pa_resource_gone(kind, data);
}

/* Whether `r` is a live resource of `kind` with its state (a moment's answer: to use the
   state, hold it, PA_HOLD below). */
static int pa_resource_live(i32 r, i32 kind) {
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    int live = i && pa_resources[i].kind == kind && pa_resources[i].data;
    unlock(&pa_res_lock);
    return live;
}

/* A hold on a resource: a reference the host takes while it uses the resource's state,
   so that a release meanwhile (on any thread) frees nothing under it; the state goes when
   the last reference does. PA_HOLD(type, name, r, kind) declares `name`, the state of
   `r` if it is a live resource of `kind` (else NULL), held until the end of the
   enclosing block, however the block is left. */
struct pa_hold {
    i32 r;
    void *data;
};

static struct pa_hold pa_hold(i32 r, i32 kind) {
    struct pa_hold h = {r, NULL};
    lock(&pa_res_lock);
    i32 i = pa_slot_locked(r);
    if (i && pa_resources[i].kind == kind && pa_resources[i].data && pa_resources[i].refs < 0x7fffffff) {
        pa_resources[i].refs++;
        h.data = pa_resources[i].data;
    }
    unlock(&pa_res_lock);
    return h;
}

static void pa_drop(struct pa_hold *h) {
    if (h->data) core_release_resource(h->r);
}

#define PA_HOLD(type, name, r, kind)                                                    \
    struct pa_hold pa_hold_##name __attribute__((cleanup(pa_drop))) = pa_hold(r, kind); \
    type *name = pa_hold_##name.data

/* A new resource of `kind` holding `data` (0 if the table is full). */
static i32 pa_new_resource_with(i32 kind, void *data) {
    i32 r = pa_new_resource(kind);
    if (r) {
        lock(&pa_res_lock);
        pa_resources[pa_slot_locked(r)].data = data;
        unlock(&pa_res_lock);
    }
    return r;
}

static double core_get_time(void) { return (double)pa_now_ns(0) / 1e9; }
static double core_get_time_ticks(void) { return (double)pa_now_ns(1) / 1e9; }

static void core_call_on_main_thread(i32 delay_ms, const struct PP_CompletionCallback *cb, i32 result) {
    if (!cb || !cb->func) return;
    struct pa_event *e = pa_new_event(EV_CALLBACK);
    e->cb = *cb;
    e->result = result;
    e->due_ns = pa_now_ns(1) + (delay_ms > 0 ? (i64)delay_ms * 1000000 : 0);
    pa_push(e);
}

static i32 core_is_main_thread(void) { return host_thread_id() == pa_main_thread; }

/* ----------------------------------------------------------------------------------- */
/* PPB_Messaging, PPB_Console, PPB_Instance, PPB_View, PPB_InputEvent, PPB_MessageLoop  */

static void messaging_post(i32 instance, const struct PP_Var *message) {
    if (instance != pa_instance || !message) return;
    __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
    pa_emit(1, "", message);
}

static const char *const pa_levels[] = {"tip", "log", "warning", "error"};

static void console_log(i32 instance, i32 level, const struct PP_Var *value) {
    (void)instance;
    const char *l = level >= 0 && level < 4 ? pa_levels[level] : "log";
    char prefix[32] = "console ";
    copy(prefix + 8, l, slen(l));
    copy(prefix + 8 + slen(l), ": ", 3);
    pa_emit(2, prefix, value);
}

static void pa_console_to_page(i32 level, const struct PP_Var *source, const struct PP_Var *value);

/* In a page the console is the browser's (PA_TO_CONSOLE: level, the source's length, the
   text's, the source, the text; the page prefixes the plugin's name where there is no
   source). */
static void console_log_with_source(i32 instance, i32 level, const struct PP_Var *source, const struct PP_Var *value) {
    if (pa_page && instance == pa_instance) pa_console_to_page(level, source, value);
    else console_log(instance, level, value);
}

static void console_log_page(i32 instance, i32 level, const struct PP_Var *value) {
    console_log_with_source(instance, level, NULL, value);
}

static i32 pa_bound_device;
static void pa_bind_to_page(i32 device);

/* The device shown in the element: a 2-D or 3-D one (headless, none exists), or 0 to
   unbind. */
static i32 instance_bind_graphics(i32 instance, i32 device) {
    if (instance != pa_instance) return 0;
    if (device && pa_resource_kind(device) != RES_GRAPHICS2D && pa_resource_kind(device) != RES_GRAPHICS3D) return 0;
    if (device == pa_bound_device) return 1;
    if (device) core_addref_resource(device);
    i32 old = pa_bound_device;
    pa_bound_device = device;
    if (old) core_release_resource(old);
    pa_bind_to_page(device);
    return 1;
}

static i32 instance_is_full_frame(i32 instance) {
    (void)instance;
    return 0;
}

static i32 view_is_view(i32 r) { return pa_resource_kind(r) == RES_VIEW; }

/* The view's size: 0 x 0 headless, the element's in a page (PNACL_VIEW=WxH, then what
   the page says when it changes: pa_next_view_*, taken by the main thread before it calls
   DidChangeView). */
static i32 pa_view_w, pa_view_h, pa_view_visible = 1;
static volatile int pa_view_lock;
static i32 pa_next_view_w, pa_next_view_h, pa_next_view_visible;
static float pa_next_view_scale;

static i32 view_get_rect(i32 r, struct PP_Rect *out) {
    if (!view_is_view(r) || !out) return 0;
    pa_zero(out, sizeof *out);
    out->w = pa_view_w;
    out->h = pa_view_h;
    return 1;
}

static i32 view_is_fullscreen(i32 r) {
    (void)r;
    return 0;
}

static i32 view_is_visible(i32 r) { return view_is_view(r) && pa_view_visible; }
static float pa_device_scale_of_view = 1;
static float view_get_device_scale(i32 r) { return view_is_view(r) ? pa_device_scale_of_view : 0.0f; }
static float view_get_scale(i32 r) { return view_is_view(r) ? 1.0f : 0.0f; }

static i32 view_get_scroll_offset(i32 r, struct PP_Point *out) {
    if (!view_is_view(r) || !out) return 0;
    pa_zero(out, sizeof *out);
    return 1;
}

/* Input events: the classes the plugin asked for (filtering or not), which the page is
   told (PA_TO_INPUT: classes, filtering ones); each event the page sends (PA_FROM_INPUT)
   is a resource handed to PPP_InputEvent on the main thread. Headless, none comes. */
static u32 pa_input_classes, pa_input_filtering;
static void pa_input_to_page(void);

static i32 input_request_as(i32 instance, u32 classes, int filtering) {
    if (instance != pa_instance) return PP_ERROR_BADARGUMENT;
    __atomic_or_fetch(&pa_input_classes, classes & 63, __ATOMIC_RELAXED);
    if (filtering) __atomic_or_fetch(&pa_input_filtering, classes & 63, __ATOMIC_RELAXED);
    else __atomic_and_fetch(&pa_input_filtering, ~classes, __ATOMIC_RELAXED);
    pa_input_to_page();
    return classes & ~63u ? PP_ERROR_NOTSUPPORTED : PP_OK;
}

static i32 input_request(i32 instance, u32 classes) { return input_request_as(instance, classes, 0); }
static i32 input_request_filtering(i32 instance, u32 classes) { return input_request_as(instance, classes, 1); }

static void input_clear(i32 instance, u32 classes) {
    if (instance != pa_instance) return;
    __atomic_and_fetch(&pa_input_classes, ~classes, __ATOMIC_RELAXED);
    __atomic_and_fetch(&pa_input_filtering, ~classes, __ATOMIC_RELAXED);
    pa_input_to_page();
}

struct PP_FloatPoint { float x, y; };

/* A touch point (PP_TouchPoint, 28 bytes, then its tilt). */
struct PP_TouchPoint {
    u32 id;
    struct PP_FloatPoint position, radius;
    float rotation_angle, pressure;
};
#define PA_MAX_TOUCHES 16
struct pa_touches {
    u32 count[3]; /* TOUCHES, CHANGEDTOUCHES, TARGETTOUCHES */
    struct PP_TouchPoint point[3][PA_MAX_TOUCHES];
    struct PP_FloatPoint tilt[3][PA_MAX_TOUCHES];
};
/* An IME event's segments (byte offsets into its text). */
#define PA_MAX_SEGMENTS 64

struct pa_input {
    i32 type, modifiers, button, click_count, key_code, by_page;
    double time;
    struct PP_Point position, movement;
    struct PP_FloatPoint delta, ticks;
    struct PP_Var text, code; /* the event's own references */
    struct pa_touches *touches; /* touch events' own */
    u32 *segments;              /* IME events': segment_number + 1 offsets */
    u32 nsegments, sel_start, sel_end;
    i32 target_segment;
};

static i32 input_is_event(i32 r) { return pa_resource_kind(r) == RES_INPUT; }

static i32 input_get_type(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? e->type : -1;
}

static double input_get_time_stamp(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? e->time : 0;
}

static u32 input_get_modifiers(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e ? (u32)e->modifiers : 0;
}

/* Types: MOUSEDOWN 0 .. MOUSELEAVE 4, CONTEXTMENU 10 (mouse); WHEEL 5; RAWKEYDOWN 6 ..
   CHAR 9 (keyboard). */
static int pa_is_mouse(i32 t) { return (t >= 0 && t <= 4) || t == 10; }
static int pa_is_key(i32 t) { return t >= 6 && t <= 9; }
static int pa_is_touch(i32 t) { return t >= 15 && t <= 18; }
static int pa_is_ime(i32 t) { return t >= 11 && t <= 14; }

/* An input event's own state released (its vars, touches, segments). */
static void pa_input_free(struct pa_input *e) {
    var_release(&e->text);
    var_release(&e->code);
    pa_release_block(e->touches);
    pa_release_block(e->segments);
    pa_release_block(e);
}

/* A resource for event `src` (whose references it takes), or 0. */
static i32 pa_new_input(struct pa_input *src) {
    struct pa_input *e = pa_alloc(sizeof *e);
    if (!e) {
        var_release(&src->text);
        var_release(&src->code);
        pa_release_block(src->touches);
        pa_release_block(src->segments);
        return 0;
    }
    *e = *src;
    i32 r = pa_new_resource_with(RES_INPUT, e);
    if (!r) pa_input_free(e);
    return r;
}

static i32 mouse_create(i32 instance, i32 type, double time, u32 modifiers, i32 button,
                        const struct PP_Point *position, i32 clicks, const struct PP_Point *movement) {
    if (instance != pa_instance || !pa_is_mouse(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers, e.button = button, e.click_count = clicks;
    if (position) e.position = *position;
    if (movement) e.movement = *movement;
    return pa_new_input(&e);
}

static i32 mouse_create_1_0(i32 instance, i32 type, double time, u32 modifiers, i32 button,
                            const struct PP_Point *position, i32 clicks) {
    return mouse_create(instance, type, time, modifiers, button, position, clicks, NULL);
}

static i32 mouse_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type);
}

static i32 mouse_button(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type) ? e->button : -1;
}

static void mouse_position(struct PP_Point *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && pa_is_mouse(e->type)) *out = e->position;
}

static i32 mouse_clicks(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_mouse(e->type) ? e->click_count : 0;
}

static void mouse_movement(struct PP_Point *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && pa_is_mouse(e->type)) *out = e->movement;
}

static i32 wheel_create(i32 instance, double time, u32 modifiers, const struct PP_FloatPoint *delta,
                        const struct PP_FloatPoint *ticks, i32 by_page) {
    if (instance != pa_instance) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = 5, e.time = time, e.modifiers = (i32)modifiers, e.by_page = by_page != 0;
    if (delta) e.delta = *delta;
    if (ticks) e.ticks = *ticks;
    return pa_new_input(&e);
}

static i32 wheel_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->type == 5;
}

static void wheel_delta(struct PP_FloatPoint *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && e->type == 5) *out = e->delta;
}

static void wheel_ticks(struct PP_FloatPoint *out, i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (e && e->type == 5) *out = e->ticks;
}

static i32 wheel_by_page(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->type == 5 && e->by_page;
}

static i32 key_create(i32 instance, i32 type, double time, u32 modifiers, u32 key_code,
                      const struct PP_Var *text, const struct PP_Var *code) {
    if (instance != pa_instance || !pa_is_key(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers, e.key_code = (i32)key_code;
    if (text && text->type == PP_VARTYPE_STRING) e.text = *text, var_addref(&e.text);
    if (code && code->type == PP_VARTYPE_STRING) e.code = *code, var_addref(&e.code);
    return pa_new_input(&e);
}

static i32 key_create_1_0(i32 instance, i32 type, double time, u32 modifiers, u32 key_code,
                          const struct PP_Var *text) {
    return key_create(instance, type, time, modifiers, key_code, text, NULL);
}

static i32 key_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_key(e->type);
}

static u32 key_code(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_key(e->type) ? (u32)e->key_code : 0;
}

/* A new reference to a string var of the event (UNDEFINED if it has none). */
static void pa_input_var(struct PP_Var *out, i32 r, int code) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    pa_zero(out, sizeof *out);
    if (!e || !(pa_is_key(e->type) || (pa_is_ime(e->type) && !code))) return;
    *out = code ? e->code : e->text;
    var_addref(out);
}

static void key_text(struct PP_Var *out, i32 r) { pa_input_var(out, r, 0); }
static void key_dom_code(struct PP_Var *out, i32 r) { pa_input_var(out, r, 1); }

/* PPB_TouchInputEvent 1.0 and 1.4: points in three lists, at most PA_MAX_TOUCHES each. */
static i32 touch_create(i32 instance, i32 type, double time, u32 modifiers) {
    if (instance != pa_instance || !pa_is_touch(type)) return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.modifiers = (i32)modifiers;
    e.touches = pa_alloc(sizeof *e.touches);
    if (!e.touches) return 0;
    pa_zero(e.touches, sizeof *e.touches);
    return pa_new_input(&e);
}

static struct pa_touches *pa_touches_of(i32 r, i32 list) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->touches && list >= 0 && list < 3 ? e->touches : NULL;
}

static void touch_add_point(i32 r, i32 list, const struct PP_TouchPoint *point) {
    struct pa_touches *t = pa_touches_of(r, list);
    if (!t || !point || t->count[list] >= PA_MAX_TOUCHES) return;
    struct PP_TouchPoint p = *point;
    for (u32 k = 0; k < t->count[list]; k++)
        if (t->point[list][k].id == p.id) return; /* an id once a list, as Chrome kept them */
    t->point[list][t->count[list]++] = p;
}

static i32 touch_is(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && e->touches != NULL;
}

static u32 touch_count(i32 r, i32 list) {
    struct pa_touches *t = pa_touches_of(r, list);
    return t ? t->count[list] : 0;
}

/* The point at `index` of `list` (or with `id`, when by_id), and its tilt; zeros if none. */
static void pa_touch_find(struct PP_TouchPoint *out, struct PP_FloatPoint *tilt, i32 r, i32 list, u32 key, int by_id) {
    struct pa_touches *t = pa_touches_of(r, list);
    if (out) pa_zero(out, sizeof *out);
    if (tilt) pa_zero(tilt, sizeof *tilt);
    if (!t) return;
    for (u32 k = 0; k < t->count[list]; k++) {
        if (by_id ? t->point[list][k].id != key : k != key) continue;
        if (out) *out = t->point[list][k];
        if (tilt) *tilt = t->tilt[list][k];
        return;
    }
}

static void touch_by_index(struct PP_TouchPoint *out, i32 r, i32 list, u32 index) {
    pa_touch_find(out, NULL, r, list, index, 0);
}
static void touch_by_id(struct PP_TouchPoint *out, i32 r, i32 list, u32 id) { pa_touch_find(out, NULL, r, list, id, 1); }
static void touch_tilt_by_index(struct PP_FloatPoint *out, i32 r, i32 list, u32 index) {
    pa_touch_find(NULL, out, r, list, index, 0);
}
static void touch_tilt_by_id(struct PP_FloatPoint *out, i32 r, i32 list, u32 id) {
    pa_touch_find(NULL, out, r, list, id, 1);
}

/* PPB_IMEInputEvent 1.0: composition text, its segments, the target one, the selection
   (byte offsets into the text). */
static i32 ime_create(i32 instance, i32 type, double time, const struct PP_Var *text, u32 nsegments,
                      const u32 *offsets, i32 target, u32 sel_start, u32 sel_end) {
    if (instance != pa_instance || !pa_is_ime(type) || nsegments > PA_MAX_SEGMENTS || (nsegments && !offsets))
        return 0;
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = type, e.time = time, e.target_segment = target, e.sel_start = sel_start, e.sel_end = sel_end;
    if (text && text->type == PP_VARTYPE_STRING) {
        e.text = *text;
        var_addref(&e.text);
    }
    e.segments = pa_alloc(sizeof(u32) * (nsegments + 1));
    if (!e.segments) {
        var_release(&e.text);
        return 0;
    }
    if (nsegments) copy(e.segments, offsets, sizeof(u32) * (nsegments + 1));
    e.nsegments = nsegments;
    return pa_new_input(&e);
}

static struct pa_input *pa_ime_of(i32 r) {
    PA_HOLD(struct pa_input, e, r, RES_INPUT);
    return e && pa_is_ime(e->type) && e->segments ? e : NULL;
}

static i32 ime_is(i32 r) { return pa_ime_of(r) != NULL; }
static void ime_text(struct PP_Var *out, i32 r) {
    pa_zero(out, sizeof *out);
    if (pa_ime_of(r)) pa_input_var(out, r, 0);
}
static u32 ime_segment_number(i32 r) {
    struct pa_input *e = pa_ime_of(r);
    return e ? e->nsegments : 0;
}
static u32 ime_segment_offset(i32 r, u32 index) {
    struct pa_input *e = pa_ime_of(r);
    return e && index <= e->nsegments ? e->segments[index] : 0;
}
static i32 ime_target_segment(i32 r) {
    struct pa_input *e = pa_ime_of(r);
    return e ? e->target_segment : -1;
}
static void ime_selection(i32 r, u32 *start, u32 *end) {
    struct pa_input *e = pa_ime_of(r);
    if (start) *start = e ? e->sel_start : 0;
    if (end) *end = e ? e->sel_end : 0;
}

/* Message loops for the plugin's own threads: a queue each, run by Run. */
struct pa_loop {
    volatile int lock, signal;
    uptr thread;
    int running, quit, destroyed;
    struct pa_event *head, *tail;
};
#define PA_MAX_LOOPS 64
static struct pa_loop pa_loops[PA_MAX_LOOPS];
static i32 pa_loop_resource[PA_MAX_LOOPS];
static i32 pa_main_loop;

static struct pa_loop *pa_loop_of(i32 r) {
    if (pa_resource_kind(r) != RES_LOOP) return NULL;
    for (int i = 0; i < PA_MAX_LOOPS; i++)
        if (pa_loop_resource[i] == r) return &pa_loops[i];
    return NULL;
}

static i32 loop_create(i32 instance) {
    if (instance != pa_instance) return 0;
    i32 r = pa_new_resource(RES_LOOP);
    if (!r) return 0;
    lock(&pa_res_lock);
    for (int i = 0; i < PA_MAX_LOOPS; i++) {
        if (!pa_loop_resource[i]) {
            pa_loop_resource[i] = r;
            pa_zero(&pa_loops[i], sizeof pa_loops[i]);
            unlock(&pa_res_lock);
            return r;
        }
    }
    unlock(&pa_res_lock);
    core_release_resource(r);
    return 0;
}

static i32 loop_get_for_main_thread(void) { return pa_main_loop; }

static i32 loop_get_current(void) {
    uptr me = host_thread_id();
    if (me == pa_main_thread) return pa_main_loop;
    for (int i = 0; i < PA_MAX_LOOPS; i++)
        if (pa_loop_resource[i] && pa_loops[i].thread == me) return pa_loop_resource[i];
    return 0;
}

static i32 loop_attach(i32 r) {
    if (r == pa_main_loop) return PP_ERROR_INPROGRESS;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (loop_get_current()) return PP_ERROR_INPROGRESS;
    if (l->thread) return PP_ERROR_INPROGRESS;
    l->thread = host_thread_id();
    return PP_OK;
}

/* Queues event `e` (due at e->due_ns) on loop `l`. */
static void pa_loop_push(struct pa_loop *l, struct pa_event *e) {
    e->next = NULL;
    lock(&l->lock);
    if (l->tail) l->tail->next = e;
    else l->head = e;
    l->tail = e;
    l->signal++;
    unlock(&l->lock);
    int n;
    irt_futex_wake(&l->signal, 1, &n);
}

static i32 loop_run(i32 r) {
    if (r == pa_main_loop) return PP_ERROR_INPROGRESS;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    if (l->thread != host_thread_id()) return PP_ERROR_WRONG_THREAD;
    if (l->running) return PP_ERROR_INPROGRESS;
    l->running = 1;
    for (;;) {
        lock(&l->lock);
        i64 now = pa_now_ns(1), wait = -1;
        struct pa_event *e = NULL, *prev = NULL;
        for (struct pa_event *x = l->head, *px = NULL; x; px = x, x = x->next) {
            if (x->due_ns <= now) {
                e = x;
                prev = px;
                break;
            }
            if (wait < 0 || x->due_ns - now < wait) wait = x->due_ns - now;
        }
        if (e) {
            if (prev) prev->next = e->next;
            else l->head = e->next;
            if (l->tail == e) l->tail = prev;
        }
        int quit = l->quit && !e;
        int seen = l->signal;
        unlock(&l->lock);
        if (e) {
            __atomic_add_fetch(&pa_activity, 1, __ATOMIC_RELAXED);
            if (e->kind == EV_MESSAGE) {
                /* The handler gets a pointer to the var; the host's reference ends after.
                   A message queued for a handler since unregistered reaches nobody. */
                lock(&pa_handler_lock);
                int current = e->handler_gen == pa_handler_gen;
                unlock(&pa_handler_lock);
                struct PP_Var m = e->message;
                if (current) e->handler.handle_message(pa_instance, e->handler_data, &m);
                var_release(&e->message);
            } else if (e->kind == EV_HANDLER_DESTROY) {
                e->handler.destroy(pa_instance, e->handler_data);
            } else {
                e->cb.func(e->cb.user_data, e->result);
            }
            pa_release_block(e);
            continue;
        }
        if (quit) break;
        struct nacl_timespec abs, *at = NULL;
        if (wait >= 0) {
            i64 t = pa_now_ns(0) + wait;
            abs.tv_sec = t / 1000000000;
            abs.tv_nsec = (i32)(t % 1000000000);
            at = &abs;
        }
        irt_futex_wait_abs(&l->signal, seen, at);
    }
    l->running = 0;
    l->quit = 0;
    if (l->destroyed) l->thread = 0;
    return PP_OK;
}

/* Runs `cb` with `result` on loop `loop` (the main thread's when it is 0), after
   `delay_ms` (at most 2^31 - 1 ms). */
static void pa_complete_on(i32 loop, struct PP_CompletionCallback cb, i32 result, i64 delay_ms) {
    if (!cb.func) return;
    if (delay_ms < 0) delay_ms = 0;
    if (delay_ms > 0x7fffffff) delay_ms = 0x7fffffff;
    if (!loop || loop == pa_main_loop) {
        core_call_on_main_thread((i32)delay_ms, &cb, result);
        return;
    }
    struct pa_loop *l = pa_loop_of(loop);
    if (!l) return;
    struct pa_event *e = pa_new_event(EV_CALLBACK);
    e->cb = cb;
    e->result = result;
    e->due_ns = pa_now_ns(1) + delay_ms * 1000000;
    pa_loop_push(l, e);
}

/* A call that waits for the page (a frame shown, a socket's answer): its callback on the
   caller's loop, or the caller blocked (off the main thread) until it ends. The one way
   such a call waits. */
struct pa_wait { volatile int done; i32 result; };
struct pa_pending {
    int active;
    struct PP_CompletionCallback cb;
    i32 loop;
    struct pa_wait *wait;
};

/* Starts `p` (under its owner's lock): the callback kept, or `w` to block on. */
static void pa_pending_start(struct pa_pending *p, const struct PP_CompletionCallback *cbp, struct pa_wait *w) {
    p->active = 1;
    p->cb = cbp ? *cbp : (struct PP_CompletionCallback){0, 0, 0};
    p->loop = loop_get_current();
    p->wait = p->cb.func ? NULL : w;
    if (w) w->done = 0;
}

/* Ends `p` with `result` (under its owner's lock): a blocked caller wakes at once, a
   callback runs after `delay_ms`. */
static void pa_pending_end(struct pa_pending *p, i32 result, i64 delay_ms) {
    if (!p->active) return;
    p->active = 0;
    if (p->wait) {
        p->wait->result = result;
        __atomic_store_n(&p->wait->done, 1, __ATOMIC_RELEASE);
        int n;
        irt_futex_wake(&p->wait->done, 1, &n);
        p->wait = NULL;
    } else {
        pa_complete_on(p->loop, p->cb, result, delay_ms);
    }
}

/* What a call returns: pending, or (blocking) the result once it comes. */
static i32 pa_pending_return(const struct PP_CompletionCallback *cbp, struct pa_wait *w) {
    if (cbp && cbp->func) return PP_OK_COMPLETIONPENDING;
    while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) irt_futex_wait_abs(&w->done, 0, NULL);
    return w->result;
}

/* Whether a call with `cbp` may go on: not a blocking call on the main thread. */
static int pa_may_block(const struct PP_CompletionCallback *cbp) {
    return (cbp && cbp->func) || !core_is_main_thread();
}

static i32 loop_post_work(i32 r, const struct PP_CompletionCallback *cb, i64 delay_ms) {
    if (!cb || !cb->func) return PP_ERROR_BADARGUMENT;
    if (r != pa_main_loop) {
        struct pa_loop *l = pa_loop_of(r);
        if (!l) return PP_ERROR_BADRESOURCE;
        if (l->destroyed) return PP_ERROR_FAILED;
    }
    pa_complete_on(r, *cb, PP_OK, delay_ms);
    return PP_OK;
}

static i32 loop_post_quit(i32 r, i32 should_destroy) {
    if (r == pa_main_loop) return PP_ERROR_WRONG_THREAD;
    struct pa_loop *l = pa_loop_of(r);
    if (!l) return PP_ERROR_BADRESOURCE;
    lock(&l->lock);
    l->quit = 1;
    if (should_destroy) l->destroyed = 1;
    l->signal++;
    unlock(&l->lock);
    int n;
    irt_futex_wake(&l->signal, 1, &n);
    return PP_OK;
}

/* ----------------------------------------------------------------------------------- */
/* The page: its channel, and 2-D graphics (PPB_ImageData, PPB_Graphics2D)              */

/* In a page (PNACL_PAGE=1, set by pnacl.js) the host has a channel to the page besides
   the messages: the backend's host_channel_write/host_channel_read (fd 3 of the
   WebAssembly host). Records both ways are little-endian words: the record's length in
   bytes, its kind, then its own words. To the page: PA_TO_BIND (device, width, height,
   scale as float bits; device 0 unbinds), PA_TO_FLUSH (device, pixel address, width,
   height, stride, format). From the page: PA_FROM_FLUSHED (device): the frame it asked for
   is on screen; PA_FROM_VIEW (width, height, device scale as float bits, visible): the
   element's new view. */
enum { PA_TO_BIND = 1, PA_TO_FLUSH = 2, PA_TO_URL_OPEN = 3, PA_TO_URL_CLOSE = 4, PA_TO_INPUT = 5,
       PA_TO_CONSOLE = 6, PA_TO_WS_OPEN = 7, PA_TO_WS_SEND = 8, PA_TO_WS_CLOSE = 9, PA_TO_AUDIO_START = 10,
       PA_TO_AUDIO_STOP = 11 };
enum { PA_FROM_FLUSHED = 1, PA_FROM_VIEW = 2, PA_FROM_URL_HEADERS = 3, PA_FROM_URL_DATA = 4,
       PA_FROM_URL_END = 5, PA_FROM_URL_ERROR = 6, PA_FROM_INPUT = 7, PA_FROM_WS_OPEN = 8,
       PA_FROM_WS_MESSAGE = 9, PA_FROM_WS_CLOSED = 10, PA_FROM_WS_ERROR = 11 };

static volatile int pa_channel_lock;

/* Sends record `rec` (`n` bytes, its length first) to the page, whole. */
static void pa_to_page(const void *rec, u32 n) {
    if (!pa_page) return;
    lock(&pa_channel_lock);
    host_channel_write(rec, n);
    unlock(&pa_channel_lock);
}

#define PP_IMAGEDATAFORMAT_BGRA_PREMUL 0
#define PP_IMAGEDATAFORMAT_RGBA_PREMUL 1
#define PA_MAX_SIDE 16384

struct PP_Size { i32 width, height; };
struct PP_ImageDataDesc { i32 format; struct PP_Size size; i32 stride; };

struct pa_image {
    i32 format, w, h, stride;
    u8 *pixels;
};

static i32 image_native_format(void) { return PP_IMAGEDATAFORMAT_BGRA_PREMUL; }
static i32 image_format_supported(i32 f) {
    return f == PP_IMAGEDATAFORMAT_BGRA_PREMUL || f == PP_IMAGEDATAFORMAT_RGBA_PREMUL;
}

/* Whether `w` x `h` pixels can be had (each side 1..16384, the bytes within the bound). */
static int pa_size_ok(i32 w, i32 h) {
    return w > 0 && h > 0 && w <= PA_MAX_SIDE && h <= PA_MAX_SIDE && (u64)w * (u64)h * 4 < PA_MAX_BYTES;
}

static i32 image_create(i32 instance, i32 format, const struct PP_Size *size, i32 init_to_zero) {
    (void)init_to_zero; /* the host's memory is always given zeroed */
    if (instance != pa_instance || !size || !image_format_supported(format)) return 0;
    struct PP_Size sz = *size;
    if (!pa_size_ok(sz.width, sz.height)) return 0;
    struct pa_image *im = pa_alloc(sizeof *im);
    u8 *px = pa_alloc((size_t)sz.width * (size_t)sz.height * 4);
    if (!im || !px) {
        pa_release_block(im);
        pa_release_block(px);
        return 0;
    }
    pa_zero(px, (size_t)sz.width * (size_t)sz.height * 4);
    im->format = format;
    im->w = sz.width;
    im->h = sz.height;
    im->stride = sz.width * 4;
    im->pixels = px;
    i32 r = pa_new_resource_with(RES_IMAGE, im);
    if (!r) {
        pa_release_block(px);
        pa_release_block(im);
    }
    return r;
}

static i32 image_is(i32 r) { return pa_resource_kind(r) == RES_IMAGE; }

static i32 image_describe(i32 r, struct PP_ImageDataDesc *out) {
    PA_HOLD(struct pa_image, im, r, RES_IMAGE);
    if (!out) return 0;
    pa_zero(out, sizeof *out);
    if (!im) return 0;
    out->format = im->format;
    out->size.width = im->w;
    out->size.height = im->h;
    out->stride = im->stride;
    return 1;
}

static void *image_map(i32 r) {
    PA_HOLD(struct pa_image, im, r, RES_IMAGE);
    return im ? im->pixels : NULL;
}

static void image_unmap(i32 r) { (void)r; }

/* A 2-D device: its backing store (BGRA, premultiplied), the operations queued since the
   last Flush, and the Flush the page has not shown yet. */
enum { G2D_PAINT, G2D_REPLACE, G2D_SCROLL };
#define G2D_MAX_OPS 64

struct pa_g2d_op {
    i32 kind, image;
    struct PP_Point at;
    struct PP_Rect rect; /* PAINT: the source rectangle; SCROLL: the clip */
};

struct pa_g2d {
    i32 w, h, opaque, resource;
    float scale;
    u8 *store;
    struct pa_g2d_op ops[G2D_MAX_OPS];
    i32 nops;
    struct pa_pending flush;   /* a Flush on its way to the screen */
};

static volatile int pa_g2d_lock;

static i32 g2d_create(i32 instance, const struct PP_Size *size, i32 opaque) {
    if (!(pa_page || pa_headless_2d) || instance != pa_instance || !size) return 0;
    struct PP_Size sz = *size;
    if (!pa_size_ok(sz.width, sz.height)) return 0;
    struct pa_g2d *g = pa_alloc(sizeof *g);
    u8 *store = pa_alloc((size_t)sz.width * (size_t)sz.height * 4);
    if (!g || !store) {
        pa_release_block(g);
        pa_release_block(store);
        return 0;
    }
    pa_zero(g, sizeof *g);
    pa_zero(store, (size_t)sz.width * (size_t)sz.height * 4);
    g->w = sz.width;
    g->h = sz.height;
    g->opaque = opaque != 0;
    g->scale = 1;
    g->store = store;
    i32 r = pa_new_resource_with(RES_GRAPHICS2D, g);
    if (!r) {
        pa_release_block(store);
        pa_release_block(g);
        return 0;
    }
    g->resource = r;
    return r;
}

static i32 g2d_is(i32 r) { return pa_resource_kind(r) == RES_GRAPHICS2D; }

static i32 g2d_describe(i32 r, struct PP_Size *size, i32 *opaque) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (size) pa_zero(size, sizeof *size);
    if (opaque) *opaque = 0;
    if (!g) return 0;
    if (size) size->width = g->w, size->height = g->h;
    if (opaque) *opaque = g->opaque;
    return 1;
}

/* Queues operation `op` on device `r` (dropped if the device is not one, or its queue is
   full: a plugin that paints 64 times between two flushes loses the oldest frames' work
   only in order). The image is held until the Flush. */
static void g2d_queue(i32 r, struct pa_g2d_op op) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g || (op.kind != G2D_SCROLL && !image_is(op.image))) return;
    lock(&pa_g2d_lock);
    if (g->nops < G2D_MAX_OPS) {
        if (op.kind != G2D_SCROLL) core_addref_resource(op.image);
        g->ops[g->nops++] = op;
    }
    unlock(&pa_g2d_lock);
}

static void g2d_paint(i32 r, i32 image, const struct PP_Point *top_left, const struct PP_Rect *src) {
    struct pa_g2d_op op = {G2D_PAINT, image, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    if (top_left) op.at = *top_left;
    if (src) op.rect = *src;
    g2d_queue(r, op);
}

static void g2d_scroll(i32 r, const struct PP_Rect *clip, const struct PP_Point *amount) {
    struct pa_g2d_op op = {G2D_SCROLL, 0, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    if (amount) op.at = *amount;
    if (clip) op.rect = *clip;
    g2d_queue(r, op);
}

static void g2d_replace(i32 r, i32 image) {
    struct pa_g2d_op op = {G2D_REPLACE, image, {0, 0}, {0, 0, PA_MAX_SIDE, PA_MAX_SIDE}};
    g2d_queue(r, op);
}

/* Clips rectangle `r` to 0..w x 0..h (empty: w or h 0). */
static struct PP_Rect pa_clip(struct PP_Rect r, i32 w, i32 h) {
    i64 x0 = r.x, y0 = r.y, x1 = (i64)r.x + (r.w > 0 ? r.w : 0), y1 = (i64)r.y + (r.h > 0 ? r.h : 0);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    struct PP_Rect c = {(i32)x0, (i32)y0, x1 > x0 ? (i32)(x1 - x0) : 0, y1 > y0 ? (i32)(y1 - y0) : 0};
    return c;
}

/* Copies the `src` rectangle of image `im` to the device's store at `at` + src's corner,
   as BGRA. */
static void g2d_blit(struct pa_g2d *g, struct pa_image *im, struct PP_Point at, struct PP_Rect src) {
    src = pa_clip(src, im->w, im->h);
    /* Where it lands, clipped to the store, and back. */
    struct PP_Rect dst = {(i32)((i64)at.x + src.x), (i32)((i64)at.y + src.y), src.w, src.h};
    i64 dx = (i64)at.x + src.x, dy = (i64)at.y + src.y;
    if (dx < -PA_MAX_SIDE || dx > PA_MAX_SIDE || dy < -PA_MAX_SIDE || dy > PA_MAX_SIDE) return;
    struct PP_Rect d = pa_clip(dst, g->w, g->h);
    if (!d.w || !d.h) return;
    i32 sx = src.x + (d.x - dst.x), sy = src.y + (d.y - dst.y);
    int swap = im->format == PP_IMAGEDATAFORMAT_RGBA_PREMUL;
    for (i32 y = 0; y < d.h; y++) {
        const u8 *s = im->pixels + (size_t)(sy + y) * (size_t)im->stride + (size_t)sx * 4;
        u8 *o = g->store + ((size_t)(d.y + y) * (size_t)g->w + (size_t)d.x) * 4;
        if (!swap) {
            copy(o, s, (size_t)d.w * 4);
        } else {
            for (i32 x = 0; x < d.w; x++) {
                o[4 * x] = s[4 * x + 2];
                o[4 * x + 1] = s[4 * x + 1];
                o[4 * x + 2] = s[4 * x];
                o[4 * x + 3] = s[4 * x + 3];
            }
        }
    }
}

static void g2d_scroll_store(struct pa_g2d *g, struct PP_Rect clip, struct PP_Point by) {
    struct PP_Rect c = pa_clip(clip, g->w, g->h);
    if (!c.w || !c.h || by.x <= -c.w || by.x >= c.w || by.y <= -c.h || by.y >= c.h) return;
    i32 w = c.w - (by.x > 0 ? by.x : -by.x), h = c.h - (by.y > 0 ? by.y : -by.y);
    i32 sx = c.x + (by.x < 0 ? -by.x : 0), sy = c.y + (by.y < 0 ? -by.y : 0);
    i32 tx = c.x + (by.x > 0 ? by.x : 0), ty = c.y + (by.y > 0 ? by.y : 0);
    size_t row = (size_t)g->w * 4;
    if (ty > sy) {
        for (i32 y = h; y-- > 0;)
            __builtin_memmove(g->store + (size_t)(ty + y) * row + (size_t)tx * 4,
                              g->store + (size_t)(sy + y) * row + (size_t)sx * 4, (size_t)w * 4);
    } else {
        for (i32 y = 0; y < h; y++)
            __builtin_memmove(g->store + (size_t)(ty + y) * row + (size_t)tx * 4,
                              g->store + (size_t)(sy + y) * row + (size_t)sx * 4, (size_t)w * 4);
    }
}

static i32 g2d_flush(i32 r, const struct PP_CompletionCallback *cbp) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g) return PP_ERROR_BADRESOURCE;
    if (!pa_may_block(cbp)) return PP_ERROR_BLOCKS_MAIN_THREAD;
    lock(&pa_g2d_lock);
    if (g->flush.active) {
        unlock(&pa_g2d_lock);
        return PP_ERROR_INPROGRESS;
    }
    for (i32 k = 0; k < g->nops; k++) {
        struct pa_g2d_op op = g->ops[k];
        if (op.kind == G2D_SCROLL) {
            g2d_scroll_store(g, op.rect, op.at);
            continue;
        }
        PA_HOLD(struct pa_image, im, op.image, RES_IMAGE);
        if (im && (op.kind == G2D_PAINT || (im->w == g->w && im->h == g->h)))
            g2d_blit(g, im, op.at, op.kind == G2D_PAINT ? op.rect : (struct PP_Rect){0, 0, im->w, im->h});
        core_release_resource(op.image);
    }
    g->nops = 0;
    struct pa_wait wait;
    pa_pending_start(&g->flush, cbp, &wait);
    int shown = pa_page && pa_bound_device == r;
    /* Not on screen: done at the display's rate all the same. */
    if (!shown) pa_pending_end(&g->flush, PP_OK, 16);
    unlock(&pa_g2d_lock);
    if (shown) {
        u32 rec[8] = {32, PA_TO_FLUSH, (u32)r, (u32)(uptr)g->store, (u32)g->w, (u32)g->h, (u32)g->w * 4,
                      PP_IMAGEDATAFORMAT_BGRA_PREMUL};
        pa_to_page(rec, sizeof rec);
    }
    return pa_pending_return(cbp, &wait);
}

/* The page has shown device `r`'s frame. */
static void g2d_flushed(i32 r) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g) return;
    lock(&pa_g2d_lock);
    pa_pending_end(&g->flush, PP_OK, 0);
    unlock(&pa_g2d_lock);
}

static i32 g2d_set_scale(i32 r, float scale) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    if (!g || !(scale > 0) || scale > 1000) return 0;
    g->scale = scale;
    return 1;
}

static float g2d_get_scale(i32 r) {
    PA_HOLD(struct pa_g2d, g, r, RES_GRAPHICS2D);
    return g ? g->scale : 0.0f;
}

/* Tells the page which device shows in the element (its size, scale, and whether it is
   3-D: its frames then come as images from the worker that draws them). */
static void pa_bind_to_page(i32 device) {
    PA_HOLD(struct pa_g2d, g, device, RES_GRAPHICS2D); /* (device 0: none) */
    float scale = g ? g->scale : 1;
    u32 bits;
    __builtin_memcpy(&bits, &scale, 4);
    i32 w = g ? g->w : 0, h = g ? g->h : 0, is3d = 0;
#ifdef PA_HAVE_GL
    if (device && !g) is3d = g3d_size(device, &w, &h);
#endif
    u32 rec[7] = {28, PA_TO_BIND, (u32)device, (u32)w, (u32)h, bits, (u32)is3d};
    pa_to_page(rec, sizeof rec);
}


static void pa_console_to_page(i32 level, const struct PP_Var *source, const struct PP_Var *value) {
    struct pa_text t = {0};
    u32 head[5] = {0, PA_TO_CONSOLE, (u32)(level >= 0 && level < 4 ? level : 1), 0, 0};
    text_put(&t, head, sizeof head);
    lock(&pa_var_lock);
    struct pa_object *src = source ? pa_lookup(source, PP_VARTYPE_STRING) : NULL;
    u32 ns = src && src->len < 256 ? src->len : 0;
    if (ns) text_put(&t, src->bytes, ns);
    struct pa_object *str = value ? pa_lookup(value, PP_VARTYPE_STRING) : NULL;
    if (str) text_put(&t, str->bytes, str->len < 65536 ? str->len : 65536);
    else if (value) text_json(&t, value, 0);
    unlock(&pa_var_lock);
    u32 text = t.len - 20 - ns;
    while (t.len % 4) text_put(&t, "", 1); /* whole words, as every record */
    if (!t.failed && t.len <= (1u << 20)) {
        u32 len = t.len;
        copy(t.p, &len, 4);
        copy(t.p + 12, &ns, 4);
        copy(t.p + 16, &text, 4);
        pa_to_page(t.p, len);
    }
    pa_release_block(t.p);
}

/* ----------------------------------------------------------------------------------- */
/* URL loading (PPB_URLRequestInfo, PPB_URLLoader, PPB_URLResponseInfo), page only     */

/* A request, as the plugin sets it; a loader sends it to the page (PA_TO_URL_OPEN: the
   loader, flags, then the URL, method, headers and body, each a length and its bytes),
   which fetches it relative to the page and answers with PA_FROM_URL_HEADERS (loader,
   status, lengths of the URL, status line and headers, then their bytes), DATA (loader,
   bytes), END and ERROR (loader, a PP_ERROR). */
#define PA_MAX_URL 8192
#define PA_MAX_BODY (16u << 20)

struct pa_text_field { u8 *p; u32 n; };

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

static void pa_put_word(u8 *p, u32 v) { copy(p, &v, 4); }

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
    u32 size = 4 * 4 + 16 + q->url.n + q->method.n + q->headers.n + q->body.n;
    size = (size + 3) & ~3u;
    u8 *rec = pa_alloc(size);
    if (!rec) {
        unlock(&pa_url_lock);
        return PP_ERROR_FAILED;
    }
    pa_zero(rec, size);
    pa_put_word(rec, size);
    pa_put_word(rec + 4, PA_TO_URL_OPEN);
    pa_put_word(rec + 8, (u32)r);
    pa_put_word(rec + 12, flags);
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
        if (!cb.func || (cb.flags & PP_COMPLETIONCALLBACK_FLAG_OPTIONAL)) return result;
        pa_complete_on(loop_get_current(), cb, result, 0);
        return PP_OK_COMPLETIONPENDING;
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

static u32 pa_word(const u8 *p) {
    u32 v;
    copy(&v, p, 4);
    return v;
}

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

/* An input event from the page: type, modifiers, button, clicks, x, y, movement x, y,
   delta x, y, ticks x, y (floats), by page, key code, time (a double, two words), then
   the lengths of the character text and the DOM code, and their bytes. */
static void pa_input_from_page(const u8 *b, u32 n) {
    u32 w[18];
    copy(w, b, 64);
    struct pa_input e;
    pa_zero(&e, sizeof e);
    e.type = (i32)w[0], e.modifiers = (i32)w[1], e.button = (i32)w[2], e.click_count = (i32)w[3];
    e.position.x = (i32)w[4], e.position.y = (i32)w[5], e.movement.x = (i32)w[6], e.movement.y = (i32)w[7];
    copy(&e.delta.x, &w[8], 4), copy(&e.delta.y, &w[9], 4), copy(&e.ticks.x, &w[10], 4), copy(&e.ticks.y, &w[11], 4);
    e.by_page = w[12] != 0, e.key_code = (i32)w[13];
    copy(&e.time, &w[14], 8);
    u32 class = pa_is_mouse(e.type) ? 1 : pa_is_key(e.type) ? 2 : e.type == 5 ? 4 : pa_is_touch(e.type) ? 8
              : pa_is_ime(e.type) ? 16 : 0;
    if (!class || !(__atomic_load_n(&pa_input_classes, __ATOMIC_RELAXED) & class)) return;
    u32 at = 72;
    if (n >= 72) {
        u32 nt, nc;
        copy(&nt, b + 64, 4), copy(&nc, b + 68, 4);
        if ((u64)72 + nt + nc <= n && nt <= 1024 && nc <= 64) {
            if (nt && pa_utf8(b + 72, nt)) var_from_utf8(&e.text, (const char *)b + 72, nt);
            if (nc && pa_utf8(b + 72 + nt, nc)) var_from_utf8(&e.code, (const char *)b + 72 + nt, nc);
            at = 72 + nt + nc;
        } else {
            at = n;
        }
    }
    if (class == 8 && (e.touches = pa_alloc(sizeof *e.touches))) {
        /* Then: the three lists' counts, and each point: id, x, y, radius x, y, angle,
           pressure, tilt x, y (floats but the id). */
        pa_zero(e.touches, sizeof *e.touches);
        u32 c[3] = {0, 0, 0};
        if ((u64)at + 12 <= n) copy(c, b + at, 12);
        at += 12;
        for (int l = 0; l < 3; l++) {
            for (u32 k = 0; k < c[l] && (u64)at + 36 <= n; k++, at += 36) {
                if (e.touches->count[l] >= PA_MAX_TOUCHES) continue;
                struct PP_TouchPoint p;
                struct PP_FloatPoint tilt;
                copy(&p.id, b + at, 4), copy(&p.position, b + at + 4, 8), copy(&p.radius, b + at + 12, 8);
                copy(&p.rotation_angle, b + at + 20, 4), copy(&p.pressure, b + at + 24, 4), copy(&tilt, b + at + 28, 8);
                e.touches->tilt[l][e.touches->count[l]] = tilt;
                e.touches->point[l][e.touches->count[l]++] = p;
            }
        }
    }
    if (class == 16 && (e.segments = pa_alloc(sizeof(u32) * 2))) {
        /* The composition as one segment, the whole text, its caret at the end; its
           selection from the page (words 1 and 2 of the mouse's place). */
        u32 len = 0;
        if (e.text.type == PP_VARTYPE_STRING) var_to_utf8(&e.text, &len);
        e.segments[0] = 0, e.segments[1] = len;
        e.nsegments = len ? 1 : 0;
        e.target_segment = len ? 0 : -1;
        e.sel_start = (u32)e.position.x <= len ? (u32)e.position.x : len;
        e.sel_end = (u32)e.position.y <= len ? (u32)e.position.y : len;
        pa_zero(&e.position, sizeof e.position);
    }
    if ((class == 8 && !e.touches) || (class == 16 && !e.segments)) {
        var_release(&e.text);
        var_release(&e.code);
        return;
    }
    i32 r = pa_new_input(&e);
    if (!r) return;
    struct pa_event *ev = pa_new_event(EV_INPUT);
    ev->result = r;
    pa_push(ev);
}

#include "ppapi_ws.h"
#include "ppapi_audio.h"

/* Tells the page which classes of events to send (and which the plugin filters). */
static void pa_input_to_page(void) {
    u32 rec[4] = {16, PA_TO_INPUT, __atomic_load_n(&pa_input_classes, __ATOMIC_RELAXED),
                  __atomic_load_n(&pa_input_filtering, __ATOMIC_RELAXED)};
    pa_to_page(rec, sizeof rec);
}

/* A resource is gone: its state goes with it (a device's pending Flush never completes;
   a frame the page is still copying may show what the memory holds next). */
static void pa_resource_gone(i32 kind, void *data) {
    if (kind == RES_IMAGE) {
        struct pa_image *im = data;
        pa_release_block(im->pixels);
        pa_release_block(im);
    } else if (kind == RES_INPUT) {
        pa_input_free(data);
    } else if (kind == RES_REQUEST) {
        struct pa_request *q = data;
        pa_field_free(&q->url), pa_field_free(&q->method), pa_field_free(&q->headers), pa_field_free(&q->body);
        pa_release_block(q);
    } else if (kind == RES_RESPONSE) {
        struct pa_response *p = data;
        pa_field_free(&p->url), pa_field_free(&p->status_line), pa_field_free(&p->headers);
        pa_release_block(p);
    } else if (kind == RES_LOADER) {
        /* Its memory stays (a small struct): the page's records may still name it, and a
           blocked caller may still read it. Its body and response go. */
        struct pa_loader *l = data;
        lock(&pa_url_lock);
        pa_loader_close_locked(l);
        i32 resp = l->response;
        l->response = 0;
        pa_loader_complete_unlock(l, PP_ERROR_ABORTED);
        if (resp) core_release_resource(resp);
#ifdef PA_HAVE_GL
    } else if (kind == RES_GRAPHICS3D) {
        g3d_gone(data);
#endif
    } else if (kind == RES_FILESYSTEM || kind == RES_FILEREF || kind == RES_FILEIO) {
        pa_fs_gone(kind, data);
    } else if (kind == RES_WEBSOCKET) {
        pa_ws_gone(data);
    } else if (kind == RES_AUDIO_CONFIG) {
        pa_release_block(data);
    } else if (kind == RES_AUDIO) {
        pa_audio_gone(data);
    } else if (kind == RES_GRAPHICS2D) {
        struct pa_g2d *g = data;
        lock(&pa_g2d_lock);
        for (i32 k = 0; k < g->nops; k++)
            if (g->ops[k].kind != G2D_SCROLL) core_release_resource(g->ops[k].image);
        g->nops = 0;
        unlock(&pa_g2d_lock);
        pa_release_block(g->store);
        pa_release_block(g);
    }
}

/* The page's side of the channel, read by a thread of the host's own. */
static void pa_page_reader(void) {
    /* Records of up to 1 MiB (the page sends a body in pieces of 256 KiB). */
    u32 *body = pa_alloc(1u << 20);
    if (!body) pa_fail("out of memory for the page's channel");
    for (;;) {
        u32 head[2];
        if (host_channel_read(head, 8) != 8 || head[0] < 8 || head[0] > (1u << 20) + 8) break;
        u32 n = head[0] - 8;
        if (n && host_channel_read(body, n) != (i32)n) break;
        if (head[1] >= PA_FROM_URL_HEADERS && head[1] <= PA_FROM_URL_ERROR) pa_url_from_page(head[1], (const u8 *)body, n);
        if (head[1] == PA_FROM_FLUSHED && n >= 4) {
            g2d_flushed((i32)body[0]);
#ifdef PA_HAVE_GL
            g3d_swapped((i32)body[0]);
#endif
        }
        if (head[1] == PA_FROM_INPUT && n >= 64) pa_input_from_page((const u8 *)body, n);
        if (head[1] >= PA_FROM_WS_OPEN && head[1] <= PA_FROM_WS_ERROR) pa_ws_from_page(head[1], (const u8 *)body, n);
        if (head[1] == PA_FROM_VIEW && n >= 16) {
            /* The view the plugin gets next (DidChangeView, on its main thread). */
            float scale;
            __builtin_memcpy(&scale, &body[2], 4);
            lock(&pa_view_lock);
            pa_next_view_w = body[0] < 32768 ? (i32)body[0] : 32767;
            pa_next_view_h = body[1] < 32768 ? (i32)body[1] : 32767;
            pa_next_view_scale = scale >= 0.25f && scale <= 16 ? scale : 1;
            pa_next_view_visible = body[3] != 0;
            unlock(&pa_view_lock);
            pa_push(pa_new_event(EV_VIEW));
        }
    }
    irt_thread_exit(NULL);
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

/* ----------------------------------------------------------------------------------- */
/* The interface tables and their lookup (ppapi.md §1.7, §4)                            */

#include "ppapi_fs.h"
#ifdef PA_HAVE_GL
#include "ppapi_gl.h"
#endif

static const pa_fn ppb_core[] = {PF(core_addref_resource), PF(core_release_resource), PF(core_get_time),
                                 PF(core_get_time_ticks), PF(core_call_on_main_thread), PF(core_is_main_thread)};
static const pa_fn ppb_var_1_0[] = {PF(var_addref), PF(var_release), PF(var_from_utf8_1_0), PF(var_to_utf8)};
static const pa_fn ppb_var_1_2[] = {PF(var_addref),  PF(var_release),     PF(var_from_utf8),
                                    PF(var_to_utf8), PF(var_to_resource), PF(var_from_resource)};
static const pa_fn ppb_buffer[] = {PF(buffer_create), PF(buffer_byte_length), PF(buffer_map), PF(buffer_unmap)};
static const pa_fn ppb_array[] = {PF(array_create), PF(array_get), PF(array_set), PF(array_get_length),
                                  PF(array_set_length)};
static const pa_fn ppb_dict[] = {PF(dict_create),  PF(dict_get),     PF(dict_set),
                                 PF(dict_delete), PF(dict_has_key), PF(dict_get_keys)};
static const pa_fn ppb_messaging[] = {PF(messaging_post), PF(messaging_register_handler),
                                      PF(messaging_unregister_handler)};
static const pa_fn ppb_console[] = {PF(console_log_page), PF(console_log_with_source)};
static const pa_fn ppb_instance[] = {PF(instance_bind_graphics), PF(instance_is_full_frame)};
static const pa_fn ppb_view[] = {PF(view_is_view),       PF(view_get_rect),   PF(view_is_fullscreen),
                                 PF(view_is_visible),    PF(view_is_visible), PF(view_get_rect),
                                 PF(view_get_device_scale), PF(view_get_scale), PF(view_get_scroll_offset)};
static const pa_fn ppb_mouse[] = {PF(mouse_create), PF(mouse_is),     PF(mouse_button),
                                  PF(mouse_position), PF(mouse_clicks), PF(mouse_movement)};
static const pa_fn ppb_mouse_1_0[] = {PF(mouse_create_1_0), PF(mouse_is), PF(mouse_button), PF(mouse_position),
                                      PF(mouse_clicks)};
static const pa_fn ppb_wheel[] = {PF(wheel_create), PF(wheel_is), PF(wheel_delta), PF(wheel_ticks),
                                  PF(wheel_by_page)};
static const pa_fn ppb_key[] = {PF(key_create), PF(key_is), PF(key_code), PF(key_text), PF(key_dom_code)};
static const pa_fn ppb_touch[] = {PF(touch_create),   PF(touch_add_point), PF(touch_is),
                                  PF(touch_count),    PF(touch_by_index),  PF(touch_by_id),
                                  PF(touch_tilt_by_index), PF(touch_tilt_by_id)};
static const pa_fn ppb_ime[] = {PF(ime_create),         PF(ime_is),           PF(ime_text), PF(ime_segment_number),
                                PF(ime_segment_offset), PF(ime_target_segment), PF(ime_selection)};
static const pa_fn ppb_key_1_0[] = {PF(key_create_1_0), PF(key_is), PF(key_code), PF(key_text)};
static const pa_fn ppb_input[] = {PF(input_request),   PF(input_request_filtering), PF(input_clear),
                                  PF(input_is_event),  PF(input_get_type),       PF(input_get_time_stamp),
                                  PF(input_get_modifiers)};
static const pa_fn ppb_image[] = {PF(image_native_format), PF(image_format_supported), PF(image_create),
                                  PF(image_is),            PF(image_describe),         PF(image_map),
                                  PF(image_unmap)};
static const pa_fn ppb_g2d[] = {PF(g2d_create),  PF(g2d_is),      PF(g2d_describe), PF(g2d_paint),
                                PF(g2d_scroll),  PF(g2d_replace), PF(g2d_flush),    PF(g2d_set_scale),
                                PF(g2d_get_scale)};
static const pa_fn ppb_request[] = {PF(request_create), PF(request_is), PF(request_set_property),
                                    PF(request_append_data), PF(request_append_file)};
static const pa_fn ppb_loader[] = {PF(loader_create),  PF(loader_is),           PF(loader_open),
                                   PF(loader_follow_redirect), PF(loader_upload_progress),
                                   PF(loader_download_progress), PF(loader_response_info),
                                   PF(loader_read),    PF(loader_finish_to_file), PF(loader_close)};
static const pa_fn ppb_response[] = {PF(response_is), PF(response_get_property), PF(response_body_file)};
static const pa_fn ppb_loop[] = {PF(loop_create), PF(loop_get_for_main_thread), PF(loop_get_current),
                                 PF(loop_attach), PF(loop_run),                 PF(loop_post_work),
                                 PF(loop_post_quit)};

static const struct {
    const char *name;
    const pa_fn *table;
} pa_interfaces[] = {
    {"PPB_Core;1.0", ppb_core},
    {"PPB_Var;1.0", ppb_var_1_0},
    {"PPB_Var;1.1", ppb_var_1_2},
    {"PPB_Var;1.2", ppb_var_1_2},
    {"PPB_VarArrayBuffer;1.0", ppb_buffer},
    {"PPB_VarArray;1.0", ppb_array},
    {"PPB_VarDictionary;1.0", ppb_dict},
    {"PPB_Messaging;1.0", ppb_messaging},
    {"PPB_Messaging;1.2", ppb_messaging},
    {"PPB_Console;1.0", ppb_console},
    {"PPB_Instance;1.0", ppb_instance},
    {"PPB_View;1.0", ppb_view},
    {"PPB_View;1.1", ppb_view},
    {"PPB_View;1.2", ppb_view},
    {"PPB_InputEvent;1.0", ppb_input},
    {"PPB_MessageLoop;1.0", ppb_loop},
    {"PPB_FileSystem;1.0", ppb_filesystem},
    {"PPB_FileRef;1.0", ppb_fileref_1_1},
    {"PPB_FileRef;1.1", ppb_fileref_1_1},
    {"PPB_FileRef;1.2", ppb_fileref_1_2},
    {"PPB_FileIO;1.0", ppb_fileio},
    {"PPB_FileIO;1.1", ppb_fileio},
};

/* What the host gives in a page only (PNACL_PAGE=1): what needs the page's screen. */
static const struct {
    const char *name;
    const pa_fn *table;
} pa_page_interfaces[] = {
    {"PPB_ImageData;1.0", ppb_image},
    {"PPB_Graphics2D;1.0", ppb_g2d},
    {"PPB_Graphics2D;1.1", ppb_g2d},
    {"PPB_URLRequestInfo;1.0", ppb_request},
    {"PPB_URLLoader;1.0", ppb_loader},
    {"PPB_URLResponseInfo;1.0", ppb_response},
    {"PPB_MouseInputEvent;1.0", ppb_mouse_1_0},
    {"PPB_MouseInputEvent;1.1", ppb_mouse},
    {"PPB_WheelInputEvent;1.0", ppb_wheel},
    {"PPB_KeyboardInputEvent;1.0", ppb_key_1_0},
    {"PPB_KeyboardInputEvent;1.2", ppb_key},
    {"PPB_TouchInputEvent;1.0", ppb_touch},
    {"PPB_TouchInputEvent;1.4", ppb_touch},
    {"PPB_IMEInputEvent;1.0", ppb_ime},
    {"PPB_WebSocket;1.0", ppb_websocket},
    {"PPB_AudioConfig;1.0", ppb_audio_config_1_0},
    {"PPB_AudioConfig;1.1", ppb_audio_config_1_1},
    {"PPB_Audio;1.0", ppb_audio_1_0},
    {"PPB_Audio;1.1", ppb_audio_1_1},
#ifdef PA_HAVE_GL
    {"PPB_Graphics3D;1.0", ppb_g3d},
    {"PPB_OpenGLES2;1.0", ppb_gles2},
    {"PPB_OpenGLES2InstancedArrays;1.0", ppb_gles2_instanced},
    {"PPB_OpenGLES2FramebufferBlit;1.0", ppb_gles2_blit},
    {"PPB_OpenGLES2FramebufferMultisample;1.0", ppb_gles2_multisample},
    {"PPB_OpenGLES2ChromiumEnableFeature;1.0", ppb_gles2_feature},
    {"PPB_OpenGLES2ChromiumMapSub;1.0", ppb_gles2_mapsub},
    {"PPB_OpenGLES2Query;1.0", ppb_gles2_query},
    {"PPB_OpenGLES2VertexArrayObject;1.0", ppb_gles2_vao},
    {"PPB_OpenGLES2DrawBuffers(Dev);1.0", ppb_gles2_drawbuffers},
#endif
};

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
    for (unsigned i = 0; i < sizeof pa_interfaces / sizeof pa_interfaces[0]; i++)
        if (streq(name, pa_interfaces[i].name)) return pa_interfaces[i].table;
    for (unsigned i = 0; pa_page && i < sizeof pa_page_interfaces / sizeof pa_page_interfaces[0]; i++)
        if (streq(name, pa_page_interfaces[i].name)) return pa_page_interfaces[i].table;
    if (pa_headless_2d && !pa_page) {
        if (streq(name, "PPB_ImageData;1.0")) return ppb_image;
        if (streq(name, "PPB_Graphics2D;1.0") || streq(name, "PPB_Graphics2D;1.1")) return ppb_g2d;
    }
    if (pa_report_missing) pa_missing(name);
    return NULL;
}

/* ----------------------------------------------------------------------------------- */
/* Start-up and the main loop (ppapi.md §1)                                             */

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
    struct nacl_timespec abs;
    i64 t = pa_now_ns(0) + (i64)ms * 1000000;
    abs.tv_sec = t / 1000000000;
    abs.tv_nsec = (i32)(t % 1000000000);
    irt_futex_wait_abs(&word, 0, &abs);
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
        lock(&pa_queue_lock);
        i64 now = pa_now_ns(1), wait = -1;
        struct pa_event *e = NULL, *prev = NULL;
        for (struct pa_event *x = pa_head, *px = NULL; x; px = x, x = x->next) {
            if (x->kind != EV_CALLBACK || x->due_ns <= now) {
                e = x;
                prev = px;
                break;
            }
            if (wait < 0 || x->due_ns - now < wait) wait = x->due_ns - now;
        }
        if (e) {
            if (prev) prev->next = e->next;
            else pa_head = e->next;
            if (pa_tail == e) pa_tail = prev;
            if (e->kind == EV_MESSAGE) pa_queued_messages--;
        }
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
            } else {
                ending = 1;
            }
            pa_release_block(e);
            continue;
        }
        if (ending) {
            /* The end of input: once the plugin is idle, or quiet for 2 s, it is destroyed. */
            if (wait < 0) {
                u32 act = __atomic_load_n(&pa_activity, __ATOMIC_RELAXED);
                if (act != quiet_mark) quiet_mark = act, quiet_since = pa_now_ns(1);
                if (pa_idle(200) || pa_now_ns(1) - quiet_since > 2000000000LL) break;
                continue;
            }
        }
        struct nacl_timespec abs, *at = NULL;
        if (wait >= 0) {
            i64 t = pa_now_ns(0) + wait;
            abs.tv_sec = t / 1000000000;
            abs.tv_nsec = (i32)(t % 1000000000);
            at = &abs;
        }
        irt_futex_wait_abs(&pa_queue_signal, seen, at);
    }
    if (pi.did_destroy) pi.did_destroy(pa_instance);
    if (f.shutdown_module) f.shutdown_module();
    ppapi_stdout_flush();
    exit_process(0);
}

static const pa_fn ppapi_hook[] = {PF(ppapi_start), PF(ppapi_register_thread_creator)};

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
