/*
 * The runtime of a pexe translated to WebAssembly: process start-up, the NaCl IRT
 * interfaces newlib asks for (runtime.md §1-§3) over WASI preview 1, threads over
 * wasi-threads (`wasi.thread-spawn`), futexes as memory.atomic.wait32/notify, anonymous
 * memory from memory.grow, and the setjmp/longjmp support LLVM's WebAssembly lowering
 * calls (saveSetjmp, testSetjmp, __wasm_longjmp, malloc, free).
 *
 * Freestanding: no libc. The module is a standard WASI command (its `_start`), that also
 * exports `wasi_thread_start` (arch_wasm32.S) for the threads it spawns. What it may reach
 * is what the host gives it: the standard streams and at most one preopened directory,
 * the root the user named; the engine keeps it inside its own linear memory.
 */

#include "backend.h"

#define PAGE 65536u    /* the granularity of anonymous memory: a WebAssembly page */
#include "guest.h"

/* ----------------------------------------------------------------------------------- */
/* WASI preview 1 and wasi-threads                                                     */

#define WASI(name) __attribute__((import_module("wasi_snapshot_preview1"), import_name(#name)))
struct iovec { const void *buf; size_t len; };
struct fdstat { u8 filetype; u16 flags; u64 rights_base, rights_inheriting; };
struct filestat { u64 dev, ino; u8 filetype; u64 nlink, size, atim, mtim, ctim; };
struct prestat { u8 tag; u32 name_len; };

WASI(args_sizes_get) int wasi_args_sizes_get(size_t *argc, size_t *size);
WASI(args_get) int wasi_args_get(char **argv, char *buf);
WASI(environ_sizes_get) int wasi_environ_sizes_get(size_t *envc, size_t *size);
WASI(environ_get) int wasi_environ_get(char **envp, char *buf);
WASI(clock_time_get) int wasi_clock_time_get(u32 id, u64 precision, u64 *time);
WASI(clock_res_get) int wasi_clock_res_get(u32 id, u64 *res);
WASI(fd_close) int wasi_fd_close(int fd);
WASI(fd_fdstat_get) int wasi_fd_fdstat_get(int fd, struct fdstat *st);
WASI(fd_filestat_get) int wasi_fd_filestat_get(int fd, struct filestat *st);
WASI(fd_prestat_get) int wasi_fd_prestat_get(int fd, struct prestat *p);
WASI(fd_read) int wasi_fd_read(int fd, const struct iovec *iov, size_t n, size_t *nread);
WASI(fd_write) int wasi_fd_write(int fd, const struct iovec *iov, size_t n, size_t *nwritten);
WASI(fd_seek) int wasi_fd_seek(int fd, i64 offset, u8 whence, u64 *newoffset);
WASI(fd_readdir) int wasi_fd_readdir(int fd, void *buf, size_t len, u64 cookie, size_t *used);
WASI(path_open)
int wasi_path_open(int dirfd, u32 lookup, const char *path, size_t len, u16 oflags, u64 rights,
                   u64 inheriting, u16 fdflags, int *fd);
WASI(path_filestat_get)
int wasi_path_filestat_get(int dirfd, u32 lookup, const char *path, size_t len, struct filestat *st);
WASI(path_create_directory) int wasi_path_create_directory(int dirfd, const char *path, size_t len);
WASI(path_remove_directory) int wasi_path_remove_directory(int dirfd, const char *path, size_t len);
WASI(path_unlink_file) int wasi_path_unlink_file(int dirfd, const char *path, size_t len);
WASI(proc_exit) __attribute__((noreturn)) void wasi_proc_exit(int status);
WASI(random_get) int wasi_random_get(void *buf, size_t len);
__attribute__((import_module("wasi"), import_name("thread-spawn"))) int wasi_thread_spawn(void *arg);

