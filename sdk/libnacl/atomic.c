/* The C11 and GCC atomic library calls clang makes for le32 (whose largest lock-free size
   is 0, so every __atomic builtin is a call), as the SDK's libpnaclmm defined them: each
   a sequentially consistent NaCl atomic (what volatile accesses and __sync builtins
   become). Sizes other than 1, 2, 4 and 8 go under one lock. Freestanding (the PPAPI
   host, runtime/ppapi_pexe.c, is built with it and no C library): the two functions of
   <string.h> it calls are declared here. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#define DEFINE(N, T)                                                                           \
  T pnacl_load_##N(const volatile void *p, int o) __asm__("__atomic_load_" #N);              \
  T pnacl_load_##N(const volatile void *p, int o) {                                          \
    (void)o;                                                                                 \
    return *(const volatile T *)p;                                                           \
  }                                                                                          \
  void pnacl_store_##N(volatile void *p, T v, int o) __asm__("__atomic_store_" #N);          \
  void pnacl_store_##N(volatile void *p, T v, int o) {                                       \
    (void)o;                                                                                 \
    *(volatile T *)p = v;                                                                    \
  }                                                                                          \
  T pnacl_exchange_##N(volatile void *p, T v, int o) __asm__("__atomic_exchange_" #N);       \
  T pnacl_exchange_##N(volatile void *p, T v, int o) {                                       \
    (void)o;                                                                                 \
    T old = *(volatile T *)p;                                                                \
    for (;;) {                                                                               \
      T seen = __sync_val_compare_and_swap((volatile T *)p, old, v);                         \
      if (seen == old) return old;                                                           \
      old = seen;                                                                            \
    }                                                                                        \
  }                                                                                          \
  bool pnacl_cmpxchg_##N(volatile void *p, void *expected, T desired, bool weak, int s, int f) \
      __asm__("__atomic_compare_exchange_" #N);                                              \
  bool pnacl_cmpxchg_##N(volatile void *p, void *expected, T desired, bool weak, int s,      \
                         int f) {                                                            \
    (void)weak;                                                                              \
    (void)s;                                                                                 \
    (void)f;                                                                                 \
    T e = *(T *)expected;                                                                    \
    T seen = __sync_val_compare_and_swap((volatile T *)p, e, desired);                       \
    if (seen == e) return true;                                                              \
    *(T *)expected = seen;                                                                   \
    return false;                                                                            \
  }                                                                                          \
  FETCH(N, T, add, __sync_fetch_and_add)                                                     \
  FETCH(N, T, sub, __sync_fetch_and_sub)                                                     \
  FETCH(N, T, and, __sync_fetch_and_and)                                                     \
  FETCH(N, T, or, __sync_fetch_and_or)                                                       \
  FETCH(N, T, xor, __sync_fetch_and_xor)                                                     \
  FETCH(N, T, nand, __sync_fetch_and_nand)

#define FETCH(N, T, OP, SYNC)                                                                  \
  T pnacl_fetch_##OP##_##N(volatile void *p, T v, int o) __asm__("__atomic_fetch_" #OP "_" #N); \
  T pnacl_fetch_##OP##_##N(volatile void *p, T v, int o) {                                   \
    (void)o;                                                                                 \
    return SYNC((volatile T *)p, v);                                                         \
  }

DEFINE(1, uint8_t)
DEFINE(2, uint16_t)
DEFINE(4, uint32_t)
DEFINE(8, uint64_t)

static volatile int big_lock;

static void lock(void) {
  while (__sync_lock_test_and_set(&big_lock, 1)) {
  }
}

static void unlock(void) { __sync_lock_release(&big_lock); }

void pnacl_load(size_t n, const volatile void *src, void *dst, int o) __asm__("__atomic_load");
void pnacl_load(size_t n, const volatile void *src, void *dst, int o) {
  (void)o;
  switch (n) {
    case 1: *(uint8_t *)dst = *(const volatile uint8_t *)src; return;
    case 2: *(uint16_t *)dst = *(const volatile uint16_t *)src; return;
    case 4: *(uint32_t *)dst = *(const volatile uint32_t *)src; return;
    case 8: *(uint64_t *)dst = *(const volatile uint64_t *)src; return;
  }
  lock();
  memcpy(dst, (const void *)src, n);
  unlock();
}

void pnacl_store(size_t n, volatile void *dst, void *src, int o) __asm__("__atomic_store");
void pnacl_store(size_t n, volatile void *dst, void *src, int o) {
  (void)o;
  switch (n) {
    case 1: *(volatile uint8_t *)dst = *(uint8_t *)src; return;
    case 2: *(volatile uint16_t *)dst = *(uint16_t *)src; return;
    case 4: *(volatile uint32_t *)dst = *(uint32_t *)src; return;
    case 8: *(volatile uint64_t *)dst = *(uint64_t *)src; return;
  }
  lock();
  memcpy((void *)dst, src, n);
  unlock();
}

void pnacl_exchange(size_t n, volatile void *p, void *val, void *ret, int o)
    __asm__("__atomic_exchange");
void pnacl_exchange(size_t n, volatile void *p, void *val, void *ret, int o) {
  switch (n) {
    case 1: *(uint8_t *)ret = pnacl_exchange_1(p, *(uint8_t *)val, o); return;
    case 2: *(uint16_t *)ret = pnacl_exchange_2(p, *(uint16_t *)val, o); return;
    case 4: *(uint32_t *)ret = pnacl_exchange_4(p, *(uint32_t *)val, o); return;
    case 8: *(uint64_t *)ret = pnacl_exchange_8(p, *(uint64_t *)val, o); return;
  }
  lock();
  memcpy(ret, (void *)p, n);
  memcpy((void *)p, val, n);
  unlock();
}

bool pnacl_cmpxchg(size_t n, volatile void *p, void *expected, void *desired, int s, int f)
    __asm__("__atomic_compare_exchange");
bool pnacl_cmpxchg(size_t n, volatile void *p, void *expected, void *desired, int s, int f) {
  switch (n) {
    case 1: return pnacl_cmpxchg_1(p, expected, *(uint8_t *)desired, false, s, f);
    case 2: return pnacl_cmpxchg_2(p, expected, *(uint16_t *)desired, false, s, f);
    case 4: return pnacl_cmpxchg_4(p, expected, *(uint32_t *)desired, false, s, f);
    case 8: return pnacl_cmpxchg_8(p, expected, *(uint64_t *)desired, false, s, f);
  }
  lock();
  bool same = memcmp((void *)p, expected, n) == 0;
  if (same)
    memcpy((void *)p, desired, n);
  else
    memcpy(expected, (void *)p, n);
  unlock();
  return same;
}

bool pnacl_is_lock_free(size_t n, const volatile void *p) __asm__("__atomic_is_lock_free");
bool pnacl_is_lock_free(size_t n, const volatile void *p) {
  return (n == 1 || n == 2 || n == 4 || n == 8) && ((uintptr_t)p & (n - 1)) == 0;
}
