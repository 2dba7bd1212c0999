// Variable arguments of every type: ints of each width (promoted), long long, double
// (8-byte aligned in the buffer), pointers, structs passed by value (small, large, with a
// double), va_copy, a va_list passed on (vsnprintf), and an unprototyped call.
// RUN: %c-vs-native %s %t
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct small { char c; short s; };
struct big { int a[9]; double d; };
struct mixed { float f; double d; char tag; };

static long long sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long long s = 0;
  for (int i = 0; i < n; i++) {
    switch (va_arg(ap, int)) {
      case 'i': s += va_arg(ap, int); break;
      case 'l': s += va_arg(ap, long long); break;
      case 'd': s += (long long)(va_arg(ap, double) * 1000); break;
      case 'p': s += *va_arg(ap, int *); break;
      case 's': { struct small x = va_arg(ap, struct small); s += x.c * 100 + x.s; break; }
      case 'b': { struct big x = va_arg(ap, struct big); for (int k = 0; k < 9; k++) s += x.a[k]; s += (long long)x.d; break; }
      case 'm': { struct mixed x = va_arg(ap, struct mixed); s += (long long)(x.f * 10) + (long long)(x.d * 10) + x.tag; break; }
    }
  }
  va_end(ap);
  return s;
}

static double avg(int n, ...) {
  va_list ap, copy;
  va_start(ap, n);
  va_copy(copy, ap);
  double s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, double);
  double first = n ? va_arg(copy, double) : 0;
  va_end(copy);
  va_end(ap);
  return s / n + first;
}

static int say(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

static int no_args(void) { return 7; }
static int knr();
static int knr(a, b) int a; double b; { return a + (int)b; }

int main(void) {
  int seven = 7;
  struct small sm = {3, -4};
  struct big bg = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, 2.5e3};
  struct mixed mx = {1.5f, -2.25, 'z'};
  char c = 'A';
  short sh = -300;
  unsigned char uc = 250;
  printf("%lld\n", sum(0));
  printf("%lld\n", sum(3, 'i', 5, 'l', 1LL << 40, 'd', 0.125));
  printf("%lld\n", sum(4, 'i', (int)c, 'i', (int)sh, 'i', (int)uc, 'p', &seven));
  printf("%lld\n", sum(3, 's', sm, 'b', bg, 'm', mx));
  printf("%lld\n", sum(5, 'd', 1e-3, 's', sm, 'l', -1LL, 'm', mx, 'i', 42));
  printf("%.6f\n", avg(4, 1.0, 2.0, 3.0, 4.5));
  char buf[64];
  int r = say(buf, sizeof buf, "%d %s %c %5.2f %llx", -12, "str", 'q', 3.14159, 0xdeadbeefcafeULL);
  printf("%d [%s]\n", r, buf);
  r = say(buf, 8, "%s", "truncated output");
  printf("%d [%s]\n", r, buf);
  printf("%d %d\n", no_args(), knr(2, 3.5));
  printf("%5d|%-5d|%05d|%+d|%x|%X|%o|%#x|%e|%g|%G|%10.4s|\n", 42, 42, 42, 42, 255, 255, 8, 255, 12345.678, 0.0001234, 1e20, "abcdefg");
  printf("%hhd %hd %ld %lld %zu %jd\n", (char)300, (short)70000, -5L, -6LL, sizeof(struct big), (long long)-9);
  return 0;
}