/* NaCl's errno for each WASI errno (the WASI numbering is its own). */
static int nacl_errno(int e) {
    static const u8 map[76] = {
        0,  7,  13, 98, 99, 97, 11, 114, 9,  74, 16, 125, 10, 103, 111, 104, 35, 89, 33,
        122, 17, 14, 27, 113, 43, 84, 115, 4,  22, 5,  106, 21, 40, 24, 31, 90, 72, 36,
        100, 102, 101, 23, 105, 19, 2,  8,  37, 67, 12, 42, 92, 28, 38, 107, 20, 39, 131,
        88, 95, 25, 75, 130, 1,  32, 71, 93, 91, 34, 30, 29, 3,  116, 110, 26, 18, 13};
    return e >= 0 && e < 76 ? map[e] : NACL_EINVAL;
}

/* ----------------------------------------------------------------------------------- */
/* Basics                                                                              */


static void write_str(int fd, const char *s) {
    struct iovec v = {s, slen(s)};
    size_t n;
    wasi_fd_write(fd, &v, 1, &n);
}

static void write_num(int fd, u32 v) {
    char b[12];
    int i = 11;
    b[i] = 0;
    do b[--i] = (char)('0' + v % 10); while (v /= 10);
    write_str(fd, b + i);
}

static void out_flush(void);

/* PNACL_STATS=1: at the end, how many times the calls of the thread that ends the
   program handed over to new calls of their functions (src/llvm/resume.rs). */
static int stats;
u32 __pnacl_handover_count(void);

__attribute__((noreturn)) static void exit_process(int status) {
    out_flush();
    if (stats) {
        write_str(2, "pnacl: ");
        write_num(2, __pnacl_handover_count());
        write_str(2, " hand-overs to new calls\n");
    }
    wasi_proc_exit(status);
}





/* A lock: an atomic word, 0 free, 1 held, 2 held with perhaps a waiter sleeping in
   memory.atomic.wait32. Only then does unlocking notify: V8's notify is a call into the
   engine, which takes a process-wide lock (one a line of output, as the pexe writes). */
