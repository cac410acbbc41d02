// nvcuda::wmma (mma.h) on the simulated SM: hand-checkable products of every shape and type, the
// memory layouts, the fragment element map the simulator documents, the H200's arithmetic
// (docs/tensor-cores.md: aligned and truncated sums, tf32 operands, fp64 chains, int wrap and
// satf), misuse as the H200 answers it (a partial warp, a misaligned line) and a GEMM of many
// warps against a host reference. test_wmma_h200.cu replays the recorded tiles.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "alignment_checks.h"
#include "kernel_test.h"

using namespace nvcuda;
using minicuda::kernels_test::bits_of;
using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

namespace {

template <class L>
constexpr bool kRow = std::is_same_v<L, wmma::row_major>;

}  // namespace

// One warp: D = A B + C. A is M x K in layout LA (leading dimension lda), B is K x N in layout
// LB, C and D are M x N, row-major unless acc_layout says otherwise.
template <int M, int N, int K, class TA, class LA, class LB, class TIn, class TAcc>
__global__ void one_tile(const TIn* a, unsigned lda, const TIn* b, unsigned ldb, const TAcc* c, TAcc* d,
                         wmma::layout_t acc_layout, bool satf) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, acc_layout == wmma::mem_row_major ? N : M, acc_layout);
  wmma::mma_sync(fc, fa, fb, fc, satf);
  wmma::store_matrix_sync(d, fc, acc_layout == wmma::mem_row_major ? N : M, acc_layout);
}

namespace {

// Runs one_tile on host matrices given row-major (A M x K, B K x N, C M x N); returns D row-major.
// The inputs are stored in memory in the layouts asked for.
template <int M, int N, int K, class TA, class LA = wmma::row_major, class LB = wmma::col_major, class TIn,
          class TAcc>
std::vector<TAcc> run_tile(const std::vector<TIn>& a, const std::vector<TIn>& b, const std::vector<TAcc>& c,
                           wmma::layout_t acc_layout = wmma::mem_row_major, bool satf = false) {
  std::vector<TIn> am(M * K), bm(K * N);
  std::vector<TAcc> cm(M * N);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) am[kRow<LA> ? r * K + k : k * M + r] = a[r * K + k];
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) bm[kRow<LB> ? k * N + n : n * K + k] = b[k * N + n];
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) cm[acc_layout == wmma::mem_row_major ? r * N + n : n * M + r] = c[r * N + n];
  DeviceArray<TIn> da(am), db(bm);
  DeviceArray<TAcc> dc(cm), dd(M * N);
  one_tile<M, N, K, TA, LA, LB, TIn, TAcc><<<1, 32>>>(da.get(), kRow<LA> ? K : M, db.get(), kRow<LB> ? N : K, dc.get(),
                                                      dd.get(), acc_layout, satf);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<TAcc> dm = dd.read(), out(M * N);
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) out[r * N + n] = dm[acc_layout == wmma::mem_row_major ? r * N + n : n * M + r];
  return out;
}

// Small integers: every model of the arithmetic gives the exact result, so D is hand-checkable:
// A[r][k] = r - k, B[k][n] = k + n - 8 (mod 5 to keep them small), C[r][n] = r * n.
template <int M, int N, int K, class TA, class LA, class LB, class TIn, class TAcc>
void check_small_integers() {
  std::vector<TIn> a(M * K), b(K * N);
  std::vector<TAcc> c(M * N);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) a[r * K + k] = TIn(float((r - k) % 5));
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) b[k * N + n] = TIn(float((k + n) % 5 - 2));
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) c[r * N + n] = TAcc(float((r * n) % 7));
  const auto d = run_tile<M, N, K, TA, LA, LB>(a, b, c);
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n) {
      int want = (r * n) % 7;
      for (int k = 0; k < K; ++k) want += ((r - k) % 5) * ((k + n) % 5 - 2);
      ASSERT_EQ(static_cast<double>(static_cast<float>(d[r * N + n])), want) << "D[" << r << "][" << n << "]";
    }
}

}  // namespace

class Wmma : public FreshProcess {};

TEST_F(Wmma, HalfShapesAndLayoutsGiveTheExactProductOfSmallIntegers) {
  check_small_integers<16, 16, 16, half, wmma::row_major, wmma::col_major, half, float>();
  check_small_integers<16, 16, 16, half, wmma::col_major, wmma::row_major, half, float>();
  check_small_integers<16, 16, 16, half, wmma::row_major, wmma::row_major, half, half>();
  check_small_integers<32, 8, 16, half, wmma::row_major, wmma::col_major, half, float>();
  check_small_integers<8, 32, 16, half, wmma::col_major, wmma::col_major, half, float>();
}

