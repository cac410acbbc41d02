// Tensor cores: an n x n x n GEMM through nvcuda::wmma (one warp per 16 x 16 tile of D, 16 x 16
// x 16 mma_sync steps along k) for half inputs with a float accumulator and for int8 inputs with
// an int accumulator, against the same products summed by a plain host loop (the native
// baseline), in one run. The figure to read is multiply-adds a second, and the ratio native /
// wmma. The simulated mma_sync rounds as the H200 does (docs/tensor-cores.md), which the host loop
// does not: the check before timing compares the int8 GEMM exactly and the half one within the
// sum's rounding. Release build: build-release/bin/bench_tensor_cores.
#include <benchmark/benchmark.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

namespace wmma = nvcuda::wmma;

constexpr int kN = 256;  // the GEMM's m = n = k
constexpr int kTile = 16;

// D = A B, A row-major and B column-major (n x n): block (x, y) is one warp computing tile (y, x).
template <class In, class Acc>
__global__ void wmma_gemm(const In* a, const In* b, Acc* d, int n) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, In, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, In, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc;
  wmma::fill_fragment(acc, Acc(0));
  const int row = blockIdx.y * kTile, col = blockIdx.x * kTile;
  for (int k = 0; k < n; k += kTile) {
    wmma::load_matrix_sync(fa, a + row * n + k, n);
    wmma::load_matrix_sync(fb, b + col * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + row * n + col, acc, n, wmma::mem_row_major);
}

// The host's GEMM of the same operands (a row-major, b column-major): what the tile sums would be
// with the host's own arithmetic.
template <class T, class Acc>
void native_gemm(const std::vector<T>& a, const std::vector<T>& b, std::vector<Acc>& d, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      Acc sum = 0;
      for (int k = 0; k < n; ++k) sum += a[i * n + k] * b[j * n + k];
      d[i * n + j] = sum;
    }
}

struct Operands {
  std::vector<float> a_float, b_float;  // the halves' values
  std::vector<int> a_int, b_int;        // the int8 values
  half *a_half = nullptr, *b_half = nullptr;
  signed char *a_s8 = nullptr, *b_s8 = nullptr;
  float* d_float = nullptr;
  int* d_int = nullptr;
};
Operands g;

template <class T>
T* to_device(const std::vector<T>& host) {
  T* p = nullptr;
  cudaMalloc(&p, host.size() * sizeof(T));
  cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

void prepare() {
  std::mt19937 rng(20261203);
  const size_t count = static_cast<size_t>(kN) * kN;
  std::vector<half> ah(count), bh(count);
  std::vector<signed char> as(count), bs(count);
  for (size_t i = 0; i < count; ++i) {
    ah[i] = __float2half(static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8.0f);
    bh[i] = __float2half(static_cast<float>(static_cast<int>(rng() % 17) - 8) / 8.0f);
    as[i] = static_cast<signed char>(rng());
    bs[i] = static_cast<signed char>(rng());
    g.a_float.push_back(__half2float(ah[i]));
    g.b_float.push_back(__half2float(bh[i]));
    g.a_int.push_back(as[i]);
    g.b_int.push_back(bs[i]);
  }
  g.a_half = to_device(ah), g.b_half = to_device(bh), g.a_s8 = to_device(as), g.b_s8 = to_device(bs);
  cudaMalloc(&g.d_float, count * sizeof(float));
  cudaMalloc(&g.d_int, count * sizeof(int));
}

void count_macs(benchmark::State& state) {
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(kN) * kN * kN,
                                               benchmark::Counter::kIsIterationInvariantRate);
}

template <class T, class Acc>
void native_benchmark(benchmark::State& state, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<Acc> d(static_cast<size_t>(kN) * kN);
  for (auto _ : state) {
    native_gemm(a, b, d, kN);
    benchmark::DoNotOptimize(d.data());
  }
  count_macs(state);
}
void BM_NativeGemmHalf(benchmark::State& state) { native_benchmark<float, float>(state, g.a_float, g.b_float); }
void BM_NativeGemmInt8(benchmark::State& state) { native_benchmark<int, int>(state, g.a_int, g.b_int); }

template <class In, class Acc>
void run_wmma(const In* a, const In* b, Acc* d) {
  minicuda::launch<wmma_gemm<In, Acc>>(dim3(kN / kTile, kN / kTile), dim3(32), 0, nullptr, a, b, d, kN);
  cudaDeviceSynchronize();
}

void BM_WmmaGemmHalf(benchmark::State& state) {
  for (auto _ : state) run_wmma(g.a_half, g.b_half, g.d_float);
  count_macs(state);
}

void BM_WmmaGemmInt8(benchmark::State& state) {
  for (auto _ : state) run_wmma(g.a_s8, g.b_s8, g.d_int);
  count_macs(state);
}

BENCHMARK(BM_NativeGemmHalf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WmmaGemmHalf)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeGemmInt8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WmmaGemmInt8)->UseRealTime()->Unit(benchmark::kMillisecond);

// The simulated GEMMs against the host's before any timing: int8 exactly; half within what
// rounding each 16-term block toward zero can lose (|d| / 2^22 per block, kN / 16 blocks).
bool results_agree() {
  const size_t count = static_cast<size_t>(kN) * kN;
  run_wmma(g.a_half, g.b_half, g.d_float);
  run_wmma(g.a_s8, g.b_s8, g.d_int);
  if (cudaGetLastError() != cudaSuccess) return false;
  std::vector<float> d_float(count), want_float(count);
  std::vector<int> d_int(count), want_int(count);
  cudaMemcpy(d_float.data(), g.d_float, count * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(d_int.data(), g.d_int, count * sizeof(int), cudaMemcpyDeviceToHost);
  native_gemm(g.a_float, g.b_float, want_float, kN);
  native_gemm(g.a_int, g.b_int, want_int, kN);
  for (size_t i = 0; i < count; ++i) {
    if (d_int[i] != want_int[i]) {
      std::fprintf(stderr, "bench_tensor_cores: int8 element %zu is %d, the host's %d\n", i, d_int[i], want_int[i]);
      return false;
    }
    if (std::fabs(d_float[i] - want_float[i]) > 1e-3f * (1.0f + std::fabs(want_float[i]))) {
      std::fprintf(stderr, "bench_tensor_cores: half element %zu is %g, the host's %g\n", i, d_float[i],
                   want_float[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_tensor_cores")) return 1;
  prepare();
  if (!results_agree()) return 1;
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("\nSummary (%d x %d x %d GEMM; ratio = wmma time / native time)\n", kN, kN, kN);
  for (const char* type : {"Half", "Int8"}) {
    const double native = reporter.median(std::string("BM_NativeGemm") + type);
    const double simulated = reporter.median(std::string("BM_WmmaGemm") + type + "/real_time");
    if (native <= 0 || simulated <= 0) continue;
    const double macs = static_cast<double>(kN) * kN * kN;
    std::printf("  %s: native %.3g MAC/s, wmma %.3g MAC/s, ratio %.1f\n", type, macs / native * 1e9,
                macs / simulated * 1e9, simulated / native);
  }
  return 0;
}
