// nvstatus.h: NV_STATUS, the result RM writes into the `status` / `rmStatus` field of every RM and
// UVM params struct: the constants and their names and messages, from the one table in
// nvstatuscodes.h (OGKM src/common/sdk/nvidia/inc/nvstatus.h). Part of the ioctl ABI
// (minicuda::uapi).
#pragma once

#include "nvstatuscodes.h"
#include "nvtypes.h"

typedef NvU32 NV_STATUS;

#define NV_UAPI_X(name, value, msg) inline constexpr NV_STATUS name = value;
NV_STATUS_CODES(NV_UAPI_X)
#undef NV_UAPI_X

// "NV_ERR_INVALID_ARGUMENT" for 0x1F; "NV_STATUS_UNKNOWN" for anything else.
constexpr const char* nv_status_name(NV_STATUS s) {
    switch (s) {
#define NV_UAPI_X(name, value, msg) case value: return #name;
        NV_STATUS_CODES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return "NV_STATUS_UNKNOWN";
    }
}
// RM's own message text ("Invalid argument to call"); "Unknown error code!" otherwise.
constexpr const char* nv_status_message(NV_STATUS s) {
    switch (s) {
#define NV_UAPI_X(name, value, msg) case value: return msg;
        NV_STATUS_CODES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return "Unknown error code!";
    }
}
