// nv-ioctl-numa.h: NV_ESC_NUMA_INFO's parameters (OGKM kernel-open/common/inc/nv-ioctl-numa.h).
// Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "nvtypes.h"

// NV_ESC_NUMA_INFO (nv-ioctl-numa.h, 535+ layout with use_auto_online).
// Measured on H200: nid=-1, status=0, memblock_size=0x40000000.
inline constexpr NvU32 NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES = 64;
typedef struct offline_addresses {
    NvU64 addresses[NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES];
    NvU32 numEntries;
} nv_offline_addresses_t;
typedef struct nv_ioctl_numa_info {
    NvS32                  nid;
    NvS32                  status;
    NvU64                  memblock_size;
    NvU64                  numa_mem_addr;
    NvU64                  numa_mem_size;
    NvU8                   use_auto_online;
    nv_offline_addresses_t offline_addresses;
} nv_ioctl_numa_info_t;
static_assert(sizeof(nv_ioctl_numa_info_t) == 560, "measured NUMA_INFO size");
inline constexpr NvS32 NV_IOCTL_NUMA_STATUS_DISABLED = 0;
