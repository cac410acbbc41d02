// cost_model: counts -> simulated time (see cost_model.h and docs/timing.md).
#include "cost_model.h"

#include <algorithm>
#include <cmath>

namespace minicuda::gpu {

namespace {
// Warp-instructions per SM per clock, per pipe. 4 schedulers issue one each at best; the ladders
// on the H200 sustain about 3 (docs/timing.md, "Calibration").
constexpr double kIssuePerClock = 3.0;
constexpr double kIntPerClock = 2.0;     // 64 INT32 lanes (FP32 add/mul share the class)
constexpr double kFmaPerClock = 4.0;     // 128 FP32 lanes
constexpr double kFp64PerClock = 2.0;    // 64 FP64 lanes
constexpr double kSfuPerClock = 0.5;     // 16 SFU lanes
constexpr double kCvtPerClock = 0.5;     // 16 conversion lanes
constexpr double kLsuPerClock = 1.0;     // one shared wavefront or global line a clock
// A warp's dependent path, in clocks. Loads overlap: nvcc unrolls loops and hoists loads, so a
// warp has several in flight (kGlobalInFlight, kSharedInFlight) before it needs the first.
constexpr double kDependentClocks = 2.0;       // an instruction, on average
constexpr double kMemoryClocks = 800.0;        // a global load that misses the L1
constexpr double kL1HitClocks = 40.0;
constexpr double kGlobalInFlight = 4.0;
constexpr double kSharedClocks = 30.0;         // a shared access, per wavefront
constexpr double kSharedInFlight = 2.0;
constexpr double kBarrierClocks = 24.0;
// Store sectors written in part (a strided store: 4 of 32 bytes) cost the L2 a read-modify-
// write each: the naive transpose's 2^20 and 2^22 of them took 17 and 71 us on the H200.
constexpr double kPartialSectorsPerNs = 75.0;

double per_warp(uint64_t total, uint64_t warps) { return warps == 0 ? 0.0 : static_cast<double>(total) / warps; }
}  // namespace

const char* kernel_limiter_name(KernelLimiter l) {
  switch (l) {
    case KernelLimiter::Issue: return "issue";
    case KernelLimiter::Lsu: return "lsu";
    case KernelLimiter::L2: return "l2";
    case KernelLimiter::Dram: return "dram";
    case KernelLimiter::Latency: return "latency";
  }
  return "?";
}

KernelTiming kernel_timing(const KernelCounters& c, const KernelShape& s) {
  KernelTiming t;
  if (s.blocks == 0 || s.sms == 0) return t;
  const double clock_ns = 1.0 / H200Figures::kClockGhz;
  // Blocks go round-robin over the SMs: the busiest SM runs ceil(blocks / SMs) of them, and its
  // share of any total is that many blocks' worth.
  const uint64_t busiest_blocks = (s.blocks + s.sms - 1) / s.sms;
  const double share = static_cast<double>(busiest_blocks) / static_cast<double>(s.blocks);
  auto on_busiest = [&](uint64_t total) { return static_cast<double>(total) * share; };

  const auto cls = [&](InstClass k) { return c.warp_instructions[static_cast<unsigned>(k)]; };
  const double issue_clocks = std::max(
      {on_busiest(c.total_warp_instructions() + c.bank_conflicts()) / kIssuePerClock,
       on_busiest(cls(InstClass::IntFp32)) / kIntPerClock, on_busiest(cls(InstClass::Fma)) / kFmaPerClock,
       on_busiest(cls(InstClass::Fp64)) / kFp64PerClock, on_busiest(cls(InstClass::Sfu)) / kSfuPerClock,
       on_busiest(cls(InstClass::Conversion)) / kCvtPerClock});
  t.issue_ns = issue_clocks * clock_ns;
  t.lsu_ns = on_busiest(c.shared_wavefronts + c.global_wavefronts) / kLsuPerClock * clock_ns;
  t.l2_ns = static_cast<double>(c.l2_sectors) * 32.0 / H200Figures::kL2BytesPerNs +
            static_cast<double>(c.global_partial_store_sectors) / kPartialSectorsPerNs;
  t.dram_ns = static_cast<double>(c.dram_read_bytes + c.dram_write_bytes) / H200Figures::kDramBytesPerNs;

  // Little's law: rounds of resident blocks on the busiest SM, each as long as a warp's path.
  const uint64_t warps = std::max<uint64_t>(1, c.warps);
  const double l1_miss_share =
      c.global_load_sectors == 0 ? 0.0
                                 : 1.0 - static_cast<double>(c.l1_hit_sectors) / static_cast<double>(c.global_load_sectors);
  const double warp_path_clocks =
      per_warp(c.total_warp_instructions(), warps) * kDependentClocks +
      per_warp(c.global_load_requests, warps) * (l1_miss_share * kMemoryClocks + (1 - l1_miss_share) * kL1HitClocks) /
          kGlobalInFlight +
      per_warp(c.shared_wavefronts, warps) * kSharedClocks / kSharedInFlight +
      per_warp(c.barrier_waits, warps) * kBarrierClocks;
  const uint32_t resident_blocks = std::max<uint32_t>(1, std::min<uint64_t>(s.blocks_per_sm, busiest_blocks));
  const uint64_t rounds = (busiest_blocks + resident_blocks - 1) / resident_blocks;
  t.latency_ns = static_cast<double>(rounds) * warp_path_clocks * clock_ns;
  const double warps_per_block = std::ceil(static_cast<double>(s.threads_per_block) / 32.0);
  t.achieved_occupancy = std::min(1.0, resident_blocks * warps_per_block / std::max<uint32_t>(1, s.max_warps_per_sm));

  const double terms[] = {t.issue_ns, t.lsu_ns, t.l2_ns, t.dram_ns, t.latency_ns};
  const KernelLimiter names[] = {KernelLimiter::Issue, KernelLimiter::Lsu, KernelLimiter::L2, KernelLimiter::Dram,
                                 KernelLimiter::Latency};
  unsigned top = 0;
  for (unsigned i = 1; i < 5; ++i)
    if (terms[i] > terms[top]) top = i;
  t.limiter = names[top];
  t.ns = H200Figures::kLaunchNs + static_cast<uint64_t>(std::llround(terms[top]));
  return t;
}

}  // namespace minicuda::gpu
