// minicuda/narrow_float.h: the rounding of a double to a narrow binary float format (IEEE binary16
// for __half, bfloat16 for __nv_bfloat16), in the four rounding modes of the conversion
// instructions (cvt.rn / .rz / .rm / .rp), with subnormals, overflow and NaN as the hardware gives
// them, and the conversions of narrow values to integers. cuda_fp16.h and cuda_bf16.h build on it.
//
// Why a double: every float and every half or bfloat16 is exactly a double, and the arithmetic of
// two narrow values computed in double and rounded once to the narrow format gives the correctly
// rounded result for + - * / and sqrt (53 >= 2 * 11 + 2 bits, so the double rounding is
// innocuous). For fma and for 64-bit integers, whose exact value may not fit a double, the callers
// first round to double "to odd" (round_to_odd_sum, ull_to_double_odd), which keeps every later
// rounding to fewer than 52 bits exact.
#ifndef MINICUDA_NARROW_FLOAT_H
#define MINICUDA_NARROW_FLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace minicuda::fp {

// The rounding modes of cvt and of the _rn/_rz/_rd/_ru intrinsics.
enum class Round { nearest_even, toward_zero, down, up };

// A narrow format: explicit mantissa bits and exponent bias (binary16: 10, 15; bfloat16: 7, 127).
struct Format {
  int mantissa_bits;
  int exponent_bits;
  int bias;
};
inline constexpr Format kBinary16{10, 5, 15};
inline constexpr Format kBfloat16{7, 8, 127};

inline uint64_t bits_of(double x) { uint64_t u; std::memcpy(&u, &x, 8); return u; }
inline double double_of(uint64_t u) { double x; std::memcpy(&x, &u, 8); return x; }
inline uint32_t bits_of(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }

