// Streams, events and asynchronous copies through the runtime (runtime/src/stream.cpp): the
// article's stream example without its kernel (two streams, an async copy back, synchronize
// both, destroy), events timing a copy, and the error codes with their last-error effects.
#include <cstring>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using RuntimeStreamTest = FreshProcess;

TEST_F(RuntimeStreamTest, TwoStreamsAndAnAsyncCopyBack) {
  constexpr int n = 65536;
  int* d_c = nullptr;
  ASSERT_EQ(cudaMalloc(&d_c, n * sizeof(int)), cudaSuccess);
  std::vector<int> h_c(n, 0);
  std::vector<int> init(n);
  for (int i = 0; i < n; ++i) init[i] = 3 * i;
  ASSERT_EQ(cudaMemcpy(d_c, init.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);

  cudaStream_t stream1, stream2;
  ASSERT_EQ(cudaStreamCreate(&stream1), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&stream2), cudaSuccess);
  EXPECT_NE(stream1, stream2);
  ASSERT_EQ(cudaMemcpyAsync(h_c.data(), d_c, n * sizeof(int), cudaMemcpyDeviceToHost, stream2), cudaSuccess);
  cudaEvent_t copied;
  ASSERT_EQ(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(copied, stream2), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(stream1, copied), cudaSuccess);  // the C++ overload: flags 0
  ASSERT_EQ(cudaEventDestroy(copied), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream2), cudaSuccess);
  EXPECT_EQ(h_c, init);
  ASSERT_EQ(cudaStreamDestroy(stream1), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream2), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaFree(d_c);
}

TEST_F(RuntimeStreamTest, EventsTimeACopyOnTheGpuClock) {
  constexpr size_t bytes = 32 << 20;
  void *a = nullptr, *b = nullptr, *pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&a, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, bytes), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, bytes), cudaSuccess);
  std::memset(pinned, 0x42, bytes);
  cudaStream_t s;
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(a, pinned, bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(b, 0x17, bytes, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, a, 64, cudaMemcpyDefault, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(stop), cudaSuccess);
  float ms = 0;
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(static_cast<unsigned char*>(b)[bytes - 1], 0x17);
  EXPECT_EQ(static_cast<unsigned char*>(pinned)[63], 0x42);
  ASSERT_EQ(cudaEventDestroy(start) | cudaEventDestroy(stop) | cudaStreamDestroy(s), cudaSuccess);
  cudaFreeHost(pinned);
  cudaFree(a);
  cudaFree(b);
}

TEST_F(RuntimeStreamTest, ErrorsAndTheLastErrorSlot) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, 0x40), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(d, d, 16, static_cast<cudaMemcpyKind>(7), 0), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemsetAsync(static_cast<char*>(d) + 200, 0, 100, 0), cudaErrorInvalidValue);  // past the end
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e), cudaSuccess);
  float ms;
  EXPECT_EQ(cudaEventElapsedTime(&ms, e, e), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming), cudaErrorNotSupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  cudaFree(d);
}

}  // namespace
}  // namespace minicuda::testing
