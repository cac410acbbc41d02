// A program may include cuda_runtime_api.h on its own, before anything else (cuda-samples'
// cudaCompressibleMemory does): it must compile and bring the whole runtime API, including the
// C++ overloads of the real cuda_runtime.h that take typed pointers and flags.
#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

namespace {

TEST(RuntimeApiAlone, IncludedFirstItBringsTheRuntimeAndItsGuards) {
#if !defined(__CUDA_RUNTIME_API_H__) || !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__)
  FAIL() << "the toolkit's include guards are not all defined";
#endif
  EXPECT_EQ(CUDART_VERSION, 13000);
}

TEST(RuntimeApiAlone, TypedHostGetDevicePointerGivesTheMappedAddress) {
  float* host = nullptr;
  ASSERT_EQ(cudaHostAlloc(&host, 4096, cudaHostAllocMapped), cudaSuccess);
  float* device = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&device, host, 0), cudaSuccess);  // float**, no cast
  EXPECT_EQ(device, host);                                             // UVA: one address
  EXPECT_EQ(cudaFreeHost(host), cudaSuccess);
}

TEST(RuntimeApiAlone, EventCreateWithFlagsOverloadMakesAnEventWithoutTiming) {
  cudaEvent_t event = nullptr;
  ASSERT_EQ(cudaEventCreate(&event, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(event, 0), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(event), cudaSuccess);
  float ms = 0;
  EXPECT_EQ(cudaEventElapsedTime(&ms, event, event), cudaErrorInvalidResourceHandle);  // no timestamp
  EXPECT_EQ(cudaEventDestroy(event), cudaSuccess);
}

}  // namespace
