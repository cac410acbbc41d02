// Virtual memory management as a program uses it (driver/user/src/vmm.h): an allocation with no
// address, a reservation, a mapping with access rights, kernels and copies through it; the
// references that keep the memory alive; sharing through a file descriptor in one process.
#include <algorithm>
#include <string>
#include <vector>

#include "minicuda/kernel.h"
#include "minicuda/syscall.h"
#include "minicuda/trace.h"
#include "vmm_test.h"

namespace minicuda::vmm_test {
namespace {

__global__ void write_at(int* p, int value) { *p = value; }
__global__ void read_at(const int* p, int* out) { *out = *p; }
__global__ void add_one(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

// Reads one int at p with a kernel; the launch's synchronize result in *status.
int device_read(CUdeviceptr p, cudaError_t* status) {
  int* out = nullptr;
  EXPECT_EQ(cudaMallocHost(&out, sizeof(int)), cudaSuccess);
  *out = -1;
  read_at<<<1, 1>>>(reinterpret_cast<const int*>(p), out);
  *status = cudaDeviceSynchronize();
  int v = *out;
  cudaFreeHost(out);
  return v;
}

// Reserve, create, map, allow read-write: the common sequence of the samples.
CUdeviceptr map_new(const Vmm& t, CUmemGenericAllocationHandle* h, size_t size) {
  CUdeviceptr va = 0;
  CUmemAllocationProp p = t.prop();
  EXPECT_EQ(cuMemAddressReserve(&va, size, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemCreate(h, size, &p, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemMap(va, size, 0, *h, 0), CUDA_SUCCESS);
  CUmemAccessDesc d = t.access();
  EXPECT_EQ(cuMemSetAccess(va, size, &d, 1), CUDA_SUCCESS);
  return va;
}

TEST_F(Vmm, GranularityIsTwoMiB) {
  CUmemAllocationProp p = prop();
  size_t g = 0;
  EXPECT_EQ(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  EXPECT_EQ(g, kTwoMiB);
  g = 0;
  EXPECT_EQ(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
  EXPECT_EQ(g, kTwoMiB);
}

TEST_F(Vmm, KernelsAndCopiesUseTheMapping) {
  CUmemGenericAllocationHandle h = 0;
  const int n = 4 << 20 >> 2;
  CUdeviceptr va = map_new(*this, &h, 4 << 20);
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i) host[i] = i;
  ASSERT_EQ(cudaMemcpy(reinterpret_cast<void*>(va), host.data(), host.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  add_one<<<n / 256, 256>>>(reinterpret_cast<int*>(va), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> back(n);
  ASSERT_EQ(cudaMemcpy(back.data(), reinterpret_cast<void*>(va), back.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[0], 1);
  EXPECT_EQ(back[n - 1], n);
  EXPECT_EQ(cuMemsetD32(va, 7, n), CUDA_SUCCESS);
  cudaError_t e;
  EXPECT_EQ(device_read(va + 4, &e), 7);
  EXPECT_EQ(e, cudaSuccess);
  EXPECT_EQ(cuMemUnmap(va, 4 << 20), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 4 << 20), CUDA_SUCCESS);
}

// Two allocations mapped side by side read as one buffer, to kernels and to copies.
TEST_F(Vmm, AdjacentMappingsOfTwoAllocationsAreOneRange) {
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, 2 * kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle a = 0, b = 0;
  ASSERT_EQ(cuMemCreate(&a, kTwoMiB, &p, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemCreate(&b, kTwoMiB, &p, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va + kTwoMiB, kTwoMiB, 0, b, 0), CUDA_SUCCESS);
  CUmemAccessDesc d = access();
  ASSERT_EQ(cuMemSetAccess(va, 2 * kTwoMiB, &d, 1), CUDA_SUCCESS);
  std::vector<int> host(2 * kTwoMiB / 4, 3);
  ASSERT_EQ(cuMemcpyHtoD_v2(va, host.data(), 2 * kTwoMiB), CUDA_SUCCESS);
  cudaError_t e;
  EXPECT_EQ(device_read(va + kTwoMiB - 4, &e), 3);
  EXPECT_EQ(device_read(va + kTwoMiB, &e), 3);
  EXPECT_EQ(e, cudaSuccess);
  EXPECT_EQ(cuMemUnmap(va, 2 * kTwoMiB), CUDA_SUCCESS);  // both at once
  EXPECT_EQ(cuMemRelease(a), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(b), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 2 * kTwoMiB), CUDA_SUCCESS);
}

// cudaCompressibleMemory releases the handle right after mapping: the mapping keeps the memory.
TEST_F(Vmm, AMappingKeepsAReleasedAllocationAlive) {
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = map_new(*this, &h, kTwoMiB);
  write_at<<<1, 1>>>(reinterpret_cast<int*>(va), 99);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  cudaError_t e;
  EXPECT_EQ(device_read(va, &e), 99);
  EXPECT_EQ(e, cudaSuccess);
  CUmemAllocationProp got;
  EXPECT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, h), CUDA_ERROR_INVALID_VALUE);  // the handle is gone
  trace::Recorder rec;
  EXPECT_EQ(cuMemUnmap(va, kTwoMiB), CUDA_SUCCESS);
  const std::string tree = rec.tree();
  EXPECT_NE(tree.find("UVM_FREE("), std::string::npos) << tree;
  EXPECT_NE(tree.find("NV_ESC_RM_FREE"), std::string::npos) << "the last reference frees the memory\n" << tree;
  EXPECT_EQ(cuMemAddressFree(va, kTwoMiB), CUDA_SUCCESS);
}

TEST_F(Vmm, RetainGivesTheMappedAllocationWithOneMoreReference) {
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = map_new(*this, &h, 2 * kTwoMiB);
  CUmemGenericAllocationHandle r = 0;
  ASSERT_EQ(cuMemRetainAllocationHandle(&r, reinterpret_cast<void*>(va + kTwoMiB + 100)), CUDA_SUCCESS);
  EXPECT_EQ(r, h);
  EXPECT_EQ(cuMemRelease(r), CUDA_SUCCESS);
  CUmemAllocationProp got;
  EXPECT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, h), CUDA_SUCCESS);  // h still holds its own
  EXPECT_EQ(got.location.id, dev_);
  EXPECT_EQ(got.type, CU_MEM_ALLOCATION_TYPE_PINNED);
  EXPECT_EQ(cuMemUnmap(va, 2 * kTwoMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 2 * kTwoMiB), CUDA_SUCCESS);
}

TEST_F(Vmm, GetAccessFollowsSetAccess) {
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, h, 0), CUDA_SUCCESS);
  CUmemLocation l = here();
  unsigned long long flags = 99;
  EXPECT_EQ(cuMemGetAccess(&flags, &l, va), CUDA_SUCCESS);
  EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
  CUmemAccessDesc d = access(CU_MEM_ACCESS_FLAGS_PROT_READ);
  ASSERT_EQ(cuMemSetAccess(va, kTwoMiB, &d, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAccess(&flags, &l, va + 12345), CUDA_SUCCESS);
  EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_READ);
  d = access(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  ASSERT_EQ(cuMemSetAccess(va, kTwoMiB, &d, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAccess(&flags, &l, va), CUDA_SUCCESS);
  EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  EXPECT_EQ(cuMemUnmap(va, kTwoMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, kTwoMiB), CUDA_SUCCESS);
}

// A mapping no device may access yet faults like unmapped memory.
TEST_F(Vmm, AnAccessBeforeSetAccessFaults) {
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, h, 0), CUDA_SUCCESS);
  cudaError_t e;
  device_read(va, &e);
  EXPECT_EQ(e, cudaErrorIllegalAddress);
}

// Read-only access: reads work, a write faults.
TEST_F(Vmm, AWriteToAReadOnlyMappingFaults) {
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = map_new(*this, &h, kTwoMiB);
  ASSERT_EQ(cuMemsetD32(va, 5, 1), CUDA_SUCCESS);
  CUmemAccessDesc d = access(CU_MEM_ACCESS_FLAGS_PROT_READ);
  ASSERT_EQ(cuMemSetAccess(va, kTwoMiB, &d, 1), CUDA_SUCCESS);
  cudaError_t e;
  EXPECT_EQ(device_read(va, &e), 5);
  EXPECT_EQ(e, cudaSuccess);
  write_at<<<1, 1>>>(reinterpret_cast<int*>(va), 6);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

TEST_F(Vmm, AnAccessAfterUnmapFaults) {
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = map_new(*this, &h, kTwoMiB);
  ASSERT_EQ(cuMemUnmap(va, kTwoMiB), CUDA_SUCCESS);
  cudaError_t e;
  device_read(va, &e);
  EXPECT_EQ(e, cudaErrorIllegalAddress);
}

// Export to a file descriptor and import it again: a second handle to the same memory.
TEST_F(Vmm, AnExportedFdImportsTheSameMemory) {
  CUmemAllocationProp p = prop(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CUmemGenericAllocationHandle h = 0;
  ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, 2 * kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, h, 0), CUDA_SUCCESS);
  CUmemAccessDesc d = access();
  ASSERT_EQ(cuMemSetAccess(va, kTwoMiB, &d, 1), CUDA_SUCCESS);
  write_at<<<1, 1>>>(reinterpret_cast<int*>(va), 4321);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  int fd = -1;
  ASSERT_EQ(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_SUCCESS);
  EXPECT_GE(fd, 3);
  CUmemGenericAllocationHandle imported = 0;
  ASSERT_EQ(cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                                           CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
            CUDA_SUCCESS);
  EXPECT_NE(imported, h);
  CUmemAllocationProp got;
  ASSERT_EQ(cuMemGetAllocationPropertiesFromHandle(&got, imported), CUDA_SUCCESS);
  EXPECT_EQ(got.requestedHandleTypes, CU_MEM_HANDLE_TYPE_NONE);  // as measured: "imported props" handleTypes=0
  EXPECT_EQ(kernel::sys_close(fd), 0);  // the fd is the process's own; the import outlives it
  // The exporter lets go of its handle and mapping: the import still holds the memory.
  ASSERT_EQ(cuMemUnmap(va, kTwoMiB), CUDA_SUCCESS);
  ASSERT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va + kTwoMiB, kTwoMiB, 0, imported, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemSetAccess(va + kTwoMiB, kTwoMiB, &d, 1), CUDA_SUCCESS);
  cudaError_t e;
  EXPECT_EQ(device_read(va + kTwoMiB, &e), 4321);
  EXPECT_EQ(e, cudaSuccess);
  EXPECT_EQ(cuMemUnmap(va + kTwoMiB, kTwoMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(imported), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 2 * kTwoMiB), CUDA_SUCCESS);
}

// The kernel calls of each step, as the H200's libcuda makes them (tests/data/h200/vmm/out/
// vmm_trace.txt): cuMemCreate one RM_ALLOC, cuMemAddressReserve and cuMemMap none,
// cuMemSetAccess UVM_CREATE_EXTERNAL_RANGE + UVM_MAP_EXTERNAL_ALLOCATION, cuMemUnmap UVM_FREE.
TEST_F(Vmm, EachStepMakesItsKernelCalls) {
  auto uvm_calls = [](const trace::Recorder& rec) {
    std::vector<std::string> names;
    for (const std::string& t : rec.texts(trace::Layer::Uvm)) names.push_back(t.substr(0, t.find('(')));
    return names;
  };
  CUmemAllocationProp p = prop();
  CUmemGenericAllocationHandle h = 0;
  {
    trace::Recorder rec;
    ASSERT_EQ(cuMemCreate(&h, kTwoMiB, &p, 0), CUDA_SUCCESS);
    EXPECT_NE(rec.tree().find("hClass=NV01_MEMORY_LOCAL_USER"), std::string::npos) << rec.tree();
    EXPECT_TRUE(uvm_calls(rec).empty());
  }
  CUdeviceptr va = 0;
  {
    trace::Recorder rec;
    ASSERT_EQ(cuMemAddressReserve(&va, kTwoMiB, 0, 0, 0), CUDA_SUCCESS);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << "no system call";
  }
  {
    trace::Recorder rec;
    ASSERT_EQ(cuMemMap(va, kTwoMiB, 0, h, 0), CUDA_SUCCESS);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << "no system call";
  }
  CUmemAccessDesc d = access();
  {
    trace::Recorder rec;
    ASSERT_EQ(cuMemSetAccess(va, kTwoMiB, &d, 1), CUDA_SUCCESS);
    EXPECT_EQ(uvm_calls(rec), (std::vector<std::string>{"UVM_CREATE_EXTERNAL_RANGE", "UVM_MAP_EXTERNAL_ALLOCATION"}));
  }
  {
    trace::Recorder rec;
    ASSERT_EQ(cuMemUnmap(va, kTwoMiB), CUDA_SUCCESS);
    EXPECT_EQ(uvm_calls(rec), std::vector<std::string>{"UVM_FREE"});
  }
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, kTwoMiB), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::vmm_test
