/*
 * The boundary of a region target (region.h): each IRT function as the pexe calls it,
 * through its index in the pexe's function table (runtime/irt.def, which declares each
 * with its signature, so the compiler checks every definition here against it). Every
 * argument is a pexe number: a pointer is checked to lie in the region (a null one only
 * where the call takes none) before the IRT function of irt.c follows it, and a length
 * with it; a name (of a file, of an interface) is copied out of the region first
 * (region.h's NAME). What fails is EFAULT, as NaCl answered.
 */
#ifndef PNACL_RT_REGION_CALLS_H
#define PNACL_RT_REGION_CALLS_H

u32 __pnacl_irt_query(u32 name, u32 table, u32 size) {
    char copy[NAME_COPY];
    if (name_copy(name, copy) || !in_region(table, size)) return 0;
    return (u32)irt_query(copy, G(table), size);
}

/* nacl-irt-basic */
void __pnacl_irt_exit(u32 status) { irt_exit((int)status); }
u32 __pnacl_irt_gettod(u32 tv) {
    NEED(tv, sizeof(struct nacl_timeval));
    return irt_gettod(G(tv));
}
u32 __pnacl_irt_clock(u32 ticks) {
    NEED(ticks, 4);
    return irt_clock(G(ticks));
}
u32 __pnacl_irt_nanosleep(u32 req, u32 rem) {
    NEED(req, sizeof(struct nacl_timespec));
    MAY(rem, sizeof(struct nacl_timespec));
    return irt_nanosleep(G(req), G(rem));
}
u32 __pnacl_irt_sched_yield(void) { return irt_sched_yield(); }
u32 __pnacl_irt_sysconf(u32 name, u32 value) {
    NEED(value, 4);
    return irt_sysconf((int)name, G(value));
}

/* nacl-irt-fdio */
u32 __pnacl_irt_close(u32 fd) { return irt_close((int)fd); }
u32 __pnacl_irt_dup(u32 fd, u32 newfd) {
    NEED(newfd, 4);
    return irt_dup((int)fd, G(newfd));
}
u32 __pnacl_irt_dup2(u32 fd, u32 newfd) { return irt_dup2((int)fd, (int)newfd); }

/* read and write: `count` bytes at `buf`, the count done at `n`. */
static int transfer(int (*f)(int, void *, size_t, size_t *), u32 fd, u32 buf, u32 count, u32 n) {
    MAY(buf, count);
    if (count && !buf) return NACL_EFAULT;
    NEED(n, 4);
    size_t done = 0;
    int e = f((int)fd, G(buf), count, &done);
    if (!e) *(u32 *)G(n) = (u32)done;
    return e;
}
static int irt_write_(int fd, void *buf, size_t count, size_t *n) { return irt_write(fd, buf, count, n); }
u32 __pnacl_irt_read(u32 fd, u32 buf, u32 count, u32 n) { return transfer(irt_read, fd, buf, count, n); }
u32 __pnacl_irt_write(u32 fd, u32 buf, u32 count, u32 n) { return transfer(irt_write_, fd, buf, count, n); }
u32 __pnacl_irt_getdents(u32 fd, u32 buf, u32 count, u32 n) {
    return transfer(irt_getdents, fd, buf, count, n);
}
u32 __pnacl_irt_seek(u32 fd, u64 offset, u32 whence, u32 result) {
    NEED(result, 8);
    return irt_seek((int)fd, (i64)offset, (int)whence, G(result));
}
u32 __pnacl_irt_fstat(u32 fd, u32 st) {
    NEED(st, sizeof(struct nacl_stat));
    return irt_fstat((int)fd, G(st));
}
u32 __pnacl_stub_fchdir(u32 fd) { return (void)fd, stub_fchdir(); }
u32 __pnacl_stub_fchmod(u32 fd, u32 mode) { return (void)fd, (void)mode, stub_fchmod(); }
u32 __pnacl_irt_fsync(u32 fd) { return irt_fsync((int)fd); }
u32 __pnacl_stub_ftruncate(u32 fd, u64 len) { return (void)fd, (void)len, stub_ftruncate(); }
u32 __pnacl_irt_isatty(u32 fd, u32 result) {
    NEED(result, 4);
    return irt_isatty((int)fd, G(result));
}

