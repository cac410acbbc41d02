// Launch overhead per kernel: N small kernels (a one-block increment) submitted to a stream one by
// one, against the same N kernels as the kernel nodes of a chain graph instantiated once and
// launched with cudaGraphLaunch, in one run. Each iteration submits the N kernels and synchronizes
// the stream. The figure to read is the time per kernel of each, and their ratio (graph / stream).
// The graph's kernels are prebuilt at its first launch (docs/graphs.md): every later launch is one
// submission of GPFIFO entries pointing at them, where the stream writes a QMD, its methods and a
// GPFIFO entry and rings the doorbell per kernel. Release build: build-release/bin/bench_graphs.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "bench_common.h"

namespace {

__global__ void increment(int* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

int* g_counter = nullptr;
cudaStream_t g_stream = nullptr;

void BM_StreamLaunches(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    for (int i = 0; i < n; ++i) minicuda::launch<increment>(dim3(1), dim3(32), 0, g_stream, g_counter);
    cudaStreamSynchronize(g_stream);
  }
  state.counters["per_kernel_us"] =
      benchmark::Counter(static_cast<double>(n) * 1e-6, benchmark::Counter::kIsIterationInvariantRate |
                                                            benchmark::Counter::kInvert);
}

void BM_GraphLaunch(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  cudaGraph_t g = nullptr;
  cudaGraphCreate(&g, 0);
  cudaGraphNode_t last = nullptr;
  void* args[] = {&g_counter};
  cudaKernelNodeParams p{reinterpret_cast<void*>(&increment), dim3(1), dim3(32), 0, args, nullptr};
  for (int i = 0; i < n; ++i) {
    cudaGraphNode_t node = nullptr;
    cudaGraphAddKernelNode(&node, g, last == nullptr ? nullptr : &last, last == nullptr ? 0 : 1, &p);
    last = node;
  }
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
    state.SkipWithError("cudaGraphInstantiate failed");
    return;
  }
  for (auto _ : state) {
    cudaGraphLaunch(exec, g_stream);
    cudaStreamSynchronize(g_stream);
  }
  state.counters["per_kernel_us"] =
      benchmark::Counter(static_cast<double>(n) * 1e-6, benchmark::Counter::kIsIterationInvariantRate |
                                                            benchmark::Counter::kInvert);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

BENCHMARK(BM_StreamLaunches)->Arg(16)->Arg(128)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GraphLaunch)->Arg(16)->Arg(128)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_graphs")) return 1;
  cudaMalloc(&g_counter, sizeof(int));
  cudaMemset(g_counter, 0, sizeof(int));
  cudaStreamCreate(&g_stream);
  // One launch each way, checked, before timing: it also registers the kernel.
  minicuda::launch<increment>(dim3(1), dim3(32), 0, g_stream, g_counter);
  cudaStreamSynchronize(g_stream);
  int value = 0;
  cudaMemcpy(&value, g_counter, sizeof(int), cudaMemcpyDeviceToHost);
  if (value != 1) {
    std::fprintf(stderr, "bench_graphs: the kernel counted %d, not 1\n", value);
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("\nSummary (time per kernel; ratio = graph / stream)\n");
  for (const char* n : {"16", "128"}) {
    double s = reporter.median(std::string("BM_StreamLaunches/") + n + "/real_time");
    double g = reporter.median(std::string("BM_GraphLaunch/") + n + "/real_time");
    if (s <= 0 || g <= 0) continue;
    int k = std::stoi(n);
    std::printf("  %4s kernels: stream %8.2f us, graph %8.2f us per kernel, ratio %.2f\n", n, s / k / 1e3,
                g / k / 1e3, g / s);
  }
  return 0;
}
