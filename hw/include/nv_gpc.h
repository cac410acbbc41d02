// nv_gpc.h: how the SMs are grouped into GPCs (graphics processing clusters), which decides where a
// thread block cluster may run: the GPU places every block of a cluster on the SMs of one GPC, all
// at once. RM reports the chip's shape (GR info: LITTER_NUM_GPCS 8, LITTER_NUM_TPC_PER_GPC 9,
// LITTER_NUM_SM_PER_TPC 2 on the H200's GH100) and the enabled TPCs (SHADER_PIPE_SUB_COUNT: 66 of
// its 72), not which GPC lost which TPC (floor sweeping differs from chip to chip). The model: the
// H200's 132 SMs sit in GPCs of 18, 18, 18, 18, 18, 18, 16 and 8 SMs, the layout its answers to
// cudaOccupancyMaxActiveClusters imply (tests/data/h200/clusters); another SM count has its disabled
// TPCs spread as evenly as the GPCs allow (docs/clusters.md). A hardware rule, so it sits with the
// class headers: libcuda answers the cluster occupancy queries and checks cluster launches with it.
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
  if (sms == 132) {  // the H200
    const NvU32 h200[NV_GPC_MAX] = {18, 18, 18, 18, 18, 18, 16, 8};
    for (NvU32 g = 0; g < l.gpcs; ++g) l.sms[g] = h200[g];
    return l;
  }
  const NvU32 tpcs = sms / 2;
  for (NvU32 g = 0; g < l.gpcs; ++g) l.sms[g] = 2 * (tpcs / l.gpcs + (g < tpcs % l.gpcs ? 1 : 0));
  return l;
}

// Clusters of `cluster_blocks` blocks resident at once when an SM holds `blocks_per_sm` of them:
// each GPC holds whole clusters only, and the blocks of a cluster sit on different SMs, so a GPC of
// s SMs holds floor(s / cluster_blocks) clusters per block an SM holds.
constexpr NvU32 nv_max_active_clusters(const NvGpcLayout& l, NvU32 blocks_per_sm, NvU32 cluster_blocks) {
  if (cluster_blocks == 0) return 0;
  NvU32 total = 0;
  for (NvU32 g = 0; g < l.gpcs; ++g) total += l.sms[g] / cluster_blocks * blocks_per_sm;
  return total;
}

// The H200's answers with one block per SM (tests/data/h200/clusters/probe_clusters.txt, occ.*.full).
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 2) == 66);
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 4) == 30);
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 8) == 15);
static_assert(nv_max_active_clusters(nv_gpc_layout(132), 1, 16) == 7);
