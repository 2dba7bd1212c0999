/* POSIX threads over the IRT: thread-0.1 starts a thread on a stack this library maps,
   with the thread pointer of a block it made (TLS and descriptor); futex-0.1 is what every
   wait blocks on. Mutexes are three-state futex words; condition variables a sequence
   word; once, keys, read-write locks, barriers, spin locks and semaphores on top. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nacl.h"

static volatile int thread_state, futex_state;
static struct nacl_irt_thread thread_irt;
static struct nacl_irt_futex futex_irt;
volatile int __libnacl_threaded;

static int have_futex(void) {
  return __libnacl_query_once(&futex_state, NACL_IRT_FUTEX_v0_1, &futex_irt, sizeof futex_irt);
}

/* Waits while *addr == value, until abstime (CLOCK_REALTIME; 0: for ever): 0, or
   ETIMEDOUT, or EAGAIN when *addr was not value. Without futexes (no threads can exist
   then), it returns at once. */
int __libnacl_futex_wait(volatile int *addr, int value, const struct timespec *abstime) {
  if (!have_futex()) return EAGAIN;
  struct nacl_abi_timespec t, *tp = 0;
  if (abstime) {
    t.tv_sec = abstime->tv_sec;
    t.tv_nsec = (int32_t)abstime->tv_nsec;
    tp = &t;
  }
  int e = futex_irt.futex_wait_abs(addr, value, tp);
  if (e == 110) return ETIMEDOUT;
  if (e == 11) return EAGAIN;
  return e ? __libnacl_errno_of(e) : 0;
}

void __libnacl_futex_wake(volatile int *addr, int n) {
  int count;
  if (have_futex()) futex_irt.futex_wake(addr, n, &count);
}

/* --- threads --------------------------------------------------------------------------- */

#define DEFAULT_STACK (512 * 1024)

static pthread_mutex_t dead_lock = PTHREAD_MUTEX_INITIALIZER;
static struct __pnacl_thread *dead; /* finished detached threads, their memory to free */

static void release(struct __pnacl_thread *t) {
  if (t->stack) munmap(t->stack, t->stack_size);
  free(t->block);
}

/* Frees the memory of detached threads that are off their stacks. */
static void reap(void) {
  pthread_mutex_lock(&dead_lock);
  struct __pnacl_thread **p = &dead;
  while (*p) {
    struct __pnacl_thread *t = *p;
    if (t->stack_flag == 0) {
      *p = t->next_dead;
      release(t);
    } else {
      p = &t->next_dead;
    }
  }
  pthread_mutex_unlock(&dead_lock);
}

static void thread_start(void) {
  struct __pnacl_thread *t = __libnacl_self();
  pthread_exit(t->start(t->arg));
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  if (!__libnacl_query_once(&thread_state, NACL_IRT_THREAD_v0_1, &thread_irt, sizeof thread_irt) ||
      !have_futex())
    return ENOSYS;
  reap();
  struct __pnacl_thread *t = __libnacl_new_thread_block();
  if (!t) return EAGAIN;
  size_t size = DEFAULT_STACK;
  if (attr && attr->is_initialized && attr->stacksize > 0) size = attr->stacksize;
  size = (size + 0xffff) & ~(size_t)0xffff;
  t->stack = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (t->stack == MAP_FAILED) {
    t->stack = 0;
    release(t);
    return EAGAIN;
  }
  t->stack_size = size;
  t->start = fn;
  t->arg = arg;
  t->stack_flag = 1;
  t->detached = attr && attr->is_initialized && attr->detachstate == PTHREAD_CREATE_DETACHED;
  __libnacl_threaded = 1;
  int e = thread_irt.thread_create(thread_start, (char *)t->stack + size, t);
  if (e) {
    release(t);
    return __libnacl_errno_of(e);
  }
  *thread = t;
  return 0;
}

void pthread_exit(void *result) {
  struct __pnacl_thread *t = __libnacl_self();
  __libnacl_run_key_destructors(t);
  t->result = result;
  if (!t->stack) {
    /* The main thread: the program ends when it does. */
    exit(0);
  }
  if (t->detached) {
    pthread_mutex_lock(&dead_lock);
    t->next_dead = dead;
    dead = t;
    pthread_mutex_unlock(&dead_lock);
  } else {
    __atomic_store_n(&t->done, 1, __ATOMIC_SEQ_CST);
    __libnacl_futex_wake(&t->done, INT_MAX);
  }
  thread_irt.thread_exit((int32_t *)&t->stack_flag);
  __builtin_trap();
}

