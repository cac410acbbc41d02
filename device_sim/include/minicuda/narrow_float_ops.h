// minicuda/narrow_float_ops.h: the operations that cuda_fp16.h and cuda_bf16.h share by name -
// __hadd, __hmul2, hsqrt, the comparisons, the operators, atomicAdd - written once as templates
// over H (__half or __nv_bfloat16) and H2 (__half2 or __nv_bfloat162), as the toolkit overloads
// each name for both types.
//
// Semantics: every operation computes the exact or correctly rounded result in double and rounds
// it once to the narrow format, to nearest even (narrow_float.h says why that is exact for
// + - * / sqrt, and how fma avoids a double rounding). That is what the H200 gives for add, sub,
// mul, fma, div, sqrt and the comparisons; for the transcendental functions (hexp, hsin, ...) the
// hardware uses approximations, and minicuda gives the correctly rounded value of the host's libm
// instead. A NaN result is the canonical NaN 0x7fff.
#ifndef MINICUDA_NARROW_FLOAT_OPS_H
#define MINICUDA_NARROW_FLOAT_OPS_H

#include <cmath>
#include <type_traits>

#include "minicuda/narrow_float.h"

namespace minicuda::fp {

template <class H>
using if_scalar = std::enable_if_t<is_scalar_v<H>, H>;
template <class H2>
using if_pair = std::enable_if_t<is_pair_v<H2>, H2>;

template <class H>
uint16_t raw(H h) { return static_cast<typename narrow_traits<H>::raw>(h).x; }
template <class H>
H from_bits(uint16_t b) { return H(typename narrow_traits<H>::raw{b}); }
template <class H>
double value(H h) { return widen(raw(h), narrow_traits<H>::format); }
template <class H>
H round_to(double x, Round mode = Round::nearest_even) { return from_bits<H>(narrow_bits(x, narrow_traits<H>::format, mode)); }
template <class H>
bool is_nan(H h) { return is_nan_bits(raw(h), narrow_traits<H>::format); }
template <class H>
H saturate(H h) {  // clamp to [0, 1]; NaN becomes +0
  const double v = value(h);
  if (std::isnan(v) || v <= 0) return from_bits<H>(0);
  return v >= 1 ? round_to<H>(1.0) : h;
}
template <class H>
H fma(H a, H b, H c, Round mode = Round::nearest_even) {  // a * b is exact in double
  return round_to<H>(round_to_odd_sum(value(a) * value(b), value(c)), mode);
}
// max/min as the hardware's: a NaN operand is ignored unless both are; -0 is below +0.
template <class H>
H max_of(H a, H b, bool propagate_nan) {
  if (is_nan(a) || is_nan(b)) {
    if (propagate_nan || (is_nan(a) && is_nan(b))) return from_bits<H>(0x7fff);
    return is_nan(a) ? b : a;
  }
  const double x = value(a), y = value(b);
  if (x == y) return std::signbit(x) ? b : a;
  return x > y ? a : b;
}
template <class H>
H min_of(H a, H b, bool propagate_nan) {
  if (is_nan(a) || is_nan(b)) {
    if (propagate_nan || (is_nan(a) && is_nan(b))) return from_bits<H>(0x7fff);
    return is_nan(a) ? b : a;
  }
  const double x = value(a), y = value(b);
  if (x == y) return std::signbit(x) ? a : b;
  return x < y ? a : b;
}
template <class H, class F>
H unary(H a, F f) { return round_to<H>(f(value(a))); }
template <class H2, class F>
H2 lanes(H2 a, F f) { return H2(f(a.x), f(a.y)); }
template <class H2, class F>
H2 lanes(H2 a, H2 b, F f) { return H2(f(a.x, b.x), f(a.y, b.y)); }
template <class H2, class F>
H2 lanes(H2 a, H2 b, H2 c, F f) { return H2(f(a.x, b.x, c.x), f(a.y, b.y, c.y)); }

}  // namespace minicuda::fp

// --- one value ---------------------------------------------------------------------------------

