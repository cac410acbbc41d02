// crt/device_float_intrinsics.h: the bit reinterpretations (__float_as_int, __double_as_longlong,
// __hiloint2double, ...) and the fast single-precision intrinsics (__expf, __sinf, __fdividef,
// __saturatef, ...) of the CUDA math API, as the toolkit's crt/device_functions.h declares them.
// Included by device_functions.h; callable from host and kernel code.
//
// The GPU computes the fast intrinsics with its special function unit, to the error bounds the
// CUDA documentation gives (e.g. __expf within 2 + floor(|1.16 x|) ulp). minicuda computes them
// with the C library's correctly or nearly correctly rounded functions, which is within those
// bounds: a program may not see the same last bits as on a GPU, but never a worse result. The
// special cases the documentation defines are kept: __saturatef(NaN) is +0, __fdividef(x, y) for
// 2^126 < |y| < 2^128 is 0 (NaN when x is infinite).
#ifndef __MINICUDA_DEVICE_FLOAT_INTRINSICS_H__
#define __MINICUDA_DEVICE_FLOAT_INTRINSICS_H__

#include <cmath>

// --- Bit reinterpretations (no conversion: the same bits read as another type) ------------------
inline constexpr int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
inline constexpr float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
inline constexpr unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
inline constexpr float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
inline constexpr long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
inline constexpr double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
// The high and low 32 bits of a double, and a double from them.
inline constexpr int __double2hiint(double x) {
  return static_cast<int>(static_cast<unsigned long long>(__double_as_longlong(x)) >> 32);
}
inline constexpr int __double2loint(double x) {
  return static_cast<int>(static_cast<unsigned int>(static_cast<unsigned long long>(__double_as_longlong(x))));
}
inline constexpr double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32) |
                                                     static_cast<unsigned int>(lo)));
}

// --- Fast single-precision intrinsics ------------------------------------------------------------
inline float __expf(float x) { return ::expf(x); }
inline float __exp10f(float x) { return ::exp10f(x); }
inline float __logf(float x) { return ::logf(x); }
inline float __log2f(float x) { return ::log2f(x); }
inline float __log10f(float x) { return ::log10f(x); }
inline float __sinf(float x) { return ::sinf(x); }
inline float __cosf(float x) { return ::cosf(x); }
inline void __sincosf(float x, float* s, float* c) { ::sincosf(x, s, c); }
inline float __tanf(float x) { return ::tanf(x); }
inline float __powf(float x, float y) { return ::powf(x, y); }
// x / y; for 2^126 < |y| < 2^128 the GPU's reciprocal underflows to 0, so the result is 0, or NaN
// when x is infinite.
inline float __fdividef(float x, float y) {
  const float ay = std::fabs(y);
  if (ay > 0x1p126f && std::isfinite(ay)) return std::isinf(x) ? __builtin_nanf("") : 0.0f * x * y;
  return x / y;
}
// Clamps to [+0, 1]; NaN gives +0.
inline float __saturatef(float x) {
  if (!(x > 0.0f)) return 0.0f;  // NaN, -0, negatives
  return x > 1.0f ? 1.0f : x;
}

#endif /* __MINICUDA_DEVICE_FLOAT_INTRINSICS_H__ */
