// nv_sm_exception.h: why an SM stopped a kernel, as the GPU reports it to the kernel module.
#pragma once

#include "nvtypes.h"

// A kernel error other than an MMU fault is a graphics exception (Xid 13,
// ROBUST_CHANNEL_GR_EXCEPTION); RM finds which in the SM's warp error status register. The real
// ESR codes are in non-public hardware headers; these are minicuda's, written to the error
// notifier's info16 next to the Xid in info32.
inline constexpr NvU16 NV_SM_EXCEPTION_NONE = 0;
inline constexpr NvU16 NV_SM_EXCEPTION_MISALIGNED_ADDR = 1;  // -> CUDA_ERROR_MISALIGNED_ADDRESS
inline constexpr NvU16 NV_SM_EXCEPTION_ASSERT = 2;           // -> CUDA_ERROR_ASSERT
inline constexpr NvU16 NV_SM_EXCEPTION_TRAP = 3;             // -> CUDA_ERROR_LAUNCH_FAILED
inline constexpr NvU16 NV_SM_EXCEPTION_ILLEGAL_INSTR = 4;    // -> CUDA_ERROR_ILLEGAL_INSTRUCTION
inline constexpr NvU16 NV_SM_EXCEPTION_STACK_OVERFLOW = 5;   // -> CUDA_ERROR_LAUNCH_FAILED
inline constexpr NvU16 NV_SM_EXCEPTION_BAD_LAUNCH = 6;       // a QMD or code record the SM rejects
