// minicuda::RangeAllocator (support/include/minicuda/range_allocator.h), the first-fit allocator
// behind nvidia.ko's PMA and libcuda's GPU VA ranges, and minicuda::round_up.
#include "minicuda/range_allocator.h"

#include <gtest/gtest.h>

#include "minicuda/round_up.h"

namespace minicuda {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

TEST(RoundUp, RoundsToAnyUnit) {
  EXPECT_EQ(round_up(0, 16), 0u);
  EXPECT_EQ(round_up(1, 16), 16u);
  EXPECT_EQ(round_up(16, 16), 16u);
  EXPECT_EQ(round_up(17, 16), 32u);
  EXPECT_EQ(round_up(7, 3), 9u);  // not only powers of two
  static_assert(round_up(2 * kMiB + 1, 2 * kMiB) == 4 * kMiB);
}

TEST(RangeAllocator, HandsOutTheLowestFreeRangeFirst) {
  RangeAllocator r(0x1000, 16 * kMiB);
  EXPECT_EQ(r.allocate(2 * kMiB), 0x1000u);
  EXPECT_EQ(r.allocate(2 * kMiB), 0x1000u + 2 * kMiB);
  EXPECT_EQ(r.free_bytes(), 12 * kMiB);
}

TEST(RangeAllocator, AlignsTheStartAndKeepsTheSkippedBytesFree) {
  RangeAllocator r(kMiB, 16 * kMiB);  // [1 MiB, 17 MiB)
  EXPECT_EQ(r.allocate(2 * kMiB, 2 * kMiB), 2 * kMiB);
  EXPECT_EQ(r.free_bytes(), 14 * kMiB);
  EXPECT_EQ(r.allocate(kMiB), kMiB);  // the 1 MiB skipped for alignment is still free
}

TEST(RangeAllocator, ReleaseCoalescesWithBothNeighbours) {
  RangeAllocator r(0, 6 * kMiB);
  auto a = r.allocate(2 * kMiB), b = r.allocate(2 * kMiB), c = r.allocate(2 * kMiB);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(r.allocate(1), std::nullopt);  // full
  r.release(*a, 2 * kMiB);
  r.release(*c, 2 * kMiB);
  EXPECT_EQ(r.free_ranges(), 2u);
  EXPECT_EQ(r.allocate(4 * kMiB), std::nullopt);  // 4 MiB free, but not in one range
  r.release(*b, 2 * kMiB);
  EXPECT_EQ(r.free_ranges(), 1u);
  EXPECT_EQ(r.free_bytes(), 6 * kMiB);
  EXPECT_EQ(r.allocate(6 * kMiB), 0u);
}

TEST(RangeAllocator, RefusesZeroAndTooLarge) {
  RangeAllocator r(0, 4 * kMiB);
  EXPECT_EQ(r.allocate(0), std::nullopt);
  EXPECT_EQ(r.allocate(4 * kMiB + 1), std::nullopt);
  EXPECT_EQ(r.allocate(2 * kMiB, 8 * kMiB), 0u);  // 0 is aligned to anything
  EXPECT_EQ(r.allocate(2 * kMiB, 8 * kMiB), std::nullopt);  // no other 8 MiB-aligned start fits
  EXPECT_EQ(r.free_bytes(), 2 * kMiB);
}

}  // namespace
}  // namespace minicuda