// 2^e, built from its bits where it is a normal double (std::ldexp, a library call, otherwise).
inline double power_of_two(int e) {
  if (e < -1022 || e > 1023) return std::ldexp(1.0, e);
  const uint64_t u = static_cast<uint64_t>(e + 1023) << 52;
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// x rounded to the format in mode `mode`, as 16 bits. NaN becomes the canonical NaN 0x7fff (the
// toolkit's and the hardware's); an overflow becomes infinity or the largest finite value, as the
// mode directs (round to nearest and away from zero give infinity).
inline uint16_t narrow_bits(double x, Format f, Round mode) {
  const uint64_t u = bits_of(x);
  const uint16_t sign = static_cast<uint16_t>((u >> 63) << 15);
  const uint64_t mag = u & 0x7fffffffffffffffull;
  const uint16_t inf = static_cast<uint16_t>(((1u << f.exponent_bits) - 1) << f.mantissa_bits);
  if (mag > 0x7ff0000000000000ull) return 0x7fff;
  if (mag == 0x7ff0000000000000ull) return sign | inf;
  if (mag == 0) return sign;
  int exponent = static_cast<int>(mag >> 52) - 1023;
  uint64_t significand = mag & ((1ull << 52) - 1);
  if ((mag >> 52) != 0) significand |= 1ull << 52;
  else exponent = -1022;
  // The target's biased exponent if x were normal there; below 1 the result is subnormal, and the
  // significand loses one more bit per step below.
  const int biased = exponent + f.bias;
  int shift = 52 - f.mantissa_bits + (biased < 1 ? 1 - biased : 0);
  if (shift > 54) shift = 54;  // the significand is below 2^53: all of it rounds as a remainder
  uint64_t kept = significand >> shift;
  const uint64_t rest = significand & ((1ull << shift) - 1);
  const uint64_t half = 1ull << (shift - 1);
  const bool negative = sign != 0;
  bool increment = false;
  switch (mode) {
    case Round::nearest_even: increment = rest > half || (rest == half && (kept & 1)); break;
    case Round::toward_zero: break;
    case Round::down: increment = rest != 0 && negative; break;
    case Round::up: increment = rest != 0 && !negative; break;
  }
  kept += increment ? 1 : 0;
  // A carry out of the significand moves into the exponent field by itself.
  const uint64_t exponent_field = biased > 0 ? static_cast<uint64_t>(biased - 1) : 0;
  const uint64_t result = (exponent_field << f.mantissa_bits) + kept;
  if (result >= inf) {
    const bool to_inf = mode == Round::nearest_even || (mode == Round::up && !negative) ||
                        (mode == Round::down && negative);
    return sign | (to_inf ? inf : static_cast<uint16_t>(inf - 1));
  }
  return sign | static_cast<uint16_t>(result);
}

// The exact value of 16 narrow bits.
inline double widen(uint16_t h, Format f) {
  const bool negative = (h >> 15) != 0;
  const int exponent_field = (h >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int mantissa = h & ((1 << f.mantissa_bits) - 1);
  double magnitude;
  if (exponent_field == (1 << f.exponent_bits) - 1) {
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exponent_field == 0) {
    magnitude = static_cast<double>(mantissa) * power_of_two(1 - f.bias - f.mantissa_bits);
  } else {
    magnitude = static_cast<double>(mantissa | (1 << f.mantissa_bits)) *
                power_of_two(exponent_field - f.bias - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

// The same value as a float (exact: both formats fit float), built from the bits where the
// value is finite: a half's or a bfloat16's conversion in kernel code, widen's value otherwise.
inline float widen_to_float(uint16_t h, Format f) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const int exponent_field = (h >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const uint32_t mantissa = h & ((1u << f.mantissa_bits) - 1);
  if (exponent_field == (1 << f.exponent_bits) - 1) return static_cast<float>(widen(h, f));
  float magnitude;
  if (exponent_field != 0) {
    const uint32_t u = static_cast<uint32_t>(exponent_field - f.bias + 127) << 23 | mantissa << (23 - f.mantissa_bits);
    std::memcpy(&magnitude, &u, 4);
  } else {
    // mantissa * 2^(1 - bias - mantissa bits), exact in float arithmetic (2^-24 for fp16; for
    // bfloat16, 2^-133, and the product is a float subnormal).
    magnitude = static_cast<float>(mantissa) * static_cast<float>(power_of_two(1 - f.bias - f.mantissa_bits));
  }
  uint32_t u;
  std::memcpy(&u, &magnitude, 4);
  u |= sign;
  float result;
  std::memcpy(&result, &u, 4);
  return result;
}

inline bool is_nan_bits(uint16_t h, Format f) {
  const uint16_t inf = static_cast<uint16_t>(((1u << f.exponent_bits) - 1) << f.mantissa_bits);
  return (h & 0x7fff) > inf;
}

// a + b rounded to double "to odd": exact, or else the neighbour of the exact sum whose last bit
// is 1. Rounding that to a narrow format gives what rounding the exact sum would (Boldo-Melquiond).
inline double round_to_odd_sum(double a, double b) {
  const double s = a + b;
  if (!std::isfinite(s)) return s;
  const double bb = s - a;
  const double error = (a - (s - bb)) + (b - bb);  // TwoSum: s + error == a + b exactly
  if (error == 0 || (bits_of(s) & 1)) return s;
  return std::nextafter(s, error > 0 ? std::numeric_limits<double>::infinity()
                                     : -std::numeric_limits<double>::infinity());
}

// A 64-bit magnitude as a double rounded to odd (exact up to 2^53).
inline double ull_to_double_odd(unsigned long long v) {
  if (v < (1ull << 53)) return static_cast<double>(v);
  const int shift = 64 - __builtin_clzll(v) - 53;
  unsigned long long kept = v >> shift;
  if (v & ((1ull << shift) - 1)) kept |= 1;
  return std::ldexp(static_cast<double>(kept), shift);
}
inline double ll_to_double_odd(long long v) {
  const unsigned long long magnitude = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
  const double d = ull_to_double_odd(magnitude);
  return v < 0 ? -d : d;
}

// x rounded to an integer in the mode (x finite).
inline double round_integral(double x, Round mode) {
  switch (mode) {
    case Round::nearest_even: return std::nearbyint(x);  // the host's default mode is to nearest even
    case Round::toward_zero: return std::trunc(x);
    case Round::down: return std::floor(x);
    case Round::up: return std::ceil(x);
  }
  return x;
}

// A narrow value converted to the integer type I, saturating at I's range as cvt does. NaN gives
// 0 for types of up to 32 bits and 0x8000000000000000 for 64-bit ones, as the toolkit documents.
template <class I>
I to_integer(double x, Round mode) {
  if (std::isnan(x)) return sizeof(I) == 8 ? static_cast<I>(0x8000000000000000ull) : I{0};
  const double r = round_integral(x, mode);
  if (r <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (r >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// What cuda_fp16.h and cuda_bf16.h tell the shared operations (narrow_float_ops.h) about each of
// their types: the format, the raw type, and for the two-lane types the lane type.
template <class H>
struct narrow_traits {
  static constexpr bool is_scalar = false;
  static constexpr bool is_pair = false;
};
template <class H>
inline constexpr bool is_scalar_v = narrow_traits<H>::is_scalar;
template <class H>
inline constexpr bool is_pair_v = narrow_traits<H>::is_pair;

}  // namespace minicuda::fp

#endif /* MINICUDA_NARROW_FLOAT_H */
