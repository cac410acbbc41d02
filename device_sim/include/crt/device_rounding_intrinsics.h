// crt/device_rounding_intrinsics.h: the arithmetic and conversion intrinsics with an explicit
// IEEE 754 rounding mode - _rn (to nearest even), _rz (toward zero), _ru (toward +inf), _rd
// (toward -inf) - for float (__fadd_rd, __fmul_ru, __fmaf_rz, __fdiv_rn, __frcp_*, __fsqrt_*) and
// double (__dadd_*, __dmul_*, __fma_*, __ddiv_*, __drcp_*, __dsqrt_*), and the conversions
// between integers, float and double (__float2int_rn, __int2float_rd, __double2float_ru, ...).
// As the toolkit's crt/device_functions.h and crt/device_double_functions.h declare them.
// Included by device_functions.h; callable from host and kernel code.
//
// Exactness: every result is the correctly rounded one IEEE 754 defines for the mode, overflow,
// underflow, signed zeros (__fadd_rd(1, -1) is -0) and NaN included. The operation runs on the
// host's own IEEE unit with the host thread's rounding mode switched for that one operation
// (fesetround), then restored. The operands and the result pass through volatile objects so the
// compiler can neither fold the operation at compile time nor move it out of the switched region.
//
// Float-to-integer conversions saturate, as the GPU's cvt instruction does: a value beyond the
// destination's range (infinities included) gives its minimum or maximum. NaN gives 0 when the
// source is a float and the destination 32 bits wide, otherwise 1 << (bits - 1) (INT_MIN,
// 0x80000000u, LLONG_MIN, 1ull << 63), as the PTX ISA specifies.
#ifndef __MINICUDA_DEVICE_ROUNDING_INTRINSICS_H__
#define __MINICUDA_DEVICE_ROUNDING_INTRINSICS_H__

#include <cfenv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>

namespace minicuda::gpu::math {

// op(operands...) evaluated with this host thread's rounding mode set to `mode`.
template <class R, class Op, class... T>
inline R in_rounding_mode(int mode, Op op, T... operands) {
  using A = std::common_type_t<T...>;  // the operands share one type
  volatile A kept[sizeof...(T)] = {operands...};
  const int saved = std::fegetround();
  std::fesetround(mode);
  volatile R r = [&]<std::size_t... I>(std::index_sequence<I...>) { return op(kept[I]...); }(
      std::index_sequence_for<T...>{});
  std::fesetround(saved);
  return r;
}

// A float or double already rounded to an integral value, converted to integer type I with the
// GPU's saturation; nan_value for NaN.
template <class I, class F>
inline I saturate_to(F r, I nan_value) {
  if (std::isnan(r)) return nan_value;
  if (r <= static_cast<F>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<F>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}
template <class I, class F>
inline constexpr I nan_result() {  // see the top of this file
  if constexpr (sizeof(F) == 4 && sizeof(I) == 4) return 0;
  else return static_cast<I>(static_cast<std::make_unsigned_t<I>>(1) << (8 * sizeof(I) - 1));
}

}  // namespace minicuda::gpu::math

// One definition per rounding mode: name_rn, name_rz, name_ru, name_rd.
#define MINICUDA_EACH_MODE_(DEF) DEF(_rn, FE_TONEAREST) DEF(_rz, FE_TOWARDZERO) DEF(_ru, FE_UPWARD) DEF(_rd, FE_DOWNWARD)
#define MINICUDA_IN_MODE_ minicuda::gpu::math::in_rounding_mode

// --- Single precision ----------------------------------------------------------------------------
#define MINICUDA_F_(sfx, mode)                                                                        \
  inline float __fadd##sfx(float x, float y) { return MINICUDA_IN_MODE_<float>(mode, [](float a, float b) { return a + b; }, x, y); } \
  inline float __fsub##sfx(float x, float y) { return MINICUDA_IN_MODE_<float>(mode, [](float a, float b) { return a - b; }, x, y); } \
  inline float __fmul##sfx(float x, float y) { return MINICUDA_IN_MODE_<float>(mode, [](float a, float b) { return a * b; }, x, y); } \
  inline float __fdiv##sfx(float x, float y) { return MINICUDA_IN_MODE_<float>(mode, [](float a, float b) { return a / b; }, x, y); } \
  inline float __fmaf##sfx(float x, float y, float z) {                                              \
    return MINICUDA_IN_MODE_<float>(mode, [](float a, float b, float c) { return std::fma(a, b, c); }, x, y, z); \
  }                                                                                                   \
  inline float __frcp##sfx(float x) { return MINICUDA_IN_MODE_<float>(mode, [](float a) { return 1.0f / a; }, x); } \
  inline float __fsqrt##sfx(float x) { return MINICUDA_IN_MODE_<float>(mode, [](float a) { return std::sqrt(a); }, x); }
