// The device-memory pool behind cuMemAlloc_v2 / cuMemFree_v2 (driver/user/src/pool.{h,cpp}): the
// measured layout (probe.txt malloc.size_*, probe_extra.txt drv.pool.*), which requests cost
// system calls, and the error codes of cuMemAlloc_v2 / cuMemFree_v2 (drv.memAlloc.*, drv.memFree.*).
#include <cstring>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using PoolTest = Ready;

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

TEST_F(PoolTest, SmallSizesTake512ByteSlotsBackToBack) {
  // probe.txt malloc.size_*: {size, offset from the first pointer}.
  struct Row {
    size_t size;
    uint64_t offset;
  };
  const Row rows[] = {{1, 0},       {7, 512},     {255, 1024},  {256, 1536},      {257, 2048},
                      {1000, 2560}, {4096, 3584}, {65536, 7680}, {1048576, 73216}};
  CUdeviceptr base = 0;
  for (const Row& row : rows) {
    CUdeviceptr p = 0;
    ASSERT_EQ(cuMemAlloc_v2(&p, row.size), CUDA_SUCCESS) << row.size;
    if (base == 0) base = p;
    EXPECT_EQ(p % 256, 0u) << row.size;
    EXPECT_EQ(p - base, row.offset) << row.size;
  }
  EXPECT_EQ(base % (2 * kMiB), 0u);  // malloc.size_1 ptr_mod2M=0: a fresh chunk
}

TEST_F(PoolTest, FirstGrowthIsThreeIoctlsAndTheNextSmallAllocationNone) {
  size_t f0 = free_memory();
  CUdeviceptr a = 0, b = 0, c = 0;
  {
    trace::Recorder recorder;
    ASSERT_EQ(cuMemAlloc_v2(&a, 256 * kKiB), CUDA_SUCCESS);
    std::vector<std::string> calls = recorder.texts(trace::Layer::Kernel);
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_NE(calls[0].find("NV_ESC_RM_ALLOC"), std::string::npos) << calls[0];
    EXPECT_NE(calls[1].find("UVM_CREATE_EXTERNAL_RANGE"), std::string::npos) << calls[1];
    EXPECT_NE(calls[2].find("UVM_MAP_EXTERNAL_ALLOCATION"), std::string::npos) << calls[2];
  }
  size_t f1 = free_memory();
  EXPECT_EQ(f0 - f1, 2 * kMiB);  // drv.pool.alloc_256K_a free_delta
  EXPECT_EQ(a % (2 * kMiB), 0u);
  {
    trace::Recorder recorder;
    ASSERT_EQ(cuMemAlloc_v2(&b, 256 * kKiB), CUDA_SUCCESS);
    EXPECT_EQ(syscalls(recorder), 0u);
  }
  {
    trace::Recorder recorder;
    ASSERT_EQ(cuMemAlloc_v2(&c, 256 * kKiB), CUDA_SUCCESS);
    EXPECT_EQ(syscalls(recorder), 0u);
  }
  EXPECT_EQ(b - a, 256 * kKiB);  // drv.pool.alloc_256K_b delta_from_prev
  EXPECT_EQ(c - b, 256 * kKiB);  // drv.pool.alloc_256K_c
  EXPECT_EQ(free_memory(), f1);  // free_delta=0
  {
    trace::Recorder recorder;
    ASSERT_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
    EXPECT_EQ(syscalls(recorder), 0u);
  }
}

