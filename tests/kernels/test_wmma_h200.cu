// The H200's own wmma results, replayed: tests/data/h200/wmma/wmma.txt (probe_wmma.cu, run on an
// H200 with CUDA 13) holds random tiles of every input type and shape (`in` lines: A, B, C bits;
// `rand` lines: D bits) and __float_to_tf32 of chosen floats (`cvt` lines). The simulator must
// give every D and every conversion bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test.h"

using namespace nvcuda;
using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

// One warp: D = A B + C, A row-major M x K, B row-major K x N, C and D row-major M x N (the
// probe's kernel).
template <int M, int N, int K, class TA, class TIn, class TAcc>
__global__ void recorded_tile(const TIn* a, const TIn* b, const TAcc* c, TAcc* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, N);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

__global__ void to_tf32(const float* in, float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = wmma::__float_to_tf32(in[i]);
}

namespace {

struct Recording {
  // name -> 'A'/'B'/'C'/'D' -> element bits, by index
  std::map<std::string, std::map<char, std::vector<uint64_t>>> tiles;
  std::vector<std::pair<uint32_t, uint32_t>> tf32;  // input, output bits
};

const Recording& recording() {
  static const Recording r = [] {
    Recording rec;
    std::ifstream in(MINICUDA_WMMA_PROBE);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string kind, name, which, index, bits;
      words >> kind;
      if (kind == "in" && (words >> name >> which >> index >> bits)) {
        auto& v = rec.tiles[name][which[0]];
        v.resize(std::stoul(index) + 1);
        v[std::stoul(index)] = std::stoull(bits, nullptr, 16);
      } else if (kind == "rand" && (words >> name >> index >> bits)) {
        auto& v = rec.tiles[name]['D'];
        v.resize(std::stoul(index) + 1);
        v[std::stoul(index)] = std::stoull(bits, nullptr, 16);
      } else if (kind == "cvt" && (words >> name >> index >> bits)) {
        rec.tf32.emplace_back(std::stoul(index, nullptr, 16), std::stoul(bits, nullptr, 16));
      }
    }
    return rec;
  }();
  return r;
}

template <class T>
std::vector<T> from_bits(const std::vector<uint64_t>& bits) {
  std::vector<T> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(&out[i], &bits[i], sizeof(T));  // little-endian low bytes
  return out;
}

// Replays the tile `name`; returns how many elements of D differ from the H200's.
template <int M, int N, int K, class TA, class TIn, class TAcc>
int mismatches(const std::string& name) {
  const auto it = recording().tiles.find(name);
  if (it == recording().tiles.end()) {
    ADD_FAILURE() << name << " is not in " << MINICUDA_WMMA_PROBE;
    return -1;
  }
  auto tile = it->second;
  EXPECT_EQ(tile['A'].size(), size_t{M * K});
  EXPECT_EQ(tile['D'].size(), size_t{M * N});
  DeviceArray<TIn> a(from_bits<TIn>(tile['A'])), b(from_bits<TIn>(tile['B']));
  DeviceArray<TAcc> c(from_bits<TAcc>(tile['C'])), d(M * N);
  recorded_tile<M, N, K, TA, TIn, TAcc><<<1, 32>>>(a.get(), b.get(), c.get(), d.get());
  const auto got = d.read();
  int wrong = 0;
  for (int i = 0; i < M * N; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &got[i], sizeof(TAcc));
    if (bits != tile['D'][i] && wrong++ < 3)
      ADD_FAILURE() << name << " D[" << i << "]: simulator " << std::hex << bits << ", H200 " << tile['D'][i];
  }
  return wrong;
}

}  // namespace

class WmmaH200 : public FreshProcess {};

TEST_F(WmmaH200, HalfTilesMatchBitForBit) {
  EXPECT_EQ((mismatches<16, 16, 16, half, half, float>("h16x16x16_unit")), 0);
  EXPECT_EQ((mismatches<16, 16, 16, half, half, float>("h16x16x16_wide")), 0);
  EXPECT_EQ((mismatches<32, 8, 16, half, half, float>("h32x8x16_unit")), 0);
  EXPECT_EQ((mismatches<8, 32, 16, half, half, float>("h8x32x16_unit")), 0);
  EXPECT_EQ((mismatches<16, 16, 16, half, half, half>("hh16x16x16_unit")), 0);
}

TEST_F(WmmaH200, Bf16Tf32DoubleAndIntegerTilesMatchBitForBit) {
  EXPECT_EQ((mismatches<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("b16x16x16_wide")), 0);
  EXPECT_EQ((mismatches<16, 16, 8, wmma::precision::tf32, float, float>("t16x16x8_wide")), 0);
  EXPECT_EQ((mismatches<8, 8, 4, double, double, double>("d8x8x4_wide")), 0);
  EXPECT_EQ((mismatches<16, 16, 16, signed char, signed char, int>("s16x16x16")), 0);
  EXPECT_EQ((mismatches<16, 16, 16, unsigned char, unsigned char, int>("u16x16x16")), 0);
}

