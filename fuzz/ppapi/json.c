/*
 * libFuzzer target for the PPAPI host's JSON message reader (runtime/ppapi.h), the code
 * that reads what stands on a plugin's standard input with PNACL_MESSAGES=json. Built for
 * the build machine with clang-14 -fsanitize=fuzzer,address,undefined by scripts/fuzz
 * (`scripts/fuzz ppapi-json`) and by tests/ppapi_fuzz.rs, which runs it in CI.
 *
 * For each input (one line): the reader gives a var or refuses the line. A var must
 * write back as JSON that reads as the same var again, whose JSON is the same text (a
 * fixed point after one round); then every var is released, and the host's table of vars
 * must be as it was (no var leaked or freed twice). A line that is one number must read
 * as the C library's strtod reads it (the nearest double), and a double must write as
 * text that strtod reads back as the same double, no longer than the shortest such text
 * (%.17g, tried from 1 digit up). Any sanitizer report, abort or mismatch is a finding.
 */
#include "host.h"

static u32 live_vars(void) {
    u32 n = 0;
    for (u32 i = 0; i < pa_nobjects; i++) n += pa_objects[i].refs > 0;
    return n;
}

/* The JSON text of var `v`, NUL-terminated (malloc'd), or NULL if it cannot be written. */
static char *json_of(const struct PP_Var *v) {
    struct pa_text t = {0};
    lock(&pa_var_lock);
    text_json(&t, v, 0);
    unlock(&pa_var_lock);
    char *s = NULL;
    if (!t.failed) {
        s = malloc(t.len + 1);
        memcpy(s, t.p, t.len);
        s[t.len] = 0;
    }
    pa_release_block(t.p);
    return s;
}

/* The number checks: `v` read from the `size` bytes at `data`. */
static void check_number(const u8 *data, size_t size, const struct PP_Var *v) {
    char *z = malloc(size + 1);
    memcpy(z, data, size);
    z[size] = 0;
    double want = strtod(z, NULL), got = v->type == PP_VARTYPE_INT32 ? v->value.as_int : v->value.as_double;
    if (memcmp(&want, &got, 8) != 0 && !(want == 0 && got == 0 && v->type == PP_VARTYPE_INT32)) {
        fprintf(stderr, "%s reads as %.17g, strtod says %.17g\n", z, got, want);
        abort();
    }
    free(z);
}

static void check_double(double d) {
    struct pa_text t = {0};
    text_double(&t, d);
    char *z = malloc(t.len + 1);
    memcpy(z, t.p, t.len);
    z[t.len] = 0;
    pa_release_block(t.p);
    double back = strtod(z, NULL);
    if (d == d && d - d == 0 && back != d) {
        fprintf(stderr, "%.17g writes as %s, which reads as %.17g\n", d, z, back);
        abort();
    }
    char shortest[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(shortest, sizeof shortest, "%.*e", p - 1, d);
        if (strtod(shortest, NULL) == d) {
            /* Our significant digits: those before any exponent, without the zeros that
               lead or trail. */
            char sig[40];
            int n = 0;
            for (char *c = z; *c && *c != 'e' && n < 39; c++)
                if (*c >= '0' && *c <= '9' && (n || *c != '0')) sig[n++] = *c;
            while (n > 0 && sig[n - 1] == '0') n--;
            if (n > p) {
                fprintf(stderr, "%.17g writes as %s, but %s is shorter\n", d, z, shortest);
                abort();
            }
            break;
        }
    }
    free(z);
}

/* Before any input: every interface table of interfaces.def is whole (no function slot
   left NULL by a designated initializer that missed it), as the plugin would call it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    for (unsigned i = 0; i < sizeof pa_interfaces / sizeof pa_interfaces[0]; i++) {
        const pa_fn *slot = pa_interfaces[i].table;
        if (pa_interfaces[i].size == 0 || pa_interfaces[i].size % sizeof(pa_fn)) {
            fprintf(stderr, "%s: a table of %u bytes\n", pa_interfaces[i].name, pa_interfaces[i].size);
            abort();
        }
        for (unsigned k = 0; k < pa_interfaces[i].size / sizeof(pa_fn); k++)
            if (!slot[k]) {
                fprintf(stderr, "%s: function %u is NULL\n", pa_interfaces[i].name, k);
                abort();
            }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size) {
    static int started;
    if (!started) {
        pa_json = 1;
        started = 1;
    }
    if (size > 1 << 20) return 0;
    u32 before = live_vars();
    struct PP_Var v = {0};
    if (pa_message_of_line(data, (u32)size, &v) == 0) {
        if (v.type == PP_VARTYPE_INT32 || v.type == PP_VARTYPE_DOUBLE) check_number(data, size, &v);
        if (v.type == PP_VARTYPE_DOUBLE) check_double(v.value.as_double);
        if (size == 8) {
            double d;
            memcpy(&d, data, 8);
            check_double(d);
        }
        char *a = json_of(&v);
        if (a) {
            struct PP_Var w = {0};
            if (pa_message_of_line((const u8 *)a, (u32)strlen(a), &w) != 0) {
                fprintf(stderr, "the reader refuses the JSON it wrote: %s\n", a);
                abort();
            }
            char *b = json_of(&w);
            if (!b || strcmp(a, b) != 0) {
                fprintf(stderr, "not a fixed point:\n  %s\n  %s\n", a, b ? b : "(none)");
                abort();
            }
            free(b);
            var_release(&w);
        }
        free(a);
        var_release(&v);
    }
    if (live_vars() != before) {
        fprintf(stderr, "vars leaked or lost: %u before, %u after\n", before, live_vars());
        abort();
    }
    return 0;
}
