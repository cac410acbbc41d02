// nv_uapi_ctrl.h - RM control commands (NV_ESC_RM_CONTROL / NVOS54_PARAMETERS.cmd)
// and their parameter structs. Part of minicuda::uapi; include "nv_uapi.h".
// Source: OGKM src/common/sdk/nvidia/inc/ctrl/ctrlXXXX/*.h; sizes checked against
// the paramsSize word of RM_CONTROL lines in chain_full.txt ("measured").
#pragma once
#include "nv_uapi.h"

// ctrlxxxx.h: cmd = (class << 16) | (category << 8) | index.
constexpr NvU32 nv_ctrl_cmd_class(NvU32 cmd) { return cmd >> 16; }
constexpr NvU32 nv_ctrl_cmd_category(NvU32 cmd) { return (cmd >> 8) & 0xFFu; }
constexpr NvU32 nv_ctrl_cmd_index(NvU32 cmd) { return cmd & 0xFFu; }

// ctrlxxxx.h NVXXXX_CTRL_XXX_INFO: the {index,data} pair of every *_GET_INFO list.
typedef struct {
    NvU32 index;
    NvU32 data;
} NVXXXX_CTRL_XXX_INFO;
static_assert(sizeof(NVXXXX_CTRL_XXX_INFO) == 8);

// ============================================================================
// Command ids. X(name, value). Only ids verified in the headers or pinned by a
// matching measured paramsSize are listed.
// ============================================================================
#define NV_UAPI_CTRL_CMDS(X)                                          \
    X(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, 0x00000101)           \
    X(NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, 0x00000201)               \
    X(NV0000_CTRL_CMD_GPU_GET_ID_INFO, 0x00000202)                    \
    X(NV0000_CTRL_CMD_GPU_GET_INIT_STATUS, 0x00000203)                \
    X(NV0000_CTRL_CMD_GPU_GET_DEVICE_IDS, 0x00000204)                 \
    X(NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, 0x00000205)                 \
    X(NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, 0x00000214)                 \
    X(NV0000_CTRL_CMD_GPU_ATTACH_IDS, 0x00000215)                     \
    X(NV0000_CTRL_CMD_GPU_DETACH_IDS, 0x00000216)                     \
    X(NV0000_CTRL_CMD_GPU_GET_PCI_INFO, 0x0000021B)                   \
    X(NV0000_CTRL_CMD_GPU_GET_UUID_INFO, 0x00000274)                  \
    X(NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID, 0x00000275)           \
    X(NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE, 0x0000027B)               \
    X(NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS, 0x00000288)          \
    X(NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, 0x00000D01)         \
    X(NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO, 0x00000D02)             \
    X(NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY, 0x00000D04)  \
    X(NV0080_CTRL_CMD_GPU_GET_CLASSLIST, 0x00800201)                  \
    X(NV0080_CTRL_CMD_GR_GET_INFO, 0x00801104)                        \
    X(NV0080_CTRL_CMD_GR_GET_INFO_V2, 0x00801110)                     \
    X(NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY, 0x00801813)             \
    X(NV2080_CTRL_CMD_GPU_GET_INFO_V2, 0x20800102)                    \
    X(NV2080_CTRL_CMD_GPU_GET_NAME_STRING, 0x20800110)                \
    X(NV2080_CTRL_CMD_GPU_GET_SHORT_NAME_STRING, 0x20800111)          \
    X(NV2080_CTRL_CMD_GPU_GET_GID_INFO, 0x2080014A)                   \
    X(NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, 0x20800170)                 \
    X(NV2080_CTRL_CMD_GR_GET_INFO, 0x20801201)                        \
    X(NV2080_CTRL_CMD_GR_GET_GPC_MASK, 0x2080122A)                    \
    X(NV2080_CTRL_CMD_GR_GET_TPC_MASK, 0x2080122B)                    \
    X(NV2080_CTRL_CMD_FB_GET_INFO, 0x20801301)                        \
    X(NV2080_CTRL_CMD_FB_GET_INFO_V2, 0x20801303)                     \
    X(NV2080_CTRL_CMD_MC_GET_ARCH_INFO, 0x20801701)                   \
    X(NV2080_CTRL_CMD_BUS_GET_PCI_INFO, 0x20801801)                   \
    X(NV503C_CTRL_CMD_REGISTER_VA_SPACE, 0x503C0102)                  \
    X(NV503C_CTRL_CMD_REGISTER_VIDMEM, 0x503C0104)                    \
    X(NV503C_CTRL_CMD_UNREGISTER_VIDMEM, 0x503C0105)                  \
    X(NV906F_CTRL_GET_CLASS_ENGINEID, 0x906F0101)                     \
    X(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, 0xA06C0101)                    \
    X(NVA06C_CTRL_CMD_SET_TIMESLICE, 0xA06C0103)                      \
    X(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, 0xC36F0108)

