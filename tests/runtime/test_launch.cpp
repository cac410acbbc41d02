// Kernel launches through the runtime (runtime/src/launch.cpp) with kernels written in plain C++
// (the typed launch API and cudaLaunchKernel): results, the launch-configuration errors of CUDA 13
// (probe.txt launch.*), the device errors and their stickiness (probe_sticky.txt).
#include <numeric>
#include <vector>

#include "alignment_checks.h"
#include "runtime_fixtures.h"

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}
__global__ void noop() {}
__global__ void write_null(int* p) { p[threadIdx.x] = 1; }
__global__ void misaligned_store(char* base) { *reinterpret_cast<int*>(base + 1) = 7; }
__global__ void trap_kernel() { __trap(); }
__global__ void assert_kernel(int v) { assert(v == 1); }
__global__ void malloc_in_kernel(int* result) {
  void* p = nullptr;
  *result = cudaMalloc(&p, 16);
}
__global__ void block_sum(const int* in, int* out) {
  __shared__ int partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

namespace minicuda::testing {
namespace {

using RuntimeLaunchTest = FreshProcess;

TEST_F(RuntimeLaunchTest, TypedLaunchRunsEveryThreadOnce) {
  constexpr int n = 100000;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(int)), cudaSuccess);
  std::vector<int> h(n);
  std::iota(h.begin(), h.end(), 0);
  ASSERT_EQ(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(minicuda::launch<add_one>(dim3((n + 255) / 256), dim3(256), 0, nullptr, d, n), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> out(n);
  ASSERT_EQ(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], i + 1) << i;
  cudaFree(d);
}

TEST_F(RuntimeLaunchTest, BarriersInSharedMemoryReduction) {
  constexpr int blocks = 64, threads = 256;
  int *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&in, blocks * threads * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, blocks * sizeof(int)), cudaSuccess);
  std::vector<int> h(blocks * threads);
  std::iota(h.begin(), h.end(), 1);
  ASSERT_EQ(cudaMemcpy(in, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(minicuda::launch<block_sum>(dim3(blocks), dim3(threads), 0, nullptr, in, out), cudaSuccess);
  std::vector<int> sums(blocks);
  ASSERT_EQ(cudaMemcpy(sums.data(), out, blocks * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int b = 0; b < blocks; ++b) {
    long want = 0;
    for (int t = 0; t < threads; ++t) want += h[b * threads + t];
    EXPECT_EQ(sums[b], want) << b;
  }
}

TEST_F(RuntimeLaunchTest, ConfigurationErrorsAreInvalidValueInTheLastErrorSlot) {
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(2048), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(minicuda::launch<noop>(dim3(0), dim3(1), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1, 65536), dim3(1), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1, 1, 65), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), 1 << 20, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), 48 << 10, nullptr), cudaSuccess);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), (48 << 10) + 1, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 << 10), cudaSuccess);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), 100 << 10, nullptr), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 232449), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), 0, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  // A host function no kernel was registered for, and NULL, as CUDA 13 answers them
  // (probe_bad_input.txt: rt.launchKernel.host_function, rt.launchKernel.null_func).
  EXPECT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&cudaMalloc<int>), dim3(1), dim3(1), nullptr, 0, nullptr),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaLaunchKernel(static_cast<const void*>(nullptr), dim3(1), dim3(1), nullptr, 0, nullptr),
            cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  // A successful cudaFuncSetAttribute clears the last-error slot (CUDA 13; a launch does not).
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(2048), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(noop, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(2048), 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(minicuda::launch<noop>(dim3(1), dim3(1), 0, nullptr), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST_F(RuntimeLaunchTest, IllegalAddressIsStickyUntilReset) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4), cudaSuccess);
  EXPECT_EQ(minicuda::launch<write_null>(dim3(1), dim3(1), 0, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int* e = nullptr;
  EXPECT_EQ(cudaMalloc(&e, 4), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaMemcpy(d, d, 4, cudaMemcpyDeviceToDevice), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&e, 4), cudaSuccess);
}

TEST_F(RuntimeLaunchTest, DeviceErrorsHaveTheirOwnCodes) {
  char* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  if (kAlignmentChecks) {
    EXPECT_EQ(minicuda::launch<misaligned_store>(dim3(1), dim3(1), 0, nullptr, d), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  }
  EXPECT_EQ(minicuda::launch<trap_kernel>(dim3(1), dim3(1), 0, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(minicuda::launch<assert_kernel>(dim3(2), dim3(3), 0, nullptr, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorAssert);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("block: [0,0,0], thread: [0,0,0] Assertion `v == 1` failed."), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// Kernel code cannot call the host API (nvcc would refuse it); here it gets an error instead of
// deadlocking on the GPU's locks.
TEST_F(RuntimeLaunchTest, RuntimeCallsFromKernelCodeAreRefused) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int)), cudaSuccess);
  ASSERT_EQ(minicuda::launch<malloc_in_kernel>(dim3(1), dim3(1), 0, nullptr, d), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(*d, static_cast<int>(cudaErrorNotSupported));
  cudaFree(d);
}

}  // namespace
}  // namespace minicuda::testing
