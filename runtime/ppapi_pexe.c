/*
 * The PPAPI host as pexe code: the backend of ppapi.h where the pexe is isolated in its
 * region (x86-64, AArch64; target::Memory::Region). pnacl-translate builds this file for
 * le32 into a pexe of its own (src/translate/host.rs) and joins it to a plugin's pexe
 * before translating, so that the host runs in the plugin's region, as the plugin's code:
 * every address the two exchange is a pexe address, every function pointer a function
 * index checked on each call, and the host reaches the system only through the IRT,
 * whose every argument the runtime checks. It is trusted no more than the plugin (as on
 * the 32-bit targets, where the host's memory is the plugin's too).
 *
 * Its _start comes first: it takes the host's settings (PNACL_MESSAGES, ...; the runtime
 * hands them over only to a pexe that carries this host) out of the environment, puts its
 * own query function in place of the IRT's, and calls the plugin's _start. Its query
 * answers nacl-irt-ppapihook-0.1 with ppapi.h's hook, gives the plugin's standard output
 * to the host (as irt.c does for a plugin: the plugin's writes go to standard error, or
 * become messages), and passes every other name to the IRT.
 */

#include "backend.h"
#include "basics.h"

#define AT_SYSINFO 32

/* The IRT's interfaces, as NaCl's irt.h declares them (the pexe's types). */
static struct {
    void (*exit)(int status);
    int (*gettod)(void *tv);
    int (*clock)(void *ticks);
    int (*nanosleep)(const void *req, void *rem);
    int (*sched_yield)(void);
    int (*sysconf)(int name, int *value);
} basic;

struct fdio {
    int (*close)(int fd);
    int (*dup)(int fd, int *newfd);
    int (*dup2)(int fd, int newfd);
    int (*read)(int fd, void *buf, size_t count, size_t *nread);
    int (*write)(int fd, const void *buf, size_t count, size_t *nwrote);
    int (*seek)(int fd, i64 offset, int whence, i64 *new_offset);
    int (*fstat)(int fd, void *st);
    int (*getdents)(int fd, void *dirent, size_t count, size_t *nread);
    int (*fchdir)(int fd);
    int (*fchmod)(int fd, u32 mode);
    int (*fsync)(int fd);
    int (*fdatasync)(int fd);
    int (*ftruncate)(int fd, i64 length);
    int (*isatty)(int fd, int *result);
};
static struct fdio fdio;

static struct {
    int (*mmap)(void **addr, size_t len, int prot, int flags, int fd, i64 off);
    int (*munmap)(void *addr, size_t len);
    int (*mprotect)(void *addr, size_t len, int prot);
} memory;

static struct {
    int (*thread_create)(void (*start)(void), void *stack, void *thread_ptr);
    void (*thread_exit)(i32 *stack_flag);
    int (*thread_nice)(const int nice);
} thread;

static struct {
    int (*wait_abs)(volatile int *addr, int value, const struct nacl_timespec *abstime);
    int (*wake)(volatile int *addr, int nwake, int *count);
} futex;

static struct {
    int (*getres)(u32 clk, struct nacl_timespec *res);
    int (*gettime)(u32 clk, struct nacl_timespec *tp);
} clock;

/* nacl-irt-dev-filename-0.2 (open, stat, mkdir, rmdir, chdir, getcwd,
   unlink). */
static struct {
    int (*open)(const char *path, int oflag, u32 mode, int *newfd);
    int (*stat)(const char *path, void *st);
    int (*mkdir)(const char *path, u32 mode);
    int (*rmdir)(const char *path);
    int (*chdir)(const char *path);
    int (*getcwd)(char *path, size_t len);
    int (*unlink)(const char *path);
} filename;

/* pnacl-irt-thread-id-0.1 (the region runtime's own). */
static struct {
    int (*thread_id)(u32 *id);
} thread_id;

typedef size_t (*query_fn)(const char *name, void *table, size_t size);
static query_fn irt_query;

/* The backend (backend.h), over the IRT. */
__attribute__((noreturn)) static void exit_process(int status) {
    basic.exit(status);
    __builtin_trap();
}

static void lock(volatile int *l) {
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) basic.sched_yield();
}
static void unlock(volatile int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* A write to the host's standard output is a whole message: sent at once (fsync sends
   what the runtime gathered for stdout), never left waiting behind the next read. */
