// _Atomic and <stdatomic.h>: loads, stores, exchanges, compare-exchanges and fetch-ops of
// each width with each memory order, atomic_flag, fences, and four threads counting with
// them (the totals exact).
// RUN: %c-vs-native %s %t
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic int counter;
static _Atomic long long wide;
static _Atomic unsigned char bytes;
static _Atomic short shorts;
static atomic_flag spin = ATOMIC_FLAG_INIT;
static int guarded;
static _Atomic(int *) ptr;
static int target = 5;

static void *work(void *arg) {
  int id = (int)(long)arg;
  for (int i = 0; i < 20000; i++) {
    atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&wide, (long long)id << 32 | 1, memory_order_acq_rel);
    atomic_fetch_add(&bytes, 1);
    atomic_fetch_sub_explicit(&shorts, 1, memory_order_release);
    while (atomic_flag_test_and_set_explicit(&spin, memory_order_acquire)) {
    }
    guarded++;
    atomic_flag_clear_explicit(&spin, memory_order_release);
  }
  return 0;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, work, (void *)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  printf("threads %d %llx %u %d %d\n", atomic_load(&counter), (unsigned long long)atomic_load(&wide),
         atomic_load(&bytes), atomic_load_explicit(&shorts, memory_order_acquire), guarded);
  memory_order orders[] = {memory_order_relaxed, memory_order_consume, memory_order_acquire,
                           memory_order_release, memory_order_acq_rel, memory_order_seq_cst};
  _Atomic int x = 10;
  _Atomic long long y = 1LL << 40;
  _Atomic char c = 'a';
  for (int k = 0; k < 6; k++) {
    memory_order o = orders[k];
    memory_order lo = (o == memory_order_release || o == memory_order_acq_rel) ? memory_order_relaxed : o;
    memory_order so = (o == memory_order_consume || o == memory_order_acquire || o == memory_order_acq_rel) ? memory_order_seq_cst : o;
    int e = atomic_load_explicit(&x, lo);
    atomic_store_explicit(&x, e * 2, so);
    int old = atomic_exchange_explicit(&x, e + 3, o);
    int expected = e + 3;
    int ok = atomic_compare_exchange_strong_explicit(&x, &expected, 77, o, memory_order_relaxed);
    int expected2 = 0;
    int bad = atomic_compare_exchange_weak_explicit(&x, &expected2, 1, o, memory_order_relaxed);
    long long w = atomic_fetch_or_explicit(&y, 1LL << k, o);
    long long w2 = atomic_fetch_xor_explicit(&y, 3, o);
    char ch = atomic_fetch_and_explicit(&c, 0x7f, o);
    atomic_thread_fence(o);
    atomic_signal_fence(o);
    printf("order %d: %d %d %d %d %d %lld %lld %c %d\n", k, e, old, ok, bad, expected2, w, w2, ch, atomic_load(&x));
  }
  atomic_store(&ptr, &target);
  int *p = atomic_exchange(&ptr, (int *)0);
  printf("ptr %d %d %d\n", *p, atomic_load(&ptr) == 0, atomic_is_lock_free(&counter));
  int v = 3;
  __sync_fetch_and_add(&v, 4);
  __sync_fetch_and_nand(&v, 6);
  int prev = __sync_val_compare_and_swap(&v, v, 99);
  __sync_synchronize();
  printf("sync %d %d %d\n", prev, v, __sync_bool_compare_and_swap(&v, 99, 100));
  return 0;
}