TEST_F(Wmma, OtherTypesGiveTheExactProductOfSmallIntegers) {
  check_small_integers<16, 16, 16, __nv_bfloat16, wmma::row_major, wmma::col_major, __nv_bfloat16, float>();
  check_small_integers<16, 16, 8, wmma::precision::tf32, wmma::row_major, wmma::col_major, float, float>();
  check_small_integers<8, 8, 4, double, wmma::row_major, wmma::col_major, double, double>();
  check_small_integers<16, 16, 16, signed char, wmma::row_major, wmma::col_major, signed char, int>();
  check_small_integers<32, 8, 16, signed char, wmma::col_major, wmma::row_major, signed char, int>();
}

TEST_F(Wmma, AccumulatorLoadsAndStoresColumnMajor) {
  std::vector<half> a(256, half(0.0f)), b(256, half(0.0f));
  std::vector<float> c(256);
  for (int i = 0; i < 16; ++i) a[i * 16 + i] = b[i * 16 + i] = half(1.0f);  // identities
  for (int i = 0; i < 256; ++i) c[i] = float(i);
  const auto d = run_tile<16, 16, 16, half>(a, b, c, wmma::mem_col_major);
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 16; ++n) ASSERT_EQ(d[r * 16 + n], float(r * 16 + n + (r == n)));
}

TEST_F(Wmma, Uint8ProductsAndIntWrapAndSatf) {
  // 255 * 255 * 16 + (-1) = 1040399: unsigned inputs, signed accumulator.
  std::vector<unsigned char> a(256, 255), b(256, 255);
  std::vector<int> c(256, -1);
  EXPECT_EQ((run_tile<16, 16, 16, unsigned char>(a, b, c))[0], 1040399);
  // int8: 127 * 127 on INT_MAX wraps (two's complement), or with satf stays at INT_MAX.
  std::vector<signed char> sa(256, 0), sb(256, 0);
  sa[0] = 127, sb[0] = 127;
  std::vector<int> big(256, 2147483647);
  EXPECT_EQ((run_tile<16, 16, 16, signed char>(sa, sb, big))[0], static_cast<int>(2147483647u + 16129u));
  EXPECT_EQ((run_tile<16, 16, 16, signed char>(sa, sb, big, wmma::mem_row_major, true))[0], 2147483647);
  sa[0] = -128;
  std::vector<int> small(256, -2147483647 - 1);
  EXPECT_EQ((run_tile<16, 16, 16, signed char>(sa, sb, small, wmma::mem_row_major, true))[0], -2147483647 - 1);
}

// fp16 products are exact, aligned to the largest exponent, cut toward zero to 25 bits below it,
// summed exactly and rounded toward zero (tests/data/h200/wmma/wmma.txt, `case h16_*`): C = 1 plus
// sixteen products of 2^-24 (each half an ulp of 1.0f) is 1 + 2^-20, where adding them one by one
// in float would leave 1.0f; eight quarter-ulps make 2 ulps; one product of 0.75 ulp is cut to
// 1.0f (h16_c1_p0.75ulp), -0.75 ulp gives 1 - 2^-23 (h16_c1_m0.75ulp); -1 x 0 + -0 is +0.
TEST_F(Wmma, HalfProductsAlignTruncateAndSumAtOnce) {
  std::vector<half> a(256, half(0.0f)), b(256, half(0.0f));
  std::vector<float> c(256, 1.0f);
  for (int k = 0; k < 16; ++k) a[k] = half(std::ldexp(1.0f, -12)), b[k * 16] = half(std::ldexp(1.0f, -12));
  EXPECT_EQ((run_tile<16, 16, 16, half>(a, b, c))[0], 1.0f + std::ldexp(1.0f, -20));
  for (int k = 0; k < 16; ++k) b[k * 16] = half(k < 8 ? std::ldexp(1.0f, -13) : 0.0f);
  EXPECT_EQ((run_tile<16, 16, 16, half>(a, b, c))[0], 1.0f + std::ldexp(1.0f, -22));
  std::fill(a.begin(), a.end(), half(0.0f));
  std::fill(b.begin(), b.end(), half(0.0f));
  a[0] = half(std::ldexp(1.0f, -12)), b[0] = half(std::ldexp(1.5f, -12));
  EXPECT_EQ(bits_of((run_tile<16, 16, 16, half>(a, b, c))[0]), 0x3f800000u);
  a[0] = half(-std::ldexp(1.0f, -12));
  EXPECT_EQ(bits_of((run_tile<16, 16, 16, half>(a, b, c))[0]), 0x3f7ffffeu);
  a[0] = half(-1.0f), b[0] = half(0.0f);
  std::fill(c.begin(), c.end(), -0.0f);
  EXPECT_EQ(bits_of((run_tile<16, 16, 16, half>(a, b, c))[0]), 0x00000000u);
  // 2^24 + 16 x 1 = 2^24 + 16 (float would keep 2^24 adding ones).
  std::fill(a.begin(), a.end(), half(1.0f));
  std::fill(b.begin(), b.end(), half(1.0f));
  std::fill(c.begin(), c.end(), 16777216.0f);
  EXPECT_EQ((run_tile<16, 16, 16, half>(a, b, c))[0], 16777232.0f);
}

