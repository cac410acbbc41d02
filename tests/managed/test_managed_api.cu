// The managed-memory API's edges: cudaMallocManaged's inputs, the pointer attributes and device
// attributes, cudaMemAdvise's and cudaMemPrefetchAsync's errors, cudaStreamAttachMemAsync, and
// the driver twins (cuMemAllocManaged, cuMemAdvise_v2, cuMemPrefetchAsync_v2).
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "runtime_fixtures.h"

namespace {

using minicuda::testing::FreshProcess;
using ManagedApi = FreshProcess;

TEST_F(ManagedApi, MallocManagedInputs) {
  void* p = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(cudaMallocManaged(&p, 0), cudaErrorInvalidValue);  // documented: size 0 is refused
  EXPECT_EQ(p, reinterpret_cast<void*>(0x1234));
  EXPECT_EQ(cudaMallocManaged(&p, 64, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(&p, 64, cudaMemAttachSingle), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(&p, 64, cudaMemAttachGlobal | cudaMemAttachHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(nullptr, 64), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMallocManaged(&p, 64, cudaMemAttachHost), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  EXPECT_EQ(static_cast<int*>(p)[3], 0);  // first touch on the host: a zero page
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(ManagedApi, PointerAttributesSayManaged) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, 100000), cudaSuccess);
  cudaPointerAttributes a{};
  ASSERT_EQ(cudaPointerGetAttributes(&a, p + 10), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  EXPECT_EQ(a.device, 0);
  EXPECT_EQ(a.devicePointer, static_cast<void*>(p + 10));
  EXPECT_EQ(a.hostPointer, static_cast<void*>(p + 10));
  int managed = 0;
  ASSERT_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, reinterpret_cast<CUdeviceptr>(p)),
            CUDA_SUCCESS);
  EXPECT_EQ(managed, 1);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  ASSERT_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, reinterpret_cast<CUdeviceptr>(d)),
            CUDA_SUCCESS);
  EXPECT_EQ(managed, 0);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

// As the H200 reports (probe_extra.txt: prop.managedMemory = 1, prop.concurrentManagedAccess = 1).
TEST_F(ManagedApi, DeviceAttributesAsOnTheH200) {
  int v = -1;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrManagedMemory, 0), cudaSuccess);
  EXPECT_EQ(v, 1);
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0), cudaSuccess);
  EXPECT_EQ(v, 1);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  EXPECT_EQ(prop.pageableMemoryAccess, 0);  // so programs allocate managed memory
}

TEST_F(ManagedApi, AdviseErrorsAndEveryAdvice) {
  char* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, 1 << 20), cudaSuccess);
  const cudaMemLocation gpu{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
  const cudaMemLocation no_gpu{cudaMemLocationTypeDevice, 7}, bad_type{static_cast<cudaMemLocationType>(9), 0};
  EXPECT_EQ(cudaMemAdvise(p, 4096, cudaMemAdviseSetReadMostly, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p, 4096, cudaMemAdviseUnsetReadMostly, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p, 1 << 20, cudaMemAdviseSetPreferredLocation, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p, 1 << 20, cudaMemAdviseSetPreferredLocation, host), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p, 1 << 20, cudaMemAdviseUnsetPreferredLocation, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p + 4096, 8192, cudaMemAdviseSetAccessedBy, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p + 4096, 8192, cudaMemAdviseUnsetAccessedBy, gpu), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(p, 4096, cudaMemAdviseSetAccessedBy, no_gpu), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemAdvise(p, 4096, cudaMemAdviseSetPreferredLocation, no_gpu), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemAdvise(p, 4096, cudaMemAdviseSetAccessedBy, bad_type), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemAdvise(p, 4096, static_cast<cudaMemoryAdvise>(0), gpu), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemAdvise(p, 4096, static_cast<cudaMemoryAdvise>(7), gpu), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemAdvise(p, 0, cudaMemAdviseSetReadMostly, gpu), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemAdvise(p, (1 << 20) + 1, cudaMemAdviseSetReadMostly, gpu), cudaErrorInvalidValue);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  EXPECT_EQ(cudaMemAdvise(d, 4096, cudaMemAdviseSetReadMostly, gpu), cudaErrorInvalidValue);
  EXPECT_EQ(cuMemAdvise(reinterpret_cast<CUdeviceptr>(p), 4096, CU_MEM_ADVISE_SET_ACCESSED_BY,
                        CUmemLocation{CU_MEM_LOCATION_TYPE_DEVICE, 3}),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(ManagedApi, PrefetchErrors) {
  char* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, 1 << 16), cudaSuccess);
  const cudaMemLocation gpu{cudaMemLocationTypeDevice, 0};
  EXPECT_EQ(cudaMemPrefetchAsync(p, 0, gpu, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPrefetchAsync(p, 4096, gpu, 1, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPrefetchAsync(p, (1 << 16) + 1, gpu, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPrefetchAsync(p, 4096, cudaMemLocation{cudaMemLocationTypeDevice, 5}, 0, 0), cudaErrorInvalidDevice);
  int host_var = 0;
  EXPECT_EQ(cudaMemPrefetchAsync(&host_var, 4, gpu, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cuMemPrefetchAsync(reinterpret_cast<CUdeviceptr>(p), 4096, CUmemLocation{CU_MEM_LOCATION_TYPE_HOST, 0}, 0,
                               nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(ManagedApi, StreamAttach) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, 4096 * 3), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaStreamAttachMemAsync(s, p), cudaSuccess);  // length 0, cudaMemAttachSingle
  EXPECT_EQ(cudaStreamAttachMemAsync(s, p, 4096 * 3, cudaMemAttachHost), cudaSuccess);
  EXPECT_EQ(cudaStreamAttachMemAsync(s, p, 0, cudaMemAttachGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamAttachMemAsync(nullptr, p, 0, cudaMemAttachSingle), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamAttachMemAsync(s, p, 4096, cudaMemAttachSingle), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamAttachMemAsync(s, p, 0, 8), cudaErrorInvalidValue);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  EXPECT_EQ(cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachSingle), cudaErrorInvalidValue);
  EXPECT_EQ(cuStreamAttachMemAsync(s, reinterpret_cast<CUdeviceptr>(p), 0, CU_MEM_ATTACH_SINGLE), CUDA_SUCCESS);
  p[2] = 5;  // the host may touch it whatever the association (concurrent managed access)
  EXPECT_EQ(p[2], 5);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(ManagedApi, DriverAllocManaged) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAllocManaged(&p, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocManaged(&p, 16, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocManaged(nullptr, 16, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAllocManaged(&p, 16, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  reinterpret_cast<int*>(p)[1] = 42;
  EXPECT_EQ(reinterpret_cast<int*>(p)[1], 42);
  unsigned type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p), CUDA_SUCCESS);
  EXPECT_EQ(type, static_cast<unsigned>(CU_MEMORYTYPE_DEVICE));
  EXPECT_EQ(cuMemFree(p), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
}

}  // namespace
