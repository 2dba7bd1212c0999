/* Raw Linux system calls for i386 and 32-bit ARM (EABI). No libc. */
#ifndef PNACL_RT_SYS_H
#define PNACL_RT_SYS_H

#include "types.h"

/* The system calls the runtime makes: name, then its number on i386, 32-bit ARM (EABI),
   x86-64 and AArch64 (-1: the call does not exist there, or that runtime does not make
   it). The sandbox (sandbox.c) allows these and no others; it is built for any of the
   four from this one table, so that its tests can check each on any host. Where the
   64-bit kernels have another call for the same thing (mmap for mmap2, lseek for _llseek,
   fstat for fstat64, dup3 for dup2 and ppoll for poll on AArch64), each is its own row;
   geteuid32 and getegid32 are the 64-bit kernels' geteuid and getegid. */
#define PNACL_SYSCALLS(X)                                                               \
    X(restart_syscall, 0, 0, 219, 128)                                                  \
    X(exit, 1, 1, 60, 93)                                                               \
    X(read, 3, 3, 0, 63)                                                                \
    X(write, 4, 4, 1, 64)                                                               \
    X(close, 6, 6, 3, 57)                                                               \
    X(getpid, 20, 20, 39, 172)                                                          \
    X(dup, 41, 41, 32, 23)                                                              \
    X(ioctl, 54, 54, 16, 29)                                                            \
    X(dup2, 63, 63, 33, -1)                                                             \
    X(dup3, -1, -1, -1, 24)                                                             \
    X(munmap, 91, 91, 11, 215)                                                          \
    X(clone, 120, 120, 56, 220)                                                         \
    X(mprotect, 125, 125, 10, 226)                                                      \
    X(_llseek, 140, 140, -1, -1)                                                        \
    X(lseek, -1, -1, 8, 62)                                                             \
    X(sched_yield, 158, 158, 24, 124)                                                   \
    X(poll, 168, 168, 7, -1)                                                            \
    X(ppoll, -1, -1, -1, 73)                                                            \
    X(nanosleep, 162, 162, 35, 101)                                                     \
    X(prctl, 172, 172, 157, 167)                                                        \
    X(capset, 185, 185, 126, 91)                                                        \
    X(mmap2, 192, 192, -1, -1)                                                          \
    X(mmap, -1, -1, 9, 222)                                                             \
    X(fstat64, 197, 197, -1, -1)                                                        \
    X(fstat, -1, -1, 5, 80)                                                             \
    X(geteuid32, 201, 201, 107, 175)                                                    \
    X(getegid32, 202, 202, 108, 177)                                                    \
    X(getdents64, 220, 217, 217, 61)                                                    \
    X(futex, 240, 240, 202, 98)                                                         \
    X(sched_getaffinity, 242, 242, 204, 123)                                            \
    X(exit_group, 252, 248, 231, 94)                                                    \
    X(clock_gettime, 265, 263, 228, 113)                                                \
    X(clock_getres, 266, 264, 229, 114)                                                 \
    X(openat, 295, 322, 257, 56)                                                        \
    X(mkdirat, 296, 323, 258, 34)                                                       \
    X(unlinkat, 301, 328, 263, 35)                                                      \
    X(faccessat, 307, 334, 269, 48)                                                     \
    X(seccomp, 354, 383, 317, 277)                                                      \
    X(getrandom, 355, 384, 318, 278)                                                    \
    X(socketpair, 360, 288, 53, 199)                                                    \
    X(sendmsg, 370, 296, 46, 211)                                                       \
    X(recvmsg, 372, 297, 47, 212)                                                       \
    X(close_range, 436, 436, 436, 436)                                                  \
    X(landlock_create_ruleset, 444, 444, 444, 444)                                      \
    X(landlock_add_rule, 445, 445, 445, 445)                                            \
    X(landlock_restrict_self, 446, 446, 446, 446)                                       \
    X(arch_prctl, -1, -1, 158, -1)                                                      \
    X(rt_sigaction, -1, -1, 13, 134)                                                    \
    X(sigaltstack, -1, -1, 131, 132)

/* The architectures, in the table's column order (macros: #if compares them). */
#define ARCH_I386 0
#define ARCH_ARM 1
#define ARCH_X86_64 2
#define ARCH_AARCH64 3
#define ARCH_COUNT 4

#define PNACL_NR_ROW(name, i386, armv7, x86_64, aarch64) {i386, armv7, x86_64, aarch64},
#define PNACL_NR_INDEX(name, i386, armv7, x86_64, aarch64) NR_INDEX_##name,
enum { PNACL_SYSCALLS(PNACL_NR_INDEX) NR_INDEX_COUNT };
/* A call's number on `arch` (-1: none): NR(arch, name). */
static const short pnacl_nr[NR_INDEX_COUNT][ARCH_COUNT] = {PNACL_SYSCALLS(PNACL_NR_ROW)};
#define NR(arch, name) pnacl_nr[NR_INDEX_##name][arch]

/* The architecture the runtime is compiled for (PNACL_SYS_ARCH chooses for a host build
   of the sandbox's tests); region targets are the 64-bit ones (target::Memory::Region). */
#if defined(PNACL_SYS_ARCH)
#define PNACL_ARCH PNACL_SYS_ARCH
#elif defined(__arm__)
#define PNACL_ARCH ARCH_ARM
#elif defined(__i386__)
#define PNACL_ARCH ARCH_I386
#elif defined(__x86_64__)
#define PNACL_ARCH ARCH_X86_64
#elif defined(__aarch64__)
#define PNACL_ARCH ARCH_AARCH64
#else
#error "the PNaCl runtime supports i386, 32-bit ARM, x86-64 and AArch64"
#endif
#define PNACL_REGION (PNACL_ARCH == ARCH_X86_64 || PNACL_ARCH == ARCH_AARCH64)

