// nv_gpc.h: how the SMs are grouped into GPCs (graphics processing clusters), which decides where a
// thread block cluster may run: the GPU places every block of a cluster on the SMs of one GPC, all
// at once. RM reports the chip's shape (GR info: LITTER_NUM_GPCS 8, LITTER_NUM_TPC_PER_GPC 9,
// LITTER_NUM_SM_PER_TPC 2 on the H200's GH100) and the enabled TPCs (SHADER_PIPE_SUB_COUNT: 66 of
// its 72), not which GPC lost which TPC (floor sweeping differs from chip to chip). The model: the
// disabled TPCs are spread as evenly as the GPCs allow, so the H200 has 2 GPCs of 18 SMs and 6 of
// 16 (docs/clusters.md). A hardware rule, so it sits with the class headers: libcuda answers the
// cluster occupancy queries and checks cluster launches with it.
#pragma once

#include "nvtypes.h"

inline constexpr NvU32 NV_GPC_MAX = 8;

struct NvGpcLayout {
  NvU32 gpcs;
  NvU32 sms[NV_GPC_MAX];  // SMs enabled in each GPC
};

// The layout of a GPU of `sms` SMs: GH100's 8 GPCs of up to 9 TPCs of 2 SMs; a GPU of fewer than 16
// SMs (a small simulated one), one GPC of them all.
constexpr NvGpcLayout nv_gpc_layout(NvU32 sms) {
  NvGpcLayout l{};
  if (sms < 16) {
    l.gpcs = 1;
    l.sms[0] = sms;
    return l;
  }
  l.gpcs = NV_GPC_MAX;
  const NvU32 tpcs = sms / 2;
  for (NvU32 g = 0; g < l.gpcs; ++g) l.sms[g] = 2 * (tpcs / l.gpcs + (g < tpcs % l.gpcs ? 1 : 0));
  return l;
}

// Clusters of `cluster_blocks` blocks resident at once when an SM holds `blocks_per_sm` of them:
// each GPC holds whole clusters only (a cluster's blocks may share an SM).
constexpr NvU32 nv_max_active_clusters(const NvGpcLayout& l, NvU32 blocks_per_sm, NvU32 cluster_blocks) {
  if (cluster_blocks == 0) return 0;
  NvU32 total = 0;
  for (NvU32 g = 0; g < l.gpcs; ++g) total += l.sms[g] * blocks_per_sm / cluster_blocks;
  return total;
}

static_assert(nv_gpc_layout(132).sms[0] == 18 && nv_gpc_layout(132).sms[1] == 18 && nv_gpc_layout(132).sms[2] == 16);
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 16) == 8);
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 2) == 66);
