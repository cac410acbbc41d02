// nvlimits.h: how many GPUs and subdevices the driver's interfaces size their tables for (OGKM
// src/common/sdk/nvidia/inc/nvlimits.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "nvtypes.h"

inline constexpr NvU32 NV_MAX_DEVICES = 32;    // nvlimits.h
inline constexpr NvU32 NV_MAX_SUBDEVICES = 8;  // nvlimits.h