static void lock(volatile int *l) {
    int c = 0;
    if (__atomic_compare_exchange_n(l, &c, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    if (c != 2) c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        __builtin_wasm_memory_atomic_wait32((int *)l, 2, -1);
        c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    }
}
static void unlock(volatile int *l) {
    if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
        __builtin_wasm_memory_atomic_notify((int *)l, 1);
}

static long raw_write(int fd, const void *buf, size_t n) {
    struct iovec v = {buf, n};
    size_t w;
    int e = wasi_fd_write(fd, &v, 1, &w);
    return e ? -(long)nacl_errno(e) : (long)w;
}

static long raw_read(int fd, void *buf, size_t n) {
    struct iovec v = {buf, n};
    size_t r;
    int e = wasi_fd_read(fd, &v, 1, &r);
    return e ? -(long)nacl_errno(e) : (long)r;
}

static int raw_close(int fd) { return nacl_errno(wasi_fd_close(fd)); }

/* A terminal: a character device that cannot seek (as wasi-libc decides). */
static int is_terminal(int fd) {
    struct fdstat st;
    return wasi_fd_fdstat_get(fd, &st) == 0 && st.filetype == 2 &&
           !(st.rights_base & ((1u << 2) | (1u << 5)));
}

#include "outbuf.h"

/* ----------------------------------------------------------------------------------- */
/* Memory: pages past the module's data and stack, from memory.grow; what is unmapped is
   kept in a list of free ranges and handed out again, zeroed.                         */

struct range { uptr start, len; };
#define MAX_RANGES 4096
static struct range free_ranges[MAX_RANGES];
static int nfree;
static volatile int mem_lock;

static uptr round_up(uptr n, uptr to) { return (n + to - 1) & ~(to - 1); }

static void release(uptr start, uptr len) {
    /* Merged with its neighbours; kept sorted by address. */
    int i = 0;
    while (i < nfree && free_ranges[i].start < start) i++;
    if (i > 0 && free_ranges[i - 1].start + free_ranges[i - 1].len == start) {
        free_ranges[i - 1].len += len;
        if (i < nfree && start + len == free_ranges[i].start) {
            free_ranges[i - 1].len += free_ranges[i].len;
            for (int k = i; k + 1 < nfree; k++) free_ranges[k] = free_ranges[k + 1];
            nfree--;
        }
        return;
    }
    if (i < nfree && start + len == free_ranges[i].start) {
        free_ranges[i].start = start;
        free_ranges[i].len += len;
        return;
    }
    if (nfree == MAX_RANGES) return; /* forgotten: a leak, never a fault */
    for (int k = nfree; k > i; k--) free_ranges[k] = free_ranges[k - 1];
    free_ranges[i].start = start;
    free_ranges[i].len = len;
    nfree++;
}

/* `len` bytes (a multiple of PAGE) of zeroed memory, or NULL. */
static void *pages(uptr len) {
    lock(&mem_lock);
    for (int i = 0; i < nfree; i++) {
        if (free_ranges[i].len >= len) {
            uptr p = free_ranges[i].start;
            free_ranges[i].start += len;
            free_ranges[i].len -= len;
            if (free_ranges[i].len == 0) {
                for (int k = i; k + 1 < nfree; k++) free_ranges[k] = free_ranges[k + 1];
                nfree--;
            }
            unlock(&mem_lock);
            __builtin_memset((void *)p, 0, len);
            return (void *)p;
        }
    }
    long old = __builtin_wasm_memory_grow(0, len / PAGE);
    unlock(&mem_lock);
    return old < 0 ? NULL : (void *)((uptr)old * PAGE);
}

static void unpages(void *p, uptr len) {
    lock(&mem_lock);
    release((uptr)p, len);
    unlock(&mem_lock);
}

/* The runtime's own small allocations (LLVM's setjmp tables, thread records): blocks of
   16 << k bytes, kept in a free list per size. */
#define CLASSES 12
static void *free_blocks[CLASSES];
static volatile int alloc_lock;

static int size_class(size_t n) {
    int k = 0;
    while ((16u << k) < n + 16) k++;
    return k;
}

void *malloc(size_t n) {
    int k = size_class(n);
    u32 *b;
    if (k >= CLASSES) {
        b = pages(round_up(n + 16, PAGE));
    } else {
        lock(&alloc_lock);
        b = free_blocks[k];
        if (b) {
            free_blocks[k] = *(void **)(b + 4);
        } else {
            static u8 *chunk, *chunk_end;
            size_t size = 16u << k;
            if (!chunk || chunk + size > chunk_end) {
                chunk = pages(PAGE);
                chunk_end = chunk ? chunk + PAGE : NULL;
            }
            b = (u32 *)chunk;
            if (chunk) chunk += size;
        }
        unlock(&alloc_lock);
    }
    if (!b) return NULL;
    b[0] = (u32)k;
    b[1] = (u32)n;
    return b + 4;
}

void free(void *p) {
    if (!p) return;
    u32 *b = (u32 *)p - 4;
    int k = (int)b[0];
    if (k >= CLASSES) {
        unpages(b, round_up(b[1] + 16, PAGE));
        return;
    }
    lock(&alloc_lock);
    *(void **)(b + 4) = free_blocks[k];
    free_blocks[k] = b;
    unlock(&alloc_lock);
}

void *realloc(void *p, size_t n) {
    if (!p) return malloc(n);
    size_t old = ((u32 *)p - 4)[1];
    void *q = malloc(n);
    if (q) {
        copy(q, p, old < n ? old : n);
        free(p);
    }
    return q;
}

/* ----------------------------------------------------------------------------------- */
/* Threads                                                                             */

struct thread {
    uptr stack_top;     /* read by wasi_thread_start (arch_wasm32.S) before anything */
    void (*start)(void);
    u32 tp;             /* the pexe's thread pointer it starts with */
    struct { void *env; int val; } thrown; /* what its longjmp throws (below) */
};

/* What is each thread's own lives in WebAssembly globals, which each thread's instance
   has its own of (arch_wasm32.S): the calling thread's record, and the pexe's thread
   pointer (whose reader, llvm.nacl.read.tp, is arch_wasm32.S's __pnacl_read_tp). Not C's
   thread-local data: clang keeps that only for code compiled with bulk memory, which the
   runtime is not (arch_wasm32.S says why). */
struct thread *__pnacl_thread(void);
void __pnacl_set_thread(struct thread *t);
u32 __pnacl_read_tp(void);
void __pnacl_set_tp(u32 tp);
static struct thread main_thread;

void __pnacl_thread_unwind(void) __attribute__((noreturn)); /* arch_wasm32.S */

/* A new thread, on its instance: wasi_thread_start has set its stack pointer. */
void __pnacl_thread_main(int tid, struct thread *t) {
    (void)tid;
    __pnacl_set_thread(t);
    __pnacl_set_tp(t->tp);
    t->start();
    /* A thread's start function never returns (it calls thread_exit). */
    fatal("a thread's start function returned");
}

/* A thread that runs `start`: for the pexe (irt_thread_create), or for the PPAPI host's
   own use, where no pexe code runs (its readers). */
static int host_thread_create(void (*start)(void), void *stack, void *thread_ptr) {
    struct thread *t = malloc(sizeof *t);
    if (!t) return NACL_ENOMEM;
    /* The pexe's stack: its code keeps its locals in linear memory, below this. */
    t->stack_top = (uptr)stack & ~(uptr)15;
    t->start = start;
    t->tp = (u32)(uptr)thread_ptr;
    int tid = wasi_thread_spawn(t);
    if (tid < 0) {
        free(t);
        return NACL_EAGAIN;
    }
    return 0;
}

static void irt_thread_exit(i32 *stack_flag) {
    if (stack_flag) {
        __atomic_store_n(stack_flag, 0, __ATOMIC_SEQ_CST);
        __builtin_wasm_memory_atomic_notify((int *)stack_flag, -1);
    }
    /* Unwinds to wasi_thread_start, which returns: the end of a wasi-threads thread. */
    __pnacl_thread_unwind();
}

static int irt_thread_nice(int nice) {
    (void)nice;
    return 0;
}

static int irt_tls_init(void *thread_ptr) {
    __pnacl_set_tp((u32)(uptr)thread_ptr);
    return 0;
}

static void *irt_tls_get(void) { return (void *)(uptr)__pnacl_read_tp(); }

/* ----------------------------------------------------------------------------------- */
/* setjmp/longjmp, as LLVM's WebAssembly lowering (-wasm-enable-sjlj) calls them: each
   function that calls setjmp keeps a table of (setjmp id, label) pairs, malloc'ed, of
   which saveSetjmp records one (and gives the table's size back through getTempRet0);
   longjmp throws the __c_longjmp tag with (env, value), which the function whose table
   holds env's id catches. */

struct setjmp_entry { u32 id, label; };
static u32 setjmp_ids;
void setTempRet0(u32 v); /* arch_wasm32.S's, per thread */

struct setjmp_entry *saveSetjmp(u32 *env, u32 label, struct setjmp_entry *table, u32 size) {
    u32 id = __atomic_add_fetch(&setjmp_ids, 1, __ATOMIC_RELAXED);
    *env = id;
    u32 i = 0;
    while (i < size && table[i].id != 0) i++;
    if (i == size) {
        /* Full: twice the room (and the end mark). */
        size *= 2;
        table = realloc(table, sizeof *table * (size + 1));
        if (!table) fatal("out of memory for a setjmp table");
    }
    table[i].id = id;
    table[i].label = label;
    table[i + 1].id = 0;
    setTempRet0(size);
    return table;
}

u32 testSetjmp(u32 id, struct setjmp_entry *table, u32 size) {
    (void)size;
    for (u32 i = 0; table[i].id != 0; i++)
        if (table[i].id == id) return table[i].label;
    return 0;
}

void __wasm_longjmp(void *env, int val) {
    struct thread *t = __pnacl_thread();
    t->thrown.env = env;
    t->thrown.val = val;
    __builtin_wasm_throw(1, &t->thrown);
}

/* ----------------------------------------------------------------------------------- */
/* Time                                                                                */


static int now(u32 clk, u64 *ns) { return nacl_errno(wasi_clock_time_get(clk, 1, ns)); }

/* The NaCl ABI's clocks, 0 to 3, are WASI's ids too; any other is EINVAL, as NaCl's. */
#define MAX_CLOCK 3

static int irt_clock_gettime(u32 clk, struct nacl_timespec *tp) {
    if (clk > MAX_CLOCK) return NACL_EINVAL;
    u64 ns;
    int e = now(clk, &ns);
    if (e) return e;
    tp->tv_sec = (i64)(ns / 1000000000u);
    tp->tv_nsec = (i32)(ns % 1000000000u);
    return 0;
}

static int irt_clock_getres(u32 clk, struct nacl_timespec *res) {
    if (clk > MAX_CLOCK) return NACL_EINVAL;
    u64 ns;
    int e = nacl_errno(wasi_clock_res_get(clk, &ns));
    if (e) return e;
    if (res) {
        res->tv_sec = (i64)(ns / 1000000000u);
        res->tv_nsec = (i32)(ns % 1000000000u);
    }
    return 0;
}

static int irt_gettod(struct nacl_timeval *tv) {
    u64 ns;
    int e = now(0, &ns);
    if (e) return e;
    tv->tv_sec = (i64)(ns / 1000000000u);
    tv->tv_usec = (i32)(ns % 1000000000u / 1000);
    return 0;
}

static int irt_clock(i32 *ticks) {
    u64 ns;
    int e = now(2, &ns);
    if (e) return e;
    *ticks = (i32)(ns / 1000);
    return 0;
}

/* Sleeps `ns` nanoseconds: a wait nothing wakes. */
static int sleep_word;
static void sleep_ns(i64 ns) {
    if (ns > 0) __builtin_wasm_memory_atomic_wait32(&sleep_word, 0, ns);
}

static int irt_nanosleep(const struct nacl_timespec *req, struct nacl_timespec *rem) {
    if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) return NACL_EINVAL;
    sleep_ns(req->tv_sec * 1000000000 + req->tv_nsec);
    if (rem) rem->tv_sec = 0, rem->tv_nsec = 0;
    return 0;
}