static long raw_write(int fd, const void *buf, size_t n) {
    size_t done = 0;
    int e = fdio.write(fd, buf, n, &done);
    if (e) return -e;
    if (fd == 1) fdio.fsync(1);
    return (long)done;
}

static void write_str(int fd, const char *s) {
    size_t n = slen(s);
    while (n > 0) {
        long r = raw_write(fd, s, n);
        if (r <= 0) return;
        s += r;
        n -= (size_t)r;
    }
}

/* The backend's for outbuf.h and the IRT, which the host does not use. */
__attribute__((unused)) static int is_terminal(int fd) {
    int yes = 0;
    return !fdio.isatty(fd, &yes) && yes;
}
__attribute__((unused)) static long raw_read(int fd, void *buf, size_t n) {
    size_t got = 0;
    int e = fdio.read(fd, buf, n, &got);
    return e ? -e : (long)got;
}
__attribute__((unused)) static int raw_close(int fd) { return fdio.close(fd); }
__attribute__((unused)) static int online_cpus(void) {
    int n = 1;
    return basic.sysconf(1, &n) || n < 1 ? 1 : n; /* _SC_NPROCESSORS_ONLN */
}

static int irt_read(int fd, void *buf, size_t count, size_t *nread) { return fdio.read(fd, buf, count, nread); }
static int irt_write(int fd, const void *buf, size_t count, size_t *nwrote) { return fdio.write(fd, buf, count, nwrote); }
static int irt_close(int fd) { return fdio.close(fd); }
static int irt_seek(int fd, i64 offset, int whence, i64 *new_offset) { return fdio.seek(fd, offset, whence, new_offset); }
static int irt_getdents(int fd, void *buf, size_t count, size_t *nread) { return fdio.getdents(fd, buf, count, nread); }
static int irt_open(const char *path, int oflag, u32 mode, int *newfd) { return filename.open(path, oflag, mode, newfd); }
static int irt_mkdir(const char *path, u32 mode) { return filename.mkdir(path, mode); }
static int irt_rmdir(const char *path) { return filename.rmdir(path); }
static int irt_unlink(const char *path) { return filename.unlink(path); }

static int irt_futex_wait_abs(volatile int *addr, int value, const struct nacl_timespec *abstime) {
    return futex.wait_abs(addr, value, abstime);
}
static int irt_futex_wake(volatile int *addr, int nwake, int *count) { return futex.wake(addr, nwake, count); }
static int irt_thread_create(void (*start)(void), void *stack, void *thread_ptr) {
    return thread.thread_create(start, stack, thread_ptr);
}
static int host_thread_create(void (*start)(void), void *stack, void *thread_ptr) {
    return thread.thread_create(start, stack, thread_ptr);
}
static void irt_thread_exit(i32 *stack_flag) { thread.thread_exit(stack_flag); }
static int irt_clock_gettime(u32 clk, struct nacl_timespec *tp) { return clock.gettime(clk, tp); }

static void *host_pages(size_t len) {
    void *p = NULL;
    /* PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS */
    return memory.mmap(&p, len, 3, 0x22, -1, 0) ? NULL : p;
}

static uptr host_thread_id(void) {
    u32 id = 0;
    thread_id.thread_id(&id);
    return id;
}
static void ppapi_ready(void) {}
/* No page here: no channel to one. */
static int host_channel_write(const void *p, u32 n) { (void)p, (void)n; return -1; }
static i32 host_channel_read(void *p, u32 n) { (void)p, (void)n; return -1; }

/* The C library's calls the compiler may make of the host's code. */
int memcmp(const void *a, const void *b, size_t n) {
    const u8 *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return x[i] - y[i];
    return 0;
}

#include "ppapi.h"

/* ----------------------------------------------------------------------------------- */
/* What the plugin gets: its standard output the host's, the hook, the rest the IRT's    */

static int plugin_stdout_closed;

static int plugin_write(int fd, const void *buf, size_t count, size_t *nwrote) {
    if (fd == 1 && ppapi_plugin) {
        if (plugin_stdout_closed) return NACL_EBADF;
        if (pa_stdout_messages) return ppapi_stdout_write(buf, count, nwrote);
        fd = 2;
    }
    return fdio.write(fd, buf, count, nwrote);
}

