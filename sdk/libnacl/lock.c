/* newlib's locks (its retargetable locking): mutexes of libpthread, recursive where newlib
   asks for recursion. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/lock.h>

struct __lock {
  pthread_mutex_t m;
};

#define STATIC_LOCK(name, kind) struct __lock name = {kind}

STATIC_LOCK(__lock___sinit_recursive_mutex, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP);
STATIC_LOCK(__lock___sfp_recursive_mutex, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP);
STATIC_LOCK(__lock___atexit_recursive_mutex, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP);
STATIC_LOCK(__lock___at_quick_exit_mutex, PTHREAD_MUTEX_INITIALIZER);
STATIC_LOCK(__lock___malloc_recursive_mutex, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP);
STATIC_LOCK(__lock___env_recursive_mutex, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP);
STATIC_LOCK(__lock___tz_mutex, PTHREAD_MUTEX_INITIALIZER);
STATIC_LOCK(__lock___dd_hash_mutex, PTHREAD_MUTEX_INITIALIZER);
STATIC_LOCK(__lock___arc4random_mutex, PTHREAD_MUTEX_INITIALIZER);

static void make(_LOCK_T *lock, int type) {
  struct __lock *l = malloc(sizeof *l);
  if (!l) abort();
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, type);
  pthread_mutex_init(&l->m, &a);
  *lock = l;
}

void __retarget_lock_init(_LOCK_T *lock) { make(lock, PTHREAD_MUTEX_NORMAL); }
void __retarget_lock_init_recursive(_LOCK_T *lock) { make(lock, PTHREAD_MUTEX_RECURSIVE); }
void __retarget_lock_close(_LOCK_T lock) { free(lock); }
void __retarget_lock_close_recursive(_LOCK_T lock) { free(lock); }
void __retarget_lock_acquire(_LOCK_T lock) { pthread_mutex_lock(&lock->m); }
void __retarget_lock_acquire_recursive(_LOCK_T lock) { pthread_mutex_lock(&lock->m); }
int __retarget_lock_try_acquire(_LOCK_T lock) { return pthread_mutex_trylock(&lock->m); }
int __retarget_lock_try_acquire_recursive(_LOCK_T lock) {
  return pthread_mutex_trylock(&lock->m);
}
void __retarget_lock_release(_LOCK_T lock) { pthread_mutex_unlock(&lock->m); }
void __retarget_lock_release_recursive(_LOCK_T lock) { pthread_mutex_unlock(&lock->m); }
