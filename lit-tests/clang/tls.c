// _Thread_local: initialized and zero variables, arrays and structs, their addresses; each
// thread its own copy (threads of pthreads), the main thread's kept.
// RUN: %c-vs-native %s %t
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static _Thread_local int counter = 100;
static _Thread_local char name[16] = "main";
static _Thread_local long long big;
static _Thread_local struct { double d; int hits[4]; } stats = {1.5, {1, 2, 3, 4}};
static _Thread_local int *self_ptr;

static void bump(int k) {
  counter += k;
  big += (long long)k << 33;
  stats.hits[k % 4] += k;
  stats.d *= 1.5;
  self_ptr = &counter;
}

static void *worker(void *arg) {
  int id = (int)(long)arg;
  snprintf(name, sizeof name, "worker%d", id);
  for (int i = 0; i < 1000 * (id + 1); i++) bump(i % 7);
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  char line[128];
  snprintf(line, sizeof line, "%s %d %lld %.3g %d %d %d %d %d", name, counter, big, stats.d,
           stats.hits[0], stats.hits[1], stats.hits[2], stats.hits[3], self_ptr == &counter);
  pthread_mutex_lock(&m);
  static char results[4][128];
  strcpy(results[id], line);
  pthread_mutex_unlock(&m);
  return results[id];
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < 4; i++) {
    char *r;
    pthread_join(t[i], (void **)&r);
    printf("%s\n", r);
  }
  bump(3);
  printf("%s %d %lld %.3g %d\n", name, counter, big, stats.d, stats.hits[3]);
  return 0;
}