/* nacl-irt-filename */
u32 __pnacl_irt_open(u32 path, u32 oflag, u32 mode, u32 newfd) {
    NAME(path)
    NEED(newfd, 4);
    return irt_open(path_, (int)oflag, mode, G(newfd));
}
u32 __pnacl_irt_stat(u32 path, u32 st) {
    NAME(path)
    NEED(st, sizeof(struct nacl_stat));
    return irt_stat(path_, G(st));
}
u32 __pnacl_irt_lstat(u32 path, u32 st) {
    NAME(path)
    NEED(st, sizeof(struct nacl_stat));
    return irt_lstat(path_, G(st));
}
u32 __pnacl_irt_mkdir(u32 path, u32 mode) {
    NAME(path)
    return irt_mkdir(path_, mode);
}
u32 __pnacl_irt_rmdir(u32 path) {
    NAME(path)
    return irt_rmdir(path_);
}
u32 __pnacl_irt_chdir(u32 path) {
    NAME(path)
    return irt_chdir(path_);
}
u32 __pnacl_irt_getcwd(u32 buf, u32 len) {
    NEED(buf, len);
    return irt_getcwd(G(buf), len);
}
u32 __pnacl_irt_unlink(u32 path) {
    NAME(path)
    return irt_unlink(path_);
}
u32 __pnacl_irt_access(u32 path, u32 mode) {
    NAME(path)
    return irt_access(path_, (int)mode);
}
u32 __pnacl_irt_readlink(u32 path, u32 buf, u32 count, u32 n) {
    NAME(path)
    MAY(buf, count);
    NEED(n, 4);
    size_t done = 0;
    int e = irt_readlink(path_, G(buf), count, &done);
    if (!e) *(u32 *)G(n) = (u32)done;
    return e;
}
u32 __pnacl_stub_truncate(u32 path, u64 len) { return (void)path, (void)len, stub_truncate(); }
u32 __pnacl_stub_link(u32 a, u32 b) { return (void)a, (void)b, stub_link(); }
u32 __pnacl_stub_rename(u32 a, u32 b) { return (void)a, (void)b, stub_rename(); }
u32 __pnacl_stub_symlink(u32 a, u32 b) { return (void)a, (void)b, stub_symlink(); }
u32 __pnacl_stub_chmod(u32 a, u32 b) { return (void)a, (void)b, stub_chmod(); }
u32 __pnacl_stub_utimes(u32 a, u32 b) { return (void)a, (void)b, stub_utimes(); }

/* nacl-irt-memory: only ever the region's pages (region.h). */
u32 __pnacl_irt_sysbrk(u32 newbrk) { return (void)newbrk, irt_sysbrk(NULL); }
u32 __pnacl_irt_mmap(u32 addr, u32 len, u32 prot, u32 flags, u32 fd, u64 off) {
    NEED(addr, 4);
    u32 a;
    copy(&a, G(addr), 4);
    int e = region_mmap(&a, len, (int)prot, (int)flags, (int)fd, (i64)off);
    if (!e) copy(G(addr), &a, 4);
    return e;
}
u32 __pnacl_irt_munmap(u32 addr, u32 len) { return region_munmap(addr, len); }
u32 __pnacl_irt_mprotect(u32 addr, u32 len, u32 prot) { return region_mprotect(addr, len, (int)prot); }

/* nacl-irt-tls: the thread pointer is a number the pexe keeps with the runtime. */
u32 __pnacl_irt_tls_init(u32 tp) { return irt_tls_init(G(tp)); }
u32 __pnacl_irt_tls_get(void) { return (u32)(uptr)irt_tls_get(); }

/* nacl-irt-thread: the new thread runs pexe function `start` (of no arguments and no
   result), its allocas below `stack`, the pexe's own memory. */
u32 __pnacl_irt_thread_create(u32 start, u32 stack, u32 tp) {
    void (*f)(void) = pexe_function(start, SIG_v_v);
    if (!f) return NACL_EINVAL;
    if (!in_region(stack, 0)) return NACL_EFAULT;
    return irt_thread_create(f, G(stack), G(tp));
}
void __pnacl_irt_thread_exit(u32 stack_flag) {
    if (stack_flag && !in_region(stack_flag, 4)) stack_flag = 0;
    irt_thread_exit(G(stack_flag));
}
u32 __pnacl_irt_thread_nice(u32 nice) { return irt_thread_nice((int)nice); }
u32 __pnacl_irt_thread_id(u32 id) {
    NEED(id, 4);
    return irt_thread_id(G(id));
}

/* nacl-irt-futex: the word is the pexe's, aligned. */
u32 __pnacl_irt_futex_wait_abs(u32 addr, u32 value, u32 abstime) {
    NEED(addr, 4);
    if (addr & 3) return NACL_EINVAL;
    MAY(abstime, sizeof(struct nacl_timespec));
    return irt_futex_wait_abs(G(addr), (int)value, G(abstime));
}
u32 __pnacl_irt_futex_wake(u32 addr, u32 nwake, u32 count) {
    NEED(addr, 4);
    if (addr & 3) return NACL_EINVAL;
    NEED(count, 4);
    return irt_futex_wake(G(addr), (int)nwake, G(count));
}

/* nacl-irt-clock_get */
u32 __pnacl_irt_clock_getres(u32 clk, u32 res) {
    MAY(res, sizeof(struct nacl_timespec));
    return irt_clock_getres(clk, G(res));
}
u32 __pnacl_irt_clock_gettime(u32 clk, u32 tp) {
    NEED(tp, sizeof(struct nacl_timespec));
    return irt_clock_gettime(clk, G(tp));
}

/* nacl-irt-dev-getpid, nacl-irt-random */
u32 __pnacl_irt_getpid(u32 pid) {
    NEED(pid, 4);
    return irt_getpid(G(pid));
}
u32 __pnacl_irt_get_random_bytes(u32 buf, u32 count, u32 n) {
    MAY(buf, count);
    if (count && !buf) return NACL_EFAULT;
    NEED(n, 4);
    size_t done = 0;
    int e = irt_get_random_bytes(G(buf), count, &done);
    if (!e) *(u32 *)G(n) = (u32)done;
    return e;
}

#endif
