// crt/device_simd_intrinsics.h: the SIMD-in-a-word intrinsics of CUDA C++ (__vadd2 ... __vsubus4):
// a 32-bit word read as two 16-bit or four 8-bit lanes, each lane computed on its own, as the
// toolkit's crt/device_functions.h declares them. The suffix says how a lane is read and
// written: s signed, u unsigned, ss signed and saturated, us unsigned and saturated; __vcmp*
// sets a true lane to all ones, __vset* to 1; __vsads/__vsadu return the sum over the lanes.
// The averages round as the H200 does (tests/data/h200/probe_simd.txt, 3936 results): __vavgu
// up, __vavgs half away from zero, __vhaddu down. Included by device_functions.h; callable from
// host and kernel code.
#ifndef __MINICUDA_DEVICE_SIMD_INTRINSICS_H__
#define __MINICUDA_DEVICE_SIMD_INTRINSICS_H__

namespace minicuda::simd {

// One lane of a word: its value read unsigned and read signed.
struct Lane {
  long long u, s;
};

template <int Bits>
inline Lane lane(unsigned int word, int k) {
  const unsigned long long mask = (1ull << Bits) - 1;
  const long long u = static_cast<long long>((word >> (k * Bits)) & mask);
  return {u, u >= (1ll << (Bits - 1)) ? u - (1ll << Bits) : u};
}

// Builds a word from each lane's result (taken modulo the lane's width).
template <int Bits, typename F>
inline unsigned int per_lane(F f) {
  const unsigned long long mask = (1ull << Bits) - 1;
  unsigned int word = 0;
  for (int k = 0; k < 32 / Bits; ++k) word |= static_cast<unsigned int>(static_cast<unsigned long long>(f(k)) & mask) << (k * Bits);
  return word;
}

template <int Bits>
inline long long clamp_signed(long long v) {
  const long long hi = (1ll << (Bits - 1)) - 1, lo = -(1ll << (Bits - 1));
  return v > hi ? hi : (v < lo ? lo : v);
}
template <int Bits>
inline long long clamp_unsigned(long long v) {
  const long long hi = (1ll << Bits) - 1;
  return v > hi ? hi : (v < 0 ? 0 : v);
}
inline long long abs_value(long long v) { return v < 0 ? -v : v; }

template <int Bits, typename F>
inline unsigned int unary(unsigned int a, F f) {
  return per_lane<Bits>([&](int k) { return f(lane<Bits>(a, k)); });
}
template <int Bits, typename F>
inline unsigned int binary(unsigned int a, unsigned int b, F f) {
  return per_lane<Bits>([&](int k) { return f(lane<Bits>(a, k), lane<Bits>(b, k)); });
}
template <int Bits, typename F>
inline unsigned int sum_of_lanes(unsigned int a, unsigned int b, F f) {
  long long sum = 0;
  for (int k = 0; k < 32 / Bits; ++k) sum += f(lane<Bits>(a, k), lane<Bits>(b, k));
  return static_cast<unsigned int>(sum);
}

}  // namespace minicuda::simd

// Defines __v<name>2 (16-bit lanes) and __v<name>4 (8-bit lanes) from one lane expression:
// UNARY over x, BINARY over x and y (each a simd::Lane); W is the lane's width in bits, a
// constant of the lambda itself (a lambda without captures may not use its caller's locals).
#define MINICUDA_SIMD_UNARY_WIDTH(name, N, expr)                                                              \
  inline unsigned int __v##name(unsigned int a) {                                                            \
    return minicuda::simd::unary<N>(a, [](minicuda::simd::Lane x) {                                          \
      constexpr int W = N;                                                                                   \
      (void)W;                                                                                               \
      return (expr);                                                                                         \
    });                                                                                                      \
  }
#define MINICUDA_SIMD_BINARY_WIDTH(name, N, expr)                                                             \
  inline unsigned int __v##name(unsigned int a, unsigned int b) {                                            \
    return minicuda::simd::binary<N>(a, b, [](minicuda::simd::Lane x, minicuda::simd::Lane y) {              \
      constexpr int W = N;                                                                                   \
      (void)W;                                                                                               \
      return (expr);                                                                                         \
    });                                                                                                      \
  }
