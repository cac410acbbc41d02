// class/cl0080.h: NV01_DEVICE_0's alloc parameters (OGKM
// src/common/sdk/nvidia/inc/class/cl0080.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "nvtypes.h"

// cl0080.h NV0080_ALLOC_PARAMETERS - NV01_DEVICE_0
inline constexpr NvU32 NV_DEVICE_ALLOCATION_FLAGS_NONE = 0x0;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_FLAGS_VASPACE_SIZE = 0x8;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_OPTIONAL_MULTIPLE_VASPACES = 0;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_SINGLE_VASPACE = 1;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES = 2;
typedef struct {
    NvU32    deviceId;       // GPU index (NV0000 GET_ID_INFO deviceInstance)
    NvHandle hClientShare;
    NvHandle hTargetClient;
    NvHandle hTargetDevice;
    NvV32    flags;          // NV_DEVICE_ALLOCATION_FLAGS_*
    NvU64    vaSpaceSize;
    NvU64    vaStartInternal;
    NvU64    vaLimitInternal;
    NvV32    vaMode;         // NV_DEVICE_ALLOCATION_VAMODE_*
} NV0080_ALLOC_PARAMETERS;
static_assert(sizeof(NV0080_ALLOC_PARAMETERS) == 56);
