// The work-aware cost model (device_sim/src/cost_model.h) on counters built by hand: which term
// limits, and that fewer resident warps hide less latency.
#include <gtest/gtest.h>

#include <cmath>

#include "cost_model.h"

using minicuda::gpu::H200Figures;
using minicuda::gpu::InstClass;
using minicuda::gpu::kernel_timing;
using minicuda::gpu::KernelCounters;
using minicuda::gpu::KernelLimiter;
using minicuda::gpu::KernelShape;

namespace {

TEST(CostModel, StreamingOneGigabyteIsDramBound) {
  KernelCounters c;
  c.warps = 1 << 20;
  c.warp_instructions[static_cast<unsigned>(InstClass::IntFp32)] = 10ull << 20;
  c.global_load_requests = 1 << 20, c.global_load_sectors = 4 << 20, c.global_wavefronts = 1 << 20;
  c.l2_sectors = 4 << 20;
  c.dram_read_bytes = 1ull << 30;
  const KernelShape s{1 << 15, 1024, 2, 132, 64};
  const auto t = kernel_timing(c, s);
  EXPECT_EQ(t.limiter, KernelLimiter::Dram);
  EXPECT_EQ(t.ns, H200Figures::kLaunchNs + static_cast<uint64_t>(std::llround((1ull << 30) / H200Figures::kDramBytesPerNs)));
}

TEST(CostModel, OnlyFmasAreIssueBoundAtFourPerClockPerSm) {
  KernelCounters c;
  c.warps = 132 * 64;
  c.warp_instructions[static_cast<unsigned>(InstClass::Fma)] = 132ull * 4 * 1000000;
  const auto t = kernel_timing(c, KernelShape{132 * 2, 1024, 2, 132, 64});
  EXPECT_EQ(t.limiter, KernelLimiter::Issue);
  EXPECT_NEAR(t.issue_ns, 1e6 / H200Figures::kClockGhz, 1.0);  // a million clocks
  EXPECT_DOUBLE_EQ(t.achieved_occupancy, 1.0);
}

TEST(CostModel, FewerResidentBlocksMeanMoreRoundsOfLatency) {
  KernelCounters c;
  c.warps = 1056 * 8;
  c.warp_instructions[static_cast<unsigned>(InstClass::IntFp32)] = c.warps * 20;
  c.global_load_requests = c.warps * 4, c.global_load_sectors = c.warps * 16;
  const auto full = kernel_timing(c, KernelShape{1056, 256, 8, 132, 64});
  const auto quarter = kernel_timing(c, KernelShape{1056, 256, 2, 132, 64});
  EXPECT_DOUBLE_EQ(quarter.latency_ns, 4 * full.latency_ns);
  EXPECT_DOUBLE_EQ(full.achieved_occupancy, 1.0);
  EXPECT_DOUBLE_EQ(quarter.achieved_occupancy, 0.25);
}

}  // namespace
