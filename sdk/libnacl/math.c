/* Square roots by the ABI's own intrinsic (llvm.sqrt, one instruction on every target)
   rather than newlib's bit-by-bit software root, with C's errno for a negative argument. */
#include <errno.h>
#include <math.h>

double sqrt(double x) {
  if (x < 0) errno = EDOM;
  return __builtin_sqrt(x);
}

float sqrtf(float x) {
  if (x < 0) errno = EDOM;
  return __builtin_sqrtf(x);
}

long double sqrtl(long double x) { return sqrt(x); }
