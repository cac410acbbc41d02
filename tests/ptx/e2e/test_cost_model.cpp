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

TEST(CostModel, OnlyFmasAreIssueBoundAtThreePerClockPerSm) {
  KernelCounters c;
  c.warps = 132 * 64;
  c.warp_instructions[static_cast<unsigned>(InstClass::Fma)] = 132ull * 4 * 1000000;
  const auto t = kernel_timing(c, KernelShape{132 * 2, 1024, 2, 132, 64});
  EXPECT_EQ(t.limiter, KernelLimiter::Issue);
  // 4 million warp-instructions per SM at the 3 a clock the H200 sustained (the FMA pipe takes 4)
  EXPECT_NEAR(t.issue_ns, 4e6 / 3 / H200Figures::kClockGhz, 1.0);
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

TEST(CostModel, PartialStoreSectorsCostTheL2More) {
  KernelCounters c;
  c.warps = 8192;
  c.global_store_requests = 32768, c.global_store_sectors = 32768 * 32, c.l2_sectors = 32768 * 32;
  const auto whole = kernel_timing(c, KernelShape{1024, 256, 8, 132, 64});
  c.global_partial_store_sectors = 32768 * 32;  // 4 bytes of each sector written
  const auto partial = kernel_timing(c, KernelShape{1024, 256, 8, 132, 64});
  EXPECT_EQ(partial.limiter, KernelLimiter::L2);
  EXPECT_NEAR(partial.l2_ns - whole.l2_ns, 32768.0 * 32 / 75, 1.0);  // 75 partial sectors a ns
}

}  // namespace