static int plugin_close(int fd) {
    if (fd == 1 && ppapi_plugin) {
        if (plugin_stdout_closed) return NACL_EBADF;
        ppapi_stdout_flush();
        plugin_stdout_closed = 1;
        return 0;
    }
    return fdio.close(fd);
}

static int plugin_dup(int fd, int *newfd) {
    if (fd == 1 && ppapi_plugin) {
        if (plugin_stdout_closed) return NACL_EBADF;
        fd = 2;
    }
    return fdio.dup(fd, newfd);
}

static int plugin_dup2(int fd, int newfd) {
    if (newfd == 1 && ppapi_plugin) return NACL_EBADF;
    if (fd == 1 && ppapi_plugin) {
        if (plugin_stdout_closed) return NACL_EBADF;
        fd = 2;
    }
    return fdio.dup2(fd, newfd);
}

static int start_argc;
static char **start_argv;

static size_t host_query(const char *name, void *table, size_t size) {
    if (!name) return 0;
    if (streq(name, "nacl-irt-ppapihook-0.1")) return ppapi_hook_query(table, size, start_argc, start_argv);
    size_t n = irt_query(name, table, size);
    int is_fdio = streq(name, "nacl-irt-fdio-0.1") || streq(name, "nacl-irt-dev-fdio-0.1") ||
                  streq(name, "nacl-irt-dev-fdio-0.2") || streq(name, "nacl-irt-dev-fdio-0.3");
    if (is_fdio && n >= 5 * sizeof(void *)) {
        struct fdio *t = table;
        t->close = plugin_close;
        t->dup = plugin_dup;
        t->dup2 = plugin_dup2;
        t->write = plugin_write;
    }
    return n;
}

/* Asks the IRT for interface `name` into `table`, or ends the program. */
static void need(const char *name, void *table, size_t size) {
    if (irt_query(name, table, size) != size) {
        /* No way yet to say it: the write interface may be what is missing. */
        __builtin_trap();
    }
}

/* Set by pnacl-translate when it joins this host to a plugin: the plugin's _start. A
   volatile load, which no optimization of this module alone can fold. */
void (*volatile __pnacl_plugin_start)(u32 *info);

/* The pexe's entry: info is NaCl's start-up vector (runtime.md §1.2): fini, envc, argc,
   argv..., 0, envp..., 0, auxv pairs. */
void _start(u32 *info) {
    u32 envc = info[1], argc = info[2];
    char **argv = (char **)(info + 3);
    char **envp = argv + argc + 1;
    u32 *auxv = (u32 *)(envp + envc + 1);
    u32 *slot = NULL;
    for (u32 *a = auxv; a[0]; a += 2)
        if (a[0] == AT_SYSINFO) slot = a + 1;
    if (!slot) __builtin_trap();
    irt_query = (query_fn)(uptr)*slot;
    need("nacl-irt-basic-0.1", &basic, sizeof basic);
    need("nacl-irt-dev-fdio-0.3", &fdio, sizeof fdio);
    need("nacl-irt-memory-0.3", &memory, sizeof memory);
    need("nacl-irt-thread-0.1", &thread, sizeof thread);
    need("nacl-irt-futex-0.1", &futex, sizeof futex);
    need("nacl-irt-clock_get-0.1", &clock, sizeof clock);
    need("pnacl-irt-thread-id-0.1", &thread_id, sizeof thread_id);
    need("nacl-irt-dev-filename-0.2", &filename, sizeof filename);
    *slot = (u32)(uptr)host_query;
    start_argc = (int)argc;
    start_argv = argv;

    /* The host's settings out of the environment; the vector closed up behind them. */
    u32 kept = 0;
    for (u32 i = 0; i < envc; i++)
        if (!ppapi_setting(envp[i])) envp[kept++] = envp[i];
    if (kept < envc) {
        u32 *to = (u32 *)(envp + kept);
        *to++ = 0;
        u32 *from = auxv;
        do {
            to[0] = from[0];
            to[1] = from[1];
            to += 2;
            from += 2;
        } while (from[-2]);
        info[1] = kept;
    }
    __pnacl_plugin_start(info);
    exit_process(0);
}