#define NV_UAPI_X(name, value) inline constexpr NvU32 name = value;
NV_UAPI_CTRL_CMDS(NV_UAPI_X)
#undef NV_UAPI_X

// "NV2080_CTRL_CMD_FB_GET_INFO_V2" for 0x20801303; nullptr when unknown.
constexpr const char* nv_ctrl_cmd_name(NvU32 cmd) {
    switch (cmd) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_CTRL_CMDS(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}

// ============================================================================
// NV01_ROOT (client) controls - ctrl0000system.h, ctrl0000gpu.h, ctrl0000client.h
// ============================================================================
// ctrl0000system.h: the caller supplies three string buffers of sizeOfStrings.
typedef struct {
    NvU32 sizeOfStrings;
    NvP64 pDriverVersionBuffer;  // e.g. "580.xx.xx"
    NvP64 pVersionBuffer;
    NvP64 pTitleBuffer;
    NvU32 changelistNumber;
    NvU32 officialChangelistNumber;
} NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS;
static_assert(sizeof(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS) == 0x28, "measured");

inline constexpr NvU32 NV0000_CTRL_GPU_MAX_ATTACHED_GPUS = 32;
inline constexpr NvU32 NV0000_CTRL_GPU_MAX_PROBED_GPUS = NV_MAX_DEVICES;
inline constexpr NvU32 NV0000_CTRL_GPU_INVALID_ID = 0xFFFFFFFFu;   // ends the gpuIds[] lists
inline constexpr NvU32 NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS = 0x0000FFFFu;
inline constexpr NvU32 NV0000_CTRL_GPU_MAX_SZNAME = 128;
inline constexpr NvS32 NV0000_CTRL_NO_NUMA_NODE = -1;
inline constexpr NvU32 NV0000_GPU_MAX_GID_LENGTH = 0x100;

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
} NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS) == 0x80, "measured");

typedef struct {  // deprecated V1, still issued by libcuda (0x202)
    NvU32 gpuId;
    NvU32 gpuFlags;
    NvU32 deviceInstance;
    NvU32 subDeviceInstance;
    NvP64 szName;     // user buffer of NV0000_CTRL_GPU_MAX_SZNAME
    NvU32 sliStatus;
    NvU32 boardId;
    NvU32 gpuInstance;
    NvS32 numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS) == 0x28, "measured");

typedef struct {
    NvU32 gpuId;              // in
    NvU32 gpuFlags;           // out: NV0000_CTRL_GPU_ID_INFO_* bits
    NvU32 deviceInstance;     // out: use as NV0080_ALLOC_PARAMETERS.deviceId
    NvU32 subDeviceInstance;  // out: use as NV2080_ALLOC_PARAMETERS.subDeviceId
    NvU32 sliStatus;
    NvU32 boardId;
    NvU32 gpuInstance;
    NvS32 numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS) == 0x20, "measured");
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_IN_USE_BIT = 1u << 0;
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_BOOT_MASTER_BIT = 1u << 3;
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_ATS_ENABLED_BIT = 1u << 6;

typedef struct {
    NvU32 gpuId;
    NvU32 status;
} NV0000_CTRL_GPU_GET_INIT_STATUS_PARAMS;
typedef struct {
    NvU32 deviceIds;  // bitmask of valid deviceId values
} NV0000_CTRL_GPU_GET_DEVICE_IDS_PARAMS;

// 0x214. The header we could read has two tables (256 B); the CUDA 13 / 580-series
// driver sends 0x180 = 384 B, i.e. one more NvU32[32] table whose name we did not
// see. It is kept as `reserved` so the struct matches the measured size.
typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
    NvU32 excludedGpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
    NvU32 reserved[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
} NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS) == 0x180, "measured");

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];  // or {ATTACH_ALL_PROBED_IDS, INVALID..}
    NvU32 failedId;
} NV0000_CTRL_GPU_ATTACH_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_ATTACH_IDS_PARAMS) == 0x84, "measured");

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
} NV0000_CTRL_GPU_DETACH_IDS_PARAMS;

typedef struct {
    NvU32 gpuId;
    NvU32 domain;
    NvU16 bus;
    NvU16 slot;
} NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS) == 12);

typedef struct {
    NvU8  gpuUuid[NV0000_GPU_MAX_GID_LENGTH];  // in
    NvU32 flags;
    NvU32 gpuId;
    NvU32 deviceInstance;
    NvU32 subdeviceInstance;
} NV0000_CTRL_GPU_GET_UUID_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_UUID_INFO_PARAMS) == 272);

typedef struct {
    NvU32 gpuId;
    NvU32 flags;                               // FORMAT 1:0 (ASCII 0, BINARY 2), TYPE 2:2 (SHA1 0)
    NvU8  gpuUuid[NV0000_GPU_MAX_GID_LENGTH];  // out
    NvU32 uuidStrLen;
} NV0000_CTRL_GPU_GET_UUID_FROM_GPU_ID_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_UUID_FROM_GPU_ID_PARAMS) == 268);