static int irt_sched_yield(void) { return 0; }

static int nprocs = 1;

/* The processors the program may use: what the host says (PNACL_NPROCS). */
static int online_cpus(void) { return nprocs; }




/* ----------------------------------------------------------------------------------- */
/* Futexes                                                                             */

static int irt_futex_wait_abs(volatile int *addr, int value, const struct nacl_timespec *abstime) {
    i64 timeout = -1;
    if (abstime) {
        u64 ns;
        now(0, &ns);
        i64 until = abstime->tv_sec * 1000000000 + abstime->tv_nsec;
        timeout = until - (i64)ns;
        if (timeout <= 0) return NACL_ETIMEDOUT;
    }
    int r = __builtin_wasm_memory_atomic_wait32((int *)addr, value, timeout);
    if (r == 1) return NACL_EAGAIN; /* the word was not `value` */
    if (r == 2) return NACL_ETIMEDOUT;
    return 0;
}

static int irt_futex_wake(volatile int *addr, int nwake, int *count) {
    *count = __builtin_wasm_memory_atomic_notify((int *)addr, nwake < 0 ? 0x7fffffff : nwake);
    return 0;
}

/* ----------------------------------------------------------------------------------- */
/* Memory                                                                              */


static int irt_mmap(void **addr, size_t len, int prot, int flags, int fd, i64 off) {
    (void)fd;
    (void)off;
    if (prot & NACL_PROT_EXEC) return NACL_EACCES; /* there is no executable memory at all */
    if (prot & ~(NACL_PROT_READ | NACL_PROT_WRITE)) return NACL_EINVAL;
    if (!(flags & NACL_MAP_ANONYMOUS)) return 19; /* ENODEV: files are not mapped */
    if ((flags & NACL_MAP_FIXED) || len == 0) return NACL_EINVAL;
    void *p = pages(round_up(len, PAGE));
    if (!p) return NACL_ENOMEM;
    *addr = p;
    return 0;
}

