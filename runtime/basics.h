/*
 * What every part of the runtime written over backend.h uses: strings, memory, the
 * runtime's two ways to fail, the environment's entries. The IRT's backends (guest.h) and
 * the PPAPI host as pexe code (ppapi_pexe.c) include it after backend.h.
 */
#ifndef PNACL_RT_BASICS_H
#define PNACL_RT_BASICS_H

#include "backend.h"

static size_t slen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

static int streq(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

static void *copy(void *d, const void *s, size_t n) { return __builtin_memcpy(d, s, n); }

__attribute__((noreturn)) static void fatal(const char *msg) {
    write_str(2, "pnacl runtime: ");
    write_str(2, msg);
    write_str(2, "\n");
    exit_process(127);
}

/* The value of environment entry `e` if it is `key` (ending in '='), else NULL. */
__attribute__((unused)) static const char *env_value(const char *e, const char *key) {
    while (*key && *e == *key) e++, key++;
    return *key ? NULL : e;
}

#endif
