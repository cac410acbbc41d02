// class/clc661.h: HOPPER_USERMODE_A (0xC661), the H200's usermode page (the doorbell). Its
// registers are those of VOLTA_USERMODE_A (class/clc361.h, included here). Value from
// NVIDIA/open-gpu-kernel-modules src/common/sdk/nvidia/inc/class/clc661.h.
#pragma once

#include "class/clc361.h"

inline constexpr NvU32 HOPPER_USERMODE_A = 0x0000C661;
