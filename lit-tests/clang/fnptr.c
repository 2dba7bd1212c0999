// Function pointers: tables of them, callbacks (qsort, bsearch), pointers returned and
// compared, a function called through a pointer of another (compatible) type, recursion
// through pointers.
// RUN: %c-vs-native %s %t
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op)(int, int);
static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int shl(int a, int b) { return a << (b & 15); }
static const op ops[] = {add, sub, mul, shl};

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static op pick(const char *name) {
  if (!strcmp(name, "add")) return add;
  if (!strcmp(name, "mul")) return mul;
  return sub;
}

static long fib(long (*self)(), long n) { return n < 2 ? n : self(self, n - 1) + self(self, n - 2); }

struct vtable { const char *name; double (*area)(const double *); };
static double square(const double *d) { return d[0] * d[0]; }
static double circle(const double *d) { return 3.0 * d[0] * d[0]; }

int main(void) {
  int acc = 1;
  for (int i = 0; i < 20; i++) acc = ops[i % 4](acc, i + 1) % 100003;
  printf("ops %d\n", acc);
  int v[] = {5, -3, 99, 0, 42, -77, 8, 8, 1};
  qsort(v, 9, sizeof v[0], cmp_int);
  for (int i = 0; i < 9; i++) printf("%d ", v[i]);
  int key = 42;
  int *found = bsearch(&key, v, 9, sizeof v[0], cmp_int);
  printf("| %d\n", found ? (int)(found - v) : -1);
  const char *words[] = {"pear", "apple", "fig", "banana", "cherry"};
  qsort(words, 5, sizeof words[0], cmp_str);
  for (int i = 0; i < 5; i++) printf("%s ", words[i]);
  printf("\n");
  printf("pick %d %d %d %d\n", pick("add")(3, 4), pick("mul")(3, 4), pick("x")(3, 4), pick("add") == add);
  printf("fib %ld\n", fib((long (*)())fib, 20));
  struct vtable shapes[] = {{"square", square}, {"circle", circle}};
  double d = 2.5;
  for (int i = 0; i < 2; i++) printf("%s %.3f\n", shapes[i].name, shapes[i].area(&d));
  return 0;
}
