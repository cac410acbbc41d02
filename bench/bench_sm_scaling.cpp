// How the simulated SMs scale over host threads: vector_add over 2^24 ints, <<<65536, 256>>> (loop
// mode), and the tiled multiply of bench_kernels_regions.cu on 512 x 512 floats, <<<(32, 32),
// (16, 16)>>> (split into regions by cu2cxx: no fibers), each run with N SM worker threads for
// N = 1, 2, 4, 8, 16. The worker count is read once per process (MINICUDA_SM_THREADS,
// compute_engine.cpp), so with MINICUDA_SM_THREADS unset this program runs itself once per N
// with it set, passing its arguments on, and prints the speed-up of each N against N = 1 - with
// the same bits: each run checks its results against a serial host loop summing in the same
// order, and prints a hash of them, which must be the same for every N. With
// MINICUDA_SM_THREADS set it runs that count only.
//
// Run the Release build:  build-release/bin/bench_sm_scaling
//   --benchmark_repetitions=5 gives medians. The goal (issue 12): >= 8x at 16 workers on a
//   16-core host. On a host of fewer cores than N, the N workers share them: expect no gain past
//   the core count there. Each benchmark also reports cpu_all_threads (bench_common.h).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_common.h"

__global__ void scaling_vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Defined in bench_kernels_regions.cu, with a block function.
__global__ void matmul_tiled_regions(const float* a, const float* b, float* c, int n);