// tf32: the tensor core reads a float's sign, exponent and top 10 mantissa bits; the low 13 bits
// are ignored. __float_to_tf32 rounds to nearest, ties away from zero.
TEST_F(Wmma, Tf32IgnoresTheLow13BitsAndFloatToTf32RoundsTiesAway) {
  std::vector<float> a(128, 0.0f), b(128, 0.0f), c(256, 0.0f);
  a[0] = 1.0f + 2047 * std::ldexp(1.0f, -23);  // 1 + (tf32 ulp 2^-10) - 2^-23: read as 1
  b[0] = 1.0f;
  EXPECT_EQ((run_tile<16, 16, 8, wmma::precision::tf32>(a, b, c))[0], 1.0f);
  a[0] = -(1.0f + std::ldexp(1.0f, -10) + 5 * std::ldexp(1.0f, -23));
  EXPECT_EQ((run_tile<16, 16, 8, wmma::precision::tf32>(a, b, c))[0], -(1.0f + std::ldexp(1.0f, -10)));
  const auto tf32 = [](uint32_t in) {
    float f;
    std::memcpy(&f, &in, 4);
    return bits_of(wmma::__float_to_tf32(f));
  };
  EXPECT_EQ(tf32(0x3f800fffu), 0x3f800000u);  // below half a tf32 ulp: down
  EXPECT_EQ(tf32(0x3f801000u), 0x3f802000u);  // a tie: away from zero
  EXPECT_EQ(tf32(0xbf801000u), 0xbf802000u);
  EXPECT_EQ(tf32(0x3f803000u), 0x3f804000u);  // a tie with an odd last bit: away as well
  EXPECT_EQ(tf32(0x7f7fffffu), 0x7f800000u);  // the largest float rounds to infinity
  EXPECT_EQ(tf32(0x7f800000u), 0x7f800000u);
  EXPECT_EQ(tf32(0x7fc00001u), 0x7fc00000u);  // a NaN loses its low bits (cvt tf32 7fc00001 7fc00000)
  EXPECT_EQ(tf32(0x00001000u), 0x00002000u);  // subnormals round alike
}

// fp64 is a chain of FMAs from C in k order: 1 + 2^-53 four times is 1 at every step, and
// (1 + 2^-30)(1 - 2^-30) - 1 keeps the -2^-60 that a separate product would round away.
TEST_F(Wmma, DoubleIsAnFmaChainInKOrder) {
  std::vector<double> a(32, 0.0), b(32, 0.0), c(64, 1.0);
  for (int k = 0; k < 4; ++k) a[k] = 1.0, b[k * 8] = std::ldexp(1.0, -53);
  EXPECT_EQ((run_tile<8, 8, 4, double>(a, b, c))[0], 1.0);
  std::fill(a.begin(), a.end(), 0.0), std::fill(b.begin(), b.end(), 0.0), std::fill(c.begin(), c.end(), -1.0);
  a[0] = 1.0 + std::ldexp(1.0, -30), b[0] = 1.0 - std::ldexp(1.0, -30);
  EXPECT_EQ((run_tile<8, 8, 4, double>(a, b, c))[0], -std::ldexp(1.0, -60));
  // Order: 1e16 + 1 loses the 1, -1e16 cancels, + 1 gives 1.
  std::fill(b.begin(), b.end(), 0.0), std::fill(c.begin(), c.end(), 0.0);
  const double row[4] = {1e16, 1, -1e16, 1};
  for (int k = 0; k < 4; ++k) a[k] = row[k], b[k * 8] = 1.0;
  EXPECT_EQ((run_tile<8, 8, 4, double>(a, b, c))[0], 1.0);
}

