// minicuda/wmma_sim.h: how the simulated SM runs nvcuda::wmma (mma.h): which fragment shapes and
// types exist, which matrix element each lane's x[i] holds, the warp-collective computation that
// lets mma_sync read the whole warp's fragments, and the arithmetic of each input type
// (docs/tensor-cores.md). Kernel code only; mma.h is the interface programs use.
//
// Element map (the simulator's choice; CUDA leaves it unspecified): a fragment of a rows x cols
// matrix gives each lane n = rows * cols / 32 elements, and x[i] of lane l holds the element
// e = l * n + i of the matrix in row-major order (row e / cols, column e % cols), whatever the
// layout the matrix has in memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../cuda_bf16.h"
#include "../cuda_fp16.h"
#include "../device_launch_parameters.h"
#include "isa.h"
#include "narrow_float.h"

namespace nvcuda::wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
namespace precision {
struct tf32 {};
}  // namespace precision
}  // namespace nvcuda::wmma

namespace minicuda::wmma_sim {

namespace w = ::nvcuda::wmma;

// The input types' arithmetic: what mma_sync does with a product's factors.
enum class Inputs { half, bf16, tf32, int8, uint8, fp64 };

// What a fragment type is; `valid` is false for a shape, type or layout that CUDA does not offer
// (the fragment then does not compile, as with the toolkit's header, which has no such type).
template <class Use, int M, int N, int K, class T, class Layout>
struct FragmentTraits {
  static constexpr bool is_a = std::is_same_v<Use, w::matrix_a>;
  static constexpr bool is_b = std::is_same_v<Use, w::matrix_b>;
  static constexpr bool is_acc = std::is_same_v<Use, w::accumulator>;
  static constexpr bool half_shape = (M == 16 && N == 16 && K == 16) || (M == 32 && N == 8 && K == 16) ||
                                     (M == 8 && N == 32 && K == 16);
  static constexpr bool tf32_shape = M == 16 && N == 16 && K == 8;
  static constexpr bool fp64_shape = M == 8 && N == 8 && K == 4;
  static constexpr bool layout_ok = is_acc ? std::is_void_v<Layout>
                                           : std::is_same_v<Layout, w::row_major> || std::is_same_v<Layout, w::col_major>;
  static constexpr bool type_ok =
      is_acc ? ((half_shape && (std::is_same_v<T, float> || std::is_same_v<T, __half> || std::is_same_v<T, int>)) ||
                (tf32_shape && std::is_same_v<T, float>) || (fp64_shape && std::is_same_v<T, double>))
             : ((half_shape && (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
                                std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>)) ||
                (tf32_shape && std::is_same_v<T, w::precision::tf32>) || (fp64_shape && std::is_same_v<T, double>));
  static constexpr bool valid = (is_a || is_b || is_acc) && layout_ok && type_ok;
  static constexpr int rows = is_a ? M : is_b ? K : M;
  static constexpr int cols = is_a ? K : is_b ? N : N;
  static constexpr int per_lane = rows * cols / 32;
  // The type of x[i]: tf32 values are held as float.
  using storage = std::conditional_t<std::is_same_v<T, w::precision::tf32>, float, T>;
  static constexpr bool row_major_memory = std::is_same_v<Layout, w::row_major>;
};

template <class T>
constexpr Inputs inputs_of() {
  if constexpr (std::is_same_v<T, __half>) return Inputs::half;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return Inputs::bf16;
  else if constexpr (std::is_same_v<T, w::precision::tf32>) return Inputs::tf32;
  else if constexpr (std::is_same_v<T, signed char>) return Inputs::int8;
  else if constexpr (std::is_same_v<T, unsigned char>) return Inputs::uint8;
  else return Inputs::fp64;
}

// The accumulator types mma_sync offers for each input type.
template <Inputs In, class Acc>
constexpr bool accumulates_in() {
  switch (In) {
    case Inputs::half: return std::is_same_v<Acc, float> || std::is_same_v<Acc, __half>;
    case Inputs::bf16:
    case Inputs::tf32: return std::is_same_v<Acc, float>;
    case Inputs::int8:
    case Inputs::uint8: return std::is_same_v<Acc, int>;
    case Inputs::fp64: return std::is_same_v<Acc, double>;
  }
  return false;
}

// The calling thread's lane in its warp (lane i of warp w is the block's thread 32 w + i).
inline unsigned lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}

