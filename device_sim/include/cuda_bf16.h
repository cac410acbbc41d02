// cuda_bf16.h: bfloat16 as the toolkit's cuda_bf16.h gives it - __nv_bfloat16 (2 bytes: float's
// sign and 8-bit exponent, 7 mantissa bits) and __nv_bfloat162 (two lanes in 4 bytes), their raw
// forms, and the conversions to and from float, double and the integer types in each rounding
// mode. The arithmetic, comparisons, math functions, operators and atomicAdd, overloaded on the
// same names as for __half (__hadd, __hmul2, hsqrt, ...), come from cuda_bf16.hpp, included at
// the end. minicuda/narrow_float.h does the rounding (nearest even unless the name says _rz, _rd
// or _ru; subnormals kept; overflow to infinity; NaN as 0x7fff). Host and device code may use it.
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__

#include <cstdint>

#include "vector_types.h"
#include "minicuda/narrow_float.h"

// The 16 bits, for code that builds a value bit by bit.
struct __nv_bfloat16_raw {
  unsigned short x;
};
struct __nv_bfloat162_raw {
  unsigned short x;
  unsigned short y;
};

// One value, 2 bytes. Converting constructors round to nearest even; the conversion to float is
// exact.
struct alignas(2) __nv_bfloat16 {
  __nv_bfloat16() = default;
  constexpr __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  __nv_bfloat16& operator=(const __nv_bfloat16_raw& r) { __x = r.x; return *this; }
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
  __nv_bfloat16(float f) : __x(::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)) {}
  __nv_bfloat16(double d) : __x(::minicuda::fp::narrow_bits(d, ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)) {}
  __nv_bfloat16(short v) : __nv_bfloat16(static_cast<double>(v)) {}
  __nv_bfloat16(unsigned short v) : __nv_bfloat16(static_cast<double>(v)) {}
  __nv_bfloat16(int v) : __nv_bfloat16(static_cast<double>(v)) {}
  __nv_bfloat16(unsigned int v) : __nv_bfloat16(static_cast<double>(v)) {}
  __nv_bfloat16(long v) : __nv_bfloat16(::minicuda::fp::ll_to_double_odd(v)) {}
  __nv_bfloat16(unsigned long v) : __nv_bfloat16(::minicuda::fp::ull_to_double_odd(v)) {}
  __nv_bfloat16(long long v) : __nv_bfloat16(::minicuda::fp::ll_to_double_odd(v)) {}
  __nv_bfloat16(unsigned long long v) : __nv_bfloat16(::minicuda::fp::ull_to_double_odd(v)) {}
  operator float() const { return ::minicuda::fp::widen_to_float(__x, ::minicuda::fp::kBfloat16); }

 // Protected in the toolkit; public here so that memcpy of the type (shuffles, atomics) is plain.
  unsigned short __x;
};

// Two values in one 4-byte word, x in the low half (the "low" lane).
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x;
  __nv_bfloat16 y;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __nv_bfloat162(const __nv_bfloat162_raw& r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
  __nv_bfloat162& operator=(const __nv_bfloat162_raw& r) { return *this = __nv_bfloat162(r); }
  operator __nv_bfloat162_raw() const { return __nv_bfloat162_raw{static_cast<__nv_bfloat16_raw>(x).x, static_cast<__nv_bfloat16_raw>(y).x}; }
};
static_assert(sizeof(__nv_bfloat16) == 2 && alignof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4);
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

template <>
struct minicuda::fp::narrow_traits<__nv_bfloat16> {
  static constexpr bool is_scalar = true;
  static constexpr bool is_pair = false;
  static constexpr Format format = kBfloat16;
  using raw = __nv_bfloat16_raw;
};
template <>
struct minicuda::fp::narrow_traits<__nv_bfloat162> {
  static constexpr bool is_scalar = false;
  static constexpr bool is_pair = true;
  using lane = __nv_bfloat16;
};

