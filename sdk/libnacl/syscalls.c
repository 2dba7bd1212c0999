/* The POSIX calls newlib makes (and programs call), each a thin wrapper over an IRT
   entry, as libnacl's were: NaCl's structures and flags converted to newlib's, NaCl's
   error numbers to newlib's errno. What the IRT has no entry for fails with ENOSYS. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <nacl/nacl_random.h>
#include <unistd.h>

#include "nacl.h"

#ifndef CLOCK_PROCESS_CPUTIME_ID
#define CLOCK_PROCESS_CPUTIME_ID ((clockid_t)2)
#endif

#define CALL(e) ((e) == 0 ? 0 : __libnacl_error(e))

/* --- descriptors ---------------------------------------------------------------------- */

ssize_t write(int fd, const void *buf, size_t count) {
  size_t n;
  int e = __libnacl_irt_fdio.write(fd, buf, count, &n);
  return e ? __libnacl_error(e) : (ssize_t)n;
}

ssize_t read(int fd, void *buf, size_t count) {
  size_t n;
  int e = __libnacl_irt_fdio.read(fd, buf, count, &n);
  return e ? __libnacl_error(e) : (ssize_t)n;
}

int close(int fd) { return CALL(__libnacl_irt_fdio.close(fd)); }

int dup(int fd) {
  int n;
  int e = __libnacl_irt_fdio.dup(fd, &n);
  return e ? __libnacl_error(e) : n;
}

int dup2(int fd, int newfd) {
  int e = __libnacl_irt_fdio.dup2(fd, newfd);
  return e ? __libnacl_error(e) : newfd;
}

off_t lseek(int fd, off_t offset, int whence) {
  nacl_irt_off_t r;
  int e = __libnacl_irt_fdio.seek(fd, offset, whence, &r);
  if (e) return __libnacl_error(e);
  if (r != (off_t)r) return __libnacl_error(75 /* EOVERFLOW */);
  return (off_t)r;
}

static void from_nacl_stat(struct stat *st, const struct nacl_abi_stat *n) {
  memset(st, 0, sizeof *st);
  st->st_dev = n->nacl_abi_st_dev;
  st->st_ino = n->nacl_abi_st_ino;
  st->st_mode = n->nacl_abi_st_mode;
  st->st_nlink = n->nacl_abi_st_nlink;
  st->st_uid = n->nacl_abi_st_uid;
  st->st_gid = n->nacl_abi_st_gid;
  st->st_rdev = n->nacl_abi_st_rdev;
  st->st_size = n->nacl_abi_st_size;
  st->st_blksize = n->nacl_abi_st_blksize;
  st->st_blocks = n->nacl_abi_st_blocks;
  st->st_atim.tv_sec = n->nacl_abi_st_atime;
  st->st_atim.tv_nsec = n->nacl_abi_st_atimensec;
  st->st_mtim.tv_sec = n->nacl_abi_st_mtime;
  st->st_mtim.tv_nsec = n->nacl_abi_st_mtimensec;
  st->st_ctim.tv_sec = n->nacl_abi_st_ctime;
  st->st_ctim.tv_nsec = n->nacl_abi_st_ctimensec;
}

int fstat(int fd, struct stat *st) {
  struct nacl_abi_stat n;
  int e = __libnacl_irt_fdio.fstat(fd, &n);
  if (e) return __libnacl_error(e);
  from_nacl_stat(st, &n);
  return 0;
}

static volatile int dev_fdio_state;
static struct nacl_irt_dev_fdio dev_fdio;

static int have_dev_fdio(void) {
  return __libnacl_query_once(&dev_fdio_state, NACL_IRT_DEV_FDIO_v0_3, &dev_fdio, sizeof dev_fdio);
}

