// class/cl2080.h: NV20_SUBDEVICE_0's alloc parameters and the engine types
// (NV2080_ENGINE_TYPE_*) that channel allocations name (OGKM
// src/common/sdk/nvidia/inc/class/cl2080.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "nvtypes.h"

// cl2080.h NV2080_ALLOC_PARAMETERS - NV20_SUBDEVICE_0
typedef struct {
    NvU32 subDeviceId;
} NV2080_ALLOC_PARAMETERS;
static_assert(sizeof(NV2080_ALLOC_PARAMETERS) == 4);

inline constexpr NvU32 NV2080_ENGINE_TYPE_GRAPHICS = 0x1;
inline constexpr NvU32 NV2080_ENGINE_TYPE_COPY0 = 0x9;
