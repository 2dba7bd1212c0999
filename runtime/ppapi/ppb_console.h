/*
 * PPB_Console;1.0: the plugin's console, on standard error headless, the browser's in a page.
 */
#ifndef PA_PPB_CONSOLE_H
#define PA_PPB_CONSOLE_H

#include "out.h"
#include "page.h"

static const char *const pa_levels[] = {"tip", "log", "warning", "error"};

static void console_log(i32 instance, i32 level, const struct PP_Var *value) {
    (void)instance;
    const char *l = level >= 0 && level < 4 ? pa_levels[level] : "log";
    char prefix[32] = "console ";
    copy(prefix + 8, l, slen(l));
    copy(prefix + 8 + slen(l), ": ", 3);
    pa_emit(2, prefix, value);
}

/* In a page the console is the browser's (PA_TO_CONSOLE: level, the source's length, the
   text's, the source, the text; the page prefixes the plugin's name where there is no
   source). */
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

static void console_log_with_source(i32 instance, i32 level, const struct PP_Var *source, const struct PP_Var *value) {
    if (pa_page && instance == pa_instance) pa_console_to_page(level, source, value);
    else console_log(instance, level, value);
}

static void console_log_page(i32 instance, i32 level, const struct PP_Var *value) {
    console_log_with_source(instance, level, NULL, value);
}

#define PPB_CONSOLE_1_0(X)                                                                                                              \
    X(void, Log, (i32 instance, i32 level, const struct PP_Var *value), console_log_page)                                               \
    X(void, LogWithSource, (i32 instance, i32 level, const struct PP_Var *source, const struct PP_Var *value), console_log_with_source)
PA_TABLE(PPB_Console_1_0, ppb_console_1_0, PPB_CONSOLE_1_0)

#endif
