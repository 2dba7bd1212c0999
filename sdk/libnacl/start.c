/* The start-up of a pexe, as the NaCl SDK's libnacl did it: the one external function
   `_start(info)` reads the start-up vector (fini, envc, argc, argv, envp, auxv), finds the
   IRT query function (AT_SYSINFO), queries the interfaces every program needs, makes the
   main thread's TLS block, runs the constructors, main, and exit. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nacl.h"

TYPE_nacl_irt_query __nacl_irt_query;
struct nacl_irt_basic __libnacl_irt_basic;
struct nacl_irt_memory __libnacl_irt_memory;
struct nacl_irt_tls __libnacl_irt_tls;

static int no_fd(void) { return 38; /* ENOSYS */ }
/* Until (or unless) fdio is found, descriptor calls fail quietly. */
struct nacl_irt_fdio __libnacl_irt_fdio = {
    (int (*)(int))no_fd,
    (int (*)(int, int *))no_fd,
    (int (*)(int, int))no_fd,
    (int (*)(int, void *, size_t, size_t *))no_fd,
    (int (*)(int, const void *, size_t, size_t *))no_fd,
    (int (*)(int, nacl_irt_off_t, int, nacl_irt_off_t *))no_fd,
    (int (*)(int, struct nacl_abi_stat *))no_fd,
    (int (*)(int, struct nacl_abi_dirent *, size_t, size_t *))no_fd,
};

void *__dso_handle = 0;
void _init(void) {}
void _fini(void) {}

extern char **environ;
extern int main(int argc, char **argv, char **envp);
extern void __libc_init_array(void);
extern void __libc_fini_array(void);
extern void __libnacl_init_main_thread(void);

static size_t length(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

void __libnacl_fatal(const char *msg) {
  size_t n;
  __libnacl_irt_fdio.write(2, msg, length(msg), &n);
  __builtin_trap();
}

int __libnacl_query(const char *name, void *table, size_t size) {
  if (!__nacl_irt_query) return 0;
  return __nacl_irt_query(name, table, size) == size;
}

int __libnacl_query_once(volatile int *state, const char *name, void *table, size_t size) {
  /* 0 not asked, 1 found, 2 missing; racing threads ask twice, harmlessly. */
  int s = *state;
  if (s == 0) {
    s = __libnacl_query(name, table, size) ? 1 : 2;
    *state = s;
  }
  return s == 1;
}

static void mandatory(const char *name, void *table, size_t size) {
  if (!__libnacl_query(name, table, size))
    __libnacl_fatal("IRT interface query failed for essential interface\n");
}

void _start(uint32_t *info) {
  void (*fini)(void) = (void (*)(void))info[0];
  int envc = (int)info[1];
  int argc = (int)info[2];
  char **argv = (char **)&info[3];
  char **envp = argv + argc + 1;
  uint32_t *auxv = (uint32_t *)(envp + envc + 1);
  environ = envp;
  for (; auxv[0] != 0; auxv += 2) {
    if (auxv[0] == AT_SYSINFO) __nacl_irt_query = (TYPE_nacl_irt_query)auxv[1];
  }
  if (!__nacl_irt_query) __libnacl_fatal("No IRT interface query routine!\n");
  if (!__libnacl_query(NACL_IRT_FDIO_v0_1, &__libnacl_irt_fdio, sizeof __libnacl_irt_fdio))
    __libnacl_query(NACL_IRT_DEV_FDIO_v0_1, &__libnacl_irt_fdio, sizeof __libnacl_irt_fdio);
  mandatory(NACL_IRT_BASIC_v0_1, &__libnacl_irt_basic, sizeof __libnacl_irt_basic);
  if (!__libnacl_query(NACL_IRT_MEMORY_v0_3, &__libnacl_irt_memory, sizeof __libnacl_irt_memory)) {
    /* memory-0.2 is sysbrk, then 0.3's three entries. */
    struct {
      int (*sysbrk)(void **);
      struct nacl_irt_memory m;
    } v02;
    mandatory("nacl-irt-memory-0.2", &v02, sizeof v02);
    __libnacl_irt_memory = v02.m;
  }
  mandatory(NACL_IRT_TLS_v0_1, &__libnacl_irt_tls, sizeof __libnacl_irt_tls);
  __libnacl_init_main_thread();
  if (fini) atexit(fini);
  atexit(__libc_fini_array);
  __libc_init_array();
  exit(main(argc, argv, envp));
}

void _exit(int status) {
  __libnacl_irt_basic.exit(status);
  __builtin_trap();
}

/* The SDK's message, then the end a native abort() has as a shell reports it: status 134
   (128 + SIGABRT), on every target. The IRT has no signals; the SDK trapped here instead,
   which ends a program by SIGILL on x86-32 and ARM and so differs from a native program
   and between targets. No atexit handler runs, as none runs after abort(). */
void abort(void) {
  static const char msg[] = "** abort() called\n";
  size_t n;
  __libnacl_irt_fdio.write(2, msg, sizeof msg - 1, &n);
  if (__libnacl_irt_basic.exit) __libnacl_irt_basic.exit(134);
  __builtin_trap();
}

/* NaCl's error numbers are Linux's; newlib numbers some of them otherwise. */
int __libnacl_errno_of(int e) {
  switch (e) {
    case 35: return EDEADLK;
    case 36: return ENAMETOOLONG;
    case 37: return ENOLCK;
    case 38: return ENOSYS;
    case 39: return ENOTEMPTY;
    case 40: return ELOOP;
    case 61: return ENODATA;
    case 75: return EOVERFLOW;
    case 84: return EILSEQ;
    case 90: return EMSGSIZE;
    case 95: return EOPNOTSUPP;
    case 110: return ETIMEDOUT;
    case 111: return ECONNREFUSED;
    case 104: return ECONNRESET;
    default: return e;
  }
}

int __libnacl_error(int e) {
  errno = __libnacl_errno_of(e);
  return -1;
}
