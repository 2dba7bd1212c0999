// Vectors (__attribute__((vector_size))): the ABI's own (16 bytes of i8, i16, i32, float)
// and others (8 and 32 bytes, of i64 and double): arithmetic, comparisons, shuffles,
// conversions, elements by constant and by variable index, in memory unaligned.
// RUN: %c-vs-native %s %t
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));
typedef int16_t v8s __attribute__((vector_size(16)));
typedef uint8_t v16b __attribute__((vector_size(16)));
typedef int32_t v2i __attribute__((vector_size(8)));
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v4l __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));

static volatile int idx = 2;

#define SHOW(fmt, v, n) do { for (int i_ = 0; i_ < (n); i_++) printf(fmt " ", (v)[i_]); printf("\n"); } while (0)

int main(void) {
  v4i a = {1, -2, 3, 0x7fffffff}, b = {5, 6, -7, 1};
  v4i c = a * b + (a >> 1) - (b << 2) ^ (a & b);
  SHOW("%d", c, 4);
  v4i lt = a < b;
  SHOW("%d", lt, 4);
  v4f f = {1.5f, -2.25f, 3.0f, 0.1f};
  v4f g = f * f / (f + 10.0f) - f;
  SHOW("%.6f", g, 4);
  v8s s = {1, 2, 3, 4, -5, -6, 32767, -32768};
  v8s s2 = s * (v8s){2, 2, 2, 2, 2, 2, 2, 2} + s;
  SHOW("%d", s2, 8);
  v16b u = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 250};
  v16b u2 = u * (uint8_t)3 + (uint8_t)7;
  SHOW("%u", u2, 16);
  v16b sh = __builtin_shufflevector(u, u2, 15, 14, 0, 16, 17, 31, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  SHOW("%u", sh, 16);
  v2i small = {100000, -3};
  small = small * small + 1;
  SHOW("%d", small, 2);
  v2d d = {1e300, -0.5};
  d = d * d + d;
  SHOW("%g", d, 2);
  v4l l = {1LL << 40, -1, 3, 1LL << 62};
  l = l * 3 + (l >> 2);
  SHOW("%lld", l, 4);
  v8f wide = {1, 2, 3, 4, 5, 6, 7, 8};
  wide = wide * wide - 0.5f;
  SHOW("%.2f", wide, 8);
  v4i conv = __builtin_convertvector(f * 10.0f, v4i);
  SHOW("%d", conv, 4);
  v4f back = __builtin_convertvector(c, v4f);
  SHOW("%g", back, 4);
  printf("var %d %.2f %u %d\n", a[idx], f[idx + 1], u[idx * 5], s[idx + 5]);
  a[idx] = 99;
  u[idx + 10] = 200;
  SHOW("%d", a, 4);
  printf("%u\n", u[12]);
  char buf[64];
  memcpy(buf + 3, &a, sizeof a);
  v4i un;
  memcpy(&un, buf + 3, sizeof un);
  SHOW("%d", un, 4);
  v8b eight = {1, 2, 3, 4, 5, 6, 7, 8};
  uint64_t bits;
  memcpy(&bits, &eight, 8);
  printf("%016llx\n", (unsigned long long)bits);
  v4i sel = (lt & a) | (~lt & b);
  SHOW("%d", sel, 4);
  return 0;
}