static int irt_munmap(void *addr, size_t len) {
    if ((uptr)addr & (PAGE - 1)) return NACL_EINVAL;
    unpages(addr, round_up(len, PAGE));
    return 0;
}

static int irt_mprotect(void *addr, size_t len, int prot) {
    (void)addr;
    (void)len;
    if (prot & NACL_PROT_EXEC) return NACL_EACCES;
    return 0;
}

static int irt_sysbrk(void **newbrk) {
    (void)newbrk;
    return NACL_ENOSYS;
}

/* ----------------------------------------------------------------------------------- */
/* Descriptors: 0, 1, 2 and what the program opened; the root (3, preopened) is not
   the program's to use as a descriptor.                                               */

static int root_fd = -1;



static int irt_dup(int fd, int *newfd) {
    (void)newfd;
    return allowed(fd) ? NACL_ENOSYS : NACL_EBADF;
}

static int irt_dup2(int fd, int newfd) {
    out_flush();
    (void)newfd;
    return allowed(fd) ? NACL_ENOSYS : NACL_EBADF;
}




static int irt_seek(int fd, i64 offset, int whence, i64 *new_offset) {
    if (!allowed(fd)) return NACL_EBADF;
    u64 pos;
    int e = nacl_errno(wasi_fd_seek(fd, offset, (u8)whence, &pos));
    if (!e) *new_offset = (i64)pos;
    return e;
}


