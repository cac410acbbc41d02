// Tests of grids on the compute unit's timeline (Timeline::run_grid, timeline.cpp; the model in
// docs/timing.md, "Concurrent kernels"): grids of different channels run at the same time when
// the SMs have room for both, and wait for room when not - per SM and per resource (blocks,
// warps, registers, shared memory) - one channel's grids stay in order, and the same calls give
// the same times.
#include <gtest/gtest.h>

#include <vector>

#include "minicuda/device.h"

namespace minicuda::gpu {
namespace {

// An H200's SM (docs/layers/device_sim.md): 32 blocks, 64 warps, 65536 registers (4 partitions),
// 228 KiB of shared memory; 132 SMs.
constexpr SmResources kH200Sm{32, 64, 65536 / 4, 233472};

// A grid holding `blocks_per_sm` blocks of `warps` warps (`registers` a thread, `shared` bytes
// of shared memory and the 1 KiB reserve) on each of `sms` SMs.
GridFootprint grid_of(uint32_t sms, uint32_t blocks_per_sm, uint32_t warps, uint32_t shared = 0,
                      uint32_t registers = 32) {
  GridFootprint f;
  f.sms = sms;
  f.sm_count = 132;
  f.capacity = kH200Sm;
  f.per_sm.blocks = blocks_per_sm;
  f.per_sm.warps = blocks_per_sm * warps;
  f.per_sm.partition_registers = blocks_per_sm * ((warps + 3) / 4) * ((registers * 32 + 255) / 256 * 256);
  f.per_sm.shared = blocks_per_sm * (shared + 1024);
  return f;
}

// <<<1, 256>>>: one block of 8 warps on one SM.
const GridFootprint kSmall = grid_of(1, 1, 8);
// <<<1056 or more, 256>>>: 8 blocks of 8 warps on every SM - all 64 warps of each.
const GridFootprint kFull = grid_of(132, 8, 8);
// <<<528, 256>>>: 4 blocks on every SM - half of each.
const GridFootprint kHalf = grid_of(132, 4, 8);

TEST(ConcurrentGrids, TwoSmallGridsOfTwoChannelsRunTogether) {
  Timeline t;
  TimeSpan a = t.run_grid(1, kSmall, 1210);
  TimeSpan b = t.run_grid(2, kSmall, 1210);
  EXPECT_EQ(a.start, 0u);
  EXPECT_EQ(b.start, 0u);  // room on the SMs: at the same time
  EXPECT_EQ(b.end, 1210u);
  EXPECT_EQ(t.unit_time(TimelineUnit::Compute), 1210u);
  EXPECT_EQ(t.now(), 1210u);
}

TEST(ConcurrentGrids, OneChannelsGridsStayInOrder) {
  Timeline t;
  t.run_grid(1, kSmall, 1210);
  TimeSpan second = t.run_grid(1, kSmall, 1210);
  EXPECT_EQ(second.start, 1210u);  // a stream's kernels never overlap each other
  EXPECT_EQ(second.end, 2420u);
}

TEST(ConcurrentGrids, AGridFillingEverySmLeavesNoRoom) {
  Timeline t;
  TimeSpan full = t.run_grid(1, kFull, 8000);
  TimeSpan small = t.run_grid(2, kSmall, 1210);
  EXPECT_EQ(full.start, 0u);
  EXPECT_EQ(small.start, 8000u);  // not one SM has a warp free until the full grid ends
  // And the other way round: a grid that needs every SM waits for the small one.
  Timeline u;
  u.run_grid(2, kSmall, 1210);
  TimeSpan after = u.run_grid(1, kFull, 8000);
  EXPECT_EQ(after.start, 1210u);
}

TEST(ConcurrentGrids, TwoHalfGridsShareTheSmsAndAThirdWaits) {
  Timeline t;
  TimeSpan a = t.run_grid(1, kHalf, 3000);
  TimeSpan b = t.run_grid(2, kHalf, 5000);
  TimeSpan c = t.run_grid(3, kHalf, 1000);
  EXPECT_EQ(a.start, 0u);
  EXPECT_EQ(b.start, 0u);
  EXPECT_EQ(c.start, 3000u);  // the first of the two to end makes room
  EXPECT_EQ(c.end, 4000u);
}

TEST(ConcurrentGrids, RoomIsCountedPerSm) {
  Timeline t;
  t.run_grid(1, grid_of(100, 8, 8), 4000);                 // 100 SMs full, 32 free
  TimeSpan fits = t.run_grid(2, grid_of(32, 8, 8), 1000);  // takes the 32
  TimeSpan on_32 = t.run_grid(3, grid_of(32, 1, 1), 1000);
  TimeSpan on_33 = t.run_grid(4, grid_of(33, 1, 1), 1000);
  EXPECT_EQ(fits.start, 0u);
  EXPECT_EQ(on_32.start, 1000u);  // the 32 SMs are free again when the second grid ends
  EXPECT_EQ(on_33.start, 4000u);  // 33 SMs with room only once the 100 are free again
}

TEST(ConcurrentGrids, EveryResourceLimitsTheRoom) {
  // Shared memory: 2 blocks of 100 KiB fill an SM's 228 KiB; a third of any size does not fit.
  Timeline shared;
  shared.run_grid(1, grid_of(132, 2, 1, 100 * 1024), 2000);
  EXPECT_EQ(shared.run_grid(2, grid_of(132, 1, 1, 20 * 1024), 500).start, 0u);
  EXPECT_EQ(shared.run_grid(3, grid_of(132, 1, 1, 20 * 1024), 500).start, 500u);
  // Blocks: 32 blocks of one warp (16 registers a thread) leave 32 warps free but no block slot.
  Timeline blocks;
  blocks.run_grid(1, grid_of(132, 32, 1, 0, 16), 2000);
  EXPECT_EQ(blocks.run_grid(2, grid_of(1, 1, 1, 0, 16), 500).start, 2000u);
  // Registers: 16 one-warp blocks of 32 registers a thread fill a sub-partition's 16384 (a block
  // of fewer than 4 warps is charged one warp in each), with 48 warps and 16 block slots left.
  Timeline registers;
  registers.run_grid(1, grid_of(132, 16, 1), 2000);
  EXPECT_EQ(registers.run_grid(2, grid_of(1, 1, 1), 500).start, 2000u);
}

TEST(ConcurrentGrids, RoomMustLastTheWholeSpan) {
  Timeline t;
  t.hold(2, 1000);
  t.run_grid(2, kFull, 2000);                   // [1000, 3000), every SM full
  TimeSpan small = t.run_grid(1, kSmall, 1500);  // ready at 0, but 1500 ns would run into it
  EXPECT_EQ(small.start, 3000u);
  TimeSpan shorter = t.run_grid(3, kSmall, 800);  // 800 ns before it: fits in the gap
  EXPECT_EQ(shorter.start, 0u);
}

TEST(ConcurrentGrids, TheSameCallsGiveTheSameTimes) {
  auto times = [] {
    Timeline t;
    std::vector<uint64_t> out;
    for (int i = 0; i < 200; ++i) {
      const uint32_t chid = static_cast<uint32_t>(i % 5);
      const GridFootprint f = grid_of(1 + static_cast<uint32_t>(i * 37 % 132), 1 + static_cast<uint32_t>(i % 8), 8);
      TimeSpan s = t.run_grid(chid, f, 1200 + static_cast<uint64_t>(i % 7) * 800);
      out.push_back(s.start);
      out.push_back(s.end);
    }
    return out;
  };
  EXPECT_EQ(times(), times());
}

TEST(ConcurrentGrids, ForgottenGridsLeaveTheTimeBeforeThemFull) {
  Timeline t;
  t.hold(1, 1'000'000);
  t.run_grid(1, kSmall, 100);  // at 1 ms
  for (size_t i = 0; i < Timeline::kGridSpans; ++i) t.run_grid(1, kSmall, 100);
  // The first grid is forgotten: a grid of another channel, ready at 0, starts after it.
  TimeSpan late = t.run_grid(2, kSmall, 100);
  EXPECT_GE(late.start, 1'000'100u);
}

}  // namespace
}  // namespace minicuda::gpu