#define MINICUDA_SIMD_UNARY(name, expr) \
  MINICUDA_SIMD_UNARY_WIDTH(name##2, 16, expr) MINICUDA_SIMD_UNARY_WIDTH(name##4, 8, expr)
#define MINICUDA_SIMD_BINARY(name, expr) \
  MINICUDA_SIMD_BINARY_WIDTH(name##2, 16, expr) MINICUDA_SIMD_BINARY_WIDTH(name##4, 8, expr)

// --- Arithmetic: wrapping, saturated, absolute values, averages ----------------------------------
MINICUDA_SIMD_UNARY(abs, minicuda::simd::abs_value(x.s))
MINICUDA_SIMD_UNARY(absss, minicuda::simd::clamp_signed<W>(minicuda::simd::abs_value(x.s)))
MINICUDA_SIMD_UNARY(neg, -x.s)
MINICUDA_SIMD_UNARY(negss, minicuda::simd::clamp_signed<W>(-x.s))
MINICUDA_SIMD_BINARY(add, x.u + y.u)
MINICUDA_SIMD_BINARY(addss, minicuda::simd::clamp_signed<W>(x.s + y.s))
MINICUDA_SIMD_BINARY(addus, minicuda::simd::clamp_unsigned<W>(x.u + y.u))
MINICUDA_SIMD_BINARY(sub, x.u - y.u)
MINICUDA_SIMD_BINARY(subss, minicuda::simd::clamp_signed<W>(x.s - y.s))
MINICUDA_SIMD_BINARY(subus, minicuda::simd::clamp_unsigned<W>(x.u - y.u))
MINICUDA_SIMD_BINARY(absdiffs, minicuda::simd::abs_value(x.s - y.s))
MINICUDA_SIMD_BINARY(absdiffu, minicuda::simd::abs_value(x.u - y.u))
MINICUDA_SIMD_BINARY(avgs, (x.s + y.s) >= 0 ? (x.s + y.s + 1) / 2 : (x.s + y.s - 1) / 2)
MINICUDA_SIMD_BINARY(avgu, (x.u + y.u + 1) / 2)
MINICUDA_SIMD_BINARY(haddu, (x.u + y.u) / 2)
MINICUDA_SIMD_BINARY(maxs, x.s > y.s ? x.s : y.s)
MINICUDA_SIMD_BINARY(maxu, x.u > y.u ? x.u : y.u)
MINICUDA_SIMD_BINARY(mins, x.s < y.s ? x.s : y.s)
MINICUDA_SIMD_BINARY(minu, x.u < y.u ? x.u : y.u)

// --- Comparisons: all ones (__vcmp*) or 1 (__vset*) in a lane where it holds ---------------------
#define MINICUDA_SIMD_COMPARE(name, test)                    \
  MINICUDA_SIMD_BINARY(cmp##name, (test) ? -1ll : 0ll)       \
  MINICUDA_SIMD_BINARY(set##name, (test) ? 1ll : 0ll)
MINICUDA_SIMD_COMPARE(eq, x.u == y.u)
MINICUDA_SIMD_COMPARE(ne, x.u != y.u)
MINICUDA_SIMD_COMPARE(ges, x.s >= y.s)
MINICUDA_SIMD_COMPARE(geu, x.u >= y.u)
MINICUDA_SIMD_COMPARE(gts, x.s > y.s)
MINICUDA_SIMD_COMPARE(gtu, x.u > y.u)
MINICUDA_SIMD_COMPARE(les, x.s <= y.s)
MINICUDA_SIMD_COMPARE(leu, x.u <= y.u)
MINICUDA_SIMD_COMPARE(lts, x.s < y.s)
MINICUDA_SIMD_COMPARE(ltu, x.u < y.u)

// --- Sums of absolute differences over the lanes ---------------------------------------------------
inline unsigned int __vsads2(unsigned int a, unsigned int b) {
  return minicuda::simd::sum_of_lanes<16>(a, b, [](minicuda::simd::Lane x, minicuda::simd::Lane y) { return minicuda::simd::abs_value(x.s - y.s); });
}
inline unsigned int __vsads4(unsigned int a, unsigned int b) {
  return minicuda::simd::sum_of_lanes<8>(a, b, [](minicuda::simd::Lane x, minicuda::simd::Lane y) { return minicuda::simd::abs_value(x.s - y.s); });
}
inline unsigned int __vsadu2(unsigned int a, unsigned int b) {
  return minicuda::simd::sum_of_lanes<16>(a, b, [](minicuda::simd::Lane x, minicuda::simd::Lane y) { return minicuda::simd::abs_value(x.u - y.u); });
}
inline unsigned int __vsadu4(unsigned int a, unsigned int b) {
  return minicuda::simd::sum_of_lanes<8>(a, b, [](minicuda::simd::Lane x, minicuda::simd::Lane y) { return minicuda::simd::abs_value(x.u - y.u); });
}

#undef MINICUDA_SIMD_COMPARE
#undef MINICUDA_SIMD_BINARY
#undef MINICUDA_SIMD_UNARY
#undef MINICUDA_SIMD_BINARY_WIDTH
#undef MINICUDA_SIMD_UNARY_WIDTH

#endif  // __MINICUDA_DEVICE_SIMD_INTRINSICS_H__
