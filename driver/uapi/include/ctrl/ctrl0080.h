// ctrl/ctrl0080.h: the controls of NV01_DEVICE_0 (OGKM ctrl/ctrl0080/ctrl0080gpu.h,
// ctrl0080gr.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "ctrl/ctrlxxxx.h"
#include "nvtypes.h"

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
