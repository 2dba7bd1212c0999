/* The complex multiplication and division clang calls for `_Complex` operands (compiler-rt's
   names: __mulsc3, __muldc3, __divsc3, __divdc3; le32's long double is double, so these
   four are all a pexe needs). A pexe may call no undefined function, so they are bitcode
   here, as the rest of compiler-rt's builtins are the translator's own.
   The results are C11's Annex G: the plain formula, and when both parts come out NaN, the
   infinities and zeros the operands meant recovered (an infinite operand times a nonzero
   one is infinite, a finite one divided by an infinite one is zero); division scales the
   divisor by its exponent so that large and small operands neither overflow nor vanish. */
#include <complex.h>
#include <math.h>

#define BOX(v, inf) __builtin_copysign##inf(__builtin_isinf(v) ? 1 : 0, v)
#define ZERO_IF_NAN(v, t) \
  if (__builtin_isnan(v)) v = __builtin_copysign##t(0, v)

/* Multiplication's recovery when operand p + qi is infinite: its parts boxed to 1 or 0
   (keeping their signs), the other operand's NaN parts made 0. */
#define INFINITE_OPERAND(p, q, r, s, t)          \
  if (__builtin_isinf(p) || __builtin_isinf(q)) { \
    p = BOX(p, t);                                \
    q = BOX(q, t);                                \
    ZERO_IF_NAN(r, t);                            \
    ZERO_IF_NAN(s, t);                            \
    again = 1;                                    \
  }

#define MUL(name, T, t)                                                                \
  T _Complex name(T a, T b, T c, T d) {                                              \
    T ac = a * c, bd = b * d, ad = a * d, bc = b * c;                                \
    T x = ac - bd, y = ad + bc;                                                      \
    if (__builtin_isnan(x) && __builtin_isnan(y)) {                                  \
      int again = 0;                                                                 \
      INFINITE_OPERAND(a, b, c, d, t);                                               \
      INFINITE_OPERAND(c, d, a, b, t);                                               \
      if (!again && (__builtin_isinf(ac) || __builtin_isinf(bd) ||                   \
                     __builtin_isinf(ad) || __builtin_isinf(bc))) {                  \
        ZERO_IF_NAN(a, t);                                                           \
        ZERO_IF_NAN(b, t);                                                           \
        ZERO_IF_NAN(c, t);                                                           \
        ZERO_IF_NAN(d, t);                                                           \
        again = 1;                                                                   \
      }                                                                              \
      if (again) {                                                                   \
        x = __builtin_inf##t() * (a * c - b * d);                                    \
        y = __builtin_inf##t() * (a * d + b * c);                                    \
      }                                                                              \
    }                                                                                \
    T _Complex z;                                                                    \
    __real__ z = x;                                                                  \
    __imag__ z = y;                                                                  \
    return z;                                                                        \
  }

#define DIV(name, T, t)                                                                \
  T _Complex name(T a, T b, T c, T d) {                                              \
    int scale = 0;                                                                   \
    T logbw = logb##t(fmax##t(fabs##t(c), fabs##t(d)));                               \
    if (__builtin_isfinite(logbw)) {                                                 \
      scale = (int)logbw;                                                            \
      c = scalbn##t(c, -scale);                                                      \
      d = scalbn##t(d, -scale);                                                      \
    }                                                                                \
    T denom = c * c + d * d;                                                         \
    T x = scalbn##t((a * c + b * d) / denom, -scale);                                \
    T y = scalbn##t((b * c - a * d) / denom, -scale);                                \
    if (__builtin_isnan(x) && __builtin_isnan(y)) {                                  \
      if (denom == 0 && (!__builtin_isnan(a) || !__builtin_isnan(b))) {              \
        x = __builtin_copysign##t(__builtin_inf##t(), c) * a;                        \
        y = __builtin_copysign##t(__builtin_inf##t(), c) * b;                        \
      } else if ((__builtin_isinf(a) || __builtin_isinf(b)) &&                       \
                 __builtin_isfinite(c) && __builtin_isfinite(d)) {                   \
        a = BOX(a, t);                                                               \
        b = BOX(b, t);                                                               \
        x = __builtin_inf##t() * (a * c + b * d);                                    \
        y = __builtin_inf##t() * (b * c - a * d);                                    \
      } else if (__builtin_isinf(logbw) && logbw > 0 && __builtin_isfinite(a) &&     \
                 __builtin_isfinite(b)) {                                            \
        c = BOX(c, t);                                                               \
        d = BOX(d, t);                                                               \
        x = 0 * (a * c + b * d);                                                     \
        y = 0 * (b * c - a * d);                                                     \
      }                                                                              \
    }                                                                                \
    T _Complex z;                                                                    \
    __real__ z = x;                                                                  \
    __imag__ z = y;                                                                  \
    return z;                                                                        \
  }

MUL(__mulsc3, float, f)
MUL(__muldc3, double, )
DIV(__divsc3, float, f)
DIV(__divdc3, double, )
