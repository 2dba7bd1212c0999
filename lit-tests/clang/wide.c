// Integers wider than 64 bits (_BitInt(128) and _BitInt(96)): shifts by every constant
// amount, addition, subtraction, logic and comparisons, as natively. (Shifts by a variable amount,
// multiplication, division and conversion to floating point are refused: a test of its own says so.)
// RUN: %c-vs-native %s %t
#include <stdint.h>
#include <stdio.h>

typedef unsigned _BitInt(128) u128;
typedef signed _BitInt(128) s128;
typedef unsigned _BitInt(96) u96;
typedef signed _BitInt(96) s96;

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static uint64_t sum;
static void mix128(u128 x) {
  sum = sum * 1000003u ^ (uint64_t)x ^ (uint64_t)(x >> 64) * 31u;
}

#define SHIFTS(X, N)                                                        \
  mix128((u128)(a << (N))); mix128((u128)(a >> (N)));                       \
  mix128((u128)(sa >> (N))); mix128((u128)(b << ((N) % 96)));               \
  mix128((u128)(b >> ((N) % 96))); mix128((u128)(sb >> ((N) % 96)));
#define S8(N) SHIFTS(x, N) SHIFTS(x, N + 1) SHIFTS(x, N + 2) SHIFTS(x, N + 3) \
  SHIFTS(x, N + 4) SHIFTS(x, N + 5) SHIFTS(x, N + 6) SHIFTS(x, N + 7)

static void __attribute__((noinline)) constant_shifts(u128 a, u96 b) {
  s128 sa = (s128)a;
  s96 sb = (s96)b;
  S8(0) S8(8) S8(16) S8(24) S8(32) S8(40) S8(48) S8(56)
  S8(64) S8(72) S8(80) S8(88) S8(96) S8(104) S8(112) S8(120)
}

int main(void) {
  for (int round = 0; round < 200; round++) {
    u128 a = ((u128)next() << 64) | next();
    u96 b = (u96)(((u128)next() << 64) | next());
    if (round % 3 == 0) a |= (u128)1 << 127;
    constant_shifts(a, b);
    u128 c = ((u128)next() << 64) | next();
    mix128(a + c); mix128(a - c); mix128(a & c); mix128(a | c); mix128(a ^ c);
    mix128(a < c); mix128((s128)a < (s128)c); mix128(a == c); mix128((u128)(b - (u96)c)); mix128((u128)(b + 1 > b));
  }
  printf("%016llx\n", (unsigned long long)sum);
  return 0;
}
