// Benchmarks of the foundation, each against a native baseline in the same run:
//   cudaMalloc + cudaFree (256 B, trace off) vs glibc malloc + free (256 B)
//     - warm pool: another allocation keeps the 2 MiB chunk alive, so no syscall is made
//     - cold pool: the chunk is empty after each free and goes back to the kernel (as on an H200),
//       so every iteration makes the RM_ALLOC + UVM ioctls
//   a disabled trace point vs an empty function call
//   host RSS after initialising the H200 preset (141 GB of simulated VRAM)
// Run the Release build: build-release/bin/bench_memory. The summary at the end prints the ratios.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <unistd.h>

#include "bench_common.h"
#include "minicuda/trace.h"

namespace trace = minicuda::trace;

namespace {

[[gnu::noinline]] void empty_call(int v) { benchmark::DoNotOptimize(v); }

void BM_GlibcMallocFree256(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::malloc(256);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}
BENCHMARK(BM_GlibcMallocFree256);

void BM_CudaMallocFree256_WarmPool(benchmark::State& state) {
  void* keep = nullptr;
  cudaMalloc(&keep, 256);  // keeps the pool's chunk alive
  for (auto _ : state) {
    void* p = nullptr;
    cudaMalloc(&p, 256);
    benchmark::DoNotOptimize(p);
    cudaFree(p);
  }
  cudaFree(keep);
}
BENCHMARK(BM_CudaMallocFree256_WarmPool);

void BM_CudaMallocFree256_ColdPool(benchmark::State& state) {
  for (auto _ : state) {
    void* p = nullptr;
    cudaMalloc(&p, 256);
    benchmark::DoNotOptimize(p);
    cudaFree(p);
  }
}
BENCHMARK(BM_CudaMallocFree256_ColdPool);

void BM_EmptyCall(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) empty_call(++i);
}
BENCHMARK(BM_EmptyCall);

void BM_DisabledTracePoint(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) {
    trace::Scope scope(trace::Layer::Libcuda, "cuMemAlloc_v2(dptr={}, bytesize={})", static_cast<void*>(&i), ++i);
    scope.result("CUDA_SUCCESS");
    empty_call(i);
  }
}
BENCHMARK(BM_DisabledTracePoint);

long rss_kib() {
  long pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
  std::fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_memory")) return 1;
  long before = rss_kib();
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) return 1;  // initialises the H200 preset
  long after = rss_kib();

  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto& ns = reporter.ns;
  std::printf("\nSummary (ratios against the native baseline of the same run)\n");
  std::printf("  cudaMalloc+cudaFree 256 B, warm pool / glibc malloc+free 256 B : %8.1fx  (%.0f ns vs %.1f ns)\n",
              ns["BM_CudaMallocFree256_WarmPool"] / ns["BM_GlibcMallocFree256"], ns["BM_CudaMallocFree256_WarmPool"],
              ns["BM_GlibcMallocFree256"]);
  std::printf("  cudaMalloc+cudaFree 256 B, cold pool / glibc malloc+free 256 B : %8.1fx  (%.0f ns: 5 ioctls per iteration)\n",
              ns["BM_CudaMallocFree256_ColdPool"] / ns["BM_GlibcMallocFree256"], ns["BM_CudaMallocFree256_ColdPool"]);
  std::printf("  disabled trace point / empty function call                     : %8.2fx  (%.2f ns vs %.2f ns)\n",
              ns["BM_DisabledTracePoint"] / ns["BM_EmptyCall"], ns["BM_DisabledTracePoint"], ns["BM_EmptyCall"]);
  std::printf("  host RSS: %.1f MiB before the first CUDA call, %.1f MiB after initialising the H200 preset\n"
              "            (+%.1f MiB for %.1f GB of simulated device memory: %.5f%% of it)\n",
              before / 1024.0, after / 1024.0, (after - before) / 1024.0, total / 1e9,
              100.0 * (after - before) * 1024.0 / static_cast<double>(total));
  return 0;
}
