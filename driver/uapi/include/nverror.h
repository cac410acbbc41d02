// nverror.h: how RM reports a channel's error to user space: the Xid codes it writes into the
// error notifier's info32 (OGKM src/common/sdk/nvidia/inc/nverror.h), and minicuda's fault record
// beside the notifier. Part of the ioctl ABI (minicuda::uapi): nvidia.ko writes them, libcuda
// reads them.
#pragma once

#include "nvtypes.h"

inline constexpr NvU32 ROBUST_CHANNEL_GR_EXCEPTION = 13;
inline constexpr NvU32 ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT = 31;
inline constexpr NvU32 ROBUST_CHANNEL_CONTAINED_ERROR = 94;

// minicuda's fault record, written by RM next to a channel's error notifier (at
// NV_MINICUDA_FAULT_RECORD_OFFSET of the notifier page) together with it. The real RM keeps this
// for NV906F_CTRL_CMD_GET_MMU_FAULT_INFO and the Xid line of the kernel log; here libcuda reads
// it to report which kernel, block, thread and address faulted.
typedef struct {
    NvU64 address;      // the faulting GPU virtual address (0 if not an address fault)
    NvU32 xid;          // as in info32
    NvU16 smException;  // NV_SM_EXCEPTION_* (nv_sm_exception.h), 0 for MMU faults
    NvU16 write;        // 1: the access was a write
    char  what[1008];   // one line: "MMU fault: kernel K block (x,y,z) thread (x,y,z): ..."
} NvMinicudaFaultRecord;
static_assert(sizeof(NvMinicudaFaultRecord) == 1024);
inline constexpr NvU32 NV_MINICUDA_FAULT_RECORD_OFFSET = 2048;