static void to_nacl_stat(const struct filestat *f, struct nacl_stat *s) {
    static const u32 modes[8] = {0, 0060644, 0020666, 0040755, 0100644, 0140644, 0140644, 0120777};
    __builtin_memset(s, 0, sizeof *s);
    s->st_dev = (i64)f->dev;
    s->st_ino = f->ino;
    s->st_mode = f->filetype < 8 ? modes[f->filetype] : 0;
    s->st_nlink = (u32)f->nlink;
    s->st_size = (i64)f->size;
    s->st_blksize = 4096;
    s->st_blocks = (i32)((f->size + 511) / 512);
    s->st_atime = (i64)(f->atim / 1000000000u);
    s->st_atimensec = (i64)(f->atim % 1000000000u);
    s->st_mtime = (i64)(f->mtim / 1000000000u);
    s->st_mtimensec = (i64)(f->mtim % 1000000000u);
    s->st_ctime = (i64)(f->ctim / 1000000000u);
    s->st_ctimensec = (i64)(f->ctim % 1000000000u);
}

static int irt_fstat(int fd, struct nacl_stat *st) {
    if (!allowed(fd)) return NACL_EBADF;
    struct filestat f;
    int e = nacl_errno(wasi_fd_filestat_get(fd, &f));
    if (!e) to_nacl_stat(&f, st);
    return e;
}

/* nacl_abi_dirent records (runtime.md §3.4), rebuilt from WASI's. The WASI cookie of the
   next entry is kept per descriptor. */
static u64 dir_cookie[MAX_FDS];

static int irt_getdents(int fd, void *buf, size_t count, size_t *nread) {
    if (!allowed(fd)) return NACL_EBADF;
    u8 tmp[4096];
    size_t used;
    int e = nacl_errno(wasi_fd_readdir(fd, tmp, sizeof tmp, dir_cookie[fd], &used));
    if (e) return e;
    size_t in = 0, out = 0;
    while (in + 24 <= used) {
        u64 next, ino;
        u32 nlen;
        copy(&next, tmp + in, 8);
        copy(&ino, tmp + in + 8, 8);
        copy(&nlen, tmp + in + 16, 4);
        if (in + 24 + nlen > used) break; /* cut off: read again from its cookie */
        size_t rec = (18 + nlen + 1 + 7) & ~(size_t)7;
        if (out + rec > count) {
            if (out == 0) return NACL_EINVAL;
            break;
        }
        u8 *o = (u8 *)buf + out;
        __builtin_memset(o, 0, rec);
        copy(o, &ino, 8);
        copy(o + 8, &next, 8);
        u16 rl = (u16)rec;
        copy(o + 16, &rl, 2);
        copy(o + 18, tmp + in + 24, nlen);
        out += rec;
        in += 24 + nlen;
        dir_cookie[fd] = next;
    }
    *nread = out;
    return 0;
}