// The element map of docs/tensor-cores.md: x[i] of lane l holds element l * n + i in row-major
// order of the logical matrix, whatever its layout in memory.
__global__ void fragment_map(const half* m, float* a_row, float* b_col, float* acc, unsigned* counts) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
  wmma::load_matrix_sync(fa, m, 16);
  wmma::load_matrix_sync(fb, m, 16);
  wmma::fill_fragment(fc, float(threadIdx.x));
  for (unsigned i = 0; i < fa.num_elements; ++i) a_row[threadIdx.x * fa.num_elements + i] = float(fa.x[i]);
  for (unsigned i = 0; i < fb.num_elements; ++i) b_col[threadIdx.x * fb.num_elements + i] = float(fb.x[i]);
  wmma::store_matrix_sync(acc, fc, 8, wmma::mem_row_major);
  if (threadIdx.x == 0) counts[0] = fa.num_elements, counts[1] = fb.num_elements, counts[2] = fc.num_elements;
}

TEST_F(Wmma, FragmentElementMapIsRowMajorByLane) {
  std::vector<half> m(256);
  for (int e = 0; e < 256; ++e) m[e] = half(float(e));
  DeviceArray<half> dm(m);
  DeviceArray<float> a(256), b(256), acc(256);
  DeviceArray<unsigned> counts(3);
  fragment_map<<<1, 32>>>(dm.get(), a.get(), b.get(), acc.get(), counts.get());
  EXPECT_EQ(counts.read(), (std::vector<unsigned>{8, 8, 8}));
  const auto av = a.read(), bv = b.read(), accv = acc.read();
  for (int e = 0; e < 256; ++e) {
    ASSERT_EQ(av[e], float(e));                            // A row-major: memory order
    ASSERT_EQ(bv[e], float((e % 16) * 16 + e / 16)) << e;  // B (k x n) element (e/16, e%16) at n*16+k
    ASSERT_EQ(accv[e], float(e / 8));                      // lane l owns D elements 8l .. 8l+7
  }
}

// A partial warp: as on the H200 (wmma_misuse.txt, `misuse halfwarp`), no error, and D is no
// product (0 here); lanes that branch away leave the others the same.
__global__ void partial_mma(float* d, unsigned callers) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fa, half(1.0f));
  wmma::fill_fragment(fb, half(1.0f));
  wmma::fill_fragment(fc, 5.0f);
  if (threadIdx.x < callers) wmma::mma_sync(fc, fa, fb, fc);
  if (threadIdx.x < callers) d[threadIdx.x] = fc.x[0];
}

TEST_F(Wmma, AHalfWarpGetsNoErrorAndNoProduct) {
  DeviceArray<float> d(32);
  partial_mma<<<1, 16>>>(d.get(), 16);  // a block of 16 threads: lanes 16..31 do not exist
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(d.read()[0], 0.0f);
  partial_mma<<<1, 32>>>(d.get(), 20);  // lanes 20..31 return without calling
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(d.read()[19], 0.0f);
}

TEST_F(Wmma, TheWholeWarpCallingGivesTheProduct) {
  DeviceArray<float> d(32);
  partial_mma<<<1, 32>>>(d.get(), 32);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(d.read()[0], 21.0f);
}

// A half matrix whose rows do not start 4-byte aligned: cudaErrorMisalignedAddress, as on the
// H200 (wmma_misuse.txt: offset1 faults; offset4, offset8, ldm 12 and ldm 4 do not).
__global__ void load_at(const half* a, unsigned ldm, float* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::load_matrix_sync(fa, a, ldm);
  out[threadIdx.x] = float(fa.x[0]);
}