typedef struct {
    NvU32 enableMask;  // NV0000_CTRL_GPU_FLAGS_MEMOP_ENABLE
} NV0000_CTRL_GPU_GET_MEMOP_ENABLE_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_MEMOP_ENABLE_PARAMS) == 4, "measured");
inline constexpr NvU32 NV0000_CTRL_GPU_FLAGS_MEMOP_ENABLE = 0x1;

inline constexpr NvU32 NV0000_CTRL_GPU_MAX_ACTIVE_DEVICES = 256;
typedef struct {
    NvU32 gpuId;
    NvU32 gpuInstanceId;      // NV0000_CTRL_GPU_INVALID_ID when not in MIG mode
    NvU32 computeInstanceId;  // idem
} NV0000_CTRL_GPU_ACTIVE_DEVICE;
typedef struct {
    NvU32                         numDevices;
    NV0000_CTRL_GPU_ACTIVE_DEVICE devices[NV0000_CTRL_GPU_MAX_ACTIVE_DEVICES];
} NV0000_CTRL_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS) == 0xC04, "measured");

typedef struct {
    NvHandle hObject;        // in: memory object
    NvU32    mapFlags;       // in
    NvU32    addrSpaceType;  // out: NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_*
} NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS;
static_assert(sizeof(NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS) == 0xC, "measured");
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_INVALID = 0;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM = 1;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM = 2;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_REGMEM = 3;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_FABRIC = 4;

// ============================================================================
// NV01_DEVICE_0 controls - ctrl0080gpu.h, ctrl0080gr.h
// ============================================================================
typedef struct {
    NvU32 numClasses;  // in/out; call with classList = 0 to get the count
    NvP64 classList;   // NvU32[numClasses]
} NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS;
static_assert(sizeof(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS) == 16);

// GR info (ctrl0080gr.h; ctrl2080gr.h re-exports every index as NV2080_...).
typedef NVXXXX_CTRL_XXX_INFO NV2080_CTRL_GR_INFO;
typedef struct {
    NvU32 flags;
    NvU64 route;
} NV2080_CTRL_GR_ROUTE_INFO;  // MIG routing; all zero = default GR engine
static_assert(sizeof(NV2080_CTRL_GR_ROUTE_INFO) == 16);
// Index values. RM has no single "number of SMs" index: SMs = enabled TPCs
// (SHADER_PIPE_SUB_COUNT, or the popcount of the GR_GET_TPC_MASK results) times
// LITTER_NUM_SM_PER_TPC. H200: SM_VERSION 9.0, 64 warps/SM, 2 SMs/TPC, 132 SMs.
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_COUNT = 0x07;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_THREAD_STACK_SCALING_FACTOR = 0x08;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_SHADER_PIPE_SUB_COUNT = 0x09;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_SM_REG_BANK_COUNT = 0x0A;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_SM_REG_BANK_REG_COUNT = 0x0B;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_SM_VERSION = 0x0C;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM = 0x0D;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_MAX_THREADS_PER_WARP = 0x0E;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_MAX_SP_PER_SM = 0x13;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS = 0x14;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_FBPS = 0x15;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC = 0x17;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_GPU_CORE_COUNT = 0x1D;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC = 0x20;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_RT_CORE_COUNT = 0x22;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_TENSOR_CORE_COUNT = 0x23;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_MAX_SUBCONTEXT_COUNT = 0x2C;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_INDEX_MAX = 0x39;
inline constexpr NvU32 NV2080_CTRL_GR_INFO_MAX_SIZE = 0x3A;

// ============================================================================
// NV20_SUBDEVICE_0 controls - ctrl2080gpu.h, ctrl2080gr.h, ctrl2080fb.h,
// ctrl2080mc.h, ctrl2080bus.h
// ============================================================================
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

// ============================================================================
// Channel / TSG controls - ctrl906f.h, ctrla06c.h, ctrlc36f.h
// ============================================================================
typedef struct {
    NvHandle hObject;        // engine object in the channel (compute / copy)
    NvU32    classEngineID;
    NvU32    classID;
    NvU32    engineID;
} NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS;
static_assert(sizeof(NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS) == 0x10, "measured");

typedef struct {
    NvBool bEnable;      // 1 = put the TSG on the runlist
    NvBool bSkipSubmit;
    NvBool bSkipEnable;
} NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS;
static_assert(sizeof(NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS) == 3, "measured");

typedef struct {
    NvU64 timesliceUs;
} NVA06C_CTRL_TIMESLICE_PARAMS;
static_assert(sizeof(NVA06C_CTRL_TIMESLICE_PARAMS) == 8, "measured");

// Issued on each GPFIFO channel; the token is what user space writes to the
// doorbell (HOPPER_USERMODE_A + NVC361_NOTIFY_CHANNEL_PENDING).
typedef struct {
    NvU32 workSubmitToken;
} NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS;
static_assert(sizeof(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS) == 4, "measured");
