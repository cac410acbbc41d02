// Tests of device_sim/src/gpu_memory.cpp's check(): the engines' range check answers from the
// thread's verified runs when it can, and must answer exactly what the plain page-by-page walk
// answers, after any maps and unmaps, on any thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

#include "gpu_memory.h"
#include "minicuda/device.h"

namespace minicuda::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kSmall = 4096;
constexpr uint64_t kBig = 2 * kMiB;

// The reference: every page of [va, va+length) walked (Mmu::walk, no TLB, no runs), the first
// missing or (for a write) read-only page is the fault.
std::optional<MemoryFault> plain_check(const Mmu& mmu, uint64_t va, uint64_t length, Access access) {
  if (length == 0) return std::nullopt;
  if (length - 1 > UINT64_MAX - va) return MemoryFault{va, access, FaultKind::MmuUnmapped};
  const uint64_t last = va + (length - 1);
  for (uint64_t page_va = va;;) {
    const std::optional<Pte> pte = mmu.walk(page_va);
    if (!pte) return MemoryFault{page_va, access, FaultKind::MmuUnmapped};
    if (access == Access::Write && !pte->writable) return MemoryFault{page_va, access, FaultKind::MmuReadOnly};
    const uint64_t page_start = page_va & ~(pte->page_size - 1);
    if (last - page_start < pte->page_size) return std::nullopt;
    page_va = page_start + pte->page_size;
  }
}

bool same(const std::optional<MemoryFault>& a, const std::optional<MemoryFault>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->va == b->va && a->access == b->access && a->kind == b->kind);
}

class GpuMemoryTest : public ::testing::Test {
 protected:
  Vram vram_{64 * kMiB};
  Mmu mmu_{vram_, 1 * kGiB};
  GpuMemory memory_{mmu_};
  uint64_t base() const { return mmu_.uva_base(); }
};

TEST_F(GpuMemoryTest, CheckAgreesWithThePlainWalkAfterRandomMapsAndUnmaps) {
  constexpr uint64_t kSlots = 16;
  constexpr uint64_t kSysBase = 0x7e0000000000;
  std::srand(11);
  uint64_t checked = 0, passed = 0, faulted = 0;
  for (int step = 0; step < 3000; ++step) {
    const uint64_t slot = static_cast<uint64_t>(std::rand()) % kSlots;
    const uint64_t pages = 1 + static_cast<uint64_t>(std::rand()) % 3;
    switch (std::rand() % 4) {
      case 0: (void)mmu_.map_vidmem(base() + slot * kBig, (slot % 8) * kBig, kBig, std::rand() % 4 != 0); break;
      case 1: (void)mmu_.map_sysmem(kSysBase + slot * kSmall, pages * kSmall, std::rand() % 4 != 0); break;
      case 2: (void)mmu_.unmap(base() + slot * kBig, kBig); break;
      default: (void)mmu_.unmap(kSysBase + slot * kSmall, kSmall); break;
    }
    // Ranges of one byte to a few pages, each checked twice (the second time from the runs the
    // first may have left), and a range inside the first one.
    for (int probe = 0; probe < 6; ++probe) {
      const bool vid = probe % 2 != 0;
      const uint64_t page = vid ? kBig : kSmall;
      const uint64_t region = vid ? base() : kSysBase;
      const uint64_t va = region + (static_cast<uint64_t>(std::rand()) % kSlots) * page +
                          static_cast<uint64_t>(std::rand()) % page;
      const uint64_t length = 1 + static_cast<uint64_t>(std::rand()) % (3 * page);
      const Access access = std::rand() % 2 ? Access::Write : Access::Read;
      for (int again = 0; again < 2; ++again) {
        const auto fast = memory_.check(va, length, access);
        ASSERT_TRUE(same(fast, plain_check(mmu_, va, length, access)))
            << "step " << step << ", va " << std::hex << va << ", length " << length;
        ++checked;
        (fast ? faulted : passed) += 1;
      }
      const uint64_t inner = va + length / 3, inner_length = 1 + length / 3;
      ASSERT_TRUE(same(memory_.check(inner, inner_length, access), plain_check(mmu_, inner, inner_length, access)))
          << "step " << step << ", inner va " << std::hex << inner;
    }
  }
  EXPECT_EQ(checked, 36000u);
  EXPECT_GT(passed, 3000u);  // both answers were exercised many times
  EXPECT_GT(faulted, 3000u);
}

TEST_F(GpuMemoryTest, AReadOnlyPageInsideAVerifiedReadRangeStillFaultsAWrite) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBig, /*writable=*/true));
  ASSERT_TRUE(mmu_.map_vidmem(base() + kBig, kBig, kBig, /*writable=*/false));
  EXPECT_FALSE(memory_.check(base(), 2 * kBig, Access::Read).has_value());
  const auto fault = memory_.check(base() + 8, 2 * kBig - 16, Access::Write);
  ASSERT_TRUE(fault.has_value());
  EXPECT_EQ(fault->va, base() + kBig);
  EXPECT_EQ(fault->kind, FaultKind::MmuReadOnly);
  EXPECT_FALSE(memory_.check(base() + 8, kBig - 8, Access::Write).has_value());
}

TEST_F(GpuMemoryTest, AnUnmapOnAnotherThreadEndsTheRunsOfThisOne) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, 4 * kBig));
  std::atomic<int> phase{0};
  std::optional<MemoryFault> before, after;
  std::thread engine([&] {
    before = memory_.check(base(), 4 * kBig, Access::Write);  // leaves a run of 4 pages
    phase = 1;
    while (phase.load() != 2) std::this_thread::yield();
    after = memory_.check(base() + kBig, kBig, Access::Read);
  });
  while (phase.load() != 1) std::this_thread::yield();
  ASSERT_EQ(mmu_.unmap(base() + kBig, kBig), 1u);
  phase = 2;
  engine.join();
  EXPECT_FALSE(before.has_value());
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->va, base() + kBig);
  EXPECT_EQ(after->kind, FaultKind::MmuUnmapped);
}

}  // namespace
}  // namespace minicuda::gpu
