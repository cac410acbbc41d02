// Benchmarks of copies through the simulated copy engine, each against a native baseline in the
// same run:
//   cudaMemcpy host-to-device, pinned source (one copy by the engine) vs std::memcpy
//   cudaMemcpy host-to-device, pageable source (staged through the pinned bounce buffer) vs std::memcpy
//   cudaMemset + cudaDeviceSynchronize vs std::memset
//   the round trip of one tiny piece of work (a 1-byte cudaMemset + cudaDeviceSynchronize): the
//     pushbuffer, GPFIFO entry, GPPut, doorbell, the device thread noticing, the semaphore
//     release and the host seeing it - the cost every launch will pay - vs an empty call
// Sizes: 4 KiB, 1 MiB, 16 MiB. Run the Release build: build-release/bin/bench_copy.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

constexpr int64_t kSizes[] = {4 << 10, 1 << 20, 16 << 20};
constexpr int64_t kMaxSize = 16 << 20;

[[gnu::noinline]] void empty_call(int v) { benchmark::DoNotOptimize(v); }

// Device and host buffers shared by every benchmark (allocated once, outside the timing).
struct Buffers {
  void* device = nullptr;
  void* pinned = nullptr;
  std::vector<char> pageable = std::vector<char>(kMaxSize, 1);
  std::vector<char> native_dst = std::vector<char>(kMaxSize, 0);
  Buffers() {
    if (cudaMalloc(&device, kMaxSize) != cudaSuccess || cudaMallocHost(&pinned, kMaxSize) != cudaSuccess) {
      std::fprintf(stderr, "bench_copy: allocation failed\n");
      std::exit(1);
    }
    std::memset(pinned, 1, kMaxSize);
  }
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

void set_bytes(benchmark::State& state) { state.SetBytesProcessed(state.iterations() * state.range(0)); }

void BM_NativeMemcpy(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) {
    std::memcpy(b.native_dst.data(), b.pageable.data(), state.range(0));
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

void BM_CudaMemcpyHtoD_Pinned(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) cudaMemcpy(b.device, b.pinned, state.range(0), cudaMemcpyHostToDevice);
  set_bytes(state);
}

void BM_CudaMemcpyHtoD_Pageable(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) cudaMemcpy(b.device, b.pageable.data(), state.range(0), cudaMemcpyHostToDevice);
  set_bytes(state);
}

void BM_NativeMemset(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) {
    std::memset(b.native_dst.data(), 7, state.range(0));
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

void BM_CudaMemsetSynchronize(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) {
    cudaMemset(b.device, 7, state.range(0));
    cudaDeviceSynchronize();
  }
  set_bytes(state);
}

void BM_EmptyCall(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) empty_call(++i);
}

void BM_TinyWorkRoundTrip(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) {
    cudaMemset(b.device, 0, 1);
    cudaDeviceSynchronize();
  }
}

void sizes(benchmark::internal::Benchmark* bm) {
  for (int64_t s : kSizes) bm->Arg(s);
}
BENCHMARK(BM_NativeMemcpy)->Apply(sizes);
BENCHMARK(BM_CudaMemcpyHtoD_Pinned)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_CudaMemcpyHtoD_Pageable)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_NativeMemset)->Apply(sizes);
BENCHMARK(BM_CudaMemsetSynchronize)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_EmptyCall);
BENCHMARK(BM_TinyWorkRoundTrip)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_copy")) return 1;
  buffers();  // initialise the runtime and allocate outside the timing
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto& ns = reporter.ns;
  auto ratio = [&](const char* what, const std::string& sim, const std::string& native) {
    if (!ns.count(sim) || !ns.count(native)) return;
    std::printf("  %-44s : %8.1fx  (%.0f ns vs %.0f ns)\n", what, ns[sim] / ns[native], ns[sim], ns[native]);
  };
  std::printf("\nSummary (ratios against the native baseline of the same run)\n");
  for (int64_t s : kSizes) {
    std::string arg = "/" + std::to_string(s);
    std::string label = std::to_string(s >> 10) + " KiB";
    ratio(("cudaMemcpy HtoD pinned " + label + " / memcpy").c_str(), "BM_CudaMemcpyHtoD_Pinned" + arg + "/real_time",
          "BM_NativeMemcpy" + arg);
    ratio(("cudaMemcpy HtoD pageable " + label + " / memcpy").c_str(),
          "BM_CudaMemcpyHtoD_Pageable" + arg + "/real_time", "BM_NativeMemcpy" + arg);
    ratio(("cudaMemset+sync " + label + " / memset").c_str(), "BM_CudaMemsetSynchronize" + arg + "/real_time",
          "BM_NativeMemset" + arg);
  }
  ratio("1-byte memset + sync round trip / empty call", "BM_TinyWorkRoundTrip/real_time", "BM_EmptyCall");
  return 0;
}