int isatty(int fd) {
  if (have_dev_fdio()) {
    int r;
    int e = dev_fdio.isatty(fd, &r);
    if (e) {
      __libnacl_error(e);
      return 0;
    }
    return r;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  if (!S_ISCHR(st.st_mode)) {
    errno = ENOTTY;
    return 0;
  }
  return 1;
}

int fsync(int fd) { return have_dev_fdio() ? CALL(dev_fdio.fsync(fd)) : __libnacl_error(38); }
int fdatasync(int fd) { return have_dev_fdio() ? CALL(dev_fdio.fdatasync(fd)) : __libnacl_error(38); }
int ftruncate(int fd, off_t length) {
  return have_dev_fdio() ? CALL(dev_fdio.ftruncate(fd, length)) : __libnacl_error(38);
}
int fchdir(int fd) { return have_dev_fdio() ? CALL(dev_fdio.fchdir(fd)) : __libnacl_error(38); }
int fchmod(int fd, mode_t mode) {
  return have_dev_fdio() ? CALL(dev_fdio.fchmod(fd, mode)) : __libnacl_error(38);
}

/* --- file names ------------------------------------------------------------------------ */

static volatile int filename_state;
static struct nacl_irt_dev_filename filename;
/* 3: dev-filename-0.3 (all entries), 1: filename-0.1 (open and stat only). */
static int filename_level;

static int have_filename(int need) {
  if (filename_state == 0) {
    if (__libnacl_query(NACL_IRT_DEV_FILENAME_v0_3, &filename, sizeof filename)) {
      filename_level = 3;
    } else if (__libnacl_query(NACL_IRT_FILENAME_v0_1, &filename, 2 * sizeof(void *))) {
      filename_level = 1;
    }
    filename_state = 1;
  }
  return filename_level >= need;
}

#define FILENAME(level, call) (have_filename(level) ? CALL(filename.call) : __libnacl_error(38))

/* newlib's open flags → NaCl's (Linux's, octal). */
static int nacl_oflags(int f) {
  int n = f & O_ACCMODE;
  if (f & O_CREAT) n |= 0100;
  if (f & O_EXCL) n |= 0200;
  if (f & O_TRUNC) n |= 01000;
  if (f & O_APPEND) n |= 02000;
  if (f & O_NONBLOCK) n |= 04000;
  if (f & O_SYNC) n |= 010000;
#ifdef O_DIRECTORY
  if (f & O_DIRECTORY) n |= 0200000;
#endif
  return n;
}

int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, int);
    va_end(ap);
  }
  if (!have_filename(1)) return __libnacl_error(38);
  int fd;
  int e = filename.open(path, nacl_oflags(flags), mode, &fd);
  return e ? __libnacl_error(e) : fd;
}

int stat(const char *path, struct stat *st) {
  struct nacl_abi_stat n;
  if (!have_filename(1)) return __libnacl_error(38);
  int e = filename.stat(path, &n);
  if (e) return __libnacl_error(e);
  from_nacl_stat(st, &n);
  return 0;
}

int lstat(const char *path, struct stat *st) {
  struct nacl_abi_stat n;
  if (!have_filename(3)) return stat(path, st);
  int e = filename.lstat(path, &n);
  if (e) return __libnacl_error(e);
  from_nacl_stat(st, &n);
  return 0;
}

int mkdir(const char *path, mode_t mode) { return FILENAME(3, mkdir(path, mode)); }
int rmdir(const char *path) { return FILENAME(3, rmdir(path)); }
int chdir(const char *path) { return FILENAME(3, chdir(path)); }
int unlink(const char *path) { return FILENAME(3, unlink(path)); }
int link(const char *a, const char *b) { return FILENAME(3, link(a, b)); }
int symlink(const char *a, const char *b) { return FILENAME(3, symlink(a, b)); }
int rename(const char *a, const char *b) { return FILENAME(3, rename(a, b)); }
int chmod(const char *path, mode_t mode) { return FILENAME(3, chmod(path, mode)); }
int access(const char *path, int mode) { return FILENAME(3, access(path, mode)); }
int truncate(const char *path, off_t len) { return FILENAME(3, truncate(path, len)); }

char *getcwd(char *buf, size_t size) {
  if (!have_filename(3)) {
    __libnacl_error(38);
    return 0;
  }
  int e = filename.getcwd(buf, size);
  if (e) {
    __libnacl_error(e);
    return 0;
  }
  return buf;
}

ssize_t readlink(const char *path, char *buf, size_t size) {
  size_t n;
  if (!have_filename(3)) return __libnacl_error(38);
  int e = filename.readlink(path, buf, size, &n);
  return e ? __libnacl_error(e) : (ssize_t)n;
}

/* --- time ------------------------------------------------------------------------------ */

int gettimeofday(struct timeval *tv, void *tz) {
  (void)tz;
  struct nacl_abi_timeval n;
  int e = __libnacl_irt_basic.gettod(&n);
  if (e) return __libnacl_error(e);
  if (tv) {
    tv->tv_sec = n.tv_sec;
    tv->tv_usec = n.tv_usec;
  }
  return 0;
}

static volatile int clock_state;
static struct nacl_irt_clock clock_irt;

int clock_gettime(clockid_t clk, struct timespec *tp) {
  if (!__libnacl_query_once(&clock_state, NACL_IRT_CLOCK_v0_1, &clock_irt, sizeof clock_irt)) {
    if (clk != CLOCK_REALTIME) return __libnacl_error(22);
    struct timeval tv;
    if (gettimeofday(&tv, 0)) return -1;
    tp->tv_sec = tv.tv_sec;
    tp->tv_nsec = tv.tv_usec * 1000;
    return 0;
  }
  struct nacl_abi_timespec n;
  int e = clock_irt.clock_gettime(clk, &n);
  if (e) return __libnacl_error(e);
  tp->tv_sec = n.tv_sec;
  tp->tv_nsec = n.tv_nsec;
  return 0;
}

int clock_getres(clockid_t clk, struct timespec *res) {
  if (!__libnacl_query_once(&clock_state, NACL_IRT_CLOCK_v0_1, &clock_irt, sizeof clock_irt))
    return __libnacl_error(38);
  struct nacl_abi_timespec n;
  int e = clock_irt.clock_getres(clk, &n);
  if (e) return __libnacl_error(e);
  if (res) {
    res->tv_sec = n.tv_sec;
    res->tv_nsec = n.tv_nsec;
  }
  return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem) {
  struct nacl_abi_timespec r = {req->tv_sec, (int32_t)req->tv_nsec}, left;
  int e = __libnacl_irt_basic.nanosleep(&r, &left);
  if (rem) {
    rem->tv_sec = e ? left.tv_sec : 0;
    rem->tv_nsec = e ? left.tv_nsec : 0;
  }
  return e ? __libnacl_error(e) : 0;
}

