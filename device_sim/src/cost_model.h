// cost_model: the simulated time of a kernel run by the SIMT executor, from what it did
// (simt_counters.h) - the work-aware model of docs/timing.md ("The work-aware model").
//
// Who talks to it: the compute engine, after a SASS grid has run, in place of the wave model
// that C++ kernels keep. Pure functions of the counts and the launch shape: the same figures on
// every run and every host.
//
// The model, per grid: a fixed front-end cost, plus the largest of
//   issue    the busiest SM's warp-instructions over its schedulers, and each pipe's share
//            over that pipe's rate (FP64, SFU, conversions at fractions of FP32's);
//   lsu      the busiest SM's shared-memory wavefronts (replays included) and global lines,
//            one per clock;
//   l2, dram the grid's L2 sectors and DRAM bytes over the H200's bandwidths (a store sector
//            written in part costs the L2 more);
//   latency  Little's law: the busiest SM runs its blocks in rounds of the blocks resident at
//            once; a round lasts as long as one warp's dependent path (instruction and memory
//            latencies, barriers), so fewer resident warps hide less latency.
#pragma once

#include <cstdint>

#include "simt_counters.h"

namespace minicuda::gpu {

// The limiting term, as the profile and the trace name it.
enum class KernelLimiter : uint8_t { Issue, Lsu, L2, Dram, Latency };
const char* kernel_limiter_name(KernelLimiter l);

struct KernelShape {
  uint64_t blocks = 0;
  uint32_t threads_per_block = 0;
  uint32_t blocks_per_sm = 0;  // resident at once (the occupancy rules)
  uint32_t sms = 132;
  uint32_t max_warps_per_sm = 64;
};

struct KernelTiming {
  uint64_t ns = 0;  // the grid's simulated duration
  KernelLimiter limiter = KernelLimiter::Latency;
  double issue_ns = 0, lsu_ns = 0, l2_ns = 0, dram_ns = 0, latency_ns = 0;
  double achieved_occupancy = 0;  // resident warps / the SM's maximum, on the busiest SM
};

// The H200's figures the model uses (docs/timing.md lists their sources).
struct H200Figures {
  static constexpr double kClockGhz = 1.98;          // SM clock, boost
  static constexpr double kDramBytesPerNs = 3900.0;   // achievable of the 4.8 TB/s HBM3e peak
  static constexpr double kL2BytesPerNs = 7000.0;
  static constexpr uint64_t kL2Bytes = 60ull << 20;   // prop.l2CacheSize = 62914560 (60 MiB)
  static constexpr uint64_t kLaunchNs = 1200;         // front end (as the wave model's)
};

// The grid's simulated time from its counters (finished: L2 and DRAM filled in).
KernelTiming kernel_timing(const KernelCounters& c, const KernelShape& shape);

}  // namespace minicuda::gpu
