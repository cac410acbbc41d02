// bench_switch_floor: the shape of BM_BareSwitchRing (bench_switch_floor.cpp), for the summary
// of bench_kernels: the tree reduction's barriers as bare stack switches.
#pragma once

namespace bench {

inline constexpr int kSwitchRingBlocks = 4096;  // the tree's grid (bench_kernels.cpp kSumBlocks)
inline constexpr int kSwitchRingStacks = 256;   // its block (kSumBlock)
inline constexpr int kSwitchRingTurns = 9;      // its barriers

}  // namespace bench
