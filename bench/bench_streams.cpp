// Benchmarks of the engines working at the same time (device_sim/src/engine_thread.h): a kernel on
// one stream and a copy on another, alone and together, against the same two pieces of work done
// natively, alone and together (the loop on this thread, the memcpy on a std::thread).
//   - the kernel: sum_of_powers over up to 2^22 floats, <<<up to 16384, 256>>> (loop mode), some
//     arithmetic per element, repeated a number of rounds; the rounds and the element count are
//     chosen at start so that the kernel alone takes about as long as the copy alone (then the
//     best possible overlap is 0.5 on any host); the native loop does the same arithmetic;
//   - the copy: 64 MiB from pinned host memory to the device (cudaMemcpyAsync; ce0), against
//     std::memcpy of 64 MiB;
//   - together: both submitted, then both streams synchronized; natively, the memcpy on a thread
//     of its own while this thread runs the loop.
// The figure to read is the overlap: time together / (time of the kernel alone + time of the copy
// alone). 1.0 means the engines took turns; max(kernel, copy) / sum is the best two engines can
// do. The native pair shows what the host's own cores allow. Run it again with
// MINICUDA_ENGINE_THREADS=0 to see the engines take turns, and with MINICUDA_SM_THREADS=1 to leave
// a core to the copy. Release build: build-release/bin/bench_streams.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_common.h"

namespace {

constexpr int kN = 1 << 22;              // floats the kernel reads and writes
constexpr size_t kCopyBytes = 64u << 20;  // bytes the copy moves

// out[i] = in[i] + in[i]^2 + ... + in[i]^8, Horner's way.
inline float powers(float x) {
  float s = 0;
  for (int k = 0; k < 8; ++k) s = (s + 1.0f) * x;
  return s;
}

// rounds sums of powers, of x moved each round within [0.25, 0.75].
inline float rounds_of_powers(float x, int rounds) {
  float sum = 0;
  for (int r = 0; r < rounds; ++r) {
    sum += powers(x);
    x = x * 0.5f + 0.25f;
  }
  return sum;
}

__global__ void sum_of_powers(const float* in, float* out, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = rounds_of_powers(in[i], rounds);
}

// Set by calibrate() before any benchmark runs: the rounds per element, and how many of the kN
// elements the kernel and the native loop process.
int g_rounds = 1;
int g_n = kN;

struct Buffers {
  float *in = nullptr, *out = nullptr;
  void *copy_dst = nullptr, *pinned = nullptr;
  cudaStream_t kernels = nullptr, copies = nullptr;
  std::vector<float> host_in, host_out;
  std::vector<char> native_src, native_dst;
  Buffers() : host_in(kN), host_out(kN), native_src(kCopyBytes, 3), native_dst(kCopyBytes) {
    for (int i = 0; i < kN; ++i) host_in[i] = static_cast<float>(i % 97) / 97.0f;
    cudaMalloc(&in, kN * sizeof(float));
    cudaMalloc(&out, kN * sizeof(float));
    cudaMalloc(&copy_dst, kCopyBytes);
    cudaMallocHost(&pinned, kCopyBytes);
    std::memset(pinned, 3, kCopyBytes);
    cudaMemcpy(in, host_in.data(), kN * sizeof(float), cudaMemcpyHostToDevice);
    cudaStreamCreateWithFlags(&kernels, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking);
  }
};

Buffers& buffers() {
  static Buffers b;
  return b;
}

void launch_kernel(Buffers& b) {
  minicuda::launch<sum_of_powers>(dim3((g_n + 255) / 256), dim3(256), 0, b.kernels, b.in, b.out, g_n, g_rounds);
}
void start_copy(Buffers& b) { cudaMemcpyAsync(b.copy_dst, b.pinned, kCopyBytes, cudaMemcpyHostToDevice, b.copies); }

void BM_KernelAlone(benchmark::State& state) {
  Buffers& b = buffers();
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    launch_kernel(b);
    cudaStreamSynchronize(b.kernels);
  }
}

void BM_CopyAlone(benchmark::State& state) {
  Buffers& b = buffers();
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    start_copy(b);
    cudaStreamSynchronize(b.copies);
  }
}

