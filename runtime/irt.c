/*
 * The runtime a translated pexe runs on: process start-up, the NaCl IRT interfaces newlib
 * asks for (runtime.md §1-§3), threads, TLS, futexes, and a sandboxed file system.
 * Freestanding: raw Linux system calls, no libc.
 *
 * Every thread runs on a runtime-allocated stack region of STACK_SIZE bytes aligned to
 * STACK_SIZE; its descriptor sits at the bottom of the region, so the current thread's
 * descriptor (and the pexe's thread pointer) is found from the stack pointer.
 */
#include "backend.h"
#include "sandbox.h"

#define STACK_SIZE (16u << 20)
#define PAGE 4096u
#define THREAD_SLOTS 4096 /* the most PNACL_MAX_THREADS may say */
#define DEFAULT_MAX_THREADS 256
#include "guest.h"

/* ----------------------------------------------------------------------------------- */
/* Basics                                                                              */


static void write_str(int fd, const char *s) {
    size_t n = slen(s);
    while (n > 0) {
        long r = sys3(SYS_write, fd, s, n);
        if (SYS_FAILED(r)) {
            if (r == -NACL_EINTR) continue;
            return;
        }
        s += r;
        n -= r;
    }
}

static void out_flush(void);

__attribute__((noreturn)) static void exit_process(int status) {
    out_flush();
    for (;;) sys1(SYS_exit_group, status);
}



static int err_of(long r) { return SYS_FAILED(r) ? (int)-r : 0; }



static void zero(void *d, size_t n) {
    u8 *dd = d;
    while (n--) *dd++ = 0;
}

/* The IRT mmap's arguments, checked (0 or a NaCl errno): never executable memory (no code
   can be written and then run; the sandbox kills the process that asks the kernel
   itself), only the flags NaCl has, a file's offset page-aligned; an anonymous mapping's
   descriptor and offset made -1 and 0. */
static int mmap_arguments(int prot, int flags, int *fd, i64 *off) {
    if (prot & NACL_PROT_EXEC) return NACL_EACCES;
    if (prot & ~(NACL_PROT_READ | NACL_PROT_WRITE)) return NACL_EINVAL;
    if (flags & ~(NACL_MAP_SHARED | NACL_MAP_PRIVATE | NACL_MAP_FIXED | NACL_MAP_ANONYMOUS)) return NACL_EINVAL;
    if (flags & NACL_MAP_ANONYMOUS) {
        *fd = -1;
        *off = 0;
    } else {
        if (!allowed(*fd)) return NACL_EBADF;
        if (*off & (PAGE - 1)) return NACL_EINVAL;
    }
    return 0;
}

/* ----------------------------------------------------------------------------------- */
/* Threads and their stacks                                                            */

#if PNACL_REGION
/* A setjmp context (region.h): the callee-saved registers, stack pointer and return
   address (arch_*.S), the caller's stack pointer, the pexe's stack pointer, its id and the
   jmp_buf that names it. C++ exceptions keep one live per active invoke (simplify::eh),
   each with a 1056-byte frame on the pexe's stack: as many as a 16 MiB pexe stack holds
   (3.5 MiB of the thread's stack region, touched only as deep as they are used). */
#define MAX_CONTEXTS 16384
struct context {
    u64 regs[24];
    u64 sp;
    u64 id;
    u8 *buf;
    u32 pexe_sp;
};
#endif

struct thread {
    u32 tp;                 /* the pexe's thread pointer */
    volatile int tid_word;  /* cleared by the kernel when the thread exits */
    void (*start)(void);
    void *region;
    u32 id;                 /* 1 the main thread, another its slot's + 2 (irt_thread_id) */
#if PNACL_REGION
    u32 pexe_sp;            /* the pexe's stack pointer it starts with, and its lowest */
    u32 pexe_sp_limit;
    int contexts;           /* live setjmp contexts, outermost first */
    u64 context_ids;
    struct context context[MAX_CONTEXTS];
#endif
};

/* A thread's stack region: its descriptor, then (on a region target) its thread-local
   storage and its signal stack, then a guard page, then its stack. */
#define PAGE_UP(n) (((n) + PAGE - 1) & ~(PAGE - 1))
#if PNACL_REGION
#define TLS_AREA PAGE
#define ALT_STACK (64u << 10)
#define THREAD_HEAD (PAGE_UP(sizeof(struct thread)) + TLS_AREA + ALT_STACK)
#else
#define THREAD_HEAD PAGE_UP(sizeof(struct thread))
#endif

static inline struct thread *self(void) {
    uptr sp = (uptr)__builtin_frame_address(0);
    return (struct thread *)(sp & ~(uptr)(STACK_SIZE - 1));
}