int pthread_join(pthread_t t, void **result) {
  if (t == pthread_self()) return EDEADLK;
  if (t->detached) return EINVAL;
  while (__atomic_load_n(&t->done, __ATOMIC_SEQ_CST) == 0) __libnacl_futex_wait(&t->done, 0, 0);
  /* Off its stack in a moment: the IRT says when (with a store, which need not wake a
     futex waiter). */
  while (__atomic_load_n(&t->stack_flag, __ATOMIC_SEQ_CST) != 0) sched_yield();
  if (result) *result = t->result;
  release(t);
  return 0;
}

int pthread_detach(pthread_t t) {
  if (!t->stack) return 0;
  pthread_mutex_lock(&dead_lock);
  if (__atomic_load_n(&t->done, __ATOMIC_SEQ_CST)) {
    /* Already finished: nobody will join it; its memory goes with the dead. */
    t->next_dead = dead;
    dead = t;
  }
  t->detached = 1;
  pthread_mutex_unlock(&dead_lock);
  return 0;
}

pthread_t pthread_self(void) { return __libnacl_self(); }
int pthread_equal(pthread_t a, pthread_t b) { return a == b; }
int pthread_yield(void) { return sched_yield(); }

int pthread_once(pthread_once_t *o, void (*init)(void)) {
  if (__atomic_load_n(&o->state, __ATOMIC_SEQ_CST) == 2) return 0;
  if (__sync_val_compare_and_swap(&o->state, 0, 1) == 0) {
    init();
    __atomic_store_n(&o->state, 2, __ATOMIC_SEQ_CST);
    __libnacl_futex_wake(&o->state, INT_MAX);
    return 0;
  }
  while (__atomic_load_n(&o->state, __ATOMIC_SEQ_CST) != 2) {
    if (__libnacl_futex_wait(&o->state, 1, 0) == EAGAIN && o->state == 1) sched_yield();
  }
  return 0;
}

/* --- attributes ------------------------------------------------------------------------ */

int pthread_attr_init(pthread_attr_t *a) {
  memset(a, 0, sizeof *a);
  a->is_initialized = 1;
  a->stacksize = DEFAULT_STACK;
  a->detachstate = PTHREAD_CREATE_JOINABLE;
  a->contentionscope = PTHREAD_SCOPE_SYSTEM;
  a->inheritsched = PTHREAD_INHERIT_SCHED;
  return 0;
}
int pthread_attr_destroy(pthread_attr_t *a) { a->is_initialized = 0; return 0; }
int pthread_attr_setdetachstate(pthread_attr_t *a, int s) {
  if (s != PTHREAD_CREATE_DETACHED && s != PTHREAD_CREATE_JOINABLE) return EINVAL;
  a->detachstate = s;
  return 0;
}
int pthread_attr_getdetachstate(const pthread_attr_t *a, int *s) { *s = a->detachstate; return 0; }
int pthread_attr_setstacksize(pthread_attr_t *a, size_t s) {
  if (s < PTHREAD_STACK_MIN) return EINVAL;
  a->stacksize = (int)s;
  return 0;
}
int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *s) { *s = (size_t)a->stacksize; return 0; }
int pthread_attr_setscope(pthread_attr_t *a, int s) { a->contentionscope = s; return 0; }
int pthread_attr_getscope(const pthread_attr_t *a, int *s) { *s = a->contentionscope; return 0; }
int pthread_attr_setschedparam(pthread_attr_t *a, const struct sched_param *p) { a->schedparam = *p; return 0; }
int pthread_attr_getschedparam(const pthread_attr_t *a, struct sched_param *p) { *p = a->schedparam; return 0; }
int pthread_attr_setschedpolicy(pthread_attr_t *a, int p) { a->schedpolicy = p; return 0; }
int pthread_attr_getschedpolicy(const pthread_attr_t *a, int *p) { *p = a->schedpolicy; return 0; }
int pthread_attr_setinheritsched(pthread_attr_t *a, int i) { a->inheritsched = i; return 0; }
int pthread_attr_getinheritsched(const pthread_attr_t *a, int *i) { *i = a->inheritsched; return 0; }
int pthread_attr_setguardsize(pthread_attr_t *a, size_t g) { (void)a; (void)g; return 0; }
int pthread_attr_getguardsize(const pthread_attr_t *a, size_t *g) { (void)a; *g = 0; return 0; }

/* --- mutexes --------------------------------------------------------------------------- */

