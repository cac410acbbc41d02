// g_allclasses.h: the RM class ids - what NVOS21/NVOS64.hClass names in an NV_ESC_RM_ALLOC (as
// OGKM's generated src/nvidia/generated/g_allclasses.h lists them). The classes the GPU itself
// implements are defined by their class headers in hw/ (class/clc86f.h HOPPER_CHANNEL_GPFIFO_A,
// ...); this table names them too and checks their values. Part of the ioctl ABI
// (minicuda::uapi).
#pragma once

#include "nv_hw_classes.h"
#include "nvtypes.h"

// The classes RM implements in software, and the hardware classes of other GPU generations.
#define NV_RM_CLASSES(X)                             \
    X(NV01_ROOT, 0x00000000)                         \
    X(NV01_ROOT_NON_PRIV, 0x00000001)                \
    X(NV01_MEMORY_SYSTEM, 0x0000003E)                \
    X(NV01_MEMORY_LOCAL_USER, 0x00000040)            \
    X(NV01_ROOT_CLIENT, 0x00000041)                  \
    X(NV01_MEMORY_VIRTUAL, 0x00000070)               \
    X(NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, 0x00000071)  \
    X(NV01_EVENT_KERNEL_CALLBACK, 0x00000078)        \
    X(NV01_EVENT_OS_EVENT, 0x00000079)               \
    X(NV01_DEVICE_0, 0x00000080)                     \
    X(RM_USER_SHARED_DATA, 0x000000DE)               \
    X(NV20_SUBDEVICE_0, 0x00002080)                  \
    X(NV2081_BINAPI, 0x00002081)                     \
    X(NV50_THIRD_PARTY_P2P, 0x0000503C)              \
    X(NV50_MEMORY_VIRTUAL, 0x000050A0)               \
    X(GT200_DEBUGGER, 0x000083DE)                    \
    X(FERMI_CONTEXT_SHARE_A, 0x00009067)             \
    X(GF100_PROFILER, 0x000090CC)                    \
    X(GF100_SUBDEVICE_MASTER, 0x000090E6)            \
    X(FERMI_VASPACE_A, 0x000090F1)                   \
    X(KEPLER_CHANNEL_GROUP_A, 0x0000A06C)            \
    X(VOLTA_CHANNEL_GPFIFO_A, 0x0000C36F)            \
    X(TURING_USERMODE_A, 0x0000C461)                 \
    X(TURING_CHANNEL_GPFIFO_A, 0x0000C46F)           \
    X(AMPERE_USERMODE_A, 0x0000C561)                 \
    X(AMPERE_DMA_COPY_A, 0x0000C6B5)                 \
    X(AMPERE_COMPUTE_A, 0x0000C6C0)                  \
    X(AMPERE_DMA_COPY_B, 0x0000C7B5)                 \
    X(AMPERE_COMPUTE_B, 0x0000C7C0)                  \
    X(BLACKWELL_CHANNEL_GPFIFO_A, 0x0000C96F)        \
    X(ADA_COMPUTE_A, 0x0000C9C0)                     \
    X(NV_CONFIDENTIAL_COMPUTE, 0x0000CB33)           \
    X(BLACKWELL_COMPUTE_A, 0x0000CDC0)

// The classes the simulated GPU implements: defined by their class headers (minicuda::hw).
#define NV_RM_HW_CLASSES(X)                 \
    X(VOLTA_USERMODE_A, 0x0000C361)         \
    X(AMPERE_CHANNEL_GPFIFO_A, 0x0000C56F)  \
    X(HOPPER_USERMODE_A, 0x0000C661)        \
    X(HOPPER_CHANNEL_GPFIFO_A, 0x0000C86F)  \
    X(HOPPER_DMA_COPY_A, 0x0000C8B5)        \
    X(HOPPER_COMPUTE_A, 0x0000CBC0)

#define NV_UAPI_X(name, value) inline constexpr NvU32 name = value;
NV_RM_CLASSES(NV_UAPI_X)
#undef NV_UAPI_X
#define NV_UAPI_X(name, value) static_assert(name == value, #name);
NV_RM_HW_CLASSES(NV_UAPI_X)
#undef NV_UAPI_X
inline constexpr NvU32 NV1_MEMORY_USER = NV01_MEMORY_LOCAL_USER;  // cl0040.h alias
inline constexpr NvU32 NV01_ROOT_USER = NV01_ROOT_CLIENT;         // nvos.h alias
inline constexpr NvU32 NV01_NULL_OBJECT = 0x0;                    // "no handle"

// "FERMI_VASPACE_A" for 0x90F1; nullptr when the class is unknown.
constexpr const char* nv_class_name(NvU32 hClass) {
    switch (hClass) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_RM_CLASSES(NV_UAPI_X)
        NV_RM_HW_CLASSES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}