template <class H> ::minicuda::fp::if_scalar<H> __hadd(H a, H b) { return ::minicuda::fp::round_to<H>(::minicuda::fp::value(a) + ::minicuda::fp::value(b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hsub(H a, H b) { return ::minicuda::fp::round_to<H>(::minicuda::fp::value(a) - ::minicuda::fp::value(b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hmul(H a, H b) { return ::minicuda::fp::round_to<H>(::minicuda::fp::value(a) * ::minicuda::fp::value(b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hdiv(H a, H b) { return ::minicuda::fp::round_to<H>(::minicuda::fp::value(a) / ::minicuda::fp::value(b)); }
// The _rn forms forbid contraction into an fma; each operation here is rounded alone anyway.
template <class H> ::minicuda::fp::if_scalar<H> __hadd_rn(H a, H b) { return __hadd(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> __hsub_rn(H a, H b) { return __hsub(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> __hmul_rn(H a, H b) { return __hmul(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> __hfma(H a, H b, H c) { return ::minicuda::fp::fma(a, b, c); }
template <class H> ::minicuda::fp::if_scalar<H> __hneg(H a) { return ::minicuda::fp::from_bits<H>(::minicuda::fp::raw(a) ^ 0x8000); }
template <class H> ::minicuda::fp::if_scalar<H> __habs(H a) { return ::minicuda::fp::from_bits<H>(::minicuda::fp::raw(a) & 0x7fff); }
template <class H> ::minicuda::fp::if_scalar<H> __hadd_sat(H a, H b) { return ::minicuda::fp::saturate(__hadd(a, b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hsub_sat(H a, H b) { return ::minicuda::fp::saturate(__hsub(a, b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hmul_sat(H a, H b) { return ::minicuda::fp::saturate(__hmul(a, b)); }
template <class H> ::minicuda::fp::if_scalar<H> __hfma_sat(H a, H b, H c) { return ::minicuda::fp::saturate(__hfma(a, b, c)); }
// fma, then a negative result becomes +0; NaN stays the canonical NaN.
template <class H> ::minicuda::fp::if_scalar<H> __hfma_relu(H a, H b, H c) {
  const H r = __hfma(a, b, c);
  return !::minicuda::fp::is_nan(r) && ::minicuda::fp::value(r) < 0 ? ::minicuda::fp::from_bits<H>(0) : r;
}
template <class H> ::minicuda::fp::if_scalar<H> __hmax(H a, H b) { return ::minicuda::fp::max_of(a, b, false); }
template <class H> ::minicuda::fp::if_scalar<H> __hmin(H a, H b) { return ::minicuda::fp::min_of(a, b, false); }
template <class H> ::minicuda::fp::if_scalar<H> __hmax_nan(H a, H b) { return ::minicuda::fp::max_of(a, b, true); }
template <class H> ::minicuda::fp::if_scalar<H> __hmin_nan(H a, H b) { return ::minicuda::fp::min_of(a, b, true); }

// Ordered comparisons are false when either operand is NaN; the unordered (..u) ones are true.
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __heq(H a, H b) { return ::minicuda::fp::value(a) == ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hne(H a, H b) { return ::minicuda::fp::value(a) < ::minicuda::fp::value(b) || ::minicuda::fp::value(a) > ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hlt(H a, H b) { return ::minicuda::fp::value(a) < ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hle(H a, H b) { return ::minicuda::fp::value(a) <= ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hgt(H a, H b) { return ::minicuda::fp::value(a) > ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hge(H a, H b) { return ::minicuda::fp::value(a) >= ::minicuda::fp::value(b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hequ(H a, H b) { return !__hne(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hneu(H a, H b) { return !__heq(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hltu(H a, H b) { return !__hge(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hleu(H a, H b) { return !__hgt(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hgtu(H a, H b) { return !__hle(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hgeu(H a, H b) { return !__hlt(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> __hisnan(H a) { return ::minicuda::fp::is_nan(a); }
// -1 for -infinity, 1 for +infinity, 0 otherwise.
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, int> __hisinf(H a) {
  const double v = ::minicuda::fp::value(a);
  return std::isinf(v) ? (v < 0 ? -1 : 1) : 0;
}

template <class H> ::minicuda::fp::if_scalar<H> hsqrt(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::sqrt(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hrsqrt(H a) { return ::minicuda::fp::unary(a, [](double x) { return 1 / std::sqrt(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hrcp(H a) { return ::minicuda::fp::unary(a, [](double x) { return 1 / x; }); }
template <class H> ::minicuda::fp::if_scalar<H> hexp(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::exp(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hexp2(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::exp2(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hexp10(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::pow(10.0, x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hlog(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::log(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hlog2(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::log2(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hlog10(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::log10(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hsin(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::sin(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hcos(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::cos(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> htanh(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::tanh(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hfloor(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::floor(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hceil(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::ceil(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> htrunc(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::trunc(x); }); }
template <class H> ::minicuda::fp::if_scalar<H> hrint(H a) { return ::minicuda::fp::unary(a, [](double x) { return std::nearbyint(x); }); }

// --- two lanes ---------------------------------------------------------------------------------
#define MINICUDA_PAIR_BINARY(name, scalar) \
  template <class H2> ::minicuda::fp::if_pair<H2> name(H2 a, H2 b) { return ::minicuda::fp::lanes(a, b, [](auto x, auto y) { return scalar(x, y); }); }
#define MINICUDA_PAIR_UNARY(name, scalar) \
  template <class H2> ::minicuda::fp::if_pair<H2> name(H2 a) { return ::minicuda::fp::lanes(a, [](auto x) { return scalar(x); }); }
MINICUDA_PAIR_BINARY(__hadd2, __hadd)
MINICUDA_PAIR_BINARY(__hsub2, __hsub)
MINICUDA_PAIR_BINARY(__hmul2, __hmul)
MINICUDA_PAIR_BINARY(__h2div, __hdiv)
MINICUDA_PAIR_BINARY(__hadd2_rn, __hadd)
MINICUDA_PAIR_BINARY(__hsub2_rn, __hsub)
MINICUDA_PAIR_BINARY(__hmul2_rn, __hmul)
MINICUDA_PAIR_BINARY(__hadd2_sat, __hadd_sat)
MINICUDA_PAIR_BINARY(__hsub2_sat, __hsub_sat)
MINICUDA_PAIR_BINARY(__hmul2_sat, __hmul_sat)
MINICUDA_PAIR_BINARY(__hmax2, __hmax)
MINICUDA_PAIR_BINARY(__hmin2, __hmin)
MINICUDA_PAIR_BINARY(__hmax2_nan, __hmax_nan)
MINICUDA_PAIR_BINARY(__hmin2_nan, __hmin_nan)
MINICUDA_PAIR_UNARY(__hneg2, __hneg)
MINICUDA_PAIR_UNARY(__habs2, __habs)
MINICUDA_PAIR_UNARY(h2sqrt, hsqrt)
MINICUDA_PAIR_UNARY(h2rsqrt, hrsqrt)
MINICUDA_PAIR_UNARY(h2rcp, hrcp)
MINICUDA_PAIR_UNARY(h2exp, hexp)
MINICUDA_PAIR_UNARY(h2exp2, hexp2)
MINICUDA_PAIR_UNARY(h2exp10, hexp10)
MINICUDA_PAIR_UNARY(h2log, hlog)
MINICUDA_PAIR_UNARY(h2log2, hlog2)
MINICUDA_PAIR_UNARY(h2log10, hlog10)
MINICUDA_PAIR_UNARY(h2sin, hsin)
MINICUDA_PAIR_UNARY(h2cos, hcos)
MINICUDA_PAIR_UNARY(h2floor, hfloor)
MINICUDA_PAIR_UNARY(h2ceil, hceil)
MINICUDA_PAIR_UNARY(h2trunc, htrunc)
MINICUDA_PAIR_UNARY(h2rint, hrint)
#undef MINICUDA_PAIR_BINARY
#undef MINICUDA_PAIR_UNARY
template <class H2> ::minicuda::fp::if_pair<H2> __hfma2(H2 a, H2 b, H2 c) {
  return ::minicuda::fp::lanes(a, b, c, [](auto x, auto y, auto z) { return __hfma(x, y, z); });
}
template <class H2> ::minicuda::fp::if_pair<H2> __hfma2_sat(H2 a, H2 b, H2 c) {
  return ::minicuda::fp::lanes(a, b, c, [](auto x, auto y, auto z) { return __hfma_sat(x, y, z); });
}
template <class H2> ::minicuda::fp::if_pair<H2> __hfma2_relu(H2 a, H2 b, H2 c) {
  return ::minicuda::fp::lanes(a, b, c, [](auto x, auto y, auto z) { return __hfma_relu(x, y, z); });
}

// Lane-wise comparisons: __heq2 gives 1.0 or 0.0 per lane, __heq2_mask 0xffff or 0 per lane (low
// lane in the low half), __hbeq2 whether both lanes compare true.
#define MINICUDA_PAIR_COMPARE(suffix)                                                                       \
  template <class H2> ::minicuda::fp::if_pair<H2> __h##suffix##2(H2 a, H2 b) {                                        \
    using H = typename ::minicuda::fp::narrow_traits<H2>::lane;                                                        \
    return H2(::minicuda::fp::round_to<H>(__h##suffix(a.x, b.x) ? 1.0 : 0.0), ::minicuda::fp::round_to<H>(__h##suffix(a.y, b.y) ? 1.0 : 0.0)); \
  }                                                                                                         \
  template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, unsigned> __h##suffix##2_mask(H2 a, H2 b) {     \
    return (__h##suffix(a.x, b.x) ? 0xffffu : 0u) | (__h##suffix(a.y, b.y) ? 0xffff0000u : 0u);           \
  }                                                                                                         \
  template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> __hb##suffix##2(H2 a, H2 b) {             \
    return __h##suffix(a.x, b.x) && __h##suffix(a.y, b.y);                                                 \
  }
MINICUDA_PAIR_COMPARE(eq)
MINICUDA_PAIR_COMPARE(ne)
MINICUDA_PAIR_COMPARE(lt)
MINICUDA_PAIR_COMPARE(le)
MINICUDA_PAIR_COMPARE(gt)
MINICUDA_PAIR_COMPARE(ge)
MINICUDA_PAIR_COMPARE(equ)
MINICUDA_PAIR_COMPARE(neu)
MINICUDA_PAIR_COMPARE(ltu)
MINICUDA_PAIR_COMPARE(leu)
MINICUDA_PAIR_COMPARE(gtu)
MINICUDA_PAIR_COMPARE(geu)
#undef MINICUDA_PAIR_COMPARE
template <class H2> ::minicuda::fp::if_pair<H2> __hisnan2(H2 a) {
  using H = typename ::minicuda::fp::narrow_traits<H2>::lane;
  return H2(::minicuda::fp::round_to<H>(__hisnan(a.x) ? 1.0 : 0.0), ::minicuda::fp::round_to<H>(__hisnan(a.y) ? 1.0 : 0.0));
}

// --- operators ---------------------------------------------------------------------------------
// Templates, so that mixing with float (h + 1.0f) uses the conversion to float instead of an
// ambiguous overload.
template <class H> ::minicuda::fp::if_scalar<H> operator+(H a, H b) { return __hadd(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> operator-(H a, H b) { return __hsub(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> operator*(H a, H b) { return __hmul(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> operator/(H a, H b) { return __hdiv(a, b); }
template <class H> ::minicuda::fp::if_scalar<H> operator-(H a) { return __hneg(a); }
template <class H> ::minicuda::fp::if_scalar<H> operator+(H a) { return a; }
template <class H> ::minicuda::fp::if_scalar<H>& operator+=(H& a, H b) { return a = __hadd(a, b); }
template <class H> ::minicuda::fp::if_scalar<H>& operator-=(H& a, H b) { return a = __hsub(a, b); }
template <class H> ::minicuda::fp::if_scalar<H>& operator*=(H& a, H b) { return a = __hmul(a, b); }
template <class H> ::minicuda::fp::if_scalar<H>& operator/=(H& a, H b) { return a = __hdiv(a, b); }
template <class H> ::minicuda::fp::if_scalar<H>& operator++(H& a) { return a = __hadd(a, ::minicuda::fp::round_to<H>(1.0)); }
template <class H> ::minicuda::fp::if_scalar<H>& operator--(H& a) { return a = __hsub(a, ::minicuda::fp::round_to<H>(1.0)); }
template <class H> ::minicuda::fp::if_scalar<H> operator++(H& a, int) { const H old = a; ++a; return old; }
template <class H> ::minicuda::fp::if_scalar<H> operator--(H& a, int) { const H old = a; --a; return old; }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator==(H a, H b) { return __heq(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator!=(H a, H b) { return __hneu(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator<(H a, H b) { return __hlt(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator<=(H a, H b) { return __hle(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator>(H a, H b) { return __hgt(a, b); }
template <class H> std::enable_if_t<::minicuda::fp::is_scalar_v<H>, bool> operator>=(H a, H b) { return __hge(a, b); }

template <class H2> ::minicuda::fp::if_pair<H2> operator+(H2 a, H2 b) { return __hadd2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2> operator-(H2 a, H2 b) { return __hsub2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2> operator*(H2 a, H2 b) { return __hmul2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2> operator/(H2 a, H2 b) { return __h2div(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2> operator-(H2 a) { return __hneg2(a); }
template <class H2> ::minicuda::fp::if_pair<H2> operator+(H2 a) { return a; }
template <class H2> ::minicuda::fp::if_pair<H2>& operator+=(H2& a, H2 b) { return a = __hadd2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2>& operator-=(H2& a, H2 b) { return a = __hsub2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2>& operator*=(H2& a, H2 b) { return a = __hmul2(a, b); }
template <class H2> ::minicuda::fp::if_pair<H2>& operator/=(H2& a, H2 b) { return a = __h2div(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator==(H2 a, H2 b) { return __hbeq2(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator!=(H2 a, H2 b) { return __hbneu2(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator<(H2 a, H2 b) { return __hblt2(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator<=(H2 a, H2 b) { return __hble2(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator>(H2 a, H2 b) { return __hbgt2(a, b); }
template <class H2> std::enable_if_t<::minicuda::fp::is_pair_v<H2>, bool> operator>=(H2 a, H2 b) { return __hbge2(a, b); }

// --- atomics (sm_60 / sm_80 / sm_90 in the toolkit) ---------------------------------------------
// A compare-and-swap loop over the 16 or 32 bits, as device_atomic_functions.h does for float; a
// two-lane add is atomic per lane on the GPU and over the whole word here.
namespace minicuda::fp {
template <class T, class Op>
T atomic_narrow(T* address, Op op) {
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
  Bits* word = reinterpret_cast<Bits*>(address);
  Bits old = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T before;
    std::memcpy(&before, &old, sizeof(T));
    const T after = op(before);
    Bits next;
    std::memcpy(&next, &after, sizeof(T));
    if (__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return before;
  }
}
}  // namespace minicuda::fp
template <class H> ::minicuda::fp::if_scalar<H> atomicAdd(H* address, H v) {
  return ::minicuda::fp::atomic_narrow(address, [v](H x) { return __hadd(x, v); });
}
template <class H2> ::minicuda::fp::if_pair<H2> atomicAdd(H2* address, H2 v) {
  return ::minicuda::fp::atomic_narrow(address, [v](H2 x) { return __hadd2(x, v); });
}
template <class H> ::minicuda::fp::if_scalar<H> atomicMax(H* address, H v) {
  return ::minicuda::fp::atomic_narrow(address, [v](H x) { return __hmax(x, v); });
}
template <class H> ::minicuda::fp::if_scalar<H> atomicMin(H* address, H v) {
  return ::minicuda::fp::atomic_narrow(address, [v](H x) { return __hmin(x, v); });
}

#endif /* MINICUDA_NARROW_FLOAT_OPS_H */
