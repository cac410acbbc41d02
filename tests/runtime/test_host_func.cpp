// Host functions and stream callbacks (driver/user/src/host_func.cpp) and stream priorities and
// flags, through the runtime, against what an H200 answered (docs/data/h200_streams_probe.txt):
// a host function sees the stream's earlier work and holds its later work; a stream behind one
// is not ready; priorities clamp into [-5, 0]; the error codes.
#include <atomic>
#include <cstring>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using HostFunctionTest = FreshProcess;

struct Shared {
  int* pinned = nullptr;  // [0]: copied back before the function, [1]: written by it
  int saw = -1;
  std::atomic<int> calls{0};
};

void CUDART_CB look_then_write(void* data) {
  auto* s = static_cast<Shared*>(data);
  s->saw = s->pinned[0];
  s->pinned[1] = 0x55667788;
  s->calls++;
}

TEST_F(HostFunctionTest, SeesEarlierWorkAndHoldsLaterWork) {
  Shared shared;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&shared.pinned, 2 * sizeof(int)), cudaSuccess);
  shared.pinned[0] = shared.pinned[1] = 0;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 0x2A, sizeof(int), s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(&shared.pinned[0], d, sizeof(int), cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(s, look_then_write, &shared), cudaSuccess);
  // Runs on the GPU only after the function wrote pinned[1]: it copies the new value.
  ASSERT_EQ(cudaMemcpyAsync(d, &shared.pinned[1], sizeof(int), cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(shared.saw, 0x2A2A2A2A);
  EXPECT_EQ(shared.calls.load(), 1);
  int back = 0;
  ASSERT_EQ(cudaMemcpy(&back, d, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, 0x55667788);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  cudaFreeHost(shared.pinned);
  cudaFree(d);
}

std::atomic<int> g_gate{0};
void CUDART_CB wait_for_gate(void*) {
  while (g_gate.load() == 0) {
  }
}

TEST_F(HostFunctionTest, AStreamBehindAHostFunctionIsNotReady) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  g_gate = 0;
  ASSERT_EQ(cudaLaunchHostFunc(s, wait_for_gate, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 1, 4096, s), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not recorded (H200: the same)
  g_gate = 1;
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  cudaFree(d);
}

struct CallbackSaw {
  cudaStream_t stream = nullptr;
  cudaError_t status = cudaErrorUnknown;
  void* data = nullptr;
};
CallbackSaw g_callback;
void CUDART_CB callback(cudaStream_t stream, cudaError_t status, void* data) {
  g_callback = CallbackSaw{stream, status, data};
}

TEST_F(HostFunctionTest, CallbackGetsItsStreamAndStatus) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int tag = 0;
  g_callback = CallbackSaw{};
  ASSERT_EQ(cudaStreamAddCallback(s, callback, &tag, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(g_callback.stream, s);
  EXPECT_EQ(g_callback.status, cudaSuccess);
  EXPECT_EQ(g_callback.data, &tag);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

void CUDART_CB count(void* data) { static_cast<std::atomic<int>*>(data)->fetch_add(1); }

TEST_F(HostFunctionTest, ManyFunctionsRunInOrderOnTheNullStream) {
  std::atomic<int> calls{0};
  for (int i = 0; i < 100; ++i) ASSERT_EQ(cudaLaunchHostFunc(nullptr, count, &calls), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(calls.load(), 100);
}

TEST_F(HostFunctionTest, ErrorsAsOnTheH200) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaLaunchHostFunc(s, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamAddCallback(s, nullptr, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamAddCallback(s, callback, nullptr, 1), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaLaunchHostFunc(s, count, nullptr), cudaErrorInvalidResourceHandle);  // destroyed
  cudaGetLastError();
}

TEST_F(HostFunctionTest, PrioritiesClampIntoTheH200sRange) {
  int least = 99, greatest = 99;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, -5);
  EXPECT_EQ(cudaDeviceGetStreamPriorityRange(nullptr, nullptr), cudaSuccess);
  cudaStream_t s = nullptr;
  int priority = 99;
  unsigned flags = 99;
  ASSERT_EQ(cudaStreamCreateWithPriority(&s, cudaStreamDefault, -100), cudaSuccess);
  ASSERT_EQ(cudaStreamGetPriority(s, &priority), cudaSuccess);
  EXPECT_EQ(priority, -5);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 100), cudaSuccess);
  ASSERT_EQ(cudaStreamGetPriority(s, &priority), cudaSuccess);
  EXPECT_EQ(priority, 0);
  ASSERT_EQ(cudaStreamGetFlags(s, &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamCreateWithPriority(&s, 0x10, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamCreateWithPriority(nullptr, 0, 0), cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamGetPriority(nullptr, &priority), cudaSuccess);
  EXPECT_EQ(priority, 0);
  ASSERT_EQ(cudaStreamGetFlags(nullptr, &flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  flags = 99;
  ASSERT_EQ(cudaStreamGetFlags(cudaStreamPerThread, &flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cudaStreamGetPriority(nullptr, nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
}

}  // namespace
}  // namespace minicuda::testing
