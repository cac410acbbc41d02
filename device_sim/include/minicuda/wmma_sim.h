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

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../cuda_bf16.h"
#include "../cuda_fp16.h"
#include "../device_launch_parameters.h"
#include "isa.h"

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

// A barrier of the whole warp that checks all 32 lanes take part (load/store_matrix_sync).
inline void warp_barrier(const char* op) {
  uint64_t table[32];
  table[lane_id()] = 0;
  ::minicuda::gpu::isa::warp_collective(op, table);
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
// mantissa bits are zero; infinities and NaNs pass unchanged.
inline float float_to_tf32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & ~0x1fffu;
  float t;
  std::memcpy(&t, &u, 4);
  return t;
}

// One element of D = A B + C: a[k] and b[k] the row of A and column of B, c the element of C.
// fp16, bf16, tf32: every product is exact in binary64 (at most 22 significant bits); the sum
// runs in binary64 from c through k = 0 .. K-1 and is rounded once to the accumulator's type.
// fp64: a chain of fused multiply-adds from c, k = 0 .. K-1. int8/uint8: exact, 32-bit two's
// complement (wrapping; with satf, clamped to the int range).
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
    double sum = static_cast<double>(static_cast<float>(c));
    for (int k = 0; k < K; ++k) sum += a[k] * b[k];
    Acc d = Acc(sum);  // one rounding, to nearest even
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
// second keeps every fragment unchanged until all lanes have read them.
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
  ::minicuda::gpu::isa::warp_collective("mma_sync", table);
  Acc result[PerC];
  for (int i = 0; i < PerC; ++i) {
    const int e = static_cast<int>(lane) * PerC + i, row = e / N, col = e % N;
    double ra[K], cb[K];
    for (int k = 0; k < K; ++k) {
      const int ea = row * K + k, eb = k * N + col;
      ra[k] = operand<In>(reinterpret_cast<const Operands*>(table[ea / PerA])->a[ea % PerA]);
      cb[k] = operand<In>(reinterpret_cast<const Operands*>(table[eb / PerB])->b[eb % PerB]);
    }
    result[i] = dot<In, Acc, K>(ra, cb, Acc(c[i]), satf);
  }
  ::minicuda::gpu::isa::warp_collective("mma_sync", table);
  for (int i = 0; i < PerC; ++i) d[i] = result[i];
}

}  // namespace minicuda::wmma_sim
