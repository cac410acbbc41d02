// nv_occupancy.h: how many blocks of a kernel one SM holds at once - the rules of
// cuda_occupancy.h (shared/reference/real-stack.md §4.3), which the GPU's compute work
// distributor enforces and cuOccupancyMaxActiveBlocksPerMultiprocessor reports. A hardware rule,
// so it sits with the class headers: libcuda answers the occupancy queries with it and
// device_sim's block scheduler places blocks by it.
#pragma once

#include "minicuda/round_up.h"
#include "nvtypes.h"

struct NvSmLimits {
  NvU32 warp_size, max_threads_per_sm, max_blocks_per_sm, regs_per_sm;
  NvU64 shared_per_sm, reserved_shared_per_block;
};
struct NvOccupancy {
  NvU32 blocks_per_sm;  // 0: a block does not fit at all
  const char* limit;    // which rule decided: "blocks", "threads", "registers", "shared memory"
};
constexpr NvOccupancy nv_occupancy(const NvSmLimits& sm, NvU32 threads, NvU32 registers, NvU64 shared) {
  if (threads == 0 || sm.warp_size == 0) return {0, "threads"};
  using minicuda::round_up;
  NvU64 warps = (threads + sm.warp_size - 1) / sm.warp_size;
  NvOccupancy best{sm.max_blocks_per_sm, "blocks"};
  auto limit = [&best](NvU64 blocks, const char* why) {
    if (blocks < best.blocks_per_sm) best = {static_cast<NvU32>(blocks), why};
  };
  limit(sm.max_threads_per_sm / sm.warp_size / warps, "threads");
  // Registers: 256 per warp granule; a block's warps are rounded up to the 4 sub-partitions, each
  // of which has a quarter of the register file.
  NvU64 regs_per_warp = round_up(NvU64{registers == 0 ? 1 : registers} * sm.warp_size, 256);
  NvU64 warps_per_partition = sm.regs_per_sm / 4 / regs_per_warp;
  limit(warps_per_partition / ((warps + 3) / 4), "registers");
  // Shared memory: the block's, plus the 1 KiB the driver reserves, in 128-byte units.
  limit(sm.shared_per_sm / round_up(shared + sm.reserved_shared_per_block, 128), "shared memory");
  return best;
}
// An H200 (probe.txt): 256 threads and 32 registers -> 8 blocks (threads); 48 KiB -> 4 (shared memory).
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 256, 32, 0).blocks_per_sm == 8);
// One-warp blocks are charged four warps of registers: 32 registers -> 16 blocks, 16 -> 32.
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 32, 32, 0).blocks_per_sm == 16);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 32, 16, 0).blocks_per_sm == 32);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 64, 32, 49152).blocks_per_sm == 4);
static_assert(nv_occupancy({32, 2048, 32, 65536, 233472, 1024}, 1024, 255, 0).blocks_per_sm == 0);
