// ctrl/ctrlxxxx.h: RM control commands (NV_ESC_RM_CONTROL, NVOS54_PARAMETERS.cmd): how a command
// id is built, the {index, data} pair of every *_GET_INFO list, and the ids minicuda knows, with
// their names (OGKM src/common/sdk/nvidia/inc/ctrl/ctrlxxxx.h and ctrl/ctrlXXXX/*.h). The
// parameter structs are in one header per object class (ctrl0000.h, ctrl0080.h, ctrl2080.h,
// ctrlc36f.h); sizes are checked against the paramsSize word of the RM_CONTROL lines in
// chain_full.txt ("measured"). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "nvtypes.h"

// ctrlxxxx.h: cmd = (class << 16) | (category << 8) | index.
constexpr NvU32 nv_ctrl_cmd_class(NvU32 cmd) { return cmd >> 16; }
constexpr NvU32 nv_ctrl_cmd_category(NvU32 cmd) { return (cmd >> 8) & 0xFFu; }
constexpr NvU32 nv_ctrl_cmd_index(NvU32 cmd) { return cmd & 0xFFu; }

// ctrlxxxx.h NVXXXX_CTRL_XXX_INFO: the {index,data} pair of every *_GET_INFO list.
typedef struct {
    NvU32 index;
    NvU32 data;
} NVXXXX_CTRL_XXX_INFO;
static_assert(sizeof(NVXXXX_CTRL_XXX_INFO) == 8);

// ============================================================================
// Command ids. X(name, value). Only ids verified in the headers or pinned by a
// matching measured paramsSize are listed.
// ============================================================================
#define NV_UAPI_CTRL_CMDS(X)                                          \
    X(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, 0x00000101)           \
    X(NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, 0x00000201)               \
    X(NV0000_CTRL_CMD_GPU_GET_ID_INFO, 0x00000202)                    \
    X(NV0000_CTRL_CMD_GPU_GET_INIT_STATUS, 0x00000203)                \
    X(NV0000_CTRL_CMD_GPU_GET_DEVICE_IDS, 0x00000204)                 \
    X(NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, 0x00000205)                 \
    X(NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, 0x00000214)                 \
    X(NV0000_CTRL_CMD_GPU_ATTACH_IDS, 0x00000215)                     \
    X(NV0000_CTRL_CMD_GPU_DETACH_IDS, 0x00000216)                     \
    X(NV0000_CTRL_CMD_GPU_GET_PCI_INFO, 0x0000021B)                   \
    X(NV0000_CTRL_CMD_GPU_GET_UUID_INFO, 0x00000274)                  \
    X(NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID, 0x00000275)           \
    X(NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE, 0x0000027B)               \
    X(NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS, 0x00000288)          \
    X(NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, 0x00000D01)         \
    X(NV0000_CTRL_CMD_CLIENT_GET_HANDLE_INFO, 0x00000D02)             \
    X(NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY, 0x00000D04)  \
    X(NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, 0x00003D05)       \
    X(NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, 0x00003D06)     \
    X(NV0080_CTRL_CMD_GPU_GET_CLASSLIST, 0x00800201)                  \
    X(NV0080_CTRL_CMD_GR_GET_INFO, 0x00801104)                        \
    X(NV0080_CTRL_CMD_GR_GET_INFO_V2, 0x00801110)                     \
    X(NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY, 0x00801813)             \
    X(NV2080_CTRL_CMD_GPU_GET_INFO_V2, 0x20800102)                    \
    X(NV2080_CTRL_CMD_GPU_GET_NAME_STRING, 0x20800110)                \
    X(NV2080_CTRL_CMD_GPU_GET_SHORT_NAME_STRING, 0x20800111)          \
    X(NV2080_CTRL_CMD_GPU_GET_GID_INFO, 0x2080014A)                   \
    X(NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, 0x20800170)                 \
    X(NV2080_CTRL_CMD_GR_GET_INFO, 0x20801201)                        \
    X(NV2080_CTRL_CMD_GR_GET_GPC_MASK, 0x2080122A)                    \
    X(NV2080_CTRL_CMD_GR_GET_TPC_MASK, 0x2080122B)                    \
    X(NV2080_CTRL_CMD_FB_GET_INFO, 0x20801301)                        \
    X(NV2080_CTRL_CMD_FB_GET_INFO_V2, 0x20801303)                     \
    X(NV2080_CTRL_CMD_MC_GET_ARCH_INFO, 0x20801701)                   \
    X(NV2080_CTRL_CMD_BUS_GET_PCI_INFO, 0x20801801)                   \
    X(NV503C_CTRL_CMD_REGISTER_VA_SPACE, 0x503C0102)                  \
    X(NV503C_CTRL_CMD_REGISTER_VIDMEM, 0x503C0104)                    \
    X(NV503C_CTRL_CMD_UNREGISTER_VIDMEM, 0x503C0105)                  \
    X(NV906F_CTRL_GET_CLASS_ENGINEID, 0x906F0101)                     \
    X(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, 0xA06C0101)                    \
    X(NVA06C_CTRL_CMD_SET_TIMESLICE, 0xA06C0103)                      \
    X(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, 0xC36F0108)

#define NV_UAPI_X(name, value) inline constexpr NvU32 name = value;
NV_UAPI_CTRL_CMDS(NV_UAPI_X)
#undef NV_UAPI_X

// "NV2080_CTRL_CMD_FB_GET_INFO_V2" for 0x20801303; nullptr when unknown.
constexpr const char* nv_ctrl_cmd_name(NvU32 cmd) {
    switch (cmd) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_CTRL_CMDS(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}
