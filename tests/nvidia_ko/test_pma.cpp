// pma.cpp: the physical memory allocator over VRAM. Pma itself is private to the module (its
// header lives in driver/kernel/nvidia_ko/src), so it is tested through what RM hands out for
// NV01_MEMORY_LOCAL_USER: the VRAM offset in NV_MEMORY_ALLOCATION_PARAMS.offset and the FB
// HEAP_FREE control. These tests assume no other test left vidmem allocated (each test's
// process closes its files, which frees its clients).
#include "nv_test_util.h"

using namespace nvtest;

namespace {
class Pma : public NvTest {};

// What the PMA manages: totalGlobalMem in whole 2 MiB chunks.
constexpr uint64_t kTotalGlobalMem = 150109880320ull;          // FB HEAP_SIZE = totalGlobalMem
constexpr uint64_t kHeapBytes = kTotalGlobalMem / k2M * k2M;   // what the PMA can hand out
constexpr uint64_t kTail = kTotalGlobalMem - kHeapBytes;       // reported free, never allocatable

uint64_t alloc_at(const Rm& rm, NvHandle h, uint64_t size, uint64_t alignment = 0) {
  NV_MEMORY_ALLOCATION_PARAMS p{};
  EXPECT_EQ(alloc_vidmem(rm, h, size, &p, alignment), NV_OK);
  return p.offset;
}
}  // namespace

TEST_F(Pma, TheWholeHeapIsFreeWhenNothingIsAllocated) {
  Rm rm = make_rm();
  EXPECT_EQ(heap_free_bytes(rm), kTotalGlobalMem);  // free == total with nothing allocated
}

TEST_F(Pma, FirstFitFromTheBottom) {
  Rm rm = make_rm();
  uint64_t a = alloc_at(rm, 0x5c000100, k2M);
  uint64_t b = alloc_at(rm, 0x5c000101, k2M);
  uint64_t c = alloc_at(rm, 0x5c000102, 3 * k2M);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, a + k2M);
  EXPECT_EQ(c, b + k2M);
  // Freeing A leaves a hole at the bottom that the next fitting request takes.
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_EQ(alloc_at(rm, 0x5c000103, k2M), a);
}

TEST_F(Pma, FreedNeighboursCoalesce) {
  Rm rm = make_rm();
  uint64_t a = alloc_at(rm, 0x5c000100, k2M);
  uint64_t b = alloc_at(rm, 0x5c000101, k2M);
  uint64_t c = alloc_at(rm, 0x5c000102, k2M);
  ASSERT_EQ(b, a + k2M);
  ASSERT_EQ(c, b + k2M);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000101), NV_OK);
  // Two chunks do not fit in B's one-chunk hole: they go above C.
  uint64_t d = alloc_at(rm, 0x5c000103, 2 * k2M);
  EXPECT_EQ(d, c + k2M);
  // With A freed too, A's and B's holes are one run of two chunks at A.
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  EXPECT_EQ(alloc_at(rm, 0x5c000104, 2 * k2M), a);
  // Freeing C between the new run and D, then D, merges back with what follows.
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000102), NV_OK);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000103), NV_OK);
  EXPECT_EQ(alloc_at(rm, 0x5c000105, 64 * k2M), c);
}

TEST_F(Pma, AlignmentSkipsToTheNextAlignedOffset) {
  Rm rm = make_rm();
  uint64_t a = alloc_at(rm, 0x5c000100, k2M);
  ASSERT_EQ(a, 0u);
  uint64_t b = alloc_at(rm, 0x5c000101, k2M, 16 * kMiB);
  EXPECT_EQ(b, 16 * kMiB);
  // The gap before the aligned run stays free and is found by the next request.
  EXPECT_EQ(alloc_at(rm, 0x5c000102, 7 * k2M), k2M);
  // An alignment below 2 MiB is the 2 MiB granule.
  EXPECT_EQ(alloc_at(rm, 0x5c000103, 4096, 4096), 18 * kMiB);
}

TEST_F(Pma, ExhaustionAndRecovery) {
  Rm rm = make_rm();
  ASSERT_EQ(alloc_at(rm, 0x5c000100, kHeapBytes - k2M), 0u);
  EXPECT_EQ(heap_free_bytes(rm), k2M + kTail);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000101, 2 * k2M), NV_ERR_NO_MEMORY);
  EXPECT_EQ(alloc_at(rm, 0x5c000102, k2M), kHeapBytes - k2M);
  EXPECT_EQ(heap_free_bytes(rm), kTail);
  EXPECT_EQ(alloc_vidmem(rm, 0x5c000103, 1), NV_ERR_NO_MEMORY);
  // Another process sees the same, shared VRAM.
  {
    auto other = k::spawn_process();
    k::ProcessScope as(*other);
    Rm rm2 = make_rm();
    EXPECT_EQ(alloc_vidmem(rm2, 0x5c000100, k2M), NV_ERR_NO_MEMORY);
    other->close_all();
  }
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000100), NV_OK);
  ASSERT_EQ(rm_free(rm.ctl, rm.client, rm.device, 0x5c000102), NV_OK);
  EXPECT_EQ(heap_free_bytes(rm), kTotalGlobalMem);  // free == total with nothing allocated
  EXPECT_EQ(alloc_at(rm, 0x5c000104, kHeapBytes), 0u);
}