namespace {

constexpr int kVectorN = 1 << 24;
constexpr int kVectorBlock = 256;
constexpr int kMatN = 512;
constexpr int kTile = 16;
constexpr int kWorkerCounts[] = {1, 2, 4, 8, 16};

struct Data {
  std::vector<int> a = std::vector<int>(kVectorN), b = std::vector<int>(kVectorN), c = std::vector<int>(kVectorN);
  std::vector<float> ma = std::vector<float>(kMatN * kMatN), mb = std::vector<float>(kMatN * kMatN),
                     mc = std::vector<float>(kMatN * kMatN);
  int *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  float *d_ma = nullptr, *d_mb = nullptr, *d_mc = nullptr;
  Data() {
    for (int i = 0; i < kVectorN; ++i) a[i] = i * 7 - 3, b[i] = (i % 1000) * 3;
    for (int i = 0; i < kMatN * kMatN; ++i)
      ma[i] = static_cast<float>(i % 17) * 0.37f - 2.1f, mb[i] = static_cast<float>(i % 13) * 0.61f - 3.3f;
    for (int i = 0; i < kVectorN; ++i) c[i] = a[i] + b[i];
    for (int row = 0; row < kMatN; ++row)  // the products in k order, as each thread sums them
      for (int col = 0; col < kMatN; ++col) {
        float sum = 0.0f;
        for (int k = 0; k < kMatN; ++k) sum += ma[row * kMatN + k] * mb[k * kMatN + col];
        mc[row * kMatN + col] = sum;
      }
    const size_t vbytes = kVectorN * sizeof(int), mbytes = kMatN * kMatN * sizeof(float);
    bool ok = cudaMalloc(&d_a, vbytes) == cudaSuccess && cudaMalloc(&d_b, vbytes) == cudaSuccess &&
              cudaMalloc(&d_c, vbytes) == cudaSuccess && cudaMalloc(&d_ma, mbytes) == cudaSuccess &&
              cudaMalloc(&d_mb, mbytes) == cudaSuccess && cudaMalloc(&d_mc, mbytes) == cudaSuccess &&
              cudaMemcpy(d_a, a.data(), vbytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(d_b, b.data(), vbytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(d_ma, ma.data(), mbytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(d_mb, mb.data(), mbytes, cudaMemcpyHostToDevice) == cudaSuccess;
    if (!ok) {
      std::fprintf(stderr, "bench_sm_scaling: allocation failed\n");
      std::exit(1);
    }
  }
};
Data& data() {
  static Data d;
  return d;
}

cudaError_t launch_vector_add() {
  Data& d = data();
  return minicuda::launch<scaling_vector_add>(dim3(kVectorN / kVectorBlock), dim3(kVectorBlock), 0, nullptr, d.d_a,
                                              d.d_b, d.d_c, kVectorN);
}
cudaError_t launch_matmul() {
  Data& d = data();
  return minicuda::launch<matmul_tiled_regions>(dim3(kMatN / kTile, kMatN / kTile), dim3(kTile, kTile), 0, nullptr,
                                                d.d_ma, d.d_mb, d.d_mc, kMatN);
}

uint64_t fnv1a(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  return h;
}

// Runs both kernels once; false if either result differs from the host's by a single bit. The
// hashes of the results, for the comparison across worker counts.
bool results_are_right(uint64_t* vector_hash, uint64_t* matmul_hash) {
  Data& d = data();
  std::vector<int> c(kVectorN, -1);
  std::vector<float> mc(kMatN * kMatN, -1.0f);
  if (cudaMemset(d.d_c, 0, kVectorN * sizeof(int)) != cudaSuccess || launch_vector_add() != cudaSuccess ||
      launch_matmul() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(c.data(), d.d_c, c.size() * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(mc.data(), d.d_mc, mc.size() * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
    return false;
  *vector_hash = fnv1a(c.data(), c.size() * sizeof(int));
  *matmul_hash = fnv1a(mc.data(), mc.size() * sizeof(float));
  return std::memcmp(c.data(), d.c.data(), c.size() * sizeof(int)) == 0 &&
         std::memcmp(mc.data(), d.mc.data(), mc.size() * sizeof(float)) == 0;
}

void BM_VectorAdd(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    launch_vector_add();
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_VectorAdd)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_MatmulTiled(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    launch_matmul();
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_MatmulTiled)->UseRealTime()->Unit(benchmark::kMillisecond);

// One worker count: the benchmarks, then a line the sweep reads back.
int run_one(int argc, char** argv) {
  uint64_t vector_hash = 0, matmul_hash = 0;
  if (!results_are_right(&vector_hash, &matmul_hash)) {
    std::fprintf(stderr, "bench_sm_scaling: a result differs from the host's\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("sm-scaling: workers=%s vector_add_ns=%.0f matmul_ns=%.0f vector_hash=%016llx matmul_hash=%016llx\n",
              std::getenv("MINICUDA_SM_THREADS"), reporter.median("BM_VectorAdd/real_time"),
              reporter.median("BM_MatmulTiled/real_time"), static_cast<unsigned long long>(vector_hash),
              static_cast<unsigned long long>(matmul_hash));
  return 0;
}

struct Result {
  double vector_ns = -1, matmul_ns = -1;
  std::string vector_hash, matmul_hash;
};

// This program again with MINICUDA_SM_THREADS=workers and the same arguments; its output passes
// through, and its sm-scaling line is parsed.
bool run_child(int workers, int argc, char** argv, Result* r) {
  std::string command = "MINICUDA_SM_THREADS=" + std::to_string(workers) + " /proc/" + std::to_string(getpid()) + "/exe";
  for (int i = 1; i < argc; ++i) {
    command += " '";
    for (const char* c = argv[i]; *c; ++c) command += *c == '\'' ? std::string("'\\''") : std::string(1, *c);
    command += "'";
  }
  std::fflush(stdout);
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) return false;
  char line[4096];
  bool found = false;
  while (std::fgets(line, sizeof line, out) != nullptr) {
    std::fputs(line, stdout);
    char vh[32] = {}, mh[32] = {};
    if (std::sscanf(line, "sm-scaling: workers=%*d vector_add_ns=%lf matmul_ns=%lf vector_hash=%31s matmul_hash=%31s",
                    &r->vector_ns, &r->matmul_ns, vh, mh) == 4) {
      r->vector_hash = vh, r->matmul_hash = mh;
      found = true;
    }
  }
  return pclose(out) == 0 && found;
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_sm_scaling")) return 1;
  if (const char* env = std::getenv("MINICUDA_SM_THREADS"); env != nullptr && *env != '\0') return run_one(argc, argv);

  std::map<int, Result> results;
  for (int n : kWorkerCounts) {
    std::printf("=== %d SM worker thread%s (MINICUDA_SM_THREADS=%d) ===\n", n, n == 1 ? "" : "s", n);
    if (!run_child(n, argc, argv, &results[n])) {
      std::fprintf(stderr, "bench_sm_scaling: the run with %d workers failed\n", n);
      return 1;
    }
  }
  const Result& one = results[1];
  bool identical = true;
  std::printf("\nSummary: wall time of launch + cudaDeviceSynchronize against 1 SM worker thread, same bits "
              "required (host: %ld cores)\n",
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("  workers   vector_add 2^24            tiled matmul 512x512       results\n");
  // "ms  speed-up" of one benchmark, or blanks where the filter left it out.
  auto cell = [](double ns, double one_ns) {
    char text[64];
    if (ns <= 0 || one_ns <= 0) return std::string("     (not run)           ");
    std::snprintf(text, sizeof text, "%8.2f ms  %6.2fx        ", ns / 1e6, one_ns / ns);
    return std::string(text);
  };
  for (int n : kWorkerCounts) {
    const Result& r = results[n];
    const bool same = r.vector_hash == one.vector_hash && r.matmul_hash == one.matmul_hash;
    identical = identical && same;
    std::printf("  %7d   %s  %s  %s\n", n, cell(r.vector_ns, one.vector_ns).c_str(),
                cell(r.matmul_ns, one.matmul_ns).c_str(), same ? "bit-identical to 1 worker" : "DIFFERENT");
  }
  const Result& top = results[16];
  std::printf("  goal: >= 8x at 16 workers on a 16-core host: vector_add %.2fx, matmul %.2fx\n",
              one.vector_ns / top.vector_ns, one.matmul_ns / top.matmul_ns);
  return identical ? 0 : 1;
}
