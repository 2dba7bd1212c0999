/* Raw Linux system calls for i386 and 32-bit ARM (EABI). No libc. */
#ifndef PNACL_RT_SYS_H
#define PNACL_RT_SYS_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned long uptr;
typedef unsigned int size_t;

#if defined(__i386__)
#define SYS_exit 1
#define SYS_read 3
#define SYS_write 4
#define SYS_close 6
#define SYS_getpid 20
#define SYS_dup 41
#define SYS_dup2 63
#define SYS_gettimeofday 78
#define SYS_munmap 91
#define SYS_clone 120
#define SYS_mprotect 125
#define SYS__llseek 140
#define SYS_sched_yield 158
#define SYS_nanosleep 162
#define SYS_getcwd 183
#define SYS_mmap2 192
#define SYS_getdents64 220
#define SYS_futex 240
#define SYS_exit_group 252
#define SYS_clock_gettime 265
#define SYS_clock_getres 266
#define SYS_openat 295
#define SYS_mkdirat 296
#define SYS_unlinkat 301
#define SYS_readlinkat 305
#define SYS_faccessat 307
#define SYS_getrandom 355
#define SYS_statx 383
#define SYS_ioctl 54
#define SYS_rt_sigaction 174
#elif defined(__arm__)
#define SYS_exit 1
#define SYS_read 3
#define SYS_write 4
#define SYS_close 6
#define SYS_getpid 20
#define SYS_dup 41
#define SYS_dup2 63
#define SYS_gettimeofday 78
#define SYS_munmap 91
#define SYS_clone 120
#define SYS_mprotect 125
#define SYS__llseek 140
#define SYS_sched_yield 158
#define SYS_nanosleep 162
#define SYS_getcwd 183
#define SYS_mmap2 192
#define SYS_getdents64 217
#define SYS_futex 240
#define SYS_exit_group 248
#define SYS_clock_gettime 263
#define SYS_clock_getres 264
#define SYS_openat 322
#define SYS_mkdirat 323
#define SYS_unlinkat 328
#define SYS_readlinkat 332
#define SYS_faccessat 334
#define SYS_getrandom 384
#define SYS_statx 397
#define SYS_ioctl 54
#define SYS_rt_sigaction 174
#else
#error "the PNaCl runtime supports i386 and 32-bit ARM"
#endif

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

#define NULL ((void *)0)

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

struct statx_timestamp { i64 tv_sec; u32 tv_nsec; i32 reserved; };
struct statx {
    u32 stx_mask, stx_blksize;
    u64 stx_attributes;
    u32 stx_nlink, stx_uid, stx_gid;
    u16 stx_mode, spare0;
    u64 stx_ino, stx_size, stx_blocks, stx_attributes_mask;
    struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
    u32 stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
    u64 spare2[14];
};
#define STATX_BASIC_STATS 0x7ff

#endif