#define PNACL_OWN_NR(name, i386, armv7, x86_64, aarch64)                                 \
    SYS_##name = PNACL_ARCH == ARCH_I386 ? i386 : PNACL_ARCH == ARCH_ARM ? armv7          \
               : PNACL_ARCH == ARCH_X86_64 ? x86_64 : aarch64,
enum { PNACL_SYSCALLS(PNACL_OWN_NR) };

long __pnacl_syscall(long n, long a, long b, long c, long d, long e, long f);

#define sys0(n) __pnacl_syscall(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) __pnacl_syscall(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) __pnacl_syscall(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) __pnacl_syscall(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) __pnacl_syscall(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) __pnacl_syscall(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define sys6(n, a, b, c, d, e, f) \
    __pnacl_syscall(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

/* A result in -4095..-1 is -errno. */
#define SYS_FAILED(r) ((unsigned long)(r) > (unsigned long)-4096L)


/* Linux constants used by the runtime (same on i386 and ARM unless noted). */
#define AT_FDCWD -100
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000
#define O_RDONLY 0
#define O_ACCMODE 3
#define O_CREAT 0100
#define O_EXCL 0200
#define O_NOCTTY 0400
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_SYNC 04010000
#if defined(__arm__) || defined(__aarch64__)
#define O_DIRECTORY 040000
#define O_NOFOLLOW 0100000
#define O_LARGEFILE 0400000
#else
#define O_DIRECTORY 0200000
#define O_NOFOLLOW 0400000
#define O_LARGEFILE 0100000
#endif
#define O_CLOEXEC 02000000
#define O_PATH 010000000
#define O_TMPFILE_BIT 020000000 /* __O_TMPFILE */
#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_FIXED_NOREPLACE 0x100000
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_BITSET 9
#define FUTEX_PRIVATE_FLAG 128
#define FUTEX_CLOCK_REALTIME 256
#define CLONE_VM 0x100
#define CLONE_FS 0x200
#define CLONE_FILES 0x400
#define CLONE_SIGHAND 0x800
#define CLONE_THREAD 0x10000
#define CLONE_SYSVSEM 0x40000
#define CLONE_SETTLS 0x80000
#define CLONE_CHILD_CLEARTID 0x200000

struct k_timespec { long tv_sec; long tv_nsec; };  /* 32-bit time_t on i386/ARM */
struct k_timeval { long tv_sec; long tv_usec; };

/* The kernel's stat record: fstat64's struct stat64 on i386 and ARM (the same fields, but
   ARM's EABI aligns the 64-bit ones to 8 bytes where i386 packs them at 4), fstat's
   struct stat on x86-64 and AArch64 (each its own). */
#if PNACL_ARCH == ARCH_X86_64
struct k_stat {
    u64 st_dev, st_ino, st_nlink;
    u32 st_mode, st_uid, st_gid, pad0;
    u64 st_rdev;
    i64 st_size, st_blksize, st_blocks;
    u64 st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
    i64 unused[3];
};
#elif PNACL_ARCH == ARCH_AARCH64
struct k_stat {
    u64 st_dev, st_ino;
    u32 st_mode, st_nlink, st_uid, st_gid;
    u64 st_rdev, pad1;
    i64 st_size;
    i32 st_blksize, pad2;
    i64 st_blocks;
    i64 st_atime;
    u64 st_atime_nsec;
    i64 st_mtime;
    u64 st_mtime_nsec;
    i64 st_ctime;
    u64 st_ctime_nsec;
    u32 unused4, unused5;
};
#else
#if PNACL_ARCH == ARCH_ARM
#define STAT64_PACKED
#else
#define STAT64_PACKED __attribute__((packed))
#endif
struct k_stat {
    u64 st_dev;
    u8 pad0[4];
    u32 st_ino32, st_mode, st_nlink, st_uid, st_gid;
    u64 st_rdev;
    u8 pad3[4];
    i64 st_size;
    u32 st_blksize;
    u64 st_blocks;
    u32 st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
    u64 st_ino;
} STAT64_PACKED;
#endif

/* The calls whose name or arguments differ between the 32-bit and 64-bit kernels. */
#define PAGE_SHIFT 12
static inline long sys_mmap(void *addr, size_t len, int prot, int flags, int fd, i64 off) {
#if PNACL_REGION
    return sys6(SYS_mmap, addr, len, prot, flags, fd, off);
#else
    return sys6(SYS_mmap2, addr, len, prot, flags, fd, (long)(off >> PAGE_SHIFT));
#endif
}

static inline long sys_seek(int fd, i64 offset, int whence, i64 *result) {
#if PNACL_REGION
    long r = sys3(SYS_lseek, fd, offset, whence);
    if (!SYS_FAILED(r)) *result = r;
    return r;
#else
    return sys5(SYS__llseek, fd, (long)(offset >> 32), (long)(u32)offset, result, whence);
#endif
}

static inline long sys_fstat(int fd, struct k_stat *k) {
#if PNACL_REGION
    return sys2(SYS_fstat, fd, k);
#else
    return sys2(SYS_fstat64, fd, k);
#endif
}

/* dup2 of a descriptor the caller knows is open: AArch64 has only dup3, which refuses
   fd == newfd. */
static inline long sys_dup2(int fd, int newfd) {
    if (SYS_dup2 >= 0) return sys2(SYS_dup2, fd, newfd);
    return fd == newfd ? newfd : sys3(SYS_dup3, fd, newfd, 0);
}

#endif