// A 16-bit element's matrix line (row or column in memory) starts at `line`: the H200 faults on a
// line that is not 4-byte aligned (each lane reads its elements in pairs; measured by
// probe_wmma_misuse.cu: an offset of one half gives cudaErrorMisalignedAddress, of 4 none).
template <class S>
void check_line(const S* line, const char* op) {
  if constexpr (sizeof(S) == 2) {
    if (reinterpret_cast<uintptr_t>(line) % 4 != 0) ::minicuda::gpu::isa::misaligned_access(line, op);
  }
}

// A tf32 value as the tensor core reads a float: sign, exponent and the top 10 mantissa bits (the
// low 13 bits are ignored).
inline double tf32_operand(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u &= ~0x1fffu;
  float t;
  std::memcpy(&t, &u, 4);
  return t;
}

// float -> tf32 as cvt.rna.tf32.f32: to nearest with ties away from zero, in a float whose low 13
// mantissa bits are zero; infinities pass unchanged, a NaN loses its low 13 bits and is quiet.
inline float float_to_tf32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu;
  else if ((u & 0x7fffffu) != 0) u = (u & ~0x1fffu) | 0x400000u;  // a NaN stays a (quiet) NaN
  float t;
  std::memcpy(&t, &u, 4);
  return t;
}

// A double rounded toward zero to float (an overflow gives the largest finite float).
inline float float_toward_zero(double x) {
  float f = static_cast<float>(x);
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) {  // f is the neighbour away from zero:
    uint32_t u;                                            // its magnitude's bits less one
    std::memcpy(&u, &f, 4);
    --u;
    std::memcpy(&f, &u, 4);
  }
  return f;
}

// The unbiased exponent of a nonzero finite double (what std::ilogb answers), read from its bits:
// the operands here are floats, halves and their exact products, which are never subnormal as
// doubles (ilogb answers those).
inline int exponent_of(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  const int biased = static_cast<int>((u >> 52) & 0x7ff);
  return biased != 0 ? biased - 1023 : std::ilogb(x);
}

// A factor's exponent in the block sum below: its own, but at least the format's least normal
// exponent min_exp (a subnormal counts as that); kZeroFactor for a zero, so that a product with a
// zero factor never sets the alignment. `x` is finite. 16 bits: the exponents of fp16, bf16 and
// tf32 and their sums fit, and the sum of two kZeroFactor is int16's least value.
inline constexpr int16_t kZeroFactor = -(1 << 14);
inline int16_t factor_exponent(double x, int min_exp) {
  return x == 0.0 ? kZeroFactor : static_cast<int16_t>(std::max(exponent_of(x), min_exp));
}

// The floating-point tensor core's addition of one block (the H200's, as measured by
// tests/data/h200/wmma/probe_wmma.cu; docs/tensor-cores.md): acc plus the Count products
// a[k] b[k], k in [first, first + Count). Every product is exact. The terms are aligned to the
// largest exponent E among them - a product's exponent is the sum of its factors'
// (factor_exponent: ea[k] and eb[k]), acc's its own - and each is cut toward zero to a multiple
// of 2^(E - 25); the cut terms add exactly and the sum is rounded toward zero to float. A sum of
// zero is +0. acc and the factors in the block are finite.
// T is double, or float for fp16 factors only: their products (22 bits, 2^-48 and up) and each
// product scaled by 2^(25 - E) below (2^-103 .. 2^53) are exact in float, or below 1 and cut to 0.
template <int Count, int K, class T>
[[gnu::always_inline]] inline float aligned_block_sum(float acc, const T (&a)[K], const int16_t (&ea)[K],
                                                      const T (&b)[K], const int16_t (&eb)[K], int first) {
  static_assert(Count <= K);
  int16_t products_max = std::numeric_limits<int16_t>::min();  // 16-bit lanes: 8 to a vector
  for (int k = 0; k < Count; ++k)
    products_max = std::max(products_max, static_cast<int16_t>(ea[first + k] + eb[first + k]));
  const int e_max = std::max<int>(products_max, acc != 0.0f ? std::max(exponent_of(acc), -126) : 2 * kZeroFactor);
  if (e_max < kZeroFactor / 2) return 0.0f;  // acc and every product zero
  // term * 2^shift is its multiple of 2^(E - 25); the scaling is exact, and the conversion to an
  // integer cuts toward zero. A product's |term * 2^shift| is below 2^27 (its factors'
  // significands are below 2 each), so the sum of at most 16 of them fits int32 (and g++ can
  // convert and add several at a time).
  static_assert(Count <= 16);
  const int shift = 25 - e_max;
  const double scale = ::minicuda::fp::power_of_two(shift);
  const T t_scale = static_cast<T>(scale);
  int32_t products = 0;
  for (int k = 0; k < Count; ++k) products += static_cast<int32_t>(a[first + k] * b[first + k] * t_scale);
  const int64_t sum = static_cast<int64_t>(static_cast<double>(acc) * scale) + products;
  return float_toward_zero(static_cast<double>(sum) * ::minicuda::fp::power_of_two(-shift));
}

