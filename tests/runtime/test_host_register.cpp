// Registered host memory (runtime/src/host_register.cpp over libcuda's cuMemHostRegister_v2):
// the flags and errors of CUDA 13 on an H200 (tests/data/h200/probe_api_families.txt,
// rt.hostRegister.* / rt.hostUnregister.* / rt.hostGet*), the mechanism (an OS descriptor pinned
// by nvidia.ko and a UVM mapping) and copies that then need no staging. The memory comes from the
// simulated process (mmap, minicuda's libc), as a real process's does from its kernel, or from the
// host's own malloc (the program's memory outside the simulated window).
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "minicuda/libc.h"
#include "minicuda/syscall.h"
#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

class HostRegisterTest : public FreshProcess {
 protected:
  // Fresh pages of the simulated process.
  char* map_pages(size_t bytes) {
    void* p = kernel::sys_mmap(nullptr, bytes, kernel::kProtRead | kernel::kProtWrite,
                               kernel::kMapPrivate | kernel::kMapAnonymous, -1, 0);
    EXPECT_FALSE(kernel::mmap_failed(p));
    return static_cast<char*>(p);
  }
  static constexpr size_t kBytes = 1 << 20;
};

TEST_F(HostRegisterTest, RegisterUnregisterAndTheRealErrors) {
  char* a = map_pages(kBytes);
  char* b = map_pages(kBytes);
  ASSERT_EQ(cudaHostRegister(a, kBytes, cudaHostRegisterDefault), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(a, kBytes, 0), cudaErrorHostMemoryAlreadyRegistered);         // .again
  EXPECT_EQ(cudaHostRegister(a + 4096, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);    // .interior
  EXPECT_EQ(cudaHostRegister(a + kBytes - 4096, 8192, 0), cudaErrorHostMemoryAlreadyRegistered);  // .overlap
  EXPECT_EQ(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered);
  ASSERT_EQ(cudaHostUnregister(a), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(a), cudaErrorHostMemoryNotRegistered);  // .again
  EXPECT_EQ(cudaHostUnregister(b), cudaErrorHostMemoryNotRegistered);  // .never
  EXPECT_EQ(cudaHostUnregister(nullptr), cudaErrorInvalidValue);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(d), cudaErrorInvalidValue);      // .device
  EXPECT_EQ(cudaHostRegister(d, 4096, 0), cudaErrorInvalidValue);  // rt.hostRegister.device
  // A registration inside a mapping: only its own start unregisters it.
  ASSERT_EQ(cudaHostRegister(a + 8192, 8192, 0), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(a), cudaErrorHostMemoryNotRegistered);
  EXPECT_EQ(cudaHostUnregister(a + 8192 + 4096), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostUnregister(a + 8192), cudaSuccess);
  // Unaligned ranges are accepted: the whole pages under them are pinned.
  ASSERT_EQ(cudaHostRegister(b + 1, 1000, 0), cudaSuccess);  // rt.hostRegister.unaligned
  EXPECT_EQ(cudaHostUnregister(b + 1), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(b, 0, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(nullptr, 4096, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(b, 4096, 0x40), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(b, 4096, 0x10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostRegister(b, 4096, cudaHostRegisterIoMemory), cudaErrorInvalidValue);
  void* pinned = nullptr;
  ASSERT_EQ(cudaHostAlloc(&pinned, 4096, cudaHostAllocMapped), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(pinned, 4096, 0), cudaErrorInvalidValue);  // .of_hostAlloc
  EXPECT_EQ(cudaHostUnregister(pinned), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST_F(HostRegisterTest, FlagsAndDevicePointers) {
  char* a = map_pages(kBytes);
  char* b = map_pages(kBytes);
  ASSERT_EQ(cudaHostRegister(a, kBytes, 0), cudaSuccess);
  unsigned flags = 0xdead;
  ASSERT_EQ(cudaHostGetFlags(&flags, a), cudaSuccess);
  EXPECT_EQ(flags, 0x2u);  // rt.hostGetFlags.registered.value: mapped, always
  ASSERT_EQ(cudaHostGetFlags(&flags, a + 100), cudaSuccess);
  EXPECT_EQ(flags, 0x2u);
  void* dp = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&dp, a + 100, 0), cudaSuccess);
  EXPECT_EQ(dp, a + 100);  // UVA: the same address
  EXPECT_EQ(cudaHostGetDevicePointer(&dp, a, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostGetDevicePointer(nullptr, a, 0), cudaErrorInvalidValue);
  dp = reinterpret_cast<void*>(1);
  EXPECT_EQ(cudaHostGetDevicePointer(&dp, b, 0), cudaErrorInvalidValue);
  EXPECT_EQ(dp, nullptr);  // rt.hostGetDevicePointer.unregistered.ptr = null
  flags = 0xdead;
  EXPECT_EQ(cudaHostGetFlags(&flags, b), cudaErrorInvalidValue);
  EXPECT_EQ(flags, 0xdeadu);
  EXPECT_EQ(cudaHostGetFlags(nullptr, a), cudaErrorInvalidValue);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, a), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);  // rt.pointerAttr.registered.value type=1
  EXPECT_EQ(attr.devicePointer, a);
  EXPECT_EQ(attr.hostPointer, a);
  ASSERT_EQ(cudaHostRegister(b, 4096, cudaHostRegisterMapped | cudaHostRegisterPortable), cudaSuccess);
  ASSERT_EQ(cudaHostGetFlags(&flags, b), cudaSuccess);
  EXPECT_EQ(flags, 0x3u);  // rt.hostRegister.mapped_portable.flags
  ASSERT_EQ(cudaHostUnregister(b), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(b, 4096, cudaHostRegisterReadOnly), cudaSuccess);
  ASSERT_EQ(cudaHostGetFlags(&flags, b), cudaSuccess);
  EXPECT_EQ(flags, 0x2u);  // rt.hostRegister.readonly.flags
  void* host = nullptr;
  ASSERT_EQ(cudaMallocHost(&host, 4096), cudaSuccess);
  ASSERT_EQ(cudaHostGetFlags(&flags, host), cudaSuccess);
  EXPECT_EQ(flags, 0x2u);  // rt.hostGetFlags.mallocHost.value
}

// The mechanism: nvidia.ko pins the pages (an OS descriptor) and nvidia-uvm maps them; an async
// copy from them then needs no staging buffer, and returns before it is done.
TEST_F(HostRegisterTest, RegisteredPagesArePinnedThroughTheKernelAndCopiedDirectly) {
  char* a = map_pages(kBytes);
  char* b = map_pages(kBytes);
  for (size_t i = 0; i < kBytes; ++i) a[i] = static_cast<char>(i * 7);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kBytes), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaHostRegister(a + 16, kBytes - 16, 0), cudaSuccess);
  ASSERT_EQ(cudaHostRegister(b, kBytes, 0), cudaSuccess);
  std::string tree = recorder.tree();
  EXPECT_NE(tree.find("cuMemHostRegister_v2("), std::string::npos) << tree;
  EXPECT_NE(tree.find("NV_ESC_RM_ALLOC_MEMORY"), std::string::npos) << tree;
  EXPECT_NE(tree.find("os descriptor: pin 256 pages"), std::string::npos) << tree;
  recorder.clear();
  ASSERT_EQ(cudaMemcpyAsync(d, a + 16, kBytes - 16, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b, d, kBytes - 16, cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  tree = recorder.tree();
  EXPECT_EQ(tree.find("staging"), std::string::npos) << tree;
  EXPECT_EQ(std::memcmp(a + 16, b, kBytes - 16), 0);
  ASSERT_EQ(cudaHostUnregister(a + 16), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(b), cudaSuccess);
  // Unregistered again, the same copy is staged.
  recorder.clear();
  ASSERT_EQ(cudaMemcpyAsync(d, a, 4096, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  EXPECT_NE(recorder.tree().find("staging"), std::string::npos);
}

// Memory the program got from the host's own C library (plain malloc, as simpleStreams does) is
// the program's: a page-aligned range inside a malloc'd block registers, mapped for the GPU at the
// same address, and copies from it need no staging. Host memory the host does not map (a
// PROT_NONE reservation) is refused, and nothing is left behind.
TEST_F(HostRegisterTest, MemoryFromTheHostsMallocRegisters) {
  constexpr size_t kPage = 4096, kData = 1 << 20;
  char* block = static_cast<char*>(std::malloc(kData + kPage));
  ASSERT_NE(block, nullptr);
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(block) + kPage - 1) & ~uintptr_t{kPage - 1});
  for (size_t i = 0; i < kData; ++i) aligned[i] = static_cast<char>(i * 13);
  ASSERT_EQ(cudaHostRegister(aligned, kData, cudaHostRegisterMapped), cudaSuccess);
  EXPECT_EQ(cudaHostRegister(aligned, kData, cudaHostRegisterMapped), cudaErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(cudaHostRegister(aligned + kPage, 64, 0), cudaErrorHostMemoryAlreadyRegistered);
  void* dev = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(&dev, aligned, 0), cudaSuccess);
  EXPECT_EQ(dev, aligned);
  unsigned flags = 0;
  ASSERT_EQ(cudaHostGetFlags(&flags, aligned), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaHostRegisterMapped));
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kData), cudaSuccess);
  std::vector<char> back(kData);
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpyAsync(d, aligned, kData, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(recorder.tree().find("staging"), std::string::npos) << recorder.tree();
  ASSERT_EQ(cudaMemcpy(back.data(), d, kData, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(back.data(), aligned, kData), 0);
  EXPECT_EQ(cudaHostUnregister(aligned + kPage), cudaErrorInvalidValue);  // inside, not its start
  ASSERT_EQ(cudaHostUnregister(aligned), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(aligned), cudaErrorHostMemoryNotRegistered);
  // Registered again after the unregistration: the pin was dropped, so it pins anew.
  ASSERT_EQ(cudaHostRegister(aligned, kData, 0), cudaSuccess);
  ASSERT_EQ(cudaHostUnregister(aligned), cudaSuccess);
  cudaFree(d);
  std::free(block);

  void* reserved = ::mmap(nullptr, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(reserved, MAP_FAILED);
  EXPECT_EQ(cudaHostRegister(reserved, 1 << 16, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostUnregister(reserved), cudaErrorHostMemoryNotRegistered);
  ::munmap(reserved, 1 << 16);
}

TEST_F(HostRegisterTest, DriverEntryPointsGiveTheSameAnswers) {
  char* a = map_pages(kBytes);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  ASSERT_EQ(cuMemHostRegister_v2(a, kBytes, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostRegister_v2(a, kBytes, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  unsigned flags = 0;
  ASSERT_EQ(cuMemHostGetFlags(&flags, a), CUDA_SUCCESS);
  EXPECT_EQ(flags, 0x2u);  // drv.memHostGetFlags.value
  CUdeviceptr p = 1;
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&p, a, 0), CUDA_SUCCESS);
  EXPECT_EQ(p, reinterpret_cast<CUdeviceptr>(a));
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&p, a, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemHostUnregister(a), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostUnregister(a), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(cuMemHostRegister_v2(a, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostRegister_v2(a, 4096, 0x40), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostRegister_v2(a, 4096, CU_MEMHOSTREGISTER_IOMEMORY), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeHost(a), CUDA_ERROR_INVALID_VALUE);
}

// A context reset unpins registrations but leaves the program's pages to it.
TEST_F(HostRegisterTest, DeviceResetDropsRegistrationsAndKeepsThePages) {
  char* a = map_pages(kBytes);
  ASSERT_EQ(cudaHostRegister(a, kBytes, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  a[0] = 5;  // still mapped for the process
  EXPECT_EQ(a[0], 5);
  EXPECT_EQ(cudaHostUnregister(a), cudaErrorHostMemoryNotRegistered);
  EXPECT_EQ(cudaHostRegister(a, kBytes, 0), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
