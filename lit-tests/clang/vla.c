// Variable-length arrays: in loops (each iteration its own), nested, 2-D, their sizeof,
// passed to functions; __builtin_alloca.
// RUN: %c-vs-native %s %t
#include <stdio.h>
#include <string.h>

static long sum2d(int r, int c, int m[r][c]) {
  long s = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++) s += (long)m[i][j] * (i + 1);
  return s;
}

static int depth(int n) {
  char buf[n + 1];
  memset(buf, 'a' + n % 26, n);
  buf[n] = 0;
  if (n == 0) return 0;
  return (int)strlen(buf) + depth(n - 1);
}

int main(void) {
  long total = 0;
  for (int n = 1; n < 40; n++) {
    double v[n];
    for (int i = 0; i < n; i++) v[i] = i * 0.5;
    int m[n][n + 1];
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= n; j++) m[i][j] = i ^ j;
    total += sum2d(n, n + 1, m) + (long)v[n - 1] + (long)sizeof m;
  }
  printf("vla %ld\n", total);
  printf("depth %d\n", depth(200));
  int k = 17;
  int *a = __builtin_alloca(k * sizeof(int));
  for (int i = 0; i < k; i++) a[i] = i * i;
  printf("alloca %d %d\n", a[16], a[3]);
  return 0;
}