int pthread_mutexattr_init(pthread_mutexattr_t *a) {
  a->is_initialized = 1;
  a->type = PTHREAD_MUTEX_DEFAULT;
  a->process_shared = PTHREAD_PROCESS_PRIVATE;
  return 0;
}
int pthread_mutexattr_destroy(pthread_mutexattr_t *a) { a->is_initialized = 0; return 0; }
int pthread_mutexattr_settype(pthread_mutexattr_t *a, int t) {
  if (t < PTHREAD_MUTEX_NORMAL || t > PTHREAD_MUTEX_DEFAULT) return EINVAL;
  a->type = t;
  return 0;
}
int pthread_mutexattr_gettype(const pthread_mutexattr_t *a, int *t) { *t = a->type; return 0; }
int pthread_mutexattr_setpshared(pthread_mutexattr_t *a, int p) { a->process_shared = p; return 0; }
int pthread_mutexattr_getpshared(const pthread_mutexattr_t *a, int *p) { *p = a->process_shared; return 0; }

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) {
  m->state = 0;
  m->type = a && a->is_initialized ? a->type : PTHREAD_MUTEX_DEFAULT;
  m->owner = 0;
  m->count = 0;
  return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m) { return m->state ? EBUSY : 0; }

static int lock_word(volatile int *w, const struct timespec *abstime) {
  if (__sync_val_compare_and_swap(w, 0, 1) == 0) return 0;
  do {
    if (*w == 2 || __sync_val_compare_and_swap(w, 1, 2) != 0) {
      if (__libnacl_futex_wait(w, 2, abstime) == ETIMEDOUT) return ETIMEDOUT;
    }
  } while (__sync_val_compare_and_swap(w, 0, 2) != 0);
  return 0;
}

static void unlock_word(volatile int *w) {
  if (__sync_fetch_and_sub(w, 1) != 1) {
    __atomic_store_n(w, 0, __ATOMIC_SEQ_CST);
    __libnacl_futex_wake(w, 1);
  }
}

static int lock_mutex(pthread_mutex_t *m, const struct timespec *abstime, int try) {
  pthread_t self = pthread_self();
  if (m->type == PTHREAD_MUTEX_RECURSIVE || m->type == PTHREAD_MUTEX_ERRORCHECK) {
    if (m->count > 0 && m->owner == self) {
      if (m->type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
      m->count++;
      return 0;
    }
  }
  if (try) {
    if (__sync_val_compare_and_swap(&m->state, 0, 1) != 0) return EBUSY;
  } else {
    int e = lock_word(&m->state, abstime);
    if (e) return e;
  }
  m->owner = self;
  m->count = 1;
  return 0;
}

int pthread_mutex_lock(pthread_mutex_t *m) { return lock_mutex(m, 0, 0); }
int pthread_mutex_trylock(pthread_mutex_t *m) { return lock_mutex(m, 0, 1); }
int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t) { return lock_mutex(m, t, 0); }

int pthread_mutex_unlock(pthread_mutex_t *m) {
  if (m->type == PTHREAD_MUTEX_RECURSIVE || m->type == PTHREAD_MUTEX_ERRORCHECK) {
    if (m->count == 0 || m->owner != pthread_self()) return EPERM;
    if (--m->count > 0) return 0;
  }
  m->owner = 0;
  unlock_word(&m->state);
  return 0;
}

/* --- condition variables --------------------------------------------------------------- */

int pthread_condattr_init(pthread_condattr_t *a) {
  a->is_initialized = 1;
  a->process_shared = 0;
  a->clock = CLOCK_REALTIME;
  return 0;
}
int pthread_condattr_destroy(pthread_condattr_t *a) { a->is_initialized = 0; return 0; }
int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t c) { a->clock = (int)c; return 0; }
int pthread_condattr_getclock(const pthread_condattr_t *a, clockid_t *c) { *c = a->clock; return 0; }
int pthread_condattr_setpshared(pthread_condattr_t *a, int p) { a->process_shared = p; return 0; }

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) {
  c->seq = 0;
  c->clock = a && a->is_initialized ? a->clock : CLOCK_REALTIME;
  return 0;
}
int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }

