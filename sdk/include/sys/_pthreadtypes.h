/* The pthread types of the pexe C library (replacing newlib's generic handles): real
   objects over the IRT's futexes, as the NaCl SDK's libpthread had them. */
#ifndef _SYS__PTHREADTYPES_H_
#define _SYS__PTHREADTYPES_H_

#include <sys/sched.h>

typedef struct __pnacl_thread *pthread_t;

#define PTHREAD_SCOPE_PROCESS 0
#define PTHREAD_SCOPE_SYSTEM 1
#define PTHREAD_INHERIT_SCHED 1
#define PTHREAD_EXPLICIT_SCHED 2
#define PTHREAD_CREATE_DETACHED 0
#define PTHREAD_CREATE_JOINABLE 1

typedef struct {
  int is_initialized;
  void *stackaddr;
  int stacksize;
  int contentionscope;
  int inheritsched;
  int schedpolicy;
  struct sched_param schedparam;
  int detachstate;
} pthread_attr_t;

#define PTHREAD_MUTEX_NORMAL 0
#define PTHREAD_MUTEX_RECURSIVE 1
#define PTHREAD_MUTEX_ERRORCHECK 2
#define PTHREAD_MUTEX_DEFAULT 3
#define PTHREAD_PROCESS_PRIVATE 0
#define PTHREAD_PROCESS_SHARED 1

typedef struct {
  int is_initialized;
  int type;
  int process_shared;
} pthread_mutexattr_t;

/* state: 0 free, 1 locked, 2 locked with waiters (a futex word). */
typedef struct {
  volatile int state;
  int type;
  pthread_t owner;
  int count;
} pthread_mutex_t;

#define _PTHREAD_MUTEX_INITIALIZER {0, PTHREAD_MUTEX_DEFAULT, 0, 0}
#define _PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP {0, PTHREAD_MUTEX_RECURSIVE, 0, 0}
#define _PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP {0, PTHREAD_MUTEX_ERRORCHECK, 0, 0}

typedef struct {
  int is_initialized;
  int process_shared;
  int clock;
} pthread_condattr_t;

/* seq: bumped by every signal and broadcast (a futex word). */
typedef struct {
  volatile int seq;
  int clock;
} pthread_cond_t;

#define _PTHREAD_COND_INITIALIZER {0, 0}

typedef unsigned int pthread_key_t;

typedef struct {
  volatile int state;
} pthread_once_t;

#define _PTHREAD_ONCE_INIT {0}

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t readers_ok;
  pthread_cond_t writer_ok;
  int readers;
  int writer;
  int waiting_writers;
} pthread_rwlock_t;

#define _PTHREAD_RWLOCK_INITIALIZER \
  {_PTHREAD_MUTEX_INITIALIZER, _PTHREAD_COND_INITIALIZER, _PTHREAD_COND_INITIALIZER, 0, 0, 0}

typedef struct {
  int is_initialized;
  int process_shared;
} pthread_rwlockattr_t;

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  unsigned count;
  unsigned waiting;
  unsigned cycle;
} pthread_barrier_t;

typedef struct {
  int is_initialized;
  int process_shared;
} pthread_barrierattr_t;

typedef volatile int pthread_spinlock_t;

#endif
