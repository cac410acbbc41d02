// Sticky errors: once the GPU has faulted on a context's channel, the context is poisoned. The
// sequence is probe_sticky.txt's (recorded on an H200 with an illegal-address kernel): the call
// that observes the fault returns 700, cudaGetLastError returns 700 once and then 0, but every
// later call on the context keeps returning 700 - until cudaDeviceReset.
//
// No legitimate copy can fault (copies validate their pointers first, as on the real stack), so
// the fault is injected from below: the test takes a pinned buffer's mapping off the GPU with
// UVM_FREE on the process's own /dev/nvidia-uvm fd, and then copies from it. The copy engine
// meets a missing PTE, the channel stops, RM writes its error notifier.
#include <cstring>
#include <vector>

#include "nv_uapi.h"
#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using StickyTest = FreshProcess;

// UVM_FREE of the range at base on whichever of the process's uvm fds holds it: NV_OK if one did.
NV_STATUS unmap_from_gpu(void* base) {
  for (int fd = 0; fd < 64; ++fd) {
    std::shared_ptr<kernel::File> f = kernel::current().file(fd);
    if (!f || f->fops == nullptr || std::strcmp(f->fops->name, "nvidia-uvm") != 0) continue;
    UVM_FREE_PARAMS p{};
    p.base = reinterpret_cast<uint64_t>(base);
    if (kernel::sys_ioctl(fd, UVM_FREE, &p) == 0 && p.rmStatus == NV_OK) return NV_OK;
  }
  return NV_ERR_OBJECT_NOT_FOUND;
}

TEST_F(StickyTest, AFaultPoisonsTheContextUntilReset) {
  int* d = nullptr;
  int* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), 4096), cudaSuccess);
  ASSERT_EQ(unmap_from_gpu(pinned), NV_OK);

  // The copy waits for the engine (pinned source), so it is the call that sees the fault.
  EXPECT_EQ(cudaMemcpy(d, pinned, 4096, cudaMemcpyHostToDevice), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);  // sticky.getlast_after_sync
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);              // sticky.getlast_again: the slot clears...
  void* more = nullptr;
  EXPECT_EQ(cudaMalloc(&more, 256), cudaErrorIllegalAddress);  // ...the context does not: malloc_after
  EXPECT_EQ(more, nullptr);
  std::vector<int> h(1024, 3);
  EXPECT_EQ(cudaMemcpy(d, h.data(), 4096, cudaMemcpyHostToDevice), cudaErrorIllegalAddress);  // memcpy_after
  EXPECT_EQ(cudaMemset(d, 0, 4096), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);

  // Reset destroys the context; the next call builds a clean one. (The H200 of probe_sticky.txt
  // answered this cudaMalloc with 46, cudaErrorDevicesUnavailable; see docs/architecture.md.)
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);                  // sticky.reset
  EXPECT_EQ(cudaMalloc(&more, 256), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(more, h.data(), 256, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(static_cast<int*>(more)[63], 3);
  EXPECT_EQ(cudaFree(more), cudaSuccess);
}

// The fault is reported by the next call that waits, and noticed by any later call: a memset
// (which does not wait) after the fault returns 700 too, as does the driver API directly.
TEST_F(StickyTest, TheDriverAnswersEveryContextCallWith700) {
  int* d = nullptr;
  int* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), 4096), cudaSuccess);
  ASSERT_EQ(unmap_from_gpu(pinned), NV_OK);
  EXPECT_EQ(cuMemcpyHtoD_v2(reinterpret_cast<CUdeviceptr>(d), pinned, 4096), CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cuMemAlloc_v2(&p, 256), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuMemFree_v2(reinterpret_cast<CUdeviceptr>(d)), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuMemsetD8_v2(reinterpret_cast<CUdeviceptr>(d), 1, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  // Calls that do not need the context's channel still work.
  CUcontext ctx = nullptr;
  EXPECT_EQ(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
  EXPECT_NE(ctx, nullptr);
  int count = 0;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
}

}  // namespace
}  // namespace minicuda::testing