MINICUDA_EACH_MODE_(MINICUDA_F_)
#undef MINICUDA_F_
// 1/sqrt(x) to nearest (the one mode the toolkit provides), from the double result.
inline float __frsqrt_rn(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }

// --- Double precision ----------------------------------------------------------------------------
#define MINICUDA_D_(sfx, mode)                                                                        \
  inline double __dadd##sfx(double x, double y) { return MINICUDA_IN_MODE_<double>(mode, [](double a, double b) { return a + b; }, x, y); } \
  inline double __dsub##sfx(double x, double y) { return MINICUDA_IN_MODE_<double>(mode, [](double a, double b) { return a - b; }, x, y); } \
  inline double __dmul##sfx(double x, double y) { return MINICUDA_IN_MODE_<double>(mode, [](double a, double b) { return a * b; }, x, y); } \
  inline double __ddiv##sfx(double x, double y) { return MINICUDA_IN_MODE_<double>(mode, [](double a, double b) { return a / b; }, x, y); } \
  inline double __fma##sfx(double x, double y, double z) {                                           \
    return MINICUDA_IN_MODE_<double>(mode, [](double a, double b, double c) { return std::fma(a, b, c); }, x, y, z); \
  }                                                                                                   \
  inline double __drcp##sfx(double x) { return MINICUDA_IN_MODE_<double>(mode, [](double a) { return 1.0 / a; }, x); } \
  inline double __dsqrt##sfx(double x) { return MINICUDA_IN_MODE_<double>(mode, [](double a) { return std::sqrt(a); }, x); }
MINICUDA_EACH_MODE_(MINICUDA_D_)
#undef MINICUDA_D_

// --- Integer and double to float or double (rounded in the mode) ---------------------------------
#define MINICUDA_CVT_(name, From, To, sfx, mode) \
  inline To name##sfx(From x) { return MINICUDA_IN_MODE_<To>(mode, [](From a) { return static_cast<To>(a); }, x); }
#define MINICUDA_CVTS_(sfx, mode)                               \
  MINICUDA_CVT_(__int2float, int, float, sfx, mode)             \
  MINICUDA_CVT_(__uint2float, unsigned int, float, sfx, mode)   \
  MINICUDA_CVT_(__ll2float, long long, float, sfx, mode)        \
  MINICUDA_CVT_(__ull2float, unsigned long long, float, sfx, mode) \
  MINICUDA_CVT_(__ll2double, long long, double, sfx, mode)      \
  MINICUDA_CVT_(__ull2double, unsigned long long, double, sfx, mode) \
  MINICUDA_CVT_(__double2float, double, float, sfx, mode)
MINICUDA_EACH_MODE_(MINICUDA_CVTS_)
#undef MINICUDA_CVTS_
#undef MINICUDA_CVT_
// Exact conversions: one mode only.
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned int x) { return x; }

// --- Float or double to integer (saturating) -----------------------------------------------------
#define MINICUDA_TO_INT_(name, From, To)                                                            \
  inline To name##_rn(From x) {                                                                   \
    const From r = minicuda::gpu::math::in_rounding_mode<From>(FE_TONEAREST, [](From a) { return std::nearbyint(a); }, x); \
    return minicuda::gpu::math::saturate_to<To>(r, minicuda::gpu::math::nan_result<To, From>());  \
  }                                                                                               \
  inline To name##_rz(From x) {                                                                   \
    return minicuda::gpu::math::saturate_to<To>(std::trunc(x), minicuda::gpu::math::nan_result<To, From>());     \
  }                                                                                               \
  inline To name##_ru(From x) {                                                                   \
    return minicuda::gpu::math::saturate_to<To>(std::ceil(x), minicuda::gpu::math::nan_result<To, From>());      \
  }                                                                                               \
  inline To name##_rd(From x) {                                                                   \
    return minicuda::gpu::math::saturate_to<To>(std::floor(x), minicuda::gpu::math::nan_result<To, From>());     \
  }
MINICUDA_TO_INT_(__float2int, float, int)
MINICUDA_TO_INT_(__float2uint, float, unsigned int)
MINICUDA_TO_INT_(__float2ll, float, long long)
MINICUDA_TO_INT_(__float2ull, float, unsigned long long)
MINICUDA_TO_INT_(__double2int, double, int)
MINICUDA_TO_INT_(__double2uint, double, unsigned int)
MINICUDA_TO_INT_(__double2ll, double, long long)
MINICUDA_TO_INT_(__double2ull, double, unsigned long long)
#undef MINICUDA_TO_INT_

#undef MINICUDA_IN_MODE_
#undef MINICUDA_EACH_MODE_

#endif /* __MINICUDA_DEVICE_ROUNDING_INTRINSICS_H__ */