void BM_KernelBesideCopy(benchmark::State& state) {
  Buffers& b = buffers();
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    launch_kernel(b);
    start_copy(b);
    cudaStreamSynchronize(b.kernels);
    cudaStreamSynchronize(b.copies);
  }
}

void native_loop(Buffers& b) {
  for (int i = 0; i < g_n; ++i) b.host_out[i] = rounds_of_powers(b.host_in[i], g_rounds);
  benchmark::ClobberMemory();
}
void native_copy(Buffers& b) {
  std::memcpy(b.native_dst.data(), b.native_src.data(), kCopyBytes);
  benchmark::ClobberMemory();
}

void BM_NativeLoopAlone(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) native_loop(b);
}

void BM_NativeCopyAlone(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) native_copy(b);
}

void BM_NativeLoopBesideCopy(benchmark::State& state) {
  Buffers& b = buffers();
  for (auto _ : state) {
    std::thread copier([&] { native_copy(b); });
    native_loop(b);
    copier.join();
  }
}

BENCHMARK(BM_KernelAlone)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyAlone)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernelBesideCopy)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeLoopAlone)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeCopyAlone)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeLoopBesideCopy)->UseRealTime()->Unit(benchmark::kMillisecond);

// Median wall time of five runs of f, in seconds.
template <class F>
double median_seconds(F f) {
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[2];
}

// Chooses g_rounds and g_n so that the kernel alone takes about as long as the copy alone on
// this host: more rounds where one round is quicker than the copy, fewer elements where it is slower.
void calibrate(Buffers& b) {
  g_rounds = 1;
  g_n = kN;
  const double copy = median_seconds([&] {
    start_copy(b);
    cudaStreamSynchronize(b.copies);
  });
  const double kernel = median_seconds([&] {
    launch_kernel(b);
    cudaStreamSynchronize(b.kernels);
  });
  if (kernel < copy) {
    // The first round pays the memory traffic, the later ones only arithmetic: guess, measure
    // the guess, and scale the rounds once more.
    g_rounds = static_cast<int>(std::lround(copy / kernel));
    const double guess = median_seconds([&] {
      launch_kernel(b);
      cudaStreamSynchronize(b.kernels);
    });
    g_rounds = std::max(1, static_cast<int>(std::lround(g_rounds * copy / guess)));
  } else {
    g_n = std::max(256, static_cast<int>(kN * (copy / kernel)) / 256 * 256);
  }
  std::printf("bench_streams: copy alone %.2f ms, kernel of 1 round over 2^22 floats %.2f ms: the kernel runs %d "
              "round(s) over %d floats\n", copy * 1e3, kernel * 1e3, g_rounds, g_n);
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_streams")) return 1;
  Buffers& b = buffers();  // initialise the runtime and allocate outside the timing
  calibrate(b);
  launch_kernel(b);
  cudaDeviceSynchronize();
  cudaMemcpy(b.host_out.data(), b.out, kN * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < g_n; i += 4099) {
    if (b.host_out[i] != rounds_of_powers(b.host_in[i], g_rounds)) {
      std::fprintf(stderr, "bench_streams: sum_of_powers is wrong at %d\n", i);
      return 1;
    }
  }
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto overlap = [&](const char* what, const std::string& a, const std::string& c, const std::string& both) {
    const double ta = reporter.median(a), tc = reporter.median(c), tb = reporter.median(both);
    if (ta <= 0 || tc <= 0 || tb <= 0) return;
    std::printf("  %-30s: together %7.2f ms / (alone %.2f + %.2f ms) = %.2f (best possible %.2f)\n", what, tb / 1e6,
                ta / 1e6, tc / 1e6, tb / (ta + tc), std::max(ta, tc) / (ta + tc));
  };
  std::printf("\nSummary (overlap = time together / sum of the times alone; 1.0: one after the other)\n");
  overlap("minicuda kernel + H2D copy", "BM_KernelAlone/real_time", "BM_CopyAlone/real_time", "BM_KernelBesideCopy/real_time");
  overlap("native loop + memcpy thread", "BM_NativeLoopAlone", "BM_NativeCopyAlone", "BM_NativeLoopBesideCopy/real_time");
  return 0;
}