// The same sum for any acc and factors: an infinity or a NaN among them gives the plain sum's
// (an infinity, or NaN), and min_exp is the format's least normal exponent.
template <int Count, int K, class T>
float aligned_block_sum(float acc, const T (&a)[K], const T (&b)[K], int first, int min_exp) {
  double plain = acc;
  for (int k = first; k < first + Count; ++k) plain += static_cast<double>(a[k]) * static_cast<double>(b[k]);
  if (!std::isfinite(plain)) return static_cast<float>(plain);
  alignas(16) int16_t ea[K] = {}, eb[K] = {};  // aligned: see Line
  for (int k = first; k < first + Count; ++k) ea[k] = factor_exponent(a[k], min_exp), eb[k] = factor_exponent(b[k], min_exp);
  return aligned_block_sum<Count>(acc, a, ea, b, eb, first);
}

// An input element as the arithmetic reads it: an integer for int8 and uint8 (a product and a
// sum of 16 fit in int32 exactly), a float for fp16 (see aligned_block_sum), a double otherwise.
template <Inputs In>
using Operand = std::conditional_t<In == Inputs::int8 || In == Inputs::uint8, int32_t,
                                   std::conditional_t<In == Inputs::half, float, double>>;

template <Inputs In, class S>
Operand<In> operand(const S& x) {
  if constexpr (In == Inputs::tf32) return tf32_operand(x);
  else if constexpr (In == Inputs::bf16) return static_cast<double>(static_cast<float>(x));
  else return static_cast<Operand<In>>(x);
}

// The least normal exponent of a floating-point input format.
template <Inputs In>
constexpr int min_exponent() {
  return In == Inputs::half ? -14 : -126;
}

// A row of A, or a column of B, as dot reads it: the operands; for the fp16, bf16 and tf32 inputs
// also each one's factor_exponent, and whether all are finite (`finish` fills both).
template <Inputs In, int K>
struct Line {
  // 16-byte aligned: kernel code runs with the alignment check on, and g++ reads these with
  // 16-byte vector loads, which trap there when not aligned.
  alignas(16) Operand<In> value[K];
  alignas(16) int16_t exponent[K];
  bool finite;

  // factor_exponent of each operand, read from its bits without branches (a float or double
  // here: an fp16 or bf16 subnormal is a normal number in them), so that g++ can do several at
  // once; an infinity or NaN clears `finite` (its exponent is then not read).
  void finish() {
    finite = true;
    if constexpr (In == Inputs::half || In == Inputs::bf16 || In == Inputs::tf32) {
      using Bits = std::conditional_t<sizeof(Operand<In>) == 4, uint32_t, uint64_t>;
      constexpr int mantissa_bits = sizeof(Bits) == 4 ? 23 : 52;
      constexpr Bits exponent_mask = sizeof(Bits) == 4 ? 0xff : 0x7ff;
      constexpr int bias = sizeof(Bits) == 4 ? 127 : 1023;
      Bits bits[K];
      std::memcpy(bits, value, sizeof bits);
      bool all_finite = true;
      for (int k = 0; k < K; ++k) {
        const Bits field = (bits[k] >> mantissa_bits) & exponent_mask;
        const bool zero = (bits[k] << 1) == 0;
        all_finite &= field != exponent_mask;
        const int e = std::max(static_cast<int>(field) - bias, min_exponent<In>());
        exponent[k] = static_cast<int16_t>(zero ? kZeroFactor : e);
      }
      finite = all_finite;
    }
  }
};