/* The pexe's llvm.nacl.read.tp. */
u32 __pnacl_read_tp(void) { return self()->tp; }

static volatile int thread_lock;
static struct thread *threads[THREAD_SLOTS];
static int max_threads = DEFAULT_MAX_THREADS; /* the main thread's included */

static void lock(volatile int *l) {
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) sys0(SYS_sched_yield);
}
static void unlock(volatile int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static long raw_write(int fd, const void *buf, size_t n) {
    for (;;) {
        long r = sys3(SYS_write, fd, buf, n);
        if (r != -NACL_EINTR) return r;
    }
}

static long raw_read(int fd, void *buf, size_t n) { return sys3(SYS_read, fd, buf, n); }

static int raw_close(int fd) { return err_of(sys1(SYS_close, fd)); }

static int is_terminal(int fd) {
    u8 termios[64];
    return !SYS_FAILED(sys3(SYS_ioctl, fd, 0x5401 /* TCGETS */, termios));
}

#include "outbuf.h"

static void *map_anon(size_t len) {
    long r = sys_mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return SYS_FAILED(r) ? NULL : (void *)r;
}

/* A STACK_SIZE region aligned to STACK_SIZE, with a guard page above the descriptor. */
static struct thread *new_stack(void) {
    u8 *p = map_anon(2 * STACK_SIZE);
    if (!p) return NULL;
    uptr a = ((uptr)p + STACK_SIZE - 1) & ~(uptr)(STACK_SIZE - 1);
    if (a > (uptr)p) sys2(SYS_munmap, p, a - (uptr)p);
    uptr end = (uptr)p + 2 * STACK_SIZE;
    if (end > a + STACK_SIZE) sys2(SYS_munmap, a + STACK_SIZE, end - (a + STACK_SIZE));
    sys3(SYS_mprotect, a + THREAD_HEAD, PAGE, 0);
    struct thread *t = (struct thread *)a;
    t->region = (void *)a;
    return t;
}

/* Unmaps the stacks of threads that have exited. */
static void reap(void) {
    for (int i = 0; i < THREAD_SLOTS; i++) {
        struct thread *t = threads[i];
        if (t && __atomic_load_n(&t->tid_word, __ATOMIC_ACQUIRE) == 0) {
            threads[i] = NULL;
            sys2(SYS_munmap, t->region, STACK_SIZE);
        }
    }
}

int __pnacl_clone(uptr flags, void *stack_top, volatile int *ctid, void (*fn)(void *), void *arg, uptr tls);
void __pnacl_switch_stack(void *sp, void (*fn)(void *), void *arg) __attribute__((noreturn));

/* Says once that the program asked for more threads than it may have. */
static void thread_limit_reached(void) {
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
    char n[12];
    int i = sizeof n - 1;
    n[i] = 0;
    for (u32 v = (u32)max_threads; v || i == sizeof n - 1; v /= 10) n[--i] = (char)('0' + v % 10);
    write_str(2, "pnacl runtime: the program reached its limit of ");
    write_str(2, n + i);
    write_str(2, " threads (PNACL_MAX_THREADS): no more are created\n");
}

#if PNACL_REGION
#include "region.h"
#endif

static void thread_main(void *arg) {
    struct thread *t = arg;
#if PNACL_REGION
    thread_begin(t);
#endif
    t->start();
}

/* A thread that runs `start`: for the pexe (irt_thread_create), or for the PPAPI host's
   own use, where no pexe code runs (its readers). */
static int host_thread_create(void (*start)(void), void *stack, void *thread_ptr) {
    (void)stack; /* on a flat target the pexe's stack is not used: its code runs on a host stack */
    lock(&thread_lock);
    reap();
    int slot = -1, live = 1;
    for (int i = 0; i < THREAD_SLOTS; i++) {
        if (threads[i])
            live++;
        else if (slot < 0)
            slot = i;
    }
    if (slot < 0 || live >= max_threads) {
        unlock(&thread_lock);
        thread_limit_reached();
        return NACL_EAGAIN;
    }
    struct thread *t = new_stack();
    if (!t) {
        unlock(&thread_lock);
        return NACL_ENOMEM;
    }
    t->tp = (u32)(uptr)thread_ptr;
    t->id = (u32)slot + 2;
    t->start = start;
    t->tid_word = 1;
    threads[slot] = t;
    unlock(&thread_lock);
    u32 flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                CLONE_CHILD_CLEARTID;
    uptr tls = 0;
#if PNACL_REGION
    /* The pexe's stack is where it says (its own memory); its code runs on this one. */
    t->pexe_sp = (u32)(uptr)stack;
    t->pexe_sp_limit = (u32)REGION_LO; /* its stack's size is the pexe's to know */
    t->contexts = 0;
    flags |= CLONE_SETTLS;
    tls = tls_setup((u8 *)t->region + PAGE_UP(sizeof(struct thread)));
#endif
    int r = __pnacl_clone(flags, (u8 *)t->region + STACK_SIZE, &t->tid_word, thread_main, t, tls);
    if (SYS_FAILED(r)) {
        lock(&thread_lock);
        threads[slot] = NULL;
        unlock(&thread_lock);
        sys2(SYS_munmap, t->region, STACK_SIZE);
        /* The sandbox's thread keeper counts every thread, the pexe's own clones too. */
        if (r == -NACL_EAGAIN) thread_limit_reached();
        return -r;
    }
    return 0;
}

static void irt_thread_exit(i32 *stack_flag) {
    if (stack_flag) __atomic_store_n(stack_flag, 0, __ATOMIC_SEQ_CST);
    sys1(SYS_exit, 0);
    /* Only if the thread keeper is gone (killed from outside) does exit return: the
       thread then sleeps for good rather than spin. */
    int never = 0;
    for (;;) sys4(SYS_futex, &never, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0);
}

static int irt_thread_nice(int nice) {
    (void)nice;
    return 0;
}

/* ----------------------------------------------------------------------------------- */
/* Time                                                                                */


/* The NaCl ABI's clocks: REALTIME 0, MONOTONIC 1, the process's and the calling thread's
   CPU time 2 and 3, numbered as Linux numbers them; any other is EINVAL, as NaCl's, on
   every target (Linux's further clocks are host facts; never another process's). */
#define MAX_CLOCK 3

static int irt_clock_gettime(u32 clk, struct nacl_timespec *tp) {
    if (clk > MAX_CLOCK) return NACL_EINVAL;
    struct k_timespec k;
    long r = sys2(SYS_clock_gettime, clk, &k);
    if (SYS_FAILED(r)) return -r;
    tp->tv_sec = k.tv_sec;
    tp->tv_nsec = k.tv_nsec;
    return 0;
}

static int irt_clock_getres(u32 clk, struct nacl_timespec *res) {
    if (clk > MAX_CLOCK) return NACL_EINVAL;
    struct k_timespec k;
    long r = sys2(SYS_clock_getres, clk, &k);
    if (SYS_FAILED(r)) return -r;
    if (res) {
        res->tv_sec = k.tv_sec;
        res->tv_nsec = k.tv_nsec;
    }
    return 0;
}

static int irt_gettod(struct nacl_timeval *tv) {
    struct k_timespec k;
    long r = sys2(SYS_clock_gettime, 0, &k);
    if (SYS_FAILED(r)) return -r;
    tv->tv_sec = k.tv_sec;
    tv->tv_usec = k.tv_nsec / 1000;
    return 0;
}

static int irt_clock(i32 *ticks) {
    struct k_timespec k;
    long r = sys2(SYS_clock_gettime, 2 /* CLOCK_PROCESS_CPUTIME_ID */, &k);
    if (SYS_FAILED(r)) return -r;
    *ticks = (i32)(k.tv_sec * 1000000 + k.tv_nsec / 1000);
    return 0;
}

static int irt_nanosleep(const struct nacl_timespec *req, struct nacl_timespec *rem) {
    struct k_timespec k = {(long)req->tv_sec, req->tv_nsec}, left;
    long r = sys2(SYS_nanosleep, &k, &left);
    if (SYS_FAILED(r)) {
        if (rem) {
            rem->tv_sec = left.tv_sec;
            rem->tv_nsec = left.tv_nsec;
        }
        return -r;
    }
    return 0;
}

static int irt_sched_yield(void) { return err_of(sys0(SYS_sched_yield)); }

/* The processors the program may run on (its affinity), at least 1. */
static int online_cpus(void) {
    u32 mask[32];
    long r = sys3(SYS_sched_getaffinity, 0, sizeof mask, mask);
    int n = 0;
    if (!SYS_FAILED(r))
        for (long i = 0; i < r / 4; i++)
            for (u32 m = mask[i]; m; m &= m - 1) n++;
    return n > 0 ? n : 1;
}




/* ----------------------------------------------------------------------------------- */
/* Futexes                                                                             */

static int irt_futex_wait_abs(volatile int *addr, int value, const struct nacl_timespec *abstime) {
    long r;
    if (abstime) {
        struct k_timespec k = {(long)abstime->tv_sec, abstime->tv_nsec};
        r = sys6(SYS_futex, addr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, value, &k, 0,
                 0xffffffff);
    } else {
        r = sys4(SYS_futex, addr, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, value, 0);
    }
    if (r == -NACL_EINTR) return 0; /* a spurious wakeup: callers loop */
    return err_of(r);
}

static int irt_futex_wake(volatile int *addr, int nwake, int *count) {
    long r = sys3(SYS_futex, addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, nwake);
    if (SYS_FAILED(r)) return -r;
    *count = (int)r;
    return 0;
}

/* ----------------------------------------------------------------------------------- */
/* TLS                                                                                 */

static int irt_tls_init(void *thread_ptr) {
    self()->tp = (u32)(uptr)thread_ptr;
    return 0;
}

static void *irt_tls_get(void) { return (void *)(uptr)self()->tp; }
#if PNACL_REGION
/* Which thread calls: a number no living thread shares (the thread pointer is the
   pexe's to set, and may be the same for all). */
static int irt_thread_id(u32 *id) {
    *id = self()->id;
    return 0;
}
#endif

/* ----------------------------------------------------------------------------------- */
/* Memory                                                                              */

#if !PNACL_REGION /* region.h's are the region's */
static int irt_mmap(void **addr, size_t len, int prot, int flags, int fd, i64 off) {
    int e = mmap_arguments(prot, flags, &fd, &off);
    if (e) return e;
    long r = sys_mmap(*addr, len, prot, flags, fd, off);
    if (SYS_FAILED(r)) return -r;
    *addr = (void *)r;
    return 0;
}

static int irt_munmap(void *addr, size_t len) { return err_of(sys2(SYS_munmap, addr, len)); }

/* Memory is never executable: no code can be written and then run (the sandbox kills
   the process that asks the kernel itself). */
static int irt_mprotect(void *addr, size_t len, int prot) {
    if (prot & NACL_PROT_EXEC) return NACL_EACCES;
    if (prot & ~(NACL_PROT_READ | NACL_PROT_WRITE)) return NACL_EINVAL;
    return err_of(sys3(SYS_mprotect, addr, len, prot));
}

#endif

static int irt_sysbrk(void **newbrk) {
    (void)newbrk;
    return NACL_ENOSYS;
}

/* ----------------------------------------------------------------------------------- */
/* Descriptors: the program may use 0, 1, 2 and what it opened itself.                */




static int irt_dup(int fd, int *newfd) {
    if (!allowed(fd)) return NACL_EBADF;
    if (fd == 1 && ppapi_plugin) fd = 2;
    long r = sys1(SYS_dup, fd);
    if (SYS_FAILED(r)) return -r;
    allow(r);
    *newfd = (int)r;
    return 0;
}

static int irt_dup2(int fd, int newfd) {
    out_flush();
    if (!allowed(fd) || newfd < 0 || newfd >= MAX_FDS) return NACL_EBADF;
    if (newfd == 1 && ppapi_plugin) return NACL_EBADF;
    if (fd == 1 && ppapi_plugin) fd = 2;
    long r = sys_dup2(fd, newfd);
    if (SYS_FAILED(r)) return -r;
    allow(newfd);
    return 0;
}




static int irt_seek(int fd, i64 offset, int whence, i64 *new_offset) {
    if (!allowed(fd)) return NACL_EBADF;
    i64 result;
    long r = sys_seek(fd, offset, whence, &result);
    if (SYS_FAILED(r)) return -r;
    *new_offset = result;
    return 0;
}


/* What fstat says of descriptor `fd`, as nacl_abi_stat: 0 or -errno. */
static long fstat_of(int fd, struct nacl_stat *s) {
    struct k_stat k;
    long r = sys_fstat(fd, &k);
    if (SYS_FAILED(r)) return r;
    *s = (struct nacl_stat){.st_dev = (i64)k.st_dev, .st_ino = k.st_ino, .st_mode = k.st_mode,
                            .st_nlink = k.st_nlink, .st_uid = k.st_uid, .st_gid = k.st_gid,
                            .st_rdev = (i64)k.st_rdev, .st_size = k.st_size,
                            .st_blksize = (i32)k.st_blksize, .st_blocks = (i32)k.st_blocks,
                            .st_atime = k.st_atime, .st_atimensec = k.st_atime_nsec,
                            .st_mtime = k.st_mtime, .st_mtimensec = k.st_mtime_nsec,
                            .st_ctime = k.st_ctime, .st_ctimensec = k.st_ctime_nsec};
    return 0;
}

static int irt_fstat(int fd, struct nacl_stat *st) {
    if (!allowed(fd)) return NACL_EBADF;
    return err_of(fstat_of(fd, st));
}

/* nacl_abi_dirent records (runtime.md §3.4), rebuilt from linux_dirent64. */
static int irt_getdents(int fd, void *buf, size_t count, size_t *nread) {
    if (!allowed(fd)) return NACL_EBADF;
    u8 tmp[4096];
    size_t want = count < sizeof tmp ? count : sizeof tmp;
    long r = sys3(SYS_getdents64, fd, tmp, want);
    if (SYS_FAILED(r)) return -r;
    size_t in = 0, out = 0;
    i64 last_off = -1;
    while (in < (size_t)r) {
        u8 *d = tmp + in;
        u64 ino;
        i64 off;
        u16 reclen;
        copy(&ino, d, 8);
        copy(&off, d + 8, 8);
        copy(&reclen, d + 16, 2);
        const char *name = (const char *)(d + 19);
        size_t nlen = slen(name);
        size_t rec = (18 + nlen + 1 + 7) & ~(size_t)7;
        if (out + rec > count) {
            if (out == 0) return NACL_EINVAL;
            i64 pos;
            sys_seek(fd, last_off, 0, &pos);
            break;
        }
        u8 *o = (u8 *)buf + out;
        zero(o, rec);
        copy(o, &ino, 8);
        copy(o + 8, &off, 8);
        u16 rl = (u16)rec;
        copy(o + 16, &rl, 2);
        copy(o + 18, name, nlen + 1);
        out += rec;
        in += reclen;
        last_off = off;
    }
    *nread = out;
    return 0;
}



/* ----------------------------------------------------------------------------------- */
/* File names: only inside $PNACL_FS_ROOT, never outside it.                          */

static int fs_root = -1;
static int fs_readonly;

/* Resolves `path` beneath the root: every component but the last is opened as a
   directory without following symlinks; "..", absolute paths and symlinked
   directories are refused. Returns a directory descriptor (to close) and the last
   component in `last`, or -errno. */
static int resolve(const char *path, char *last) {
    if (fs_root < 0) return -NACL_EACCES;
    if (!path || !path[0]) return -NACL_ENOENT;
    if (path[0] == '/') return -NACL_EACCES;
    if (slen(path) >= 4096) return -NACL_ENAMETOOLONG;
    int dir = (int)sys2(SYS_dup, fs_root, 0);
    if (SYS_FAILED(dir)) return dir;
    const char *p = path;
    for (;;) {
        while (*p == '/') p++;
        const char *s = p;
        while (*p && *p != '/') p++;
        size_t n = p - s;
        if (n >= 256) {
            sys1(SYS_close, dir);
            return -NACL_ENAMETOOLONG;
        }
        char comp[256];
        copy(comp, s, n);
        comp[n] = 0;
        while (*p == '/') p++;
        if (n == 2 && comp[0] == '.' && comp[1] == '.') {
            sys1(SYS_close, dir);
            return -NACL_EACCES;
        }
        if (!*p) {
            if (n == 0) {
                comp[0] = '.';
                comp[1] = 0;
            }
            copy(last, comp, slen(comp) + 1);
            return dir;
        }
        if (n == 0 || (n == 1 && comp[0] == '.')) continue;
        /* Opened to read, which Landlock judges (an O_PATH open it would not). */
        long next = sys4(SYS_openat, dir, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        sys1(SYS_close, dir);
        if (SYS_FAILED(next)) return next == -40 /* ELOOP */ || next == -20 ? -NACL_EACCES : next;
        dir = (int)next;
    }
}

static int irt_open(const char *path, int oflag, u32 mode, int *newfd) {
    char last[256];
    int dir = resolve(path, last);
    if (dir < 0) return -dir;
    int flags = (oflag & NACL_O_ACCMODE) | O_NOFOLLOW | O_CLOEXEC | O_LARGEFILE;
    if (oflag & NACL_O_CREAT) flags |= O_CREAT;
    if (oflag & NACL_O_EXCL) flags |= O_EXCL;
    if (oflag & NACL_O_TRUNC) flags |= O_TRUNC;
    if (oflag & NACL_O_APPEND) flags |= O_APPEND;
    if (oflag & NACL_O_NONBLOCK) flags |= O_NONBLOCK;
    if (oflag & NACL_O_SYNC) flags |= O_SYNC;
    if (oflag & NACL_O_DIRECTORY) flags |= O_DIRECTORY;
    /* A read-only root cannot be emptied, even where Landlock cannot refuse it (before
       its ABI 3); the sandbox refuses O_TRUNC there too. */
    if (fs_readonly && (oflag & NACL_O_TRUNC)) {
        sys1(SYS_close, dir);
        return NACL_EACCES;
    }
    /* Never set-uid, set-gid or sticky (the sandbox kills a call that asks). */
    long r = sys4(SYS_openat, dir, last, flags, mode & 0777);
    sys1(SYS_close, dir);
    if (SYS_FAILED(r)) return r == -40 ? NACL_EACCES : -r;
    if (r >= MAX_FDS) {
        sys1(SYS_close, r);
        return 24; /* EMFILE */
    }
    allow(r);
    *newfd = (int)r;
    return 0;
}

/* `path` beneath the root, opened (to read if it can be, else to write) and its status
   taken: what a name-based stat or access may learn is what Landlock lets the program
   open. Symbolic links are never followed: they could lead out of the root. Returns the
   descriptor (to close), or -errno; `*readable` says how it was opened. */
static long open_for_status(const char *path, struct nacl_stat *st, int *readable) {
    char last[256];
    int dir = resolve(path, last);
    if (dir < 0) return dir;
    int base = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_LARGEFILE;
    long fd = sys4(SYS_openat, dir, last, O_RDONLY | base, 0);
    *readable = !SYS_FAILED(fd);
    if (fd == -NACL_EACCES) fd = sys4(SYS_openat, dir, last, 1 /* O_WRONLY */ | base, 0);
    sys1(SYS_close, dir);
    if (fd == -40 /* ELOOP: a symbolic link */ || fd == -21 /* EISDIR */ || fd == -6 /* ENXIO */)
        return -NACL_EACCES;
    if (SYS_FAILED(fd)) return fd;
    long r = fstat_of((int)fd, st);
    if (SYS_FAILED(r)) {
        sys1(SYS_close, fd);
        return r;
    }
    return fd;
}

static int stat_at(const char *path, struct nacl_stat *st) {
    int readable;
    long fd = open_for_status(path, st, &readable);
    if (SYS_FAILED(fd)) return (int)-fd;
    sys1(SYS_close, fd);
    return 0;
}

static int irt_stat(const char *path, struct nacl_stat *st) { return stat_at(path, st); }
static int irt_lstat(const char *path, struct nacl_stat *st) { return stat_at(path, st); }

static int irt_mkdir(const char *path, u32 mode) {
    char last[256];
    int dir = resolve(path, last);
    if (dir < 0) return -dir;
    long r = sys3(SYS_mkdirat, dir, last, mode & 0777);
    sys1(SYS_close, dir);
    return err_of(r);
}

static int unlink_at(const char *path, int flags) {
    char last[256];
    int dir = resolve(path, last);
    if (dir < 0) return -dir;
    long r = sys3(SYS_unlinkat, dir, last, flags);
    sys1(SYS_close, dir);
    return err_of(r);
}

static int irt_rmdir(const char *path) { return unlink_at(path, AT_REMOVEDIR); }
static int irt_unlink(const char *path) { return unlink_at(path, 0); }

/* The program's effective user and group, taken before the sandbox. */
static u32 euid, egid;

/* access(2) by what an open may reach: reading needs the file to open for reading,
   writing a root that is not read-only and the mode's write bit for this user (as the
   kernel judges a process without capabilities), executing the execute bit. */
static int irt_access(const char *path, int amode) {
    struct nacl_stat st;
    int readable;
    long fd = open_for_status(path, &st, &readable);
    if (SYS_FAILED(fd)) return (int)-fd;
    sys1(SYS_close, fd);
    u32 shift = st.st_uid == euid ? 6 : st.st_gid == egid ? 3 : 0;
    u32 bits = (st.st_mode >> shift) & 7;
    if ((amode & 4) && !readable) return NACL_EACCES;
    if ((amode & 2) && (fs_readonly || !(bits & 2))) return NACL_EACCES;
    if ((amode & 1) && !(bits & 1)) return NACL_EACCES;
    return 0;
}

static int has_root(void) { return fs_root >= 0; }

static int irt_readlink(const char *path, char *buf, size_t count, size_t *nread) {
    (void)buf;
    (void)count;
    (void)nread;
    char last[256];
    int dir = resolve(path, last);
    if (dir < 0) return -dir;
    sys1(SYS_close, dir);
    return NACL_EINVAL; /* links are not followed inside the sandbox */
}

static int irt_getpid(int *pid) {
    *pid = (int)sys0(SYS_getpid);
    return 0;
}

static int irt_get_random_bytes(void *buf, size_t count, size_t *nread) {
    long r = sys3(SYS_getrandom, buf, count, 0);
    if (SYS_FAILED(r)) return -r;
    *nread = r;
    return 0;
}

/* What the PPAPI host needs of this backend. */
static void *host_pages(size_t len) { return map_anon(len); }
static uptr host_thread_id(void) { return (uptr)self(); }
static int start_argc;
static char **start_argv;

/* Natively nothing waits for the instance to be made (a page does: wasi.c). */
static void ppapi_ready(void) {}
/* Natively there is no page: no channel to one (the PPAPI host never uses it). */
static int host_channel_write(const void *p, u32 n) { (void)p, (void)n; return -1; }
static i32 host_channel_read(void *p, u32 n) { (void)p, (void)n; return -1; }

#include "ppapi.h"
#include "irt_tables.h"
#if PNACL_REGION
#include "region_calls.h"
#endif

/* ----------------------------------------------------------------------------------- */
/* Start-up                                                                            */

void __pnacl_entry(u32 info); /* the translated pexe's _start, through its thunk */

static void main_thread(void *info) {
#if PNACL_REGION
    thread_begin(self());
#endif
    __pnacl_entry((u32)(uptr)info);
    exit_process(0); /* a _start that returns ends the process */
}


/* A decimal number, or -1. */
static long decimal(const char *s) {
    long v = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000) return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* The last component of a path. */
static const char *base_name(const char *p) {
    const char *b = p;
    for (; *p; p++)
        if (*p == '/') b = p + 1;
    return b;
}

/* What the environment tells the runtime, and what it hands the pexe: only the variables
   the user names for it (PNACL_ENV_NAME=value becomes NAME=value); the rest, the runtime's
   own included, never reach it, nor stay in the memory it can read. */
struct settings {
    int wipe; /* the strings are the kernel's: the process's first entry */
    int readonly;
    int contained; /* PNACL_CONTAINED=1: pnacl-run contains the process from outside */
    const char *unsandboxed; /* PNACL_ALLOW_UNSANDBOXED's value, or NULL */
};

static int read_environment(char **envp, int envc, struct settings *set) {
    int kept = 0;
    for (int i = 0; i < envc; i++) {
        char *e = envp[i];
        const char *v;
        int keep_value = 0;
        if ((v = env_value(e, "PNACL_ENV_")) && *v && *v != '=') {
            envp[kept++] = (char *)v;
            continue;
        }
        if ((v = env_value(e, "PNACL_FS_ROOT=")) && *v) {
            long r = sys4(SYS_openat, AT_FDCWD, v, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
            if (SYS_FAILED(r)) fatal("PNACL_FS_ROOT does not name a directory");
            if (fs_root >= 0) sys1(SYS_close, fs_root);
            fs_root = (int)r;
        } else if ((v = env_value(e, "PNACL_FS_READONLY="))) {
            set->readonly = streq(v, "1");
        } else if ((keep_value = ppapi_setting(e))) {
            keep_value = keep_value == 2; /* the PPAPI host's (ppapi.h), perhaps used as it is */
#if PNACL_REGION
            /* A plugin's host is its pexe's own code (ppapi_pexe.c), which takes its
               settings out of the environment before the plugin starts. */
            if (__pnacl_ppapi_host) {
                envp[kept++] = e;
                continue;
            }
#endif
        } else if ((v = env_value(e, "PNACL_CONTAINED="))) {
            set->contained = streq(v, "1");
        } else if ((v = env_value(e, "PNACL_ALLOW_UNSANDBOXED="))) {
            set->unsandboxed = v;
            keep_value = 1; /* until the decision (uncontained) */
        } else if ((v = env_value(e, "PNACL_MAX_THREADS="))) {
            long n = decimal(v);
            if (n < 1 || n > THREAD_SLOTS)
                fatal("PNACL_MAX_THREADS is not a number of threads from 1 to 4096");
            max_threads = (int)n;
        }
        /* Not the pexe's: wiped once read (where the kernel put it: a forged second entry's
           strings may be constants). */
        if (!keep_value && set->wipe) zero(e, slen(e));
    }
    envp[kept] = NULL;
    return kept;
}

/* The opt-out from a sandbox the kernel cannot give, decided for one program at a time:
   PNACL_ALLOW_UNSANDBOXED must name the program being run (its file name), so that the
   variable left exported does not open every program. Ends the program unless allowed. */
static void uncontained(const char *why, const char *allow, const char *program) {
    const char *name = base_name(program);
    if (!allow || !streq(allow, name)) {
        write_str(2, "pnacl runtime: cannot contain this program: ");
        write_str(2, why);
        write_str(2, ".\npnacl runtime: to run it uncontained all the same, this once, name it: "
                     "PNACL_ALLOW_UNSANDBOXED=");
        write_str(2, name);
        write_str(2, "\n");
        exit_process(126);
    }
    write_str(2, "pnacl runtime: ************************************************************\n"
                 "pnacl runtime: WARNING: RUNNING UNCONTAINED (PNACL_ALLOW_UNSANDBOXED=");
    write_str(2, name);
    write_str(2, ")\npnacl runtime: ");
    write_str(2, why);
    write_str(2, ".\npnacl runtime: this program can read, change and delete your files, run "
                 "programs\npnacl runtime: and use the network as you can.\n"
                 "pnacl runtime: ************************************************************\n");
}

/* Whether the kernel holds this process to a seccomp filter (its status says
   "Seccomp:\t2"), read before the runtime installs its own. qemu answers PR_GET_SECCOMP
   itself, so the status is read. */
static int seccomp_filtered(void) {
    long fd = sys4(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
    if (SYS_FAILED(fd)) return 0;
    static char text[4096];
    long n = 0, r;
    while (n < (long)sizeof text - 1 && (r = sys3(SYS_read, fd, text + n, sizeof text - 1 - n)) > 0) n += r;
    sys1(SYS_close, fd);
    text[n] = 0;
    for (char *p = text; *p; p++)
        if (env_value(p, "\nSeccomp:\t2")) return 1;
    return 0;
}

/* Called by _start with the kernel's initial stack: argc, argv..., 0, envp..., 0, auxv. */
void __pnacl_main(long *sp) {
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    char **envp = argv + argc + 1;
    int envc = 0;
    while (envp[envc]) envc++;
    struct thread *t = NULL;
#if PNACL_REGION
    /* Before anything maps memory or uses thread-local storage: the region and the
       pexe's globals in it, then the main thread's stack, its thread-local storage and
       signal stack, and the signals that end the program on a trap. */
    region_init();
    function_table_init();
    find_tls((const u64 *)(envp + envc + 1));
    t = new_stack();
    if (!t) fatal("cannot map the main thread's stack");
    set_thread_pointer(tls_setup((u8 *)t->region + PAGE_UP(sizeof(struct thread))));
    catch_signals();
#endif

    static int entered;
    struct settings set = {.wipe = !entered};
    entered = 1;
    envc = read_environment(envp, envc, &set);
    fs_readonly = set.readonly;
    start_argc = argc;
    start_argv = argv;
    euid = (u32)sys0(SYS_geteuid32);
    egid = (u32)sys0(SYS_getegid32);

    /* Contained from outside (pnacl-run, for a program under qemu-arm, which passes the
       guest neither Landlock nor seccomp): said so, and the kernel shows a seccomp filter
       on the process. */
    int outside = set.contained && seccomp_filtered();

    /* The outer sandbox, before anything of the pexe runs (sandbox.c). */
    const char *why = sandbox_install(fs_root, set.readonly, max_threads);
    if (why && !outside) uncontained(why, set.unsandboxed, argc > 0 ? argv[0] : "");
    if (set.unsandboxed && set.wipe) zero((char *)set.unsandboxed, slen(set.unsandboxed));

    /* The NaCl start-up vector (runtime.md §1.2): fini, envc, argc, argv, 0, envp, 0, auxv;
       on a region target in the region, the strings too. */
    size_t words = 3 + (argc + 1) + (envc + 1) + 4;
#if PNACL_REGION
    size_t strings = 0;
    for (int i = 0; i < argc; i++) strings += slen(argv[i]) + 1;
    for (int i = 0; i < envc; i++) strings += slen(envp[i]) + 1;
    u32 *info = G(region_alloc(words * 4 + strings, 0));
    char *text = (char *)(info + words);
    /* A string's copy in the region: its pexe address. */
#define PEXE_STRING(s) (copy(text, s, slen(s) + 1), text += slen(s) + 1, (u32)(uptr)(text - slen(s) - 1))
#define ARG(i) PEXE_STRING(argv[i])
#define ENV(i) PEXE_STRING(envp[i])
#define QUERY IRT_K_irt_query
#else
    u32 *info = map_anon(words * 4);
    if (!info) fatal("out of memory at start-up");
#define ARG(i) (u32)(uptr)argv[i]
#define ENV(i) (u32)(uptr)envp[i]
#define QUERY (u32)(uptr)irt_query
#endif
    size_t w = 0;
    info[w++] = 0;
    info[w++] = envc;
    info[w++] = argc;
    for (int i = 0; i < argc; i++) info[w++] = ARG(i);
    info[w++] = 0;
    for (int i = 0; i < envc; i++) info[w++] = ENV(i);
    info[w++] = 0;
    info[w++] = 32; /* AT_SYSINFO */
    info[w++] = QUERY;
    info[w++] = 0; /* AT_NULL */
    info[w++] = 0;

#if PNACL_REGION
    /* The pexe's own stack, in the region, a guard page below it. */
    u32 stack = (u32)region_alloc(PEXE_STACK, 1);
    t->pexe_sp = stack + PEXE_STACK;
    t->pexe_sp_limit = stack;
#else
    t = new_stack();
    if (!t) fatal("cannot map the main thread's stack");
#endif
    t->tp = 0;
    t->id = 1;
    t->tid_word = 1;
    __pnacl_switch_stack((u8 *)t->region + STACK_SIZE, main_thread, info);
}
