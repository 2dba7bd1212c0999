/*
 * The NaCl IRT interfaces the runtime offers and the query function that hands them out
 * (runtime.md §2), the same for every backend: irt.c (Linux system calls) and wasi.c
 * (WASI) each define the irt_* functions, `fatal`, `streq`, `copy` and `has_root` (whether
 * the program was given a root directory), `start_argc` and `start_argv`,
 * include the PPAPI host (ppapi.h), then include this.
 */

/* The working directory is the root, "/", and stays there; with no root there is none. */
static int irt_getcwd(char *buf, size_t len) {
    if (!has_root()) return NACL_EACCES;
    if (len < 2) return 34; /* ERANGE */
    buf[0] = '/';
    buf[1] = 0;
    return 0;
}

static int irt_chdir(const char *path) {
    (void)path;
    return has_root() ? NACL_ENOSYS : NACL_EACCES;
}

/* Entries that newlib may reach and that are not implemented. */
#define STUB(name) \
    static int stub_##name(void) { unimplemented(#name); }
STUB(fchdir)
STUB(fchmod)
STUB(ftruncate)
STUB(truncate)
STUB(link)
STUB(rename)
STUB(symlink)
STUB(chmod)
STUB(utimes)

/* ----------------------------------------------------------------------------------- */
/* The interface tables and the query function                                        */

/* An entry of an interface's table: a function's address, or on a region target its
   index in the pexe's function table (irt.def's order, region.h's IRT_K_). */
#if defined(PNACL_REGION) && PNACL_REGION
#define IRT_REGION 1
typedef u32 fnptr;
#define F(f) IRT_K_##f
#else
#define IRT_REGION 0
typedef void (*fnptr)(void);
#define F(f) ((fnptr)(f))
#endif

static const fnptr basic[] = {F(irt_exit), F(irt_gettod), F(irt_clock), F(irt_nanosleep), F(irt_sched_yield),
                              F(irt_sysconf)};
static const fnptr fdio[] = {F(irt_close), F(irt_dup),  F(irt_dup2),  F(irt_read),    F(irt_write),
                             F(irt_seek),  F(irt_fstat), F(irt_getdents), F(stub_fchdir), F(stub_fchmod),
                             F(irt_fsync), F(irt_fsync), F(stub_ftruncate), F(irt_isatty)};
static const fnptr filename[] = {F(irt_open),  F(irt_stat),   F(irt_mkdir),   F(irt_rmdir),
                                 F(irt_chdir), F(irt_getcwd), F(irt_unlink),  F(stub_truncate),
                                 F(irt_lstat), F(stub_link),  F(stub_rename), F(stub_symlink),
                                 F(stub_chmod), F(irt_access), F(irt_readlink), F(stub_utimes)};
static const fnptr memory01[] = {F(irt_sysbrk), F(irt_mmap), F(irt_munmap)};
static const fnptr memory02[] = {F(irt_sysbrk), F(irt_mmap), F(irt_munmap), F(irt_mprotect)};
static const fnptr memory03[] = {F(irt_mmap), F(irt_munmap), F(irt_mprotect)};
static const fnptr tls[] = {F(irt_tls_init), F(irt_tls_get)};
static const fnptr thread[] = {F(irt_thread_create), F(irt_thread_exit), F(irt_thread_nice)};
static const fnptr futex[] = {F(irt_futex_wait_abs), F(irt_futex_wake)};
static const fnptr clock_get[] = {F(irt_clock_getres), F(irt_clock_gettime)};
static const fnptr getpid[] = {F(irt_getpid)};
static const fnptr random[] = {F(irt_get_random_bytes)};
#if IRT_REGION
static const fnptr thread_id[] = {F(irt_thread_id)};
#endif

static const struct {
    const char *name;
    const fnptr *table;
    size_t size;
} interfaces[] = {
    {"nacl-irt-basic-0.1", basic, sizeof basic},
    {"nacl-irt-fdio-0.1", fdio, 8 * 4},
    {"nacl-irt-dev-fdio-0.1", fdio, 8 * 4},
    {"nacl-irt-dev-fdio-0.2", fdio, 13 * 4},
    {"nacl-irt-dev-fdio-0.3", fdio, 14 * 4},
    {"nacl-irt-filename-0.1", filename, 2 * 4},
    {"nacl-irt-dev-filename-0.2", filename, 7 * 4},
    {"nacl-irt-dev-filename-0.3", filename, 16 * 4},
    {"nacl-irt-memory-0.1", memory01, sizeof memory01},
    {"nacl-irt-memory-0.2", memory02, sizeof memory02},
    {"nacl-irt-memory-0.3", memory03, sizeof memory03},
    {"nacl-irt-tls-0.1", tls, sizeof tls},
    {"nacl-irt-thread-0.1", thread, sizeof thread},
    {"nacl-irt-futex-0.1", futex, sizeof futex},
    {"nacl-irt-clock_get-0.1", clock_get, sizeof clock_get},
    {"nacl-irt-clock-0.1", clock_get, sizeof clock_get},
    {"nacl-irt-dev-getpid-0.1", getpid, sizeof getpid},
    {"nacl-irt-random-0.1", random, sizeof random},
#if IRT_REGION
    {"pnacl-irt-thread-id-0.1", thread_id, sizeof thread_id},
#endif
};

static size_t irt_query(const char *name, void *table, size_t tablesize) {
    /* A browser plugin asks for the PPAPI start-up hook: the host of ppapi.h (on a
       region target the host is the pexe's own code, ppapi_pexe.c, which answers it). */
    if (streq(name, "nacl-irt-ppapihook-0.1") && !IRT_REGION)
        return ppapi_hook_query(table, tablesize, start_argc, start_argv);
    for (size_t i = 0; i < sizeof interfaces / sizeof interfaces[0]; i++) {
        if (streq(name, interfaces[i].name)) {
            size_t n = interfaces[i].size;
            if (n > tablesize) return 0;
            copy(table, interfaces[i].table, n);
            return n;
        }
    }
    return 0;
}

