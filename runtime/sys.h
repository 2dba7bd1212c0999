/* Raw Linux system calls for i386 and 32-bit ARM (EABI). No libc. */
#ifndef PNACL_RT_SYS_H
#define PNACL_RT_SYS_H

#include "types.h"

/* The system calls the runtime makes: name, i386 number, 32-bit ARM (EABI) number. The
   sandbox (sandbox.c) allows these and no others; it is built for either architecture
   from this one table, so that its tests can check both on any host. */
#define PNACL_SYSCALLS(X)                                                               \
    X(restart_syscall, 0, 0)                                                            \
    X(exit, 1, 1)                                                                       \
    X(read, 3, 3)                                                                       \
    X(write, 4, 4)                                                                      \
    X(close, 6, 6)                                                                      \
    X(getpid, 20, 20)                                                                   \
    X(dup, 41, 41)                                                                      \
    X(ioctl, 54, 54)                                                                    \
    X(dup2, 63, 63)                                                                     \
    X(munmap, 91, 91)                                                                   \
    X(clone, 120, 120)                                                                  \
    X(mprotect, 125, 125)                                                               \
    X(_llseek, 140, 140)                                                                \
    X(sched_yield, 158, 158)                                                            \
    X(poll, 168, 168)                                                                   \
    X(nanosleep, 162, 162)                                                              \
    X(prctl, 172, 172)                                                                  \
    X(capset, 185, 185)                                                                 \
    X(mmap2, 192, 192)                                                                  \
    X(fstat64, 197, 197)                                                                \
    X(geteuid32, 201, 201)                                                              \
    X(getegid32, 202, 202)                                                              \
    X(getdents64, 220, 217)                                                             \
    X(futex, 240, 240)                                                                  \
    X(sched_getaffinity, 242, 242)                                                      \
    X(exit_group, 252, 248)                                                             \
    X(clock_gettime, 265, 263)                                                          \
    X(clock_getres, 266, 264)                                                           \
    X(openat, 295, 322)                                                                 \
    X(mkdirat, 296, 323)                                                                \
    X(unlinkat, 301, 328)                                                               \
    X(faccessat, 307, 334)                                                              \
    X(seccomp, 354, 383)                                                                \
    X(getrandom, 355, 384)                                                              \
    X(socketpair, 360, 288)                                                             \
    X(sendmsg, 370, 296)                                                                \
    X(recvmsg, 372, 297)                                                                \
    X(close_range, 436, 436)                                                            \
    X(landlock_create_ruleset, 444, 444)                                                \
    X(landlock_add_rule, 445, 445)                                                      \
    X(landlock_restrict_self, 446, 446)

#define PNACL_I386_NR(name, x86, armv7) I386_NR_##name = x86,
#define PNACL_ARM_NR(name, x86, armv7) ARM_NR_##name = armv7,
enum { PNACL_SYSCALLS(PNACL_I386_NR) };
enum { PNACL_SYSCALLS(PNACL_ARM_NR) };

/* The numbers of the architecture the runtime is compiled for (PNACL_SYS_ARM chooses for a
   host build of the sandbox's tests). */
#if defined(__arm__) || defined(PNACL_SYS_ARM)
#define PNACL_ARCH_ARM 1
#define PNACL_OWN_NR(name, x86, armv7) SYS_##name = armv7,
#elif defined(__i386__) || defined(PNACL_SYS_I386)
#define PNACL_ARCH_ARM 0
#define PNACL_OWN_NR(name, x86, armv7) SYS_##name = x86,
#else
#error "the PNaCl runtime supports i386 and 32-bit ARM"
#endif
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
#if defined(__arm__)
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
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
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
#define CLONE_CHILD_CLEARTID 0x200000

struct k_timespec { long tv_sec; long tv_nsec; };  /* 32-bit time_t on i386/ARM */
struct k_timeval { long tv_sec; long tv_usec; };

/* fstat64's struct stat64: the same fields on i386 and ARM, but ARM's EABI aligns the
   64-bit ones to 8 bytes where i386 packs them at 4. */
#if defined(__arm__)
#define STAT64_PACKED
#else
#define STAT64_PACKED __attribute__((packed))
#endif
struct k_stat64 {
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