/* A deadline on the condition's clock as one on the futexes' (the real-time clock). */
static const struct timespec *realtime_deadline(const pthread_cond_t *c, const struct timespec *t,
                                                struct timespec *out) {
  if (!t || c->clock == CLOCK_REALTIME) return t;
  struct timespec now_c, now_r;
  if (clock_gettime(c->clock, &now_c) || clock_gettime(CLOCK_REALTIME, &now_r)) return t;
  long long ns = (t->tv_sec - now_c.tv_sec) * 1000000000LL + (t->tv_nsec - now_c.tv_nsec);
  long long r = now_r.tv_sec * 1000000000LL + now_r.tv_nsec + (ns > 0 ? ns : 0);
  out->tv_sec = r / 1000000000LL;
  out->tv_nsec = (long)(r % 1000000000LL);
  return out;
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) {
  struct timespec rt;
  const struct timespec *deadline = realtime_deadline(c, t, &rt);
  int seq = __atomic_load_n(&c->seq, __ATOMIC_SEQ_CST);
  int count = m->count;
  pthread_t owner = m->owner;
  m->owner = 0;
  m->count = 0;
  unlock_word(&m->state);
  int e = __libnacl_futex_wait(&c->seq, seq, deadline);
  /* Relocked as contended: another waiter may be parked on it. */
  while (__sync_lock_test_and_set(&m->state, 2) != 0) __libnacl_futex_wait(&m->state, 2, 0);
  m->owner = owner;
  m->count = count;
  return e == ETIMEDOUT ? ETIMEDOUT : 0;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  return pthread_cond_timedwait(c, m, 0);
}

int pthread_cond_signal(pthread_cond_t *c) {
  __sync_fetch_and_add(&c->seq, 1);
  __libnacl_futex_wake(&c->seq, 1);
  return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c) {
  __sync_fetch_and_add(&c->seq, 1);
  __libnacl_futex_wake(&c->seq, INT_MAX);
  return 0;
}

/* --- read-write locks, barriers, spin locks --------------------------------------------- */

int pthread_rwlockattr_init(pthread_rwlockattr_t *a) { a->is_initialized = 1; a->process_shared = 0; return 0; }
int pthread_rwlockattr_destroy(pthread_rwlockattr_t *a) { a->is_initialized = 0; return 0; }

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a) {
  (void)a;
  memset(l, 0, sizeof *l);
  l->lock.type = PTHREAD_MUTEX_NORMAL;
  return 0;
}
int pthread_rwlock_destroy(pthread_rwlock_t *l) { return l->readers || l->writer ? EBUSY : 0; }

int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
  pthread_mutex_lock(&l->lock);
  while (l->writer || l->waiting_writers) pthread_cond_wait(&l->readers_ok, &l->lock);
  l->readers++;
  pthread_mutex_unlock(&l->lock);
  return 0;
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) {
  pthread_mutex_lock(&l->lock);
  int e = l->writer || l->waiting_writers ? EBUSY : 0;
  if (!e) l->readers++;
  pthread_mutex_unlock(&l->lock);
  return e;
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
  pthread_mutex_lock(&l->lock);
  l->waiting_writers++;
  while (l->writer || l->readers) pthread_cond_wait(&l->writer_ok, &l->lock);
  l->waiting_writers--;
  l->writer = 1;
  pthread_mutex_unlock(&l->lock);
  return 0;
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l) {
  pthread_mutex_lock(&l->lock);
  int e = l->writer || l->readers ? EBUSY : 0;
  if (!e) l->writer = 1;
  pthread_mutex_unlock(&l->lock);
  return e;
}

int pthread_rwlock_unlock(pthread_rwlock_t *l) {
  pthread_mutex_lock(&l->lock);
  if (l->writer) {
    l->writer = 0;
  } else if (l->readers) {
    l->readers--;
  }
  if (l->waiting_writers) {
    if (!l->readers) pthread_cond_signal(&l->writer_ok);
  } else {
    pthread_cond_broadcast(&l->readers_ok);
  }
  pthread_mutex_unlock(&l->lock);
  return 0;
}

int pthread_barrierattr_init(pthread_barrierattr_t *a) { a->is_initialized = 1; a->process_shared = 0; return 0; }
int pthread_barrierattr_destroy(pthread_barrierattr_t *a) { a->is_initialized = 0; return 0; }

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned count) {
  (void)a;
  if (count == 0) return EINVAL;
  memset(b, 0, sizeof *b);
  b->lock.type = PTHREAD_MUTEX_NORMAL;
  b->count = count;
  return 0;
}
int pthread_barrier_destroy(pthread_barrier_t *b) { return b->waiting ? EBUSY : 0; }

