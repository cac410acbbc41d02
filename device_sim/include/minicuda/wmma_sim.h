// minicuda/wmma_sim.h: how the simulated SM runs nvcuda::wmma (mma.h): which fragment shapes and
// types exist, which matrix element each lane's x[i] holds, the warp-collective exchange that lets
// mma_sync read the whole warp's fragments, and the arithmetic of each input type
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
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
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

// The floating-point tensor core's addition of one block (the H200's, as measured by
// tests/data/h200/wmma/probe_wmma.cu; docs/tensor-cores.md): acc plus the products a[k] b[k],
// k in [first, first + count). Every product is exact. The terms are aligned to the largest
// exponent E among them - a product's exponent is the sum of its factors' (a subnormal factor
// counts as the format's least normal exponent, min_exp), acc's its own - and each is cut toward
// zero to a multiple of 2^(E - 25); the cut terms add exactly and the sum is rounded toward zero
// to float. A sum of zero is +0.
template <int K>
float aligned_block_sum(float acc, const double (&a)[K], const double (&b)[K], int first, int count, int min_exp) {
  double plain = acc;  // for infinities and NaNs
  double product[K];
  int e_max = std::numeric_limits<int>::min();
  if (acc != 0.0f) e_max = std::max(exponent_of(acc), -126);
  for (int k = first; k < first + count; ++k) {
    product[k] = a[k] * b[k];
    plain += product[k];
    if (a[k] != 0.0 && b[k] != 0.0)
      e_max = std::max(e_max, std::max(exponent_of(a[k]), min_exp) + std::max(exponent_of(b[k]), min_exp));
  }
  if (!std::isfinite(plain)) return static_cast<float>(plain);
  if (e_max == std::numeric_limits<int>::min()) return 0.0f;
  // term * 2^shift is its multiple of 2^(E - 25); the scaling is exact (a power of two well inside
  // the double range), and the conversion to int64 cuts toward zero (|term * 2^shift| < 2^27).
  const int shift = 25 - e_max;
  const double scale = ::minicuda::fp::power_of_two(shift);
  int64_t sum = static_cast<int64_t>(static_cast<double>(acc) * scale);
  for (int k = first; k < first + count; ++k) sum += static_cast<int64_t>(product[k] * scale);
  return float_toward_zero(static_cast<double>(sum) * ::minicuda::fp::power_of_two(-shift));
}

// One element of D = A B + C: a[k] and b[k] the row of A and column of B, c the element of C.
// - fp16, bf16 (k = 16): one aligned block of all 16 products and c (aligned_block_sum); an fp16
//   accumulator gets that float result rounded to nearest even.
// - tf32 (k = 8): two blocks of 4 products, the first added to c, the second to its result.
// - fp64: a chain of fused multiply-adds from c, k = 0 .. K-1.
// - int8/uint8: exact, 32-bit two's complement (wrapping; with satf, clamped to the int range).
template <Inputs In, class Acc, int K>
Acc dot(const double (&a)[K], const double (&b)[K], Acc c, bool satf) {
  if constexpr (In == Inputs::int8 || In == Inputs::uint8) {
    int64_t sum = c;
    for (int k = 0; k < K; ++k) sum += static_cast<int64_t>(a[k]) * static_cast<int64_t>(b[k]);
    if (satf) {
      if (sum > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
      if (sum < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
      return static_cast<int>(sum);
    }
    return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  } else if constexpr (In == Inputs::fp64) {
    double d = c;
    for (int k = 0; k < K; ++k) d = std::fma(a[k], b[k], d);
    return d;
  } else {
    constexpr int block = In == Inputs::tf32 ? 4 : K;
    const int min_exp = In == Inputs::half ? -14 : -126;
    float acc = static_cast<float>(c);
    for (int first = 0; first < K; first += block) acc = aligned_block_sum(acc, a, b, first, block, min_exp);
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

// An input element as the arithmetic reads it.
template <Inputs In, class S>
double operand(const S& x) {
  if constexpr (In == Inputs::tf32) return tf32_operand(x);
  else if constexpr (In == Inputs::half || In == Inputs::bf16) return static_cast<double>(static_cast<float>(x));
  else return static_cast<double>(x);
}

// mma_sync for the calling lane: d.x[i] for its own elements, reading A and B from every lane's
// fragment. Two warp-collective steps: the first publishes each lane's operand addresses, the
// second keeps every fragment unchanged until all lanes have read them. When not all 32 lanes
// take part (a partial warp, lanes that returned or branched away) the H200 reports no error and
// computes nothing useful (probe_wmma_misuse.cu: a 16-thread block's D read 0): the lanes that
// took part get D = 0.
template <Inputs In, int M, int N, int K, int PerA, int PerB, int PerC, class SA, class SB, class Acc, class AccC>
void mma(Acc (&d)[PerC], const SA (&a)[PerA], const SB (&b)[PerB], const AccC (&c)[PerC], bool satf) {
  struct Operands {
    const SA* a;
    const SB* b;
  };
  const unsigned lane = lane_id();
  const Operands mine{a, b};
  uint64_t table[32];
  table[lane] = reinterpret_cast<uint64_t>(&mine);
  const unsigned took_part = ::minicuda::gpu::isa::warp_collective("mma_sync", table);
  Acc result[PerC];
  for (int i = 0; i < PerC && took_part != ~0u; ++i) result[i] = Acc(0);
  double ra[K], cb[K];
  int row_read = -1;  // the row of A in ra: a lane's elements mostly share one row
  for (int i = 0; i < PerC && took_part == ~0u; ++i) {
    const int e = static_cast<int>(lane) * PerC + i, row = e / N, col = e % N;
    for (int k = 0; k < K && row != row_read; ++k) {
      const int ea = row * K + k;
      ra[k] = operand<In>(reinterpret_cast<const Operands*>(table[ea / PerA])->a[ea % PerA]);
    }
    row_read = row;
    for (int k = 0; k < K; ++k) {
      const int eb = k * N + col;
      cb[k] = operand<In>(reinterpret_cast<const Operands*>(table[eb / PerB])->b[eb % PerB]);
    }
    result[i] = dot<In, Acc, K>(ra, cb, Acc(c[i]), satf);
  }
  ::minicuda::gpu::isa::warp_collective("mma_sync", table);
  for (int i = 0; i < PerC; ++i) d[i] = result[i];
}

}  // namespace minicuda::wmma_sim
