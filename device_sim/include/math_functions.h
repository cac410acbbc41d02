// math_functions.h: the math of CUDA C++, for host and kernel code alike, as the toolkit's
// crt/math_functions.h provides it:
//   - the C library's functions (sqrtf, powf, expf, fabs, sincosf, exp10f, ...) in the global
//     namespace, with the C++ float overloads (sqrt(float) ...): <math.h> and <cmath>;
//   - the functions of the CUDA math API that the C library lacks (rsqrtf, sinpif, erfinvf,
//     normcdff, norm3d, cyl_bessel_i0, ...): crt/math_functions_cuda.h;
//   - the global min/max overloads for every pairing of int, unsigned, long, long long and their
//     unsigned types, float and double (a mixed signed/unsigned pair compares as unsigned, a
//     float/double pair as double), and umin, umax, llmin, llmax, ullmin, ullmax.
// Part of the kernel language (minicuda::device_code).
#ifndef __MATH_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__

#include <math.h>

#include <cmath>
#include <cstdlib>

#include "crt/math_functions_cuda.h"

// --- min / max -----------------------------------------------------------------------------------
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
inline long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
inline unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
inline unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }

// MINICUDA_MINMAX_(R, A, B): min and max of an A and a B, both converted to R first.
#define MINICUDA_MINMAX_(R, A, B)                                                                           \
  inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
  inline R max(A a, B b) { return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); }
MINICUDA_MINMAX_(unsigned int, unsigned int, unsigned int)
MINICUDA_MINMAX_(unsigned int, int, unsigned int)
MINICUDA_MINMAX_(unsigned int, unsigned int, int)
MINICUDA_MINMAX_(long int, long int, long int)
MINICUDA_MINMAX_(unsigned long int, unsigned long int, unsigned long int)
MINICUDA_MINMAX_(unsigned long int, long int, unsigned long int)
MINICUDA_MINMAX_(unsigned long int, unsigned long int, long int)
MINICUDA_MINMAX_(long long int, long long int, long long int)
MINICUDA_MINMAX_(unsigned long long int, unsigned long long int, unsigned long long int)
MINICUDA_MINMAX_(unsigned long long int, long long int, unsigned long long int)
MINICUDA_MINMAX_(unsigned long long int, unsigned long long int, long long int)
#undef MINICUDA_MINMAX_
// Floating point: fmin/fmax semantics (a NaN operand yields the other operand).
inline float min(float a, float b) { return ::fminf(a, b); }
inline float max(float a, float b) { return ::fmaxf(a, b); }
inline double min(double a, double b) { return ::fmin(a, b); }
inline double max(double a, double b) { return ::fmax(a, b); }
inline double min(float a, double b) { return ::fmin(static_cast<double>(a), b); }
inline double max(float a, double b) { return ::fmax(static_cast<double>(a), b); }
inline double min(double a, float b) { return ::fmin(a, static_cast<double>(b)); }
inline double max(double a, float b) { return ::fmax(a, static_cast<double>(b)); }

#endif /* __MATH_FUNCTIONS_H__ */