/* ----------------------------------------------------------------------------------- */
/* File names: beneath the preopened root, which the host resolves and confines; a path
   is taken relative to the root ('/' is the root).                                    */

static int rooted(const char **path, size_t *len) {
    if (root_fd < 0) return NACL_EACCES;
    if (!*path || !**path) return NACL_ENOENT;
    while (**path == '/') (*path)++;
    *len = slen(*path);
    if (*len == 0) *path = ".", *len = 1;
    if (*len >= 4096) return NACL_ENAMETOOLONG;
    return 0;
}

static int irt_open(const char *path, int oflag, u32 mode, int *newfd) {
    (void)mode;
    size_t len;
    int e = rooted(&path, &len);
    if (e) return e;
    u16 oflags = 0, fdflags = 0;
    if (oflag & NACL_O_CREAT) oflags |= 1;
    if (oflag & NACL_O_DIRECTORY) oflags |= 2;
    if (oflag & NACL_O_EXCL) oflags |= 4;
    if (oflag & NACL_O_TRUNC) oflags |= 8;
    if (oflag & NACL_O_APPEND) fdflags |= 1;
    /* Rights: reading (fd_read, seek, tell, stat, readdir), writing as asked. */
    u64 rights = (1u << 1) | (1u << 2) | (1u << 5) | (1u << 14) | (1u << 21);
    if ((oflag & NACL_O_ACCMODE) != 0) rights |= (1u << 6) | (1u << 4) | (1u << 22);
    if ((oflag & NACL_O_ACCMODE) == 1) rights &= ~(u64)(1u << 1);
    int fd;
    e = nacl_errno(wasi_path_open(root_fd, 0, path, len, oflags, rights, 0, fdflags, &fd));
    if (e) return e;
    if (fd >= MAX_FDS) {
        wasi_fd_close(fd);
        return 24; /* EMFILE */
    }
    dir_cookie[fd] = 0;
    allow(fd);
    *newfd = fd;
    return 0;
}

static int stat_at(const char *path, struct nacl_stat *st) {
    size_t len;
    int e = rooted(&path, &len);
    if (e) return e;
    struct filestat f;
    e = nacl_errno(wasi_path_filestat_get(root_fd, 0, path, len, &f));
    if (!e) to_nacl_stat(&f, st);
    return e;
}

static int irt_stat(const char *path, struct nacl_stat *st) { return stat_at(path, st); }
static int irt_lstat(const char *path, struct nacl_stat *st) { return stat_at(path, st); }

static int irt_mkdir(const char *path, u32 mode) {
    (void)mode;
    size_t len;
    int e = rooted(&path, &len);
    return e ? e : nacl_errno(wasi_path_create_directory(root_fd, path, len));
}

static int irt_rmdir(const char *path) {
    size_t len;
    int e = rooted(&path, &len);
    return e ? e : nacl_errno(wasi_path_remove_directory(root_fd, path, len));
}

static int irt_unlink(const char *path) {
    size_t len;
    int e = rooted(&path, &len);
    return e ? e : nacl_errno(wasi_path_unlink_file(root_fd, path, len));
}

static int irt_access(const char *path, int amode) {
    (void)amode;
    struct nacl_stat st;
    return stat_at(path, &st);
}

static int has_root(void) { return root_fd >= 0; }

static int irt_readlink(const char *path, char *buf, size_t count, size_t *nread) {
    (void)buf;
    (void)count;
    (void)nread;
    struct nacl_stat st;
    int e = stat_at(path, &st);
    return e ? e : NACL_EINVAL; /* links are not followed inside the root */
}

static int irt_getpid(int *pid) {
    *pid = 1;
    return 0;
}

static int irt_get_random_bytes(void *buf, size_t count, size_t *nread) {
    int e = nacl_errno(wasi_random_get(buf, count));
    if (!e) *nread = count;
    return e;
}

