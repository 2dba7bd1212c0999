// Constructors and destructors (with priorities), atexit handlers and their order,
// static initializers that call functions.
// RUN: %c-vs-native %s %t
#include <stdio.h>
#include <stdlib.h>

static int order[16], n;
static int record(int x) { order[n++] = x; return x; }

__attribute__((constructor(200))) static void late(void) { record(2); }
__attribute__((constructor(101))) static void early(void) { record(1); }
__attribute__((constructor)) static void plain(void) { record(3); }
__attribute__((destructor)) static void bye(void) { printf("destructor\n"); }
__attribute__((destructor(150))) static void bye_early(void) { printf("destructor 150\n"); }

static void at1(void) { printf("atexit 1\n"); }
static void at2(void) { printf("atexit 2\n"); }

int main(void) {
  atexit(at1);
  atexit(at2);
  for (int i = 0; i < n; i++) printf("ctor %d\n", order[i]);
  return 0;
}
