// C's complex arithmetic: the multiplication and division clang leaves to compiler-rt's
// __mulsc3, __muldc3, __divsc3 and __divdc3 (libnacl's bitcode), in float and double,
// with ordinary operands, very large and very small ones (division scales, neither
// overflows nor vanishes) and infinities and NaNs (Annex G's recovered infinities and
// zeros), as natively.
// RUN: %c-vs-native %s %t
#include <complex.h>
#include <math.h>
#include <stdio.h>

#undef CMPLX
#undef CMPLXF

static double complex CMPLX(double r, double i) {
  double complex z;
  __real__ z = r;
  __imag__ z = i;
  return z;
}

static float complex CMPLXF(float r, float i) {
  float complex z;
  __real__ z = r;
  __imag__ z = i;
  return z;
}

// A NaN's sign is the hardware's (x86's default NaN is negative, ARM's positive): "nan".
static void part(double v, int digits) {
  if (isnan(v))
    printf(" nan");
  else
    printf(" %.*g", digits, v);
}

static void show(const char *what, double complex z) {
  printf("%-28s", what);
  part(creal(z), 15);
  part(cimag(z), 15);
  printf("\n");
}

static void showf(const char *what, float complex z) {
  printf("%-28s", what);
  part(crealf(z), 7);
  part(cimagf(z), 7);
  printf("\n");
}

int main(int argc, char **argv) {
  volatile double one = argc, big = 1e300, small = 1e-300, inf = INFINITY, nan = NAN;
  double complex x = CMPLX(one + 0.5, 2.25), y = CMPLX(2.25, -one - 0.5);
  show("x * y", x * y);
  show("x / y", x / y);
  show("y / x", y / x);
  show("big * big", CMPLX(big, big) * CMPLX(big, -big));
  show("big / big", CMPLX(big, big) / CMPLX(big, big * 0.5));
  show("small / small", CMPLX(small, small) / CMPLX(small * 3, small));
  show("1 / big", CMPLX(one, one) / CMPLX(big, big));
  show("inf * finite", CMPLX(inf, nan) * CMPLX(2, 3));
  show("finite * inf", CMPLX(2, 3) * CMPLX(nan, inf));
  show("finite / inf", CMPLX(2, 3) / CMPLX(inf, nan));
  show("inf / finite", CMPLX(inf, one) / CMPLX(2, 3));
  show("finite / 0", CMPLX(one, 2) / CMPLX(0, 0));
  show("nan * finite", CMPLX(nan, nan) * CMPLX(2, 3));
  double complex acc = 1;
  for (int i = 1; i <= 40; i++) acc = acc * CMPLX(1.01 * one, 0.1 * i) / CMPLX(0.5, -0.02 * i);
  // Natively, libgcc divides by Smith's method, compiler-rt (and so a pexe) by scaling:
  // after 40 steps they differ in the 15th digit.
  printf("a product of 40              %.12g %.12g\n", creal(acc), cimag(acc));

  volatile float fone = argc, fbig = 1e30f, finf = INFINITY, fnan = NAN;
  float complex fx = CMPLXF(fone + 0.5f, 2.25f), fy = CMPLXF(2.25f, -fone - 0.5f);
  showf("float x * y", fx * fy);
  showf("float x / y", fx / fy);
  showf("float big / big", CMPLXF(fbig, fbig) / CMPLXF(fbig, fbig * 0.5f));
  showf("float inf * finite", CMPLXF(finf, fnan) * CMPLXF(2, 3));
  showf("float finite / inf", CMPLXF(2, 3) / CMPLXF(finf, fnan));
  showf("float finite / 0", CMPLXF(fone, 2) / CMPLXF(0, 0));
  return 0;
}