// One element of D = A B + C: a and b the row of A and column of B, c the element of C.
// - fp16, bf16 (k = 16): one aligned block of all 16 products and c (aligned_block_sum); an fp16
//   accumulator gets that float result rounded to nearest even.
// - tf32 (k = 8): two blocks of 4 products, the first added to c, the second to its result.
// - fp64: a chain of fused multiply-adds from c, k = 0 .. K-1.
// - int8/uint8: exact, 32-bit two's complement (wrapping; with satf, clamped to the int range).
template <Inputs In, class Acc, int K>
Acc dot(const Line<In, K>& a, const Line<In, K>& b, Acc c, bool satf) {
  if constexpr (In == Inputs::int8 || In == Inputs::uint8) {
    int32_t products = 0;  // |sum| <= 16 * 255 * 255 < 2^31
    for (int k = 0; k < K; ++k) products += a.value[k] * b.value[k];
    const int64_t sum = static_cast<int64_t>(c) + products;
    if (satf) {
      if (sum > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
      if (sum < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
      return static_cast<int>(sum);
    }
    return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  } else if constexpr (In == Inputs::fp64) {
    double d = c;
    for (int k = 0; k < K; ++k) d = std::fma(a.value[k], b.value[k], d);
    return d;
  } else {
    constexpr int block = In == Inputs::tf32 ? 4 : K;
    float acc = static_cast<float>(c);
    for (int first = 0; first < K; first += block) {
      acc = a.finite && b.finite && std::isfinite(acc)
                ? aligned_block_sum<block>(acc, a.value, a.exponent, b.value, b.exponent, first)
                : aligned_block_sum<block>(acc, a.value, b.value, first, min_exponent<In>());
    }
    Acc d = Acc(acc);  // float, or to half: nearest even
    if (satf) {        // satf: NaN becomes +0, an infinity the largest finite value of its sign
      const float v = static_cast<float>(d);
      const double largest = std::is_same_v<Acc, float> ? 3.4028234663852886e38 : 65504.0;
      if (std::isnan(v)) return Acc(0.0f);
      if (std::isinf(v)) return Acc(v > 0 ? largest : -largest);
    }
    return d;
  }
}

// What one lane brings to mma_sync: its fragments, and where its share of D goes.
template <class SA, class SB, class Acc, class AccC>
struct LaneOperands {
  const SA* a;
  const SB* b;
  const AccC* c;
  Acc* d;
  bool satf;
};

// The warp's whole D = A B + C, computed once when every lane has arrived (isa::warp_compute):
// A and B gathered from the lanes' fragments in element order (B transposed, so that each element
// of D reads a row of A and a row of B^T), then each lane's elements. When not all 32 lanes take
// part (a partial warp, lanes that returned or branched away) the H200 reports no error and
// computes nothing useful (probe_wmma_misuse.cu: a 16-thread block's D read 0): the lanes that
// took part get D = 0.
template <Inputs In, int M, int N, int K, int PerA, int PerB, int PerC, class SA, class SB, class Acc, class AccC>
void mma_warp(const uint64_t lanes[32], unsigned took_part) {
  using Lane = LaneOperands<SA, SB, Acc, AccC>;
  auto lane = [&](int l) { return reinterpret_cast<const Lane*>(lanes[l]); };
  if (took_part != ~0u) {
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < PerC && ((took_part >> l) & 1); ++i) lane(l)->d[i] = Acc(0);
    return;
  }
  Line<In, K> a[M], bt[N];
  for (int l = 0; l < 32; ++l) {
    for (int j = 0; j < PerA; ++j) {
      const int e = l * PerA + j;
      a[e / K].value[e % K] = operand<In>(lane(l)->a[j]);
    }
    for (int j = 0; j < PerB; ++j) {
      const int e = l * PerB + j;
      bt[e % N].value[e / N] = operand<In>(lane(l)->b[j]);
    }
  }
  for (Line<In, K>& line : a) line.finish();
  for (Line<In, K>& line : bt) line.finish();
  const bool satf = lane(0)->satf;  // one value for the warp, as a GPU reads it
  for (int l = 0; l < 32; ++l) {
    const Lane* mine = lane(l);
    for (int i = 0; i < PerC; ++i) {
      const int e = l * PerC + i;
      mine->d[i] = dot<In, Acc, K>(a[e / N], bt[e % N], Acc(mine->c[i]), satf);
    }
  }
}

// mma_sync for the calling lane: d.x[i] for its own elements. The warp's product is computed
// into each lane's `result` while every lane waits in the warp operation, so no lane's fragments
// can change before all are read, and d may be c.
template <Inputs In, int M, int N, int K, int PerA, int PerB, int PerC, class SA, class SB, class Acc, class AccC>
void mma(Acc (&d)[PerC], const SA (&a)[PerA], const SB (&b)[PerB], const AccC (&c)[PerC], bool satf) {
  Acc result[PerC];
  const LaneOperands<SA, SB, Acc, AccC> mine{a, b, c, result, satf};
  ::minicuda::gpu::isa::warp_compute("mma_sync", &mine, &mma_warp<In, M, N, K, PerA, PerB, PerC, SA, SB, Acc, AccC>);
  for (int i = 0; i < PerC; ++i) d[i] = result[i];
}

}  // namespace minicuda::wmma_sim