// drv.pool.*: the probe's sequence, with each allocation's place and cost in free memory.
TEST_F(PoolTest, MeasuredSequence) {
  struct Step {
    const char* name;
    uint64_t size;
    uint64_t mod2m;       // pointer % 2 MiB
    uint64_t alloc_cost;  // free memory taken by the allocation
    uint64_t free_gain;   // free memory given back by freeing it (in allocation order)
  };
  const Step steps[] = {
      {"256K_a", 256 * kKiB, 0, 2 * kMiB, 0},
      {"256K_b", 256 * kKiB, 256 * kKiB, 0, 0},
      {"256K_c", 256 * kKiB, 512 * kKiB, 0, 0},
      {"2M", 2 * kMiB, 0, 2 * kMiB, 2 * kMiB},
      {"3M", 3 * kMiB, 0, 4 * kMiB, 4 * kMiB},
      {"1M", 1 * kMiB, 768 * kKiB, 0, 0},
      {"1.5M", 3 * kMiB / 2, 0, 2 * kMiB, 2 * kMiB},
      {"256K_d", 256 * kKiB, 1792 * kKiB, 0, 2 * kMiB},
      {"64M", 64 * kMiB, 0, 64 * kMiB, 64 * kMiB},
  };
  std::vector<CUdeviceptr> ptrs;
  CUdeviceptr prev = 0;
  for (const Step& s : steps) {
    size_t before = free_memory();
    CUdeviceptr p = 0;
    ASSERT_EQ(cuMemAlloc_v2(&p, s.size), CUDA_SUCCESS) << s.name;
    EXPECT_EQ(p % (2 * kMiB), s.mod2m) << s.name;
    EXPECT_EQ(before - free_memory(), s.alloc_cost) << s.name;
    if (std::strcmp(s.name, "3M") == 0) {
      EXPECT_EQ(p - prev, 2 * kMiB);  // drv.pool.alloc_3M delta_from_prev
    }
    prev = p;
    ptrs.push_back(p);
  }
  for (size_t i = 0; i < ptrs.size(); ++i) {
    size_t before = free_memory();
    ASSERT_EQ(cuMemFree_v2(ptrs[i]), CUDA_SUCCESS) << steps[i].name;
    EXPECT_EQ(free_memory() - before, steps[i].free_gain) << steps[i].name;
  }
  // drv.pool.realloc_same_addr: a freed chunk's address comes back.
  CUdeviceptr q1 = 0, q2 = 0;
  ASSERT_EQ(cuMemAlloc_v2(&q1, 256 * kKiB), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(q1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&q2, 256 * kKiB), CUDA_SUCCESS);
  EXPECT_EQ(q1, q2);
  EXPECT_EQ(cuMemFree_v2(q2), CUDA_SUCCESS);
}

TEST_F(PoolTest, FreeingTheLastAllocationOfAChunkGivesItBack) {
  size_t f0 = free_memory();
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cuMemAlloc_v2(&a, 1000), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&b, 1000), CUDA_SUCCESS);
  EXPECT_EQ(f0 - free_memory(), 2 * kMiB);
  ASSERT_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(f0 - free_memory(), 2 * kMiB);
  trace::Recorder recorder;
  ASSERT_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
  EXPECT_GT(syscalls(recorder), 0u);  // UVM_FREE + RM_FREE
  EXPECT_EQ(free_memory(), f0);
}