unsigned sleep(unsigned s) {
  struct timespec t = {s, 0}, rem;
  if (nanosleep(&t, &rem) != 0) return (unsigned)rem.tv_sec;
  return 0;
}

int usleep(useconds_t us) {
  struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};
  return nanosleep(&t, 0);
}

int sched_yield(void) { return CALL(__libnacl_irt_basic.sched_yield()); }

/* CPU time of the process, in newlib's CLK_TCK. */
clock_t times(struct tms *buf) {
  struct timespec t;
  clock_t ticks;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) == 0) {
    ticks = (clock_t)(t.tv_sec * CLK_TCK + t.tv_nsec / (1000000000 / CLK_TCK));
  } else {
    int32_t c;
    if (__libnacl_irt_basic.clock(&c)) return (clock_t)-1;
    ticks = (clock_t)((int64_t)c * CLK_TCK / 1000000);
  }
  if (buf) {
    buf->tms_utime = ticks;
    buf->tms_stime = 0;
    buf->tms_cutime = 0;
    buf->tms_cstime = 0;
  }
  return ticks;
}

/* --- the process ----------------------------------------------------------------------- */

static volatile int getpid_state;
static struct nacl_irt_dev_getpid getpid_irt;

pid_t getpid(void) {
  int pid;
  if (!__libnacl_query_once(&getpid_state, NACL_IRT_DEV_GETPID_v0_1, &getpid_irt, sizeof getpid_irt))
    return __libnacl_error(38);
  int e = getpid_irt.getpid(&pid);
  return e ? __libnacl_error(e) : pid;
}

long sysconf(int name) {
  int v;
  int n;
  switch (name) {
    case _SC_PAGESIZE: n = 2; break;
    case _SC_NPROCESSORS_ONLN:
    case _SC_NPROCESSORS_CONF: n = 1; break;
    case _SC_CLK_TCK: return CLK_TCK;
    case _SC_OPEN_MAX: return 256;
    default: return __libnacl_error(22);
  }
  int e = __libnacl_irt_basic.sysconf(n, &v);
  return e ? __libnacl_error(e) : v;
}

int getpagesize(void) { return (int)sysconf(_SC_PAGESIZE); }

static volatile int random_state;
static struct nacl_irt_random random_irt;

int getentropy(void *buf, size_t len) {
  if (len > 256) return __libnacl_error(5 /* EIO */);
  if (!__libnacl_query_once(&random_state, NACL_IRT_RANDOM_v0_1, &random_irt, sizeof random_irt))
    return __libnacl_error(38);
  size_t done = 0;
  while (done < len) {
    size_t n;
    int e = random_irt.get_random_bytes((char *)buf + done, len - done, &n);
    if (e) return __libnacl_error(e);
    done += n;
  }
  return 0;
}

/* <nacl/nacl_random.h>: errno values returned, not set. */
int nacl_secure_random_init(void) {
  return __libnacl_query_once(&random_state, NACL_IRT_RANDOM_v0_1, &random_irt, sizeof random_irt)
             ? 0
             : 38 /* ENOSYS */;
}

int nacl_secure_random(void *dest, size_t bytes, size_t *bytes_written) {
  int e = nacl_secure_random_init();
  if (e) return e;
  return random_irt.get_random_bytes(dest, bytes, bytes_written);
}

/* What a pexe cannot do. */
int kill(pid_t pid, int sig) { (void)pid; (void)sig; return __libnacl_error(38); }
pid_t fork(void) { return __libnacl_error(38); }
int execve(const char *p, char *const a[], char *const e[]) { (void)p; (void)a; (void)e; return __libnacl_error(38); }
pid_t wait(int *status) { (void)status; return __libnacl_error(38); }
int fcntl(int fd, int cmd, ...) { (void)fd; (void)cmd; return __libnacl_error(38); }
int pipe(int fds[2]) { (void)fds; return __libnacl_error(38); }
int sigprocmask(int how, const sigset_t *set, sigset_t *old) { (void)how; (void)set; (void)old; return 0; }
void *sbrk(ptrdiff_t incr) { (void)incr; __libnacl_error(38); return (void *)-1; }

/* --- memory ---------------------------------------------------------------------------- */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  int e = __libnacl_irt_memory.mmap(&addr, len, prot, flags, fd, off);
  if (e) {
    __libnacl_error(e);
    return MAP_FAILED;
  }
  return addr;
}

int munmap(void *addr, size_t len) { return CALL(__libnacl_irt_memory.munmap(addr, len)); }
int mprotect(void *addr, size_t len, int prot) {
  return CALL(__libnacl_irt_memory.mprotect(addr, len, prot));
}
