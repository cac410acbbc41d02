// cuda_fp16.h: IEEE half precision as the toolkit's cuda_fp16.h gives it - __half (2 bytes) and
// __half2 (two lanes in 4 bytes), their raw forms, and the conversions to and from float, double
// and the integer types in each rounding mode. The arithmetic, comparisons, math functions,
// operators and atomicAdd come from cuda_fp16.hpp, included at the end. Every value is stored as
// its exact binary16 bits; minicuda/narrow_float.h does the rounding (nearest even unless the name
// says _rz, _rd or _ru; subnormals kept; overflow to infinity; NaN as 0x7fff). Host and device
// code alike may use it, as in CUDA.
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__

#include <cstdint>

#include "vector_types.h"
#include "minicuda/narrow_float.h"

// The 16 bits, for code that builds a value bit by bit.
struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x;
  unsigned short y;
};

// One value, 2 bytes. Converting constructors round to nearest even; the conversion to float is
// exact.
struct alignas(2) __half {
  __half() = default;
  constexpr __half(const __half_raw& r) : __x(r.x) {}
  __half& operator=(const __half_raw& r) { __x = r.x; return *this; }
  operator __half_raw() const { return __half_raw{__x}; }
  __half(float f) : __x(::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)) {}
  __half(double d) : __x(::minicuda::fp::narrow_bits(d, ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)) {}
  __half(short v) : __half(static_cast<double>(v)) {}
  __half(unsigned short v) : __half(static_cast<double>(v)) {}
  __half(int v) : __half(static_cast<double>(v)) {}
  __half(unsigned int v) : __half(static_cast<double>(v)) {}
  __half(long v) : __half(::minicuda::fp::ll_to_double_odd(v)) {}
  __half(unsigned long v) : __half(::minicuda::fp::ull_to_double_odd(v)) {}
  __half(long long v) : __half(::minicuda::fp::ll_to_double_odd(v)) {}
  __half(unsigned long long v) : __half(::minicuda::fp::ull_to_double_odd(v)) {}
  operator float() const { return ::minicuda::fp::widen_to_float(__x, ::minicuda::fp::kBinary16); }

 // Protected in the toolkit; public here so that memcpy of the type (shuffles, atomics) is plain.
  unsigned short __x;
};

// Two values in one 4-byte word, x in the low half (the "low" lane).
struct alignas(4) __half2 {
  __half x;
  __half y;
  __half2() = default;
  constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __half2& operator=(const __half2_raw& r) { return *this = __half2(r); }
  operator __half2_raw() const { return __half2_raw{static_cast<__half_raw>(x).x, static_cast<__half_raw>(y).x}; }
};
static_assert(sizeof(__half) == 2 && alignof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4);
typedef __half half;
typedef __half2 half2;

template <>
struct minicuda::fp::narrow_traits<__half> {
  static constexpr bool is_scalar = true;
  static constexpr bool is_pair = false;
  static constexpr Format format = kBinary16;
  using raw = __half_raw;
};
template <>
struct minicuda::fp::narrow_traits<__half2> {
  static constexpr bool is_scalar = false;
  static constexpr bool is_pair = true;
  using lane = __half;
};

// --- conversions with float and double --------------------------------------------------------
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __float2half_rz(float f) { return __half_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __float2half_rd(float f) { return __half_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __float2half_ru(float f) { return __half_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __double2half(double d) { return __half(d); }
inline float __half2float(__half h) { return static_cast<float>(h); }
inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
inline __half2 __floats2half2_rn(float lo, float hi) { return __half2(__half(lo), __half(hi)); }
inline float2 __half22float2(__half2 h) { return make_float2(static_cast<float>(h.x), static_cast<float>(h.y)); }
inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
inline float __low2float(__half2 h) { return static_cast<float>(h.x); }
inline float __high2float(__half2 h) { return static_cast<float>(h.y); }

// --- lanes ------------------------------------------------------------------------------------
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
inline __half2 __half2half2(__half h) { return __half2(h, h); }
inline __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
inline __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
inline __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }
inline __half2 make_half2(__half x, __half y) { return __half2(x, y); }

// --- bits -------------------------------------------------------------------------------------
inline short __half_as_short(__half h) { return static_cast<short>(static_cast<__half_raw>(h).x); }
inline unsigned short __half_as_ushort(__half h) { return static_cast<__half_raw>(h).x; }
inline __half __short_as_half(short i) { return __half_raw{static_cast<unsigned short>(i)}; }
inline __half __ushort_as_half(unsigned short i) { return __half_raw{i}; }

// --- integers ---------------------------------------------------------------------------------
// To an integer: rounded in the mode, saturated at the type's range, NaN as narrow_float.h says.
// From an integer: rounded once in the mode.
inline int __half2int_rn(__half h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline int __half2int_rz(__half h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline int __half2int_rd(__half h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline int __half2int_ru(__half h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline unsigned int __half2uint_rn(__half h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline unsigned int __half2uint_rz(__half h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline unsigned int __half2uint_rd(__half h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline unsigned int __half2uint_ru(__half h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline short __half2short_rn(__half h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline short __half2short_rz(__half h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline short __half2short_rd(__half h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline short __half2short_ru(__half h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline unsigned short __half2ushort_rn(__half h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline unsigned short __half2ushort_rz(__half h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline unsigned short __half2ushort_rd(__half h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline unsigned short __half2ushort_ru(__half h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline long long __half2ll_rn(__half h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline long long __half2ll_rz(__half h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline long long __half2ll_rd(__half h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline long long __half2ll_ru(__half h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline unsigned long long __half2ull_rn(__half h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::nearest_even); }
inline unsigned long long __half2ull_rz(__half h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline unsigned long long __half2ull_rd(__half h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::down); }
inline unsigned long long __half2ull_ru(__half h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::up); }
inline signed char __half2char_rz(__half h) { return ::minicuda::fp::to_integer<signed char>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline unsigned char __half2uchar_rz(__half h) { return ::minicuda::fp::to_integer<unsigned char>(::minicuda::fp::widen(static_cast<__half_raw>(h).x, ::minicuda::fp::kBinary16), ::minicuda::fp::Round::toward_zero); }
inline __half __int2half_rn(int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __int2half_rz(int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __int2half_rd(int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __int2half_ru(int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __uint2half_rn(unsigned int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __uint2half_rz(unsigned int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __uint2half_rd(unsigned int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __uint2half_ru(unsigned int i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __short2half_rn(short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __short2half_rz(short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __short2half_rd(short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __short2half_ru(short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __ushort2half_rn(unsigned short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __ushort2half_rz(unsigned short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __ushort2half_rd(unsigned short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __ushort2half_ru(unsigned short i) { return __half_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __ll2half_rn(long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __ll2half_rz(long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __ll2half_rd(long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __ll2half_ru(long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }
inline __half __ull2half_rn(unsigned long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::nearest_even)}; }
inline __half __ull2half_rz(unsigned long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::toward_zero)}; }
inline __half __ull2half_rd(unsigned long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::down)}; }
inline __half __ull2half_ru(unsigned long long i) { return __half_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBinary16, ::minicuda::fp::Round::up)}; }

#include "cuda_fp16.hpp"

#endif /* __CUDA_FP16_H__ */
