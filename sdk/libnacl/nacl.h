/* What the parts of libnacl share: the IRT tables found at start-up, errno conversion,
   the futex calls, the thread pointer and the thread descriptor it points at. */
#ifndef _LIBNACL_NACL_H
#define _LIBNACL_NACL_H

#include <irt.h>
#include <reent.h>
#include <stdint.h>
#include <time.h>

extern struct nacl_irt_basic __libnacl_irt_basic;
extern struct nacl_irt_fdio __libnacl_irt_fdio;
extern struct nacl_irt_memory __libnacl_irt_memory;
extern struct nacl_irt_tls __libnacl_irt_tls;

/* Queries an interface (the whole table, or nothing): 1 if the IRT has it. */
int __libnacl_query(const char *name, void *table, size_t size);
/* Queries an optional interface once: 1 if the IRT has it (the table filled). */
int __libnacl_query_once(volatile int *state, const char *name, void *table, size_t size);

/* Sets errno from a NaCl error number (Linux's numbering) and returns -1. */
int __libnacl_error(int nacl_errno);
/* The newlib errno value of a NaCl error number. */
int __libnacl_errno_of(int nacl_errno);

void __libnacl_fatal(const char *msg) __attribute__((noreturn));

/* The thread pointer (PNaCl's intrinsic). */
void *__libnacl_read_tp(void) __asm__("llvm.nacl.read.tp");

int __libnacl_futex_wait(volatile int *addr, int value, const struct timespec *abstime);
void __libnacl_futex_wake(volatile int *addr, int n);

/* A thread's descriptor: what its thread pointer points at (its first word points at
   itself, as NaCl's x86-32 IRT wanted). Its TLS block lies just below it. */
#define LIBNACL_KEYS 128
struct __pnacl_thread {
  struct __pnacl_thread *self;
  void *(*start)(void *);
  void *arg;
  void *result;
  volatile int done;          /* futex word: 1 once the thread has finished */
  volatile int32_t stack_flag; /* the IRT writes 0 once the thread is off its stack */
  volatile int detached;
  void *block;                /* the TLS block and this descriptor (malloc'd) */
  void *stack;
  size_t stack_size;
  struct __pnacl_thread *next_dead;
  struct _reent *reent;
  struct _reent reent_storage;
  const void *specific[LIBNACL_KEYS];
};

/* Makes the TLS block and descriptor of a thread in new memory: the descriptor. */
struct __pnacl_thread *__libnacl_new_thread_block(void);
/* The calling thread's descriptor (0 before start-up made the main thread's). */
static inline struct __pnacl_thread *__libnacl_self(void) {
  return (struct __pnacl_thread *)__libnacl_read_tp();
}
/* Runs the thread-specific data destructors of the calling thread. */
void __libnacl_run_key_destructors(struct __pnacl_thread *t);

/* Set once a second thread starts. */
extern volatile int __libnacl_threaded;

#endif
