/*
 * The NaCl guest ABI as the pexe sees it, the same on every backend (runtime.md §1-§3),
 * beyond the errno values and open flags backend.h gives: the records the IRT fills
 * (stat, timeval), the descriptors the program may
 * use, where a browser plugin's own standard output goes, and the IRT calls whose answer
 * does not depend on the system under it. irt.c and wasi.c include it right after
 * backend.h; it is written over what backend.h declares (raw_read, raw_write, raw_close,
 * is_terminal, online_cpus, write_str, exit_process) and outbuf.h's standard output.
 */
#ifndef PNACL_RT_GUEST_H
#define PNACL_RT_GUEST_H

#include "backend.h"

/* Memory protections and mappings, as the pexe gives them (the same numbers as Linux's). */
#define NACL_PROT_READ 1
#define NACL_PROT_WRITE 2
#define NACL_PROT_EXEC 4
#define NACL_MAP_SHARED 0x01
#define NACL_MAP_PRIVATE 0x02
#define NACL_MAP_FIXED 0x10
#define NACL_MAP_ANONYMOUS 0x20

/* nacl_abi_stat: 104 bytes (runtime.md §3.1). */
struct nacl_stat {
    i64 st_dev;
    u64 st_ino;
    u32 st_mode, st_nlink, st_uid, st_gid;
    i64 st_rdev, st_size;
    i32 st_blksize, st_blocks;
    i64 st_atime, st_atimensec, st_mtime, st_mtimensec, st_ctime, st_ctimensec;
};

struct nacl_timeval { i64 tv_sec; i32 tv_usec; i32 pad; };

#include "basics.h"

/* An IRT function that is reached but not implemented: say which, exit 127. */
__attribute__((noreturn)) static void unimplemented(const char *name) {
    write_str(2, "pnacl runtime: IRT function not implemented: ");
    write_str(2, name);
    write_str(2, "\n");
    exit_process(127);
}

/* ----------------------------------------------------------------------------------- */
/* Threads                                                                             */

extern u32 __pnacl_threads; /* builtins.c's */

/* A thread for the pexe (host_thread_create's, the backend's): from now on its code may
   run on more than one. */
static int irt_thread_create(void (*start)(void), void *stack, void *thread_ptr) {
    __atomic_store_n(&__pnacl_threads, 1, __ATOMIC_SEQ_CST);
    return host_thread_create(start, stack, thread_ptr);
}

/* ----------------------------------------------------------------------------------- */
/* Descriptors: the program may use 0, 1, 2 and what it opened itself.                */

#define MAX_FDS 1024

static u32 fd_ok[MAX_FDS / 32] = {7};

static int allowed(int fd) { return fd >= 0 && fd < MAX_FDS && (fd_ok[fd / 32] >> (fd % 32)) & 1; }
static void allow(int fd) {
    if (fd >= 0 && fd < MAX_FDS) __atomic_or_fetch(&fd_ok[fd / 32], 1u << (fd % 32), __ATOMIC_RELAXED);
}
static void forbid(int fd) {
    if (fd >= 0 && fd < MAX_FDS) __atomic_and_fetch(&fd_ok[fd / 32], ~(1u << (fd % 32)), __ATOMIC_RELAXED);
}

/* A browser plugin (it asked for the PPAPI hook): its standard output carries messages,
   so what it writes there itself goes to standard error, or with PNACL_STDOUT=messages
   becomes messages (ppapi.h). Fd 1 stays the host's: the plugin's close of it only closes
   it for the plugin, and a dup of it is a dup of fd 2. */
static int pa_stdout_messages;
static int ppapi_stdout_write(const void *buf, size_t count, size_t *nwrote);
static void ppapi_stdout_flush(void);
static void out_flush(void);
static int out_write(const void *buf, size_t count, size_t *nwrote);

__attribute__((noreturn)) static void irt_exit(int status) {
    if (ppapi_plugin) ppapi_stdout_flush();
    exit_process(status);
}

static int irt_close(int fd) {
    if (!allowed(fd)) return NACL_EBADF;
    out_flush(); /* newlib closes stdout at exit, before the IRT's exit */
    if (fd == 1 && ppapi_plugin) {
        ppapi_stdout_flush();
        forbid(fd);
        return 0;
    }
    int e = raw_close(fd);
    if (!e) forbid(fd);
    return e;
}

static int irt_read(int fd, void *buf, size_t count, size_t *nread) {
    if (!allowed(fd)) return NACL_EBADF;
    out_flush();
    long r = raw_read(fd, buf, count);
    if (r < 0) return (int)-r;
    *nread = (size_t)r;
    return 0;
}

static int irt_write(int fd, const void *buf, size_t count, size_t *nwrote) {
    if (!allowed(fd)) return NACL_EBADF;
    if (fd == 1 && ppapi_plugin) {
        if (pa_stdout_messages) return ppapi_stdout_write(buf, count, nwrote);
        fd = 2;
    }
    if (fd == 1) return out_write(buf, count, nwrote);
    out_flush();
    long r = raw_write(fd, buf, count);
    if (r < 0) return (int)-r;
    *nwrote = (size_t)r;
    return 0;
}

static int irt_isatty(int fd, int *result) {
    if (!allowed(fd)) return NACL_EBADF;
    if (!is_terminal(fd)) return NACL_ENOTTY;
    *result = 1;
    return 0;
}

/* Nothing the runtime holds is unwritten but standard output's block: fsync(1) sends it
   (the PPAPI host as pexe code sends each message so, ppapi_pexe.c). */
static int irt_fsync(int fd) {
    if (!allowed(fd)) return NACL_EBADF;
    if (fd == 1) out_flush();
    return 0;
}

static int irt_sysconf(int name, int *value) {
    switch (name) {
    case 1: /* _SC_NPROCESSORS_ONLN */
        *value = online_cpus();
        return 0;
    case 2: /* _SC_PAGESIZE */
        *value = PAGE;
        return 0;
    default:
        return NACL_EINVAL;
    }
}

#endif
