/* The NaCl IRT interfaces a pexe reaches through the query function its start-up vector
   names (AT_SYSINFO): their names and tables, as the NaCl SDK's irt.h declared them.
   Every entry returns 0 or a positive errno, results through out-pointers. */
#ifndef _PNACL_IRT_H
#define _PNACL_IRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The structures the IRT reads and writes, in NaCl's layouts (newlib's own differ: the C
   library converts). */
struct nacl_abi_timespec {
  int64_t tv_sec;
  int32_t tv_nsec;
};
struct nacl_abi_timeval {
  int64_t tv_sec;
  int32_t tv_usec;
};
struct nacl_abi_stat {
  int64_t nacl_abi_st_dev;
  uint64_t nacl_abi_st_ino;
  uint32_t nacl_abi_st_mode;
  uint32_t nacl_abi_st_nlink;
  uint32_t nacl_abi_st_uid;
  uint32_t nacl_abi_st_gid;
  int64_t nacl_abi_st_rdev;
  int64_t nacl_abi_st_size;
  int32_t nacl_abi_st_blksize;
  int32_t nacl_abi_st_blocks;
  int64_t nacl_abi_st_atime;
  int64_t nacl_abi_st_atimensec;
  int64_t nacl_abi_st_mtime;
  int64_t nacl_abi_st_mtimensec;
  int64_t nacl_abi_st_ctime;
  int64_t nacl_abi_st_ctimensec;
};
struct nacl_abi_dirent {
  uint64_t nacl_abi_d_ino;
  int64_t nacl_abi_d_off;
  uint16_t nacl_abi_d_reclen;
  char nacl_abi_d_name[256];
};

typedef int64_t nacl_irt_off_t;
typedef uint32_t nacl_irt_clockid_t;

typedef size_t (*TYPE_nacl_irt_query)(const char *interface_ident, void *table,
                                      size_t tablesize);

#define NACL_IRT_BASIC_v0_1 "nacl-irt-basic-0.1"
struct nacl_irt_basic {
  void (*exit)(int status);
  int (*gettod)(struct nacl_abi_timeval *tv);
  int (*clock)(int32_t *ticks);
  int (*nanosleep)(const struct nacl_abi_timespec *req, struct nacl_abi_timespec *rem);
  int (*sched_yield)(void);
  int (*sysconf)(int name, int *value);
};

#define NACL_IRT_FDIO_v0_1 "nacl-irt-fdio-0.1"
#define NACL_IRT_DEV_FDIO_v0_1 "nacl-irt-dev-fdio-0.1"
struct nacl_irt_fdio {
  int (*close)(int fd);
  int (*dup)(int fd, int *newfd);
  int (*dup2)(int fd, int newfd);
  int (*read)(int fd, void *buf, size_t count, size_t *nread);
  int (*write)(int fd, const void *buf, size_t count, size_t *nwrote);
  int (*seek)(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t *new_offset);
  int (*fstat)(int fd, struct nacl_abi_stat *st);
  int (*getdents)(int fd, struct nacl_abi_dirent *buf, size_t count, size_t *nread);
};

#define NACL_IRT_DEV_FDIO_v0_3 "nacl-irt-dev-fdio-0.3"
struct nacl_irt_dev_fdio {
  int (*close)(int fd);
  int (*dup)(int fd, int *newfd);
  int (*dup2)(int fd, int newfd);
  int (*read)(int fd, void *buf, size_t count, size_t *nread);
  int (*write)(int fd, const void *buf, size_t count, size_t *nwrote);
  int (*seek)(int fd, nacl_irt_off_t offset, int whence, nacl_irt_off_t *new_offset);
  int (*fstat)(int fd, struct nacl_abi_stat *st);
  int (*getdents)(int fd, struct nacl_abi_dirent *buf, size_t count, size_t *nread);
  int (*fchdir)(int fd);
  int (*fchmod)(int fd, uint32_t mode);
  int (*fsync)(int fd);
  int (*fdatasync)(int fd);
  int (*ftruncate)(int fd, nacl_irt_off_t length);
  int (*isatty)(int fd, int *result);
};

#define NACL_IRT_FILENAME_v0_1 "nacl-irt-filename-0.1"
#define NACL_IRT_DEV_FILENAME_v0_3 "nacl-irt-dev-filename-0.3"
struct nacl_irt_dev_filename {
  int (*open)(const char *pathname, int oflag, uint32_t cmode, int *newfd);
  int (*stat)(const char *pathname, struct nacl_abi_stat *st);
  int (*mkdir)(const char *pathname, uint32_t mode);
  int (*rmdir)(const char *pathname);
  int (*chdir)(const char *pathname);
  int (*getcwd)(char *pathname, size_t len);
  int (*unlink)(const char *pathname);
  int (*truncate)(const char *pathname, nacl_irt_off_t length);
  int (*lstat)(const char *pathname, struct nacl_abi_stat *st);
  int (*link)(const char *oldpath, const char *newpath);
  int (*rename)(const char *oldpath, const char *newpath);
  int (*symlink)(const char *oldpath, const char *newpath);
  int (*chmod)(const char *path, uint32_t mode);
  int (*access)(const char *path, int amode);
  int (*readlink)(const char *path, char *buf, size_t count, size_t *nread);
  int (*utimes)(const char *filename, const struct nacl_abi_timeval *times);
};

#define NACL_IRT_MEMORY_v0_3 "nacl-irt-memory-0.3"
struct nacl_irt_memory {
  int (*mmap)(void **addr, size_t len, int prot, int flags, int fd, nacl_irt_off_t off);
  int (*munmap)(void *addr, size_t len);
  int (*mprotect)(void *addr, size_t len, int prot);
};

#define NACL_IRT_TLS_v0_1 "nacl-irt-tls-0.1"
struct nacl_irt_tls {
  int (*tls_init)(void *thread_ptr);
  void *(*tls_get)(void);
};

#define NACL_IRT_THREAD_v0_1 "nacl-irt-thread-0.1"
struct nacl_irt_thread {
  int (*thread_create)(void (*start_func)(void), void *stack, void *thread_ptr);
  void (*thread_exit)(int32_t *stack_flag);
  int (*thread_nice)(const int nice);
};

#define NACL_IRT_FUTEX_v0_1 "nacl-irt-futex-0.1"
struct nacl_irt_futex {
  int (*futex_wait_abs)(volatile int *addr, int value, const struct nacl_abi_timespec *abstime);
  int (*futex_wake)(volatile int *addr, int nwake, int *count);
};

#define NACL_IRT_CLOCK_v0_1 "nacl-irt-clock_get-0.1"
struct nacl_irt_clock {
  int (*clock_getres)(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec *res);
  int (*clock_gettime)(nacl_irt_clockid_t clk_id, struct nacl_abi_timespec *tp);
};

#define NACL_IRT_DEV_GETPID_v0_1 "nacl-irt-dev-getpid-0.1"
struct nacl_irt_dev_getpid {
  int (*getpid)(int *pid);
};

#define NACL_IRT_RANDOM_v0_1 "nacl-irt-random-0.1"
struct nacl_irt_random {
  int (*get_random_bytes)(void *buf, size_t count, size_t *nread);
};

/* The query function the start-up vector gave (0 before start-up). */
extern TYPE_nacl_irt_query __nacl_irt_query;

/* The start-up vector's auxiliary entry that names the query function. */
#define AT_SYSINFO 32

#ifdef __cplusplus
}
#endif

#endif