/* What the PPAPI host needs of this backend. */
static void *host_pages(size_t len) { return pages(round_up(len, PAGE)); }
static uptr host_thread_id(void) { return (uptr)__pnacl_thread(); }
static int start_argc;
static char **start_argv;

/* The host learns that the plugin's instance is made (a page fires `load`). */
__attribute__((import_module("pnacl"), import_name("ppapi_ready"))) void pnacl_ppapi_ready(void);
static void ppapi_ready(void) { pnacl_ppapi_ready(); }

/* In a page (PNACL_PAGE=1), fd 3 is the PPAPI host's channel to the page (ppapi.h):
   whole records written, and read, at once. */
static int host_channel_write(const void *p, u32 n) {
    struct iovec v = {(void *)p, n};
    size_t done = 0;
    return wasi_fd_write(3, &v, 1, &done) || done != n ? -1 : 0;
}

static i32 host_channel_read(void *p, u32 n) {
    u32 got = 0;
    while (got < n) {
        struct iovec v = {(u8 *)p + got, n - got};
        size_t r = 0;
        if (wasi_fd_read(3, &v, 1, &r) || r == 0) return -1;
        got += (u32)r;
    }
    return (i32)got;
}

/* 3-D graphics: the page's WebGL, through the `gl` imports (ppapi/ppb_graphics3d.h). */
#define PA_HAVE_GL 1
#include "ppapi.h"
#include "irt_tables.h"

/* ----------------------------------------------------------------------------------- */
/* Start-up                                                                            */

void __pnacl_entry(u32 info); /* the translated pexe's _start, through its thunk */


void _start(void) {
    __pnacl_set_thread(&main_thread);

    size_t argc, argsize, envc, envsize;
    if (wasi_args_sizes_get(&argc, &argsize) || wasi_environ_sizes_get(&envc, &envsize))
        fatal("cannot read the arguments and the environment");
    /* The NaCl start-up vector (runtime.md §1.2): fini, envc, argc, argv, 0, envp, 0,
       auxv; then the strings. */
    size_t words = 3 + (argc + 1) + (envc + 1) + 4;
    u32 *info = malloc(words * 4 + argsize + envsize);
    if (!info) fatal("out of memory at start-up");
    char **argv = (char **)(info + 3);
    char **envp = argv + argc + 1;
    char *strings = (char *)(info + words);
    if (wasi_args_get(argv, strings) || wasi_environ_get(envp, strings + argsize))
        fatal("cannot read the arguments and the environment");
    argv[argc] = NULL;
    envp[envc] = NULL;
    /* The runtime's own variables (PNACL_*) are not the pexe's: the host hands it only
       what the user named for it, and these. */
    size_t kept = 0;
    for (size_t i = 0; i < envc; i++) {
        ppapi_setting(envp[i]);
        const char *n = env_value(envp[i], "PNACL_NPROCS=");
        if (n) {
            int v = 0;
            while (*n >= '0' && *n <= '9') v = v * 10 + (*n++ - '0');
            if (v > 0 && v <= 1024) nprocs = v;
        }
        const char *st = env_value(envp[i], "PNACL_STATS=");
        if (st && st[0] == '1' && !st[1]) stats = 1;
        if (!env_value(envp[i], "PNACL_")) envp[kept++] = envp[i];
    }
    envc = kept;
    envp[envc] = NULL;
    start_argc = (int)argc;
    start_argv = argv;
    info[0] = 0;
    info[1] = (u32)envc;
    info[2] = (u32)argc;
    u32 *aux = (u32 *)(envp + envc + 1);
    aux[0] = 32; /* AT_SYSINFO */
    aux[1] = (u32)(uptr)irt_query;
    aux[2] = 0; /* AT_NULL */
    aux[3] = 0;

    /* The root: the one preopened directory, if the host gave one. */
    struct prestat p;
    if (wasi_fd_prestat_get(3, &p) == 0 && p.tag == 0) root_fd = 3;

    __pnacl_entry((u32)(uptr)info);
    exit_process(0); /* a _start that returns ends the process */
}