TEST_F(WmmaH200, FloatToTf32MatchesBitForBit) {
  const auto& cases = recording().tf32;
  ASSERT_FALSE(cases.empty());
  std::vector<float> in(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) std::memcpy(&in[i], &cases[i].first, 4);
  DeviceArray<float> din(in), dout(in.size());
  to_tf32<<<1, 32>>>(din.get(), dout.get(), static_cast<int>(in.size()));
  const auto out = dout.read();
  for (size_t i = 0; i < cases.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    EXPECT_EQ(bits, cases[i].second) << std::hex << "__float_to_tf32 of " << cases[i].first;
  }
}

namespace {

// The block sum written with the C library's exponent functions, the plain path that
// wmma_sim::aligned_block_sum reads from the bits instead: ilogb for each exponent, ldexp and
// trunc for each cut term.
template <int K>
float reference_block_sum(float acc, const double (&a)[K], const double (&b)[K], int first, int count, int min_exp) {
  double plain = acc;
  int e_max = std::numeric_limits<int>::min();
  if (acc != 0.0f) e_max = std::max(std::ilogb(acc), -126);
  for (int k = first; k < first + count; ++k) {
    plain += a[k] * b[k];
    if (a[k] != 0.0 && b[k] != 0.0)
      e_max = std::max(e_max, std::max(std::ilogb(a[k]), min_exp) + std::max(std::ilogb(b[k]), min_exp));
  }
  if (!std::isfinite(plain)) return static_cast<float>(plain);
  if (e_max == std::numeric_limits<int>::min()) return 0.0f;
  const int shift = 25 - e_max;
  int64_t sum = static_cast<int64_t>(std::trunc(std::ldexp(static_cast<double>(acc), shift)));
  for (int k = first; k < first + count; ++k) sum += static_cast<int64_t>(std::trunc(std::ldexp(a[k] * b[k], shift)));
  return minicuda::wmma_sim::float_toward_zero(std::ldexp(static_cast<double>(sum), -shift));
}

// A random half as a double: any sign, subnormals, zeros, and exponents across the whole range.
double random_half(std::mt19937& rng) {
  const uint16_t bits = static_cast<uint16_t>(rng());
  if ((bits & 0x7c00) == 0x7c00) return 0.0;  // no infinities or NaNs here (tested by the tiles)
  const half h = __ushort_as_half(bits);
  return static_cast<double>(static_cast<float>(h));
}

}  // namespace

// The block sum reads exponents from the bits and scales by a power of two, with the factors as
// doubles or (the fp16 path) as floats; the plain path uses ilogb, ldexp and trunc. All must give
// the same float for every input: random halves (fp16's whole range, subnormals and zeros
// included), with accumulators from tiny to large.
TEST(WmmaBlockSum, TheFastSumEqualsThePlainOneBitForBit) {
  std::mt19937 rng(20261203);
  int differ = 0;
  for (int round = 0; round < 200000; ++round) {
    double a[16], b[16];
    for (int k = 0; k < 16; ++k) a[k] = random_half(rng), b[k] = random_half(rng);
    uint32_t acc_bits = rng();
    if ((acc_bits & 0x7f800000u) == 0x7f800000u) acc_bits &= 0x807fffffu;  // finite
    float acc;
    std::memcpy(&acc, &acc_bits, 4);
    if (round % 4 == 0) acc = 0.0f;
    const int first = round % 3 == 0 ? 4 : 0, count = round % 3 == 0 ? 4 : 16;
    float af[16], bf[16];  // the fp16 path's form: the factors as floats
    for (int k = 0; k < 16; ++k) af[k] = static_cast<float>(a[k]), bf[k] = static_cast<float>(b[k]);
    const float plain = reference_block_sum(acc, a, b, first, count, -14);
    const float fast[] = {count == 4 ? minicuda::wmma_sim::aligned_block_sum<4>(acc, a, b, first, -14)
                                     : minicuda::wmma_sim::aligned_block_sum<16>(acc, a, b, first, -14),
                          count == 4 ? minicuda::wmma_sim::aligned_block_sum<4>(acc, af, bf, first, -14)
                                     : minicuda::wmma_sim::aligned_block_sum<16>(acc, af, bf, first, -14)};
    for (const float f : fast) {
      uint32_t fb, pb;
      std::memcpy(&fb, &f, 4);
      std::memcpy(&pb, &plain, 4);
      if (fb != pb && differ++ < 5) ADD_FAILURE() << "round " << round << ": fast " << f << ", plain " << plain;
    }
  }
  EXPECT_EQ(differ, 0);
}
