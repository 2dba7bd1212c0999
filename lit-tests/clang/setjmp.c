// setjmp and longjmp: out of deep recursion, several buffers, volatile locals kept,
// longjmp's value (and 0 made 1).
// RUN: %c-vs-native %s %t
#include <setjmp.h>
#include <stdio.h>

static jmp_buf top, inner;
static int depth_reached;

static int dive(int n) {
  if (n == 0) longjmp(top, 1000 + depth_reached);
  depth_reached++;
  return dive(n - 1) + 1;
}

static void twice(int k) {
  if (k == 3) longjmp(inner, 0);
  if (k == 5) longjmp(inner, k);
}

int main(void) {
  volatile int tries = 0;
  int r = setjmp(top);
  tries++;
  printf("setjmp %d tries %d\n", r, tries);
  if (r == 0) dive(5000);
  for (int k = 0; k < 7; k++) {
    volatile int local = k * 10;
    int v = setjmp(inner);
    if (v) {
      printf("back from %d with %d local %d\n", k, v, local);
      continue;
    }
    local++;
    twice(k);
    printf("no jump at %d\n", k);
  }
  return 0;
}