TEST_F(Wmma, AMisalignedHalfLineIsAMisalignedAddress) {
  DeviceArray<half> a(64 * 64);
  DeviceArray<float> out(32);
  for (unsigned offset : {4u, 8u, 16u}) {
    load_at<<<1, 32>>>(a.get() + offset, 16, out.get());
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << offset;
  }
  load_at<<<1, 32>>>(a.get(), 12, out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  load_at<<<1, 32>>>(a.get() + 1, 16, out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
}

// A GEMM as the samples write it (simple_wmma_gemm): each warp computes one 16 x 16 tile of
// D = alpha A B + beta C, A row-major M x K, B column-major K x N, C and D row-major.
__global__ void wmma_gemm(const half* a, const half* b, const float* c, float* d, int m, int n, int k, float alpha,
                          float beta) {
  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32, warp_n = blockIdx.y * blockDim.y + threadIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, fc;
  wmma::fill_fragment(acc, 0.0f);
  const int row = warp_m * 16, col = warp_n * 16;
  if (row >= m || col >= n) return;  // whole warps leave together
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + row * k + kk, k);
    wmma::load_matrix_sync(fb, b + col * k + kk, k);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + row * n + col, n, wmma::mem_row_major);
  for (unsigned i = 0; i < fc.num_elements; ++i) fc.x[i] = alpha * acc.x[i] + beta * fc.x[i];
  wmma::store_matrix_sync(d + row * n + col, fc, n, wmma::mem_row_major);
}

TEST_F(Wmma, GemmOfManyWarpsMatchesTheHostReference) {
  constexpr int m = 64, n = 48, k = 64;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<half> a(m * k), b(k * n);  // b column-major: b[col * k + kk]
  std::vector<float> c(m * n);
  for (auto& v : a) v = half(small(rng) / 8.0f);
  for (auto& v : b) v = half(small(rng) / 4.0f);
  for (auto& v : c) v = float(small(rng));
  DeviceArray<half> da(a), db(b);
  DeviceArray<float> dc(c), dd(m * n);
  // 2 x 3 blocks of (64 x 1) threads: 2 warps in x and 1 in y per block.
  wmma_gemm<<<dim3(2, 3), dim3(64, 1)>>>(da.get(), db.get(), dc.get(), dd.get(), m, n, k, 2.0f, -1.0f);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto d = dd.read();
  for (int r = 0; r < m; ++r)
    for (int col = 0; col < n; ++col) {
      double sum = 0;  // every product and partial sum is exact: multiples of 1/32 below 2^10
      for (int kk = 0; kk < k; ++kk) sum += double(float(a[r * k + kk])) * double(float(b[col * k + kk]));
      ASSERT_EQ(d[r * n + col], 2.0f * float(sum) - c[r * n + col]) << r << "," << col;
    }
}

// Many warps of one block, each with its own tile, in lockstep pairs of mma_sync: the exchanges
// of different warps do not mix.
__global__ void per_warp_scale(float* out) {
  const unsigned warp = threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fa, half(float(warp + 1)));
  wmma::fill_fragment(fb, half(1.0f));
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out + warp * 256, fc, 16, wmma::mem_row_major);
}

TEST_F(Wmma, WarpsOfOneBlockExchangeOnlyWithinThemselves) {
  DeviceArray<float> out(8 * 256);
  per_warp_scale<<<1, 256>>>(out.get());
  const auto v = out.read();
  for (int w = 0; w < 8; ++w)
    for (int e = 0; e < 256; ++e) ASSERT_EQ(v[w * 256 + e], 16.0f * (w + 1)) << w;
}

// A tile of each input type, then one lane's misaligned load, in the same block.
template <class TIn, class TAcc>
__global__ void mma_then_misaligned_load(const char* bytes, TAcc* out) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, TIn, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, TIn, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, TAcc> fc;
  wmma::fill_fragment(fa, TIn(1));
  wmma::fill_fragment(fb, TIn(2));
  wmma::fill_fragment(fc, TAcc(0));
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out, fc, 16, wmma::mem_row_major);
  if (threadIdx.x == 31) out[0] = static_cast<TAcc>(*reinterpret_cast<const int*>(bytes + 1));
}

// mma_sync's warp computation runs with the kernel's alignment check left on when optimised: a
// misaligned load after it, in the same block, is still the GPU's error (716), not lost to a trap
// the computation took (its operand lines are 16-byte aligned for g++'s vector loads).
template <class TIn, class TAcc>
void expect_misaligned_load_after_mma() {
  DeviceArray<char> bytes(std::vector<char>(16, 1));
  DeviceArray<TAcc> out(256);
  mma_then_misaligned_load<TIn, TAcc><<<1, 32>>>(bytes.get(), out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
}

TEST_F(Wmma, AMisalignedLoadAfterAHalfMmaSyncIsStillError716) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  expect_misaligned_load_after_mma<half, float>();
}

TEST_F(Wmma, AMisalignedLoadAfterAnInt8MmaSyncIsStillError716) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  expect_misaligned_load_after_mma<signed char, int>();
}
