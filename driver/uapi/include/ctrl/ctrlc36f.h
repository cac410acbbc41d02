// ctrl/ctrlc36f.h: the controls libcuda sends to a channel and its channel group (OGKM
// ctrl/ctrl906f.h, ctrl/ctrla06c.h, ctrl/ctrlc36f.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "ctrl/ctrlxxxx.h"
#include "nvtypes.h"

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
