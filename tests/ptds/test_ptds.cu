// The per-thread default stream compile mode: this file is compiled with
// CUDA_API_PER_THREAD_DEFAULT_STREAM defined (what nvcc --default-stream per-thread does; see
// CMakeLists.txt), so the headers map the stream-ordered calls to their _ptds/_ptsz twins and
// stream 0 - the <<<>>> launch's too - is this thread's per-thread stream. A blocking stream held
// by a host function shows the difference: the legacy stream is ordered behind it, the
// per-thread stream is not.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

namespace {

using minicuda::testing::FreshProcess;
namespace trace = minicuda::trace;

constexpr int kN = 256;

__global__ void add_one(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

// A host function that holds its stream until *release is set.
void CUDART_CB hold_until(void* release) {
  while (!static_cast<std::atomic<bool>*>(release)->load()) std::this_thread::yield();
}

// Polls cudaStreamQuery(stream) for up to 10 s of real time: does the work finish by itself?
bool finishes(cudaStream_t stream) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cudaStreamQuery(stream) == cudaSuccess) return true;
    std::this_thread::yield();
  }
  return false;
}

// Does one of the recorded texts start with prefix?
bool saw(const std::vector<std::string>& texts, const std::string& prefix) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.rfind(prefix, 0) == 0; });
}

using PerThreadDefaultStream = FreshProcess;

// Stream 0 work (async copies, a <<<>>> launch, an event, a synchronous cudaMemcpy) runs on while
// a blocking stream is held; work on cudaStreamLegacy is ordered behind that stream and waits.
TEST_F(PerThreadDefaultStream, StreamZeroIsNotOrderedBehindABlockingStreamTheLegacyStreamIs) {
  int *d = nullptr, *pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, kN * sizeof(int)), cudaSuccess);
  for (int i = 0; i < kN; ++i) pinned[i] = i;
  cudaStream_t held;
  cudaEvent_t done;
  ASSERT_EQ(cudaStreamCreate(&held), cudaSuccess);  // blocking: the legacy stream's rule applies
  ASSERT_EQ(cudaEventCreate(&done), cudaSuccess);
  std::atomic<bool> release{false};
  ASSERT_EQ(cudaLaunchHostFunc(held, hold_until, &release), cudaSuccess);

  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpyAsync(d, pinned, kN * sizeof(int), cudaMemcpyHostToDevice, 0), cudaSuccess);
  add_one<<<1, kN>>>(d, kN);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(done), cudaSuccess);  // the C++ overload: stream 0
  ASSERT_TRUE(finishes(0)) << "stream 0 waited for the held blocking stream: it is the legacy stream";
  EXPECT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(done), cudaSuccess);
  // The synchronous calls' implicit stream is the per-thread stream too: they return.
  std::vector<int> back(kN, -1);
  ASSERT_EQ(cudaMemcpy(back.data(), d, kN * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(back[i], i + 1) << i;
  // cuda.h maps the driver's names too: cuMemcpyDtoH is cuMemcpyDtoH_v2_ptds here.
  ASSERT_EQ(cuMemcpyDtoH(back.data(), reinterpret_cast<CUdeviceptr>(d), sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cudaMemset(d, 0, kN * sizeof(int)), cudaSuccess);
  EXPECT_FALSE(release.load());  // all of it while the blocking stream was still held

  // cudaStreamLegacy is still the legacy stream: its work waits for the held stream.
  ASSERT_EQ(cudaMemsetAsync(d, 7, kN * sizeof(int), cudaStreamLegacy), cudaSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cudaStreamQuery(cudaStreamLegacy), cudaErrorNotReady);
  release = true;
  EXPECT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(held), cudaSuccess);

  // The trace names the twins at both layers, as CUPTI shows the real chain.
  const std::vector<std::string> runtime = recorder.texts(trace::Layer::Cudart);
  const std::vector<std::string> driver = recorder.texts(trace::Layer::Libcuda);
  for (const char* call : {"cudaMemcpyAsync_ptsz(", "cudaLaunchKernel_ptsz(", "cudaEventRecord_ptsz(",
                           "cudaStreamQuery_ptsz(", "cudaStreamSynchronize_ptsz(", "cudaMemcpy_ptds(",
                           "cudaMemset_ptds(", "cudaMemsetAsync_ptsz("}) {
    EXPECT_TRUE(saw(runtime, call)) << call;
  }
  for (const char* call : {"cuMemcpyHtoDAsync_v2_ptsz(", "cuLaunchKernel_ptsz(", "cuEventRecord_ptsz(",
                           "cuStreamQuery_ptsz(", "cuStreamSynchronize_ptsz(", "cuMemcpyDtoH_v2_ptds(",
                           "cuMemsetD8_v2_ptds(", "cuMemsetD8Async_ptsz("}) {
    EXPECT_TRUE(saw(driver, call)) << call;
  }
  EXPECT_FALSE(saw(runtime, "cudaMemcpyAsync(")) << "a plain entry point was called";
  EXPECT_FALSE(saw(driver, "cuLaunchKernel("));

  cudaEventDestroy(done);
  cudaStreamDestroy(held);
  cudaFreeHost(pinned);
  cudaFree(d);
}

// Each host thread has a stream 0 of its own: another thread's default-stream work does not wait
// for this thread's, held.
TEST_F(PerThreadDefaultStream, EachThreadsStreamZeroIsItsOwn) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 2 * kN * sizeof(int)), cudaSuccess);
  std::atomic<bool> release{false};
  ASSERT_EQ(cudaLaunchHostFunc(0, hold_until, &release), cudaSuccess);  // this thread's stream 0, held
  bool other_finished = false;
  std::thread other([&] {
    minicuda::kernel::ProcessScope in_process(*process_);
    if (cudaMemsetAsync(d + kN, 1, kN * sizeof(int), 0) != cudaSuccess) return;
    add_one<<<1, kN>>>(d + kN, kN);
    other_finished = finishes(0) && cudaStreamSynchronize(0) == cudaSuccess;
  });
  other.join();
  EXPECT_TRUE(other_finished);
  EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady);  // this thread's is still held
  release = true;
  EXPECT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  std::vector<int> back(kN);
  ASSERT_EQ(cudaMemcpy(back.data(), d + kN, kN * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[0], 0x01010101 + 1);
  cudaFree(d);
}

}  // namespace
