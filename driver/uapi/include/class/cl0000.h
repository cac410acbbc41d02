// class/cl0000.h: NV01_ROOT, the client object, and its alloc parameters (OGKM
// src/common/sdk/nvidia/inc/class/cl0000.h). Part of the ioctl ABI (minicuda::uapi); the class
// id is in g_allclasses.h.
#pragma once

#include "nvtypes.h"

// cl0000.h NV0000_ALLOC_PARAMETERS - client (optional; libcuda passes none)
inline constexpr NvU32 NV_PROC_NAME_MAX_LENGTH = 100;
typedef struct {
    NvHandle hClient;   // requested client handle (must stay first)
    NvU32    processID;
    char     processName[NV_PROC_NAME_MAX_LENGTH];
    NvP64    pOsPidInfo;
} NV0000_ALLOC_PARAMETERS;
static_assert(sizeof(NV0000_ALLOC_PARAMETERS) == 120);
