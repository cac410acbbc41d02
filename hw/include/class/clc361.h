// class/clc361.h: VOLTA_USERMODE_A (0xC361), the usermode register page. A driver maps it into
// its process (64 KiB) and rings a channel's doorbell by storing the channel's work submit token
// at NOTIFY_CHANNEL_PENDING; the GPU's host interface then schedules that channel. Later usermode
// classes (class/clc661.h) keep this layout. Values from NVIDIA/open-gpu-kernel-modules
// src/common/sdk/nvidia/inc/class/clc361.h.
#pragma once

#include "nvtypes.h"

inline constexpr NvU32 VOLTA_USERMODE_A = 0x0000C361;

inline constexpr NvU32 NVC361_NV_USERMODE__SIZE = 65536;
inline constexpr NvU32 NVC361_NOTIFY_CHANNEL_PENDING = 0x90;
