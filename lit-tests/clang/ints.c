// Integers: 64-bit multiplication, division, remainder and shifts, signed and not;
// overflow-checked arithmetic; bit counts and byte swaps of every width; rotations;
// narrow and odd-width arithmetic (what SROA makes of packed fields).
// RUN: %c-vs-native %s %t
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile int64_t vs[] = {0, 1, -1, 7, -7, 0x123456789abcdefLL, INT64_MIN + 1, INT64_MAX, 1LL << 32, -(1LL << 31)};
static volatile uint64_t vu[] = {0, 1, 3, 0xffffffffffffffffULL, 0x8000000000000000ULL, 1000000007ULL, 0xfedcba9876543210ULL};

static uint32_t rotl32(uint32_t x, int k) { return (x << (k & 31)) | (x >> ((32 - k) & 31)); }
static uint64_t rotr64(uint64_t x, int k) { return (x >> (k & 63)) | (x << ((64 - k) & 63)); }
static uint8_t rotl8(uint8_t x, int k) { return (uint8_t)((x << (k & 7)) | (x >> ((8 - k) & 7))); }

struct packed { uint8_t b[7]; };

int main(void) {
  uint64_t h = 0;
  int n = sizeof vs / sizeof vs[0];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int64_t a = vs[i], b = vs[j];
      h = h * 31 + (uint64_t)(a * b);
      if (b != 0 && !(a == INT64_MIN && b == -1)) h = h * 31 + (uint64_t)(a / b) + (uint64_t)(a % b);
      h = h * 31 + (uint64_t)(a >> (j % 64)) + (uint64_t)(a << (i % 64));
    }
  printf("signed %016llx\n", (unsigned long long)h);
  h = 0;
  n = sizeof vu / sizeof vu[0];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      uint64_t a = vu[i], b = vu[j];
      h = h * 131 + a * b;
      if (b) h = h * 131 + a / b + a % b;
      h = h * 131 + (a >> (j * 9 % 64)) + (a << (i * 7 % 64));
    }
  printf("unsigned %016llx\n", (unsigned long long)h);
  for (int i = 0; i < n; i++) {
    uint64_t a = vu[i];
    uint32_t lo = (uint32_t)a;
    uint16_t w = (uint16_t)a;
    uint8_t c = (uint8_t)a;
    printf("%d %d %d %d | %d %d %d | %d %d | %08x %04x %016llx | %08x %016llx %02x\n",
           __builtin_popcountll(a), a ? __builtin_clzll(a) : -1, a ? __builtin_ctzll(a) : -1,
           __builtin_popcount(lo), lo ? __builtin_clz(lo) : -1, lo ? __builtin_ctz(lo) : -1,
           __builtin_popcount(w), __builtin_popcount(c), w ? __builtin_ctz(w) : -1,
           __builtin_bswap32(lo), __builtin_bswap16(w), (unsigned long long)__builtin_bswap64(a),
           rotl32(lo, i * 5), (unsigned long long)rotr64(a, i * 11), rotl8(c, i));
  }
  int r;
  long long rl;
  unsigned ur;
  int o1 = __builtin_add_overflow(INT32_MAX, 1, &r);
  int o2 = __builtin_sub_overflow(INT32_MIN, 1, &r);
  int o3 = __builtin_mul_overflow(65536, 65536, &r);
  int o4 = __builtin_mul_overflow(3037000500LL, 3037000500LL, &rl);
  int o5 = __builtin_umul_overflow(65535u, 65537u, &ur);
  int o6 = __builtin_uadd_overflow(4000000000u, 300000000u, &ur);
  int o7 = __builtin_mul_overflow(-3037000499LL, 3037000499LL, &rl);
  printf("overflow %d %d %d %d %d %d %d %lld\n", o1, o2, o3, o4, o5, o6, o7, rl);
  struct packed p;
  for (int i = 0; i < 7; i++) p.b[i] = (uint8_t)(0x11 * (i + 1));
  uint64_t x = 0;
  memcpy(&x, &p, 7);
  uint32_t y = 0;
  memcpy(&y, &p.b[2], 3);
  printf("odd %014llx %06x\n", (unsigned long long)x, y);
  volatile short s1 = -30000, s2 = 3;
  volatile signed char c1 = -128, c2 = -1;
  volatile unsigned short u1 = 65000;
  printf("narrow %d %d %d %d %d %d\n", s1 * s2, (short)(s1 * s2), c1 / c2, (signed char)(c1 / c2), u1 >> 3, (short)u1 >> 3);
  int64_t acc = 1;
  for (int i = 1; i < 40; i++) acc = acc * 3 - i * (acc >> 5);
  printf("acc %lld %lld %lld\n", (long long)acc, (long long)(acc / 1000003), (long long)(acc % -97));
  return 0;
}
