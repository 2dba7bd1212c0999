/*
 * The PPAPI host (runtime/ppapi.h) built for the build machine, for the fuzz targets here
 * (json.c, records.c): the backend contract (runtime/backend.h) over libc, with no
 * threads, no page and no files, then the host itself.
 */
#ifndef FUZZ_PPAPI_HOST_H
#define FUZZ_PPAPI_HOST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#undef NULL /* types.h has its own */
#include "../../runtime/backend.h"

__attribute__((noreturn)) static void exit_process(int status) { _exit(status); }
static void write_str(int fd, const char *s) { (void)!write(fd, s, strlen(s)); }
__attribute__((noreturn)) static void fatal(const char *why) {
    fprintf(stderr, "fatal: %s\n", why);
    abort();
}
static int streq(const char *a, const char *b) { return strcmp(a, b) == 0; }
static size_t slen(const char *s) { return strlen(s); }
static void *copy(void *d, const void *s, size_t n) { return memmove(d, s, n); }
static void lock(volatile int *l) { (void)l; }
static void unlock(volatile int *l) { (void)l; }
static long raw_write(int fd, const void *p, size_t n) { (void)fd, (void)p; return (long)n; }
static int irt_read(int fd, void *buf, size_t n, size_t *got) { (void)fd, (void)buf, (void)n; *got = 0; return 0; }
static int irt_futex_wait_abs(volatile int *a, int v, const struct nacl_timespec *t) { (void)a, (void)v, (void)t; return 0; }
static int irt_futex_wake(volatile int *a, int n, int *woken) { (void)a, (void)n; *woken = 0; return 0; }
static int irt_thread_create(void (*f)(void), void *stack, void *tp) { (void)f, (void)stack, (void)tp; return 38; }
static int host_thread_create(void (*f)(void), void *stack, void *tp) { (void)f, (void)stack, (void)tp; return 38; }
static int irt_clock_gettime(u32 clk, struct nacl_timespec *ts) { (void)clk; ts->tv_sec = 0, ts->tv_nsec = 0; return 0; }
static void *host_pages(size_t n) { return calloc(1, n); }
static uptr host_thread_id(void) { return 1; }
static void out_flush(void) {}
static void ppapi_ready(void) {}
static int host_channel_write(const void *p, u32 n) { (void)p, (void)n; return -1; }
static i32 host_channel_read(void *p, u32 n) { (void)p, (void)n; return -1; }
static void irt_thread_exit(i32 *stack_flag) { (void)stack_flag; abort(); }
/* No files: no root. */
static int irt_open(const char *p, int o, u32 m, int *fd) { (void)p, (void)o, (void)m, (void)fd; return 13; }
static int irt_close(int fd) { (void)fd; return 9; }
static int irt_write(int fd, const void *b, size_t n, size_t *w) { (void)fd, (void)b, (void)n, (void)w; return 9; }
static int irt_seek(int fd, i64 o, int w, i64 *at) { (void)fd, (void)o, (void)w, (void)at; return 9; }
static int irt_getdents(int fd, void *b, size_t n, size_t *got) { (void)fd, (void)b, (void)n, (void)got; return 9; }
static int irt_mkdir(const char *p, u32 m) { (void)p, (void)m; return 13; }
static int irt_rmdir(const char *p) { (void)p; return 13; }
static int irt_unlink(const char *p) { (void)p; return 13; }

#include "../../runtime/ppapi.h"

#endif