int pthread_barrier_wait(pthread_barrier_t *b) {
  pthread_mutex_lock(&b->lock);
  unsigned cycle = b->cycle;
  if (++b->waiting == b->count) {
    b->waiting = 0;
    b->cycle++;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  while (cycle == b->cycle) pthread_cond_wait(&b->cond, &b->lock);
  pthread_mutex_unlock(&b->lock);
  return 0;
}

int pthread_spin_init(pthread_spinlock_t *l, int p) { (void)p; *l = 0; return 0; }
int pthread_spin_destroy(pthread_spinlock_t *l) { (void)l; return 0; }
int pthread_spin_lock(pthread_spinlock_t *l) {
  while (__sync_lock_test_and_set(l, 1)) sched_yield();
  return 0;
}
int pthread_spin_trylock(pthread_spinlock_t *l) { return __sync_lock_test_and_set(l, 1) ? EBUSY : 0; }
int pthread_spin_unlock(pthread_spinlock_t *l) { __sync_lock_release(l); return 0; }

/* --- thread-specific data -------------------------------------------------------------- */

static void (*destructors[LIBNACL_KEYS])(void *);
static volatile int key_used[LIBNACL_KEYS];

int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  for (unsigned k = 0; k < LIBNACL_KEYS; k++) {
    if (__sync_val_compare_and_swap(&key_used[k], 0, 1) == 0) {
      destructors[k] = destructor;
      *key = k;
      return 0;
    }
  }
  return EAGAIN;
}

int pthread_key_delete(pthread_key_t key) {
  if (key >= LIBNACL_KEYS || !key_used[key]) return EINVAL;
  destructors[key] = 0;
  key_used[key] = 0;
  return 0;
}

void *pthread_getspecific(pthread_key_t key) {
  struct __pnacl_thread *t = __libnacl_self();
  return key < LIBNACL_KEYS && t ? (void *)t->specific[key] : 0;
}

int pthread_setspecific(pthread_key_t key, const void *value) {
  struct __pnacl_thread *t = __libnacl_self();
  if (key >= LIBNACL_KEYS || !key_used[key] || !t) return EINVAL;
  t->specific[key] = value;
  return 0;
}

void __libnacl_run_key_destructors(struct __pnacl_thread *t) {
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
    int again = 0;
    for (unsigned k = 0; k < LIBNACL_KEYS; k++) {
      void *v = (void *)t->specific[k];
      if (v && destructors[k]) {
        t->specific[k] = 0;
        destructors[k](v);
        again = 1;
      }
    }
    if (!again) break;
  }
}

/* --- what threads here do not have ----------------------------------------------------- */

int pthread_setcancelstate(int s, int *old) { (void)s; if (old) *old = PTHREAD_CANCEL_ENABLE; return 0; }
int pthread_setcanceltype(int t, int *old) { (void)t; if (old) *old = PTHREAD_CANCEL_DEFERRED; return 0; }
void pthread_testcancel(void) {}
int pthread_cancel(pthread_t t) { (void)t; return ENOSYS; }
int pthread_getschedparam(pthread_t t, int *policy, struct sched_param *p) {
  (void)t;
  *policy = SCHED_OTHER;
  memset(p, 0, sizeof *p);
  return 0;
}
int pthread_setschedparam(pthread_t t, int policy, const struct sched_param *p) {
  (void)t; (void)policy; (void)p;
  return 0;
}
int pthread_atfork(void (*a)(void), void (*b)(void), void (*c)(void)) { (void)a; (void)b; (void)c; return 0; }
int pthread_kill(pthread_t t, int sig) { (void)t; (void)sig; return ENOSYS; }
int pthread_getconcurrency(void) { return 0; }
int pthread_setconcurrency(int l) { (void)l; return 0; }

/* --- semaphores ------------------------------------------------------------------------ */

int sem_init(sem_t *s, int pshared, unsigned value) {
  (void)pshared;
  if (value > SEM_VALUE_MAX) {
    errno = EINVAL;
    return -1;
  }
  s->count = (int)value;
  s->waiters = 0;
  return 0;
}

int sem_destroy(sem_t *s) { (void)s; return 0; }

int sem_trywait(sem_t *s) {
  int c = s->count;
  while (c > 0) {
    int seen = __sync_val_compare_and_swap(&s->count, c, c - 1);
    if (seen == c) return 0;
    c = seen;
  }
  errno = EAGAIN;
  return -1;
}

int sem_timedwait(sem_t *s, const struct timespec *t) {
  for (;;) {
    if (sem_trywait(s) == 0) return 0;
    __sync_fetch_and_add(&s->waiters, 1);
    int e = __libnacl_futex_wait(&s->count, 0, t);
    __sync_fetch_and_sub(&s->waiters, 1);
    if (e == ETIMEDOUT) {
      errno = ETIMEDOUT;
      return -1;
    }
  }
}

int sem_wait(sem_t *s) { return sem_timedwait(s, 0); }

int sem_post(sem_t *s) {
  __sync_fetch_and_add(&s->count, 1);
  if (s->waiters) __libnacl_futex_wake(&s->count, 1);
  return 0;
}

int sem_getvalue(sem_t *s, int *v) {
  *v = s->count;
  return 0;
}
