// float and double: the corner values (zeros, infinities, NaNs, subnormals, the extremes)
// through arithmetic, comparisons, conversions and printf; rounding functions; fmin,
// fmax, copysign, fabs, fma, sqrt; a few libm functions; strtod.
// RUN: %c-vs-native %s %t
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile double dv[] = {0.0, -0.0, 1.0, -1.5, 0.5, 2.5, -2.5, 1e-310, -4.9e-324, DBL_MAX, -DBL_MAX, DBL_MIN, 3.7, -3.7, 123456789.123, 1e16, INFINITY, -INFINITY};
static volatile float fv[] = {0.0f, -0.0f, 1.0f, -1.5f, 0.5f, 2.5f, 1e-40f, FLT_MAX, FLT_MIN, -3.7f, 8388609.0f, INFINITY};

static uint64_t bits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

int main(void) {
  int n = sizeof dv / sizeof dv[0];
  for (int i = 0; i < n; i++) {
    double x = dv[i];
    printf("%-14.6g %016llx fl %g ce %g rd %g tr %g ri %g ny %g | %g %g %d %d %d %d\n", x,
           (unsigned long long)bits(x), floor(x), ceil(x), round(x), trunc(x), rint(x),
           nearbyint(x), fabs(x), copysign(2.0, x), isnan(x) != 0, isinf(x) != 0,
           signbit(x) != 0, fpclassify(x));
  }
  double nan = NAN;
  printf("nan %d %d %d %d %g %g\n", nan == nan, nan != nan, nan < 1, isnan(nan + 1), fmin(nan, 3), fmax(2, nan));
  printf("minmax %d %g %g %g\n", fmin(-0.0, 0.0) == 0, fmax(1e300, INFINITY), fmin(-INFINITY, 1), fmax(-1, -2));
  int m = sizeof fv / sizeof fv[0];
  for (int i = 0; i < m; i++) {
    float x = fv[i];
    printf("f %.9g %.9g %.9g %.9g %.9g %a\n", x, floorf(x), ceilf(x), roundf(x), sqrtf(x < 0 ? -x : x), (double)x);
  }
  printf("%.17g %.17g %.17g\n", 0.1 + 0.2, 1.0 / 3, sqrt(2.0));
  printf("%.17g %.17g\n", fma(0.1, 10.0, -1.0), 0.1 * 10.0 - 1.0);
  printf("%e %E %f %.0f %.30f\n", 6.02214076e23, 1.602176634e-19, 1e15 + 0.3, 2.5, 1e-10);
  printf("%g %g %g %g\n", (double)(float)3.14159265358979, (double)FLT_EPSILON, DBL_EPSILON, 1.0 / 0.0);
  volatile double big = 3e9, neg = -2.9e9;
  printf("conv %u %d %lld %llu %d\n", (unsigned)big, (int)neg, (long long)(big * 4), (unsigned long long)1e19, (int)(float)-7.99f);
  volatile long long ll = 9007199254740993LL;
  volatile unsigned long long ull = 18446744073709551615ULL;
  printf("conv2 %.17g %.9g %.17g\n", (double)ll, (float)ll, (double)ull);
  printf("libm %.12g %.12g %.12g %.12g %.12g %.12g\n", sin(1.0), cos(2.0), exp(1.5), log(10.0), pow(2.0, 0.5), atan2(1.0, -1.0));
  printf("libm %.12g %.12g %.12g %.12g\n", tan(0.5), log10(12345.0), cbrt(27.0), hypot(3.0, 4.0));
  printf("ldexp %g %g %d\n", ldexp(1.0, -1074), frexp(48.0, &m), m);
  char *end;
  double parsed = strtod("  -1.25e-3xyz", &end);
  printf("strtod %.17g [%s] %g %g\n", parsed, end, strtod("inf", 0), strtod("0x1p-2", 0));
  printf("%d %d\n", 0.1f == 0.1, (float)0.1 == 0.1f);
  return 0;
}
