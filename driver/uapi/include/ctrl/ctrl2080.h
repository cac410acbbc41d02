// ctrl/ctrl2080.h: the controls of NV20_SUBDEVICE_0 (OGKM ctrl/ctrl2080/ctrl2080gpu.h,
// ctrl2080gr.h, ctrl2080fb.h, ctrl2080mc.h, ctrl2080bus.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "ctrl/ctrl0080.h"
#include "ctrl/ctrlxxxx.h"
#include "nvtypes.h"

typedef NVXXXX_CTRL_XXX_INFO NV2080_CTRL_GPU_INFO;
inline constexpr NvU32 NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE = 0x46;  // implied by measured 0x234
typedef struct {
    NvU32                gpuInfoListSize;
    NV2080_CTRL_GPU_INFO gpuInfoList[NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_GPU_GET_INFO_V2_PARAMS;
static_assert(sizeof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS) == 0x234, "measured");

inline constexpr NvU32 NV2080_GPU_MAX_NAME_STRING_LENGTH = 0x40;
inline constexpr NvU32 NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII = 0;
inline constexpr NvU32 NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE = 1;
typedef struct {
    NvU32 gpuNameStringFlags;  // in: TYPE_ASCII / TYPE_UNICODE
    union {
        NvU8  ascii[NV2080_GPU_MAX_NAME_STRING_LENGTH];    // "NVIDIA H200"
        NvU16 unicode[NV2080_GPU_MAX_NAME_STRING_LENGTH];
    } gpuNameString;
} NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS;
static_assert(sizeof(NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS) == 0x84, "measured");

typedef struct {
    NvU8 gpuShortNameString[NV2080_GPU_MAX_NAME_STRING_LENGTH];
} NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS;
static_assert(sizeof(NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS) == 0x40, "measured");

// GID = the GPU UUID. flags: FORMAT 1:0 (ASCII 0 -> "GPU-xxxxxxxx-...", BINARY 2
// -> 16 raw bytes), TYPE 2:2 (SHA1 0, SHA256 1).
inline constexpr NvU32 NV2080_GPU_MAX_GID_LENGTH = 0x100;
inline constexpr NvU32 NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_ASCII = 0;
inline constexpr NvU32 NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY = 2;
typedef struct {
    NvU32 index;
    NvU32 flags;
    NvU32 length;  // out: bytes used in data[]
    NvU8  data[NV2080_GPU_MAX_GID_LENGTH];
} NV2080_CTRL_GPU_GET_GID_INFO_PARAMS;
static_assert(sizeof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS) == 0x10C, "measured");

inline constexpr NvU32 NV2080_GPU_MAX_ENGINES_LIST_SIZE = 0x54;
typedef struct {
    NvU32 engineCount;
    NvU32 engineList[NV2080_GPU_MAX_ENGINES_LIST_SIZE];  // NV2080_ENGINE_TYPE_*
} NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS;
static_assert(sizeof(NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS) == 0x154, "measured");

typedef struct {
    NvU32                     grInfoListSize;
    NvP64                     grInfoList;   // NV2080_CTRL_GR_INFO[grInfoListSize]
    NV2080_CTRL_GR_ROUTE_INFO grRouteInfo;
} NV2080_CTRL_GR_GET_INFO_PARAMS;
static_assert(sizeof(NV2080_CTRL_GR_GET_INFO_PARAMS) == 0x20, "measured");

typedef struct {
    NV2080_CTRL_GR_ROUTE_INFO grRouteInfo;
    NvU32                     gpcMask;  // out
} NV2080_CTRL_GR_GET_GPC_MASK_PARAMS;
static_assert(sizeof(NV2080_CTRL_GR_GET_GPC_MASK_PARAMS) == 0x18, "measured");
typedef struct {
    NV2080_CTRL_GR_ROUTE_INFO grRouteInfo;
    NvU32                     gpcId;    // in (libcuda asks once per GPC: 8 on H200)
    NvU32                     tpcMask;  // out
} NV2080_CTRL_GR_GET_TPC_MASK_PARAMS;
static_assert(sizeof(NV2080_CTRL_GR_GET_TPC_MASK_PARAMS) == 0x18, "measured");

// FB info. Sizes are reported in KiB. The 580-series list holds 0x80 entries
// (measured 0x404); older headers had 0x39.
typedef NVXXXX_CTRL_XXX_INFO NV2080_CTRL_FB_INFO;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_MAX_LIST_SIZE = 0x80;
typedef struct {
    NvU32               fbInfoListSize;
    NV2080_CTRL_FB_INFO fbInfoList[NV2080_CTRL_FB_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_FB_GET_INFO_V2_PARAMS;
static_assert(sizeof(NV2080_CTRL_FB_GET_INFO_V2_PARAMS) == 0x404, "measured");
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_BAR1_SIZE = 0x05;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_RAM_SIZE = 0x07;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_TOTAL_RAM_SIZE = 0x08;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_HEAP_SIZE = 0x09;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_MAPPABLE_HEAP_SIZE = 0x0A;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_BUS_WIDTH = 0x0B;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_RAM_TYPE = 0x0D;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_HEAP_BASE_KB = 0x11;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE = 0x16;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_FBP_COUNT = 0x19;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_L2CACHE_SIZE = 0x1B;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_BAR1_AVAIL_SIZE = 0x1D;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_HEAP_START = 0x1E;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_USABLE_RAM_SIZE = 0x20;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_INDEX_IS_ZERO_FB = 0x36;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_RAM_TYPE_HBM2 = 0x0F;
inline constexpr NvU32 NV2080_CTRL_FB_INFO_RAM_TYPE_HBM3 = 0x14;

typedef struct {
    NvU32 architecture;    // NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*
    NvU32 implementation;  // NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_*
    NvU32 revision;
    NvU8  subRevision;
} NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS;
static_assert(sizeof(NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS) == 0x10, "measured");
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GV100 = 0x140;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_TU100 = 0x160;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GA100 = 0x170;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GH100 = 0x180;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_AD100 = 0x190;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB100 = 0x1A0;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB200 = 0x1B0;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GA100 = 0x0;
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GH100 = 0x0;  // H100/H200 = GH100
inline constexpr NvU32 NV2080_CTRL_MC_ARCH_INFO_SUBREVISION_NO_SUBREVISION = 0x0;

typedef struct {
    NvU32 pciDeviceId;     // (device << 16) | vendor, e.g. 0x233510de
    NvU32 pciSubSystemId;
    NvU32 pciRevisionId;
    NvU32 pciExtDeviceId;
} NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS;
static_assert(sizeof(NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS) == 0x10, "measured");
