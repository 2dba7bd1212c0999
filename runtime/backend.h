/*
 * The backend contract: what each backend of the runtime provides to the parts above it
 * (outbuf.h, ppapi.h and the PPAPI interfaces). The backends are irt.c (x86-32 and ARM,
 * over Linux's system calls), wasi.c (WebAssembly, over WASI) and the PPAPI host's fuzzer
 * (fuzz/ppapi/host.h, over libc). Each includes this file first and defines every function
 * below; the compiler checks each definition against its declaration here.
 */
#ifndef PNACL_RT_BACKEND_H
#define PNACL_RT_BACKEND_H

#include "types.h"

/* NaCl's time, as the IRT's clock and futex interfaces take it. */
struct nacl_timespec {
    i64 tv_sec;
    i32 tv_nsec;
    i32 pad;
};

/* The process: its end (status), and its end with a message (status 134). */
__attribute__((noreturn)) static void exit_process(int status);
__attribute__((noreturn)) static void fatal(const char *msg);

/* Strings and memory. */
static int streq(const char *a, const char *b);
static size_t slen(const char *s);
static void *copy(void *d, const void *s, size_t n);

/* Locks (spin locks on an int, 0 free), and descriptors: a raw write and read (the bytes
   written or read, or a negative NaCl errno), a close (0 or a NaCl errno), a string to a
   descriptor, whether a descriptor is a terminal, the IRT's read (guest.h's; not the
   fuzzer's), the processors the program may use. */
static void lock(volatile int *l);
static void unlock(volatile int *l);
static long raw_write(int fd, const void *buf, size_t n);
static void write_str(int fd, const char *s);
static int is_terminal(int fd);
static long raw_read(int fd, void *buf, size_t n);
static int raw_close(int fd);
static int irt_read(int fd, void *buf, size_t count, size_t *nread);
static int online_cpus(void);

/* NaCl errno values (Linux-compatible, runtime.md §2.1). */
#define NACL_EPERM 1
#define NACL_ENOENT 2
#define NACL_EINTR 4
#define NACL_EIO 5
#define NACL_EBADF 9
#define NACL_EAGAIN 11
#define NACL_ENOMEM 12
#define NACL_EACCES 13
#define NACL_EFAULT 14
#define NACL_EEXIST 17
#define NACL_EINVAL 22
#define NACL_ENOTTY 25
#define NACL_ENAMETOOLONG 36
#define NACL_ENOSYS 38
#define NACL_ETIMEDOUT 110

/* NaCl's open flags (runtime.md §2.1), as irt_open takes them. */
#define NACL_O_RDONLY 0
#define NACL_O_WRONLY 1
#define NACL_O_ACCMODE 3
#define NACL_O_CREAT 0100
#define NACL_O_EXCL 0200
#define NACL_O_TRUNC 01000
#define NACL_O_APPEND 02000
#define NACL_O_NONBLOCK 04000
#define NACL_O_SYNC 010000
#define NACL_O_DIRECTORY 0200000

/* Files under the runtime's root (PNACL_FS_ROOT; root-relative names), as the IRT's file
   interfaces give them (0 or a NaCl errno; none without a root): where the PPAPI host
   keeps a plugin's local file systems between runs (ppapi/ppb_file_keep.h). */
static int irt_open(const char *path, int oflag, u32 mode, int *newfd);
static int irt_close(int fd);
static int irt_write(int fd, const void *buf, size_t count, size_t *nwrote);
static int irt_seek(int fd, i64 offset, int whence, i64 *new_offset);
static int irt_getdents(int fd, void *buf, size_t count, size_t *nread);
static int irt_mkdir(const char *path, u32 mode);
static int irt_rmdir(const char *path);
static int irt_unlink(const char *path);

/* Futexes, threads and clocks, as the IRT's interfaces give them (0 or a NaCl errno): a
   thread that may run plugin code (irt_thread_create), one that runs only the host's
   (host_thread_create), the calling thread's end. */
static int irt_futex_wait_abs(volatile int *addr, int value, const struct nacl_timespec *abstime);
static int irt_futex_wake(volatile int *addr, int nwake, int *count);
static int irt_thread_create(void (*start)(void), void *stack, void *thread_ptr);
static int host_thread_create(void (*start)(void), void *stack, void *thread_ptr);
static void irt_thread_exit(i32 *stack_flag);
static int irt_clock_gettime(u32 clk, struct nacl_timespec *tp);

/* The PPAPI host's: zeroed pages of memory (or NULL), the calling thread (never 0), that
   the instance is made (where a page fires `load`), and the channel to a page (whole
   records; used only with PNACL_PAGE=1). */
static void *host_pages(size_t len);
/* Whether the program is a browser plugin: it asked for the PPAPI hook (ppapi.h's
   ppapi_hook_query sets it; the backends' fd 1 is then the host's). */
static int ppapi_plugin;
static uptr host_thread_id(void);
static void ppapi_ready(void);
static int host_channel_write(const void *p, u32 n);
static i32 host_channel_read(void *p, u32 n);

#endif