// --- conversions with float and double --------------------------------------------------------
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rz(float f) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __float2bfloat16_rd(float f) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __float2bfloat16_ru(float f) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(f, ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
inline float __bfloat162float(__nv_bfloat16 h) { return static_cast<float>(h); }
inline __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
inline __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi) { return __nv_bfloat162(__nv_bfloat16(lo), __nv_bfloat16(hi)); }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(static_cast<float>(h.x), static_cast<float>(h.y)); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162(__nv_bfloat16(f.x), __nv_bfloat16(f.y)); }
inline float __low2float(__nv_bfloat162 h) { return static_cast<float>(h.x); }
inline float __high2float(__nv_bfloat162 h) { return static_cast<float>(h.y); }

// --- lanes ------------------------------------------------------------------------------------
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) { return __nv_bfloat162(lo, hi); }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return __nv_bfloat162(h, h); }
inline __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
inline __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.x); }
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return __nv_bfloat162(x, y); }

// --- bits -------------------------------------------------------------------------------------
inline short __bfloat16_as_short(__nv_bfloat16 h) { return static_cast<short>(static_cast<__nv_bfloat16_raw>(h).x); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }
inline __nv_bfloat16 __short_as_bfloat16(short i) { return __nv_bfloat16_raw{static_cast<unsigned short>(i)}; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short i) { return __nv_bfloat16_raw{i}; }

// --- integers ---------------------------------------------------------------------------------
// To an integer: rounded in the mode, saturated at the type's range, NaN as narrow_float.h says.
// From an integer: rounded once in the mode.
inline int __bfloat162int_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline int __bfloat162int_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline int __bfloat162int_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline int __bfloat162int_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline unsigned int __bfloat162uint_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline unsigned int __bfloat162uint_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline unsigned int __bfloat162uint_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline unsigned int __bfloat162uint_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned int>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline short __bfloat162short_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline short __bfloat162short_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline short __bfloat162short_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline short __bfloat162short_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline unsigned short __bfloat162ushort_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline unsigned short __bfloat162ushort_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline unsigned short __bfloat162ushort_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline unsigned short __bfloat162ushort_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned short>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline long long __bfloat162ll_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline long long __bfloat162ll_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline long long __bfloat162ll_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline long long __bfloat162ll_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline unsigned long long __bfloat162ull_rn(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::nearest_even); }
inline unsigned long long __bfloat162ull_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline unsigned long long __bfloat162ull_rd(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::down); }
inline unsigned long long __bfloat162ull_ru(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned long long>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::up); }
inline signed char __bfloat162char_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<signed char>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline unsigned char __bfloat162uchar_rz(__nv_bfloat16 h) { return ::minicuda::fp::to_integer<unsigned char>(::minicuda::fp::widen(static_cast<__nv_bfloat16_raw>(h).x, ::minicuda::fp::kBfloat16), ::minicuda::fp::Round::toward_zero); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __int2bfloat16_rz(int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __int2bfloat16_rd(int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __int2bfloat16_ru(int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __uint2bfloat16_rn(unsigned int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __uint2bfloat16_rz(unsigned int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __uint2bfloat16_rd(unsigned int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __uint2bfloat16_ru(unsigned int i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __short2bfloat16_rn(short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __short2bfloat16_rz(short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __short2bfloat16_rd(short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __short2bfloat16_ru(short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __ushort2bfloat16_rn(unsigned short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __ushort2bfloat16_rz(unsigned short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __ushort2bfloat16_rd(unsigned short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __ushort2bfloat16_ru(unsigned short i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(static_cast<double>(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __ll2bfloat16_rn(long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __ll2bfloat16_rz(long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __ll2bfloat16_rd(long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __ll2bfloat16_ru(long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ll_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }
inline __nv_bfloat16 __ull2bfloat16_rn(unsigned long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::nearest_even)}; }
inline __nv_bfloat16 __ull2bfloat16_rz(unsigned long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::toward_zero)}; }
inline __nv_bfloat16 __ull2bfloat16_rd(unsigned long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::down)}; }
inline __nv_bfloat16 __ull2bfloat16_ru(unsigned long long i) { return __nv_bfloat16_raw{::minicuda::fp::narrow_bits(::minicuda::fp::ull_to_double_odd(i), ::minicuda::fp::kBfloat16, ::minicuda::fp::Round::up)}; }

#include "cuda_bf16.hpp"

#endif /* __CUDA_BF16_H__ */
