// The GPU's engines on host threads of their own (device_sim/src/engine_thread.h): a kernel of
// one stream really runs while a copy of another stream moves its bytes, and the simulated
// times do not depend on it.
//
//   - a kernel spins until a flag in device memory turns 1; the flag is written by an
//     asynchronous copy on another stream, issued only once the kernel is seen running. With
//     one engine at a time the copy would wait behind the kernel, which would give up after
//     its time limit with the flag still 0;
//   - the same for a memset (ce2) and a device-to-host copy (ce1) of the flag's neighbour;
//   - a stream's own work stays in order behind its engine work (copy, kernels, copy back);
//   - four streams' work takes the same simulated time every time in one process.
// That the simulated times are the same with the threads off (MINICUDA_ENGINE_THREADS=0) is
// checked on the stream_overlap sample (tests/samples).
// The first two share a word between a running kernel, the host and a copy engine, with volatile
// accesses, as CUDA code does to signal across engines: a data race by design, which
// ThreadSanitizer rightly reports. So they are a suite of their own (EnginesBesideAKernel) that
// the tsan preset's filter leaves out; ConcurrencyEngines runs under ThreadSanitizer.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

namespace {

using minicuda::testing::FreshProcess;

// Sets *started (host memory the kernel can reach: pinned), then spins until *flag != 0 or about
// `seconds` of SM clock have passed; *saw = the flag's value then.
__global__ void wait_for_flag(volatile int* flag, volatile int* started, int* saw, int seconds) {
  *started = 1;
  const long long limit = clock64() + static_cast<long long>(seconds) * 1980000000LL;  // 1.98 GHz
  while (*flag == 0 && clock64() < limit) {
  }
  *saw = *flag;
}

__global__ void add_one(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

// Waits (really) until the kernel has set *started; false after 20 s.
bool wait_started(volatile int* started) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (*started == 0) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

using ConcurrencyEngines = FreshProcess;
using EnginesBesideAKernel = FreshProcess;

// The copy engine (ce0, host to device) runs while the compute engine runs a kernel.
TEST_F(EnginesBesideAKernel, KernelSeesAHostToDeviceCopyOfAnotherStream) {
  int *flag = nullptr, *saw = nullptr, *host = nullptr;
  ASSERT_EQ(cudaMalloc(&flag, 2 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&saw, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(&host, 4 * sizeof(int), cudaHostAllocDefault), cudaSuccess);
  host[0] = 0;  // started
  host[1] = 1;  // the flag's new value
  ASSERT_EQ(cudaMemset(flag, 0, 2 * sizeof(int)), cudaSuccess);
  cudaStream_t kernels, copies;
  ASSERT_EQ(cudaStreamCreateWithFlags(&kernels, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking), cudaSuccess);

  wait_for_flag<<<1, 1, 0, kernels>>>(flag, host, saw, 10);
  ASSERT_TRUE(wait_started(host)) << "the kernel never started";
  ASSERT_EQ(cudaMemcpyAsync(flag, host + 1, sizeof(int), cudaMemcpyHostToDevice, copies), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(copies), cudaSuccess);  // done while the kernel still runs
  ASSERT_EQ(cudaStreamSynchronize(kernels), cudaSuccess);
  int seen = -1;
  ASSERT_EQ(cudaMemcpy(&seen, saw, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(seen, 1) << "the copy waited for the kernel: the engines did not run at the same time";

  EXPECT_EQ(cudaStreamDestroy(kernels), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(copies), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
  EXPECT_EQ(cudaFree(saw), cudaSuccess);
  EXPECT_EQ(cudaFree(flag), cudaSuccess);
}

// A memset (ce2) and a device-to-host copy (ce1) of another stream finish while the kernel
// runs; the memset is what sets the flag.
TEST_F(EnginesBesideAKernel, MemsetAndDeviceToHostCopyRunBesideAKernel) {
  int *flag = nullptr, *saw = nullptr, *host = nullptr;
  ASSERT_EQ(cudaMalloc(&flag, 64 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&saw, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(&host, 64 * sizeof(int), cudaHostAllocDefault), cudaSuccess);
  std::vector<int> pattern(64);
  for (int i = 0; i < 64; ++i) pattern[i] = 100 + i;
  pattern[0] = 0;  // the flag starts at 0
  ASSERT_EQ(cudaMemcpy(flag, pattern.data(), 64 * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  host[0] = 0;
  cudaStream_t kernels, copies;
  ASSERT_EQ(cudaStreamCreateWithFlags(&kernels, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking), cudaSuccess);

  wait_for_flag<<<1, 1, 0, kernels>>>(flag, host, saw, 10);
  ASSERT_TRUE(wait_started(host)) << "the kernel never started";
  // The neighbours of the flag come back to the host (ce1), then a memset sets the flag (ce2).
  ASSERT_EQ(cudaMemcpyAsync(host + 1, flag + 1, 63 * sizeof(int), cudaMemcpyDeviceToHost, copies), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(flag, 0x01, 1, copies), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(copies), cudaSuccess);
  for (int i = 1; i < 64; ++i) ASSERT_EQ(host[i], 100 + i) << i;
  ASSERT_EQ(cudaStreamSynchronize(kernels), cudaSuccess);
  int seen = -1;
  ASSERT_EQ(cudaMemcpy(&seen, saw, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(seen, 1) << "the memset waited for the kernel";

  EXPECT_EQ(cudaStreamDestroy(kernels), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(copies), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
  EXPECT_EQ(cudaFree(saw), cudaSuccess);
  EXPECT_EQ(cudaFree(flag), cudaSuccess);
}

// One stream's work stays in order while its engine work is on other threads: 50 rounds of
// copy in, two kernels, copy out, on two streams at once.
TEST_F(ConcurrencyEngines, EachStreamStaysInOrder) {
  constexpr int kN = 8192, kRounds = 50;
  int* pinned = nullptr;
  ASSERT_EQ(cudaHostAlloc(&pinned, 2 * 2 * kN * sizeof(int), cudaHostAllocDefault), cudaSuccess);
  int* d[2] = {};
  cudaStream_t s[2];
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(cudaMalloc(&d[k], kN * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s[k]), cudaSuccess);
  }
  for (int round = 0; round < kRounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      int* in = pinned + k * 2 * kN;
      int* out = in + kN;
      for (int i = 0; i < kN; ++i) in[i] = round * 7 + k + i;
      ASSERT_EQ(cudaMemcpyAsync(d[k], in, kN * sizeof(int), cudaMemcpyHostToDevice, s[k]), cudaSuccess);
      add_one<<<kN / 256, 256, 0, s[k]>>>(d[k], kN);
      add_one<<<kN / 256, 256, 0, s[k]>>>(d[k], kN);
      ASSERT_EQ(cudaMemcpyAsync(out, d[k], kN * sizeof(int), cudaMemcpyDeviceToHost, s[k]), cudaSuccess);
    }
    for (int k = 0; k < 2; ++k) {
      ASSERT_EQ(cudaStreamSynchronize(s[k]), cudaSuccess);
      const int* out = pinned + k * 2 * kN + kN;
      for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], round * 7 + k + i + 2) << "stream " << k << " round " << round;
    }
  }
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(cudaStreamDestroy(s[k]), cudaSuccess);
    EXPECT_EQ(cudaFree(d[k]), cudaSuccess);
  }
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

// Four streams of copy in, kernel, copy out, timed by events: the simulated time is the same
// every time in one process, although the streams get new or reused channels (other chids) and
// the engines' threads take the work in whatever order they get it.
float four_streams_ms() {
  constexpr int kN = 1 << 18;
  int* pinned = nullptr;
  int* d = nullptr;
  cudaStream_t s[4];
  cudaEvent_t start, stop, done[4];
  if (cudaHostAlloc(&pinned, 4 * kN * sizeof(int), cudaHostAllocDefault) != cudaSuccess) return -1;
  if (cudaMalloc(&d, 4 * kN * sizeof(int)) != cudaSuccess) return -1;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int k = 0; k < 4; ++k) {
    cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking);
    cudaEventCreate(&done[k]);
  }
  cudaDeviceSynchronize();
  cudaEventRecord(start, 0);
  for (int k = 0; k < 4; ++k) cudaStreamWaitEvent(s[k], start, 0);
  for (int k = 0; k < 4; ++k) {
    cudaMemcpyAsync(d + k * kN, pinned + k * kN, kN * sizeof(int), cudaMemcpyHostToDevice, s[k]);
    add_one<<<kN / 256, 256, 0, s[k]>>>(d + k * kN, kN);
    cudaMemcpyAsync(pinned + k * kN, d + k * kN, kN * sizeof(int), cudaMemcpyDeviceToHost, s[k]);
    cudaEventRecord(done[k], s[k]);
  }
  for (int k = 0; k < 4; ++k) cudaStreamWaitEvent(0, done[k], 0);
  cudaEventRecord(stop, 0);
  float ms = -1;
  if (cudaEventSynchronize(stop) != cudaSuccess || cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) ms = -1;
  for (int k = 0; k < 4; ++k) {
    cudaEventDestroy(done[k]);
    cudaStreamDestroy(s[k]);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d);
  cudaFreeHost(pinned);
  return ms;
}

// The four streams' work becomes ready for the copy engines at the same simulated time; the
// host interface hands it over in the order the host submitted it, however late each submission
// reaches the GPU in real time (docs/timing.md, "Processing order"), so every repetition takes
// the same time.
TEST_F(ConcurrencyEngines, TheSameWorkTakesTheSameSimulatedTimeEveryTime) {
  float ms[12];
  for (float& m : ms) m = four_streams_ms();
  ASSERT_GT(ms[0], 0.0f);
  for (float m : ms) EXPECT_EQ(m, ms[0]);
}

}  // namespace
