// Two simulated processes using the GPU at once: each has its own RM client, context and GPU VA
// space (a UVA window of its own), so their device allocations never overlap and neither can
// free the other's memory.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "minicuda/kernel.h"

namespace kernel = minicuda::kernel;

TEST(Processes, TwoProcessesAllocateDisjointDeviceMemory) {
  auto a = kernel::spawn_process();
  auto b = kernel::spawn_process();
  void *pa = nullptr, *pb = nullptr;
  {
    kernel::ProcessScope in_a(*a);
    ASSERT_EQ(cudaMalloc(&pa, 4 << 20), cudaSuccess);
    std::memset(pa, 0xaa, 4 << 20);
  }
  {
    kernel::ProcessScope in_b(*b);
    ASSERT_EQ(cudaMalloc(&pb, 4 << 20), cudaSuccess);
    std::memset(pb, 0xbb, 4 << 20);
    auto ua = reinterpret_cast<uintptr_t>(pa), ub = reinterpret_cast<uintptr_t>(pb);
    EXPECT_TRUE(ua + (4 << 20) <= ub || ub + (4 << 20) <= ua);
    // b's driver does not know a's pointer.
    EXPECT_EQ(cudaFree(pa), cudaErrorInvalidValue);
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, pa), cudaSuccess);
    EXPECT_EQ(attr.type, cudaMemoryTypeUnregistered);
  }
  {
    kernel::ProcessScope in_a(*a);
    EXPECT_EQ(static_cast<unsigned char*>(pa)[(4 << 20) - 1], 0xaa);  // untouched by b
    EXPECT_EQ(cudaFree(pa), cudaSuccess);
  }
  {
    kernel::ProcessScope in_b(*b);
    EXPECT_EQ(cudaFree(pb), cudaSuccess);
  }
}

TEST(Processes, AProcessExitGivesItsDeviceMemoryBack) {
  auto watcher = kernel::spawn_process();
  kernel::ProcessScope in_watcher(*watcher);
  size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  {
    auto other = kernel::spawn_process();
    {
      kernel::ProcessScope in_other(*other);
      void* p = nullptr;
      ASSERT_EQ(cudaMalloc(&p, 64 << 20), cudaSuccess);
    }
    size_t during = 0;
    ASSERT_EQ(cudaMemGetInfo(&during, &total), cudaSuccess);
    // Its 64 MiB and its context's own local memory (414 MiB on the H200: context_reserve.h).
    EXPECT_EQ(during, free_before - (64 << 20) - 0x19e00000);
  }  // the process exits without cudaFree: closing its files frees its RM client
  size_t after = 0;
  ASSERT_EQ(cudaMemGetInfo(&after, &total), cudaSuccess);
  EXPECT_EQ(after, free_before);
}