// probe_semantics.txt freed.256_*, freed.4096_*: on the H200 a freed small allocation keeps its
// mapping and its bytes while its chunk holds other allocations (free_delta = 0; a kernel's write
// succeeds, its read gets the old bytes), and the same address comes back for the same size.
// The pool frees slots, not pages: nothing is unmapped until the chunk is empty.
TEST_F(PoolTest, AFreedSlotStaysMappedWithItsBytesWhileItsChunkHoldsOthers) {
  CUdeviceptr keep = 0, p = 0;
  ASSERT_EQ(cuMemAlloc_v2(&keep, 256), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2(p, 0x5a, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  const size_t f0 = free_memory();
  {
    trace::Recorder recorder;
    ASSERT_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
    EXPECT_EQ(syscalls(recorder), 0u);  // no UVM_FREE, no RM_FREE
  }
  EXPECT_EQ(free_memory(), f0);  // freed.4096_write.free_delta = 0
  // Device pointers are host addresses: the slot is still mapped and holds what it held.
  const auto* bytes = reinterpret_cast<const unsigned char*>(p);
  EXPECT_EQ(bytes[0], 0x5a);
  EXPECT_EQ(bytes[4095], 0x5a);
  size_t range = 0;
  EXPECT_EQ(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p), CUDA_ERROR_INVALID_VALUE)
      << "no allocation there any more";
  CUdeviceptr again = 0;
  ASSERT_EQ(cuMemAlloc_v2(&again, 4096), CUDA_SUCCESS);
  EXPECT_EQ(again, p);  // freed.256_write_after_realloc.realloc_same_ptr = 1
  EXPECT_EQ(cuMemFree_v2(again), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(keep), CUDA_SUCCESS);
}

TEST_F(PoolTest, BadFreesAreInvalidValueAndChangeNothing) {
  CUdeviceptr a = 0;
  ASSERT_EQ(cuMemAlloc_v2(&a, 1024), CUDA_SUCCESS);  // drv.memAlloc.1024
  size_t f0 = free_memory();
  int on_stack = 0;
  {
    trace::Recorder recorder;
    EXPECT_EQ(cuMemFree_v2(a + 16), CUDA_ERROR_INVALID_VALUE);    // drv.memFree.interior
    EXPECT_EQ(cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);    // drv.memFree.0x1234
    EXPECT_EQ(cuMemFree_v2(reinterpret_cast<CUdeviceptr>(&on_stack)), CUDA_ERROR_INVALID_VALUE);  // .hostStack
    EXPECT_EQ(syscalls(recorder), 0u);
  }
  EXPECT_EQ(free_memory(), f0);
  size_t range = 0;
  EXPECT_EQ(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a), CUDA_SUCCESS);
  EXPECT_EQ(range, 1024u);  // still allocated
  EXPECT_EQ(cuMemFree_v2(a), CUDA_SUCCESS);                    // drv.memFree.first
  EXPECT_EQ(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);        // drv.memFree.double
  EXPECT_EQ(cuMemFree_v2(0), CUDA_SUCCESS);                    // drv.memFree.zero
}

TEST_F(PoolTest, DoubleFreeKeepsTheNeighbours) {
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cuMemAlloc_v2(&a, 512), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&b, 512), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);
  size_t range = 0;
  EXPECT_EQ(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, b), CUDA_SUCCESS);
  EXPECT_EQ(range, 512u);
  EXPECT_EQ(cuMemFree_v2(b), CUDA_SUCCESS);
}

TEST_F(PoolTest, AllocationErrors) {
  CUdeviceptr p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);  // drv.memAlloc.zero
  EXPECT_EQ(p, 0u);
  EXPECT_EQ(cuMemAlloc_v2(nullptr, 256), CUDA_ERROR_INVALID_VALUE);  // drv.memAlloc.nullArg
  size_t f0 = free_memory();
  p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, 1ull << 50), CUDA_ERROR_OUT_OF_MEMORY);  // drv.memAlloc.huge_1<<50
  EXPECT_EQ(p, 0u);                                                   // drv.memAlloc.huge.p
  EXPECT_EQ(free_memory(), f0);
  p = 0xdead;
  EXPECT_EQ(cuMemAlloc_v2(&p, ~size_t{0}), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(p, 0u);
  // Not sticky: the next allocation works.
  EXPECT_EQ(cuMemAlloc_v2(&p, 256), CUDA_SUCCESS);
  EXPECT_NE(p, 0u);
  EXPECT_EQ(cuMemFree_v2(p), CUDA_SUCCESS);
}

TEST_F(PoolTest, DeviceMemoryIsUsableFromTheHost) {
  const size_t sizes[] = {1, 1000, 256 * kKiB, 3 * kMiB};
  std::vector<CUdeviceptr> ptrs;
  for (size_t i = 0; i < std::size(sizes); ++i) {
    CUdeviceptr p = 0;
    ASSERT_EQ(cuMemAlloc_v2(&p, sizes[i]), CUDA_SUCCESS);
    std::memset(reinterpret_cast<void*>(p), 0x40 + static_cast<int>(i), sizes[i]);
    ptrs.push_back(p);
  }
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(ptrs[i]);
    EXPECT_EQ(bytes[0], 0x40 + i);
    EXPECT_EQ(bytes[sizes[i] - 1], 0x40 + i);
    EXPECT_EQ(cuMemFree_v2(ptrs[i]), CUDA_SUCCESS);
  }
}

}  // namespace
}  // namespace minicuda::testing
