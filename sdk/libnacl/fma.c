/* fma and fmaf, fused: x*y + z rounded once, as C requires (newlib's own are x*y + z
   rounded twice). The product of the two significands is exact in 128 bits, the addend
   is aligned to it with the bits shifted out kept as a sticky bit, and the sum is rounded
   once to nearest even, subnormal results included. fmaf rounds the same exact sum to odd
   at double's precision, then to float: one correct rounding. */
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  uint64_t hi, lo;
} u128;

static u128 mul64(uint64_t a, uint64_t b) {
  uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
  u128 r;
  r.lo = (mid << 32) | (uint32_t)p00;
  r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return r;
}

static u128 shl(u128 a, int s) {
  if (s == 0) return a;
  if (s >= 128) return (u128){0, 0};
  if (s >= 64) return (u128){a.lo << (s - 64), 0};
  return (u128){(a.hi << s) | (a.lo >> (64 - s)), a.lo << s};
}

/* a >> s, with *sticky set if a bit shifted out was 1. */
static u128 shr(u128 a, int s, int *sticky) {
  if (s <= 0) return a;
  if (s >= 128) {
    *sticky |= (a.hi | a.lo) != 0;
    return (u128){0, 0};
  }
  if (s >= 64) {
    *sticky |= (a.lo != 0) || (s > 64 && (a.hi << (128 - s)) != 0);
    return (u128){0, a.hi >> (s - 64)};
  }
  *sticky |= (a.lo << (64 - s)) != 0;
  return (u128){a.hi >> s, (a.lo >> s) | (a.hi << (64 - s))};
}

static int less(u128 a, u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
static u128 add(u128 a, u128 b) {
  u128 r = {a.hi + b.hi, a.lo + b.lo};
  r.hi += r.lo < a.lo;
  return r;
}
static u128 sub(u128 a, u128 b) {
  u128 r = {a.hi - b.hi, a.lo - b.lo};
  r.hi -= a.lo < b.lo;
  return r;
}
static int top_bit(u128 a) {
  if (a.hi) return 127 - __builtin_clzll(a.hi);
  if (a.lo) return 63 - __builtin_clzll(a.lo);
  return -1;
}

/* A finite nonzero double as sign, 53-bit integer significand and the exponent of its
   last bit. */
static void split(double d, int *sign, uint64_t *m, int *e) {
  uint64_t b;
  memcpy(&b, &d, 8);
  *sign = (int)(b >> 63);
  int be = (int)((b >> 52) & 0x7ff);
  uint64_t f = b & ((1ULL << 52) - 1);
  if (be == 0) {
    *m = f;
    *e = -1074;
  } else {
    *m = f | (1ULL << 52);
    *e = be - 1075;
  }
}

/* x*y + z, rounded once: to nearest even, or (odd) truncated with the last bit set when
   anything was dropped. */
static double fused(double x, double y, double z, int odd) {
  int sx, sy, sz, ex, ey, ez;
  uint64_t mx, my, mz;
  split(x, &sx, &mx, &ex);
  split(y, &sy, &my, &ey);
  split(z, &sz, &mz, &ez);
  int sp = sx ^ sy;
  u128 p = mul64(mx, my); /* < 2^106 */
  int ep = ex + ey;
  u128 q = {0, mz};
  int eq = ez;
  /* Both up to bit 125, then the smaller shifted down to the larger's exponent. */
  int tp = top_bit(p), tq = top_bit(q);
  p = shl(p, 125 - tp);
  ep -= 125 - tp;
  q = shl(q, 125 - tq);
  eq -= 125 - tq;
  int sticky = 0;
  int e;
  if (ep >= eq) {
    q = shr(q, ep - eq, &sticky);
    e = ep;
  } else {
    p = shr(p, eq - ep, &sticky);
    e = eq;
  }
  u128 r;
  int sign;
  if (sp == sz) {
    r = add(p, q);
    sign = sp;
  } else if (less(p, q)) {
    r = sub(q, p);
    sign = sz;
    /* The sticky bits were the subtrahend's: borrow them. */
    if (sticky && ep < eq) r = sub(r, (u128){0, 1});
  } else {
    r = sub(p, q);
    sign = sp;
    if (sticky && eq < ep) r = sub(r, (u128){0, 1});
  }
  int t = top_bit(r);
  if (t < 0 && !sticky) return 0.0; /* exactly zero: +0 when rounding to nearest */
  if (t < 0) t = 0;
  /* The last kept bit: 52 below the top, or 2^-1074 for a subnormal result. */
  int shift = t - 52;
  if (e + shift < -1074) shift = -1074 - e;
  uint64_t mant;
  if (shift <= 0) {
    mant = r.lo << -shift; /* fewer than 53 bits: exact */
  } else {
    int s2 = 0;
    u128 kept = shr(r, shift, &s2);
    u128 rest = sub(r, shl(kept, shift));
    int inexact = s2 || sticky;
    mant = kept.lo;
    if (odd) {
      if (inexact) mant |= 1;
    } else {
      u128 half = shl((u128){0, 1}, shift - 1);
      int above = less(half, rest) || (rest.hi == half.hi && rest.lo == half.lo && sticky);
      int tie = rest.hi == half.hi && rest.lo == half.lo && !sticky;
      if (above || (tie && (mant & 1))) mant++;
    }
  }
  double v = ldexp((double)mant, e + (shift > 0 ? shift : 0));
  return sign ? -v : v;
}

double fma(double x, double y, double z) {
  if (!isfinite(x) || !isfinite(y) || !isfinite(z) || x == 0 || y == 0) return x * y + z;
  if (z == 0) return x * y;
  return fused(x, y, z, 0);
}

float fmaf(float x, float y, float z) {
  if (!isfinite(x) || !isfinite(y) || !isfinite(z) || x == 0 || y == 0) return x * y + z;
  if (z == 0) return x * y;
  return (float)fused(x, y, z, 1);
}

long double fmal(long double x, long double y, long double z) { return fma(x, y, z); }
