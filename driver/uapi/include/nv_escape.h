// nv_escape.h: the RM escape numbers - the `nr` of the ioctls libcuda makes on /dev/nvidiactl and
// /dev/nvidiaN to reach the resource manager (OGKM src/nvidia/arch/nvalloc/unix/include/
// nv_escape.h). Each request is _IOWR('F', nr, sizeof(params)) (nv-ioctl-numbers.h); the params
// structs are in nvos.h. Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include <cstdint>

#define NV_RM_ESCAPES(X)                           \
    X(NV_ESC_RM_ALLOC_MEMORY, 0x27)                \
    X(NV_ESC_RM_ALLOC_OBJECT, 0x28)                \
    X(NV_ESC_RM_FREE, 0x29)                        \
    X(NV_ESC_RM_CONTROL, 0x2A)                     \
    X(NV_ESC_RM_ALLOC, 0x2B)                       \
    X(NV_ESC_RM_CONFIG_GET, 0x32)                  \
    X(NV_ESC_RM_CONFIG_SET, 0x33)                  \
    X(NV_ESC_RM_DUP_OBJECT, 0x34)                  \
    X(NV_ESC_RM_SHARE, 0x35)                       \
    X(NV_ESC_RM_CONFIG_GET_EX, 0x37)               \
    X(NV_ESC_RM_CONFIG_SET_EX, 0x38)               \
    X(NV_ESC_RM_I2C_ACCESS, 0x39)                  \
    X(NV_ESC_RM_IDLE_CHANNELS, 0x41)               \
    X(NV_ESC_RM_VID_HEAP_CONTROL, 0x4A)            \
    X(NV_ESC_RM_ACCESS_REGISTRY, 0x4D)             \
    X(NV_ESC_RM_MAP_MEMORY, 0x4E)                  \
    X(NV_ESC_RM_UNMAP_MEMORY, 0x4F)                \
    X(NV_ESC_RM_GET_EVENT_DATA, 0x52)              \
    X(NV_ESC_RM_ALLOC_CONTEXT_DMA2, 0x54)          \
    X(NV_ESC_RM_ADD_VBLANK_CALLBACK, 0x56)         \
    X(NV_ESC_RM_MAP_MEMORY_DMA, 0x57)              \
    X(NV_ESC_RM_UNMAP_MEMORY_DMA, 0x58)            \
    X(NV_ESC_RM_BIND_CONTEXT_DMA, 0x59)            \
    X(NV_ESC_RM_EXPORT_OBJECT_TO_FD, 0x5C)         \
    X(NV_ESC_RM_IMPORT_OBJECT_FROM_FD, 0x5D)       \
    X(NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, 0x5E)

#define NV_UAPI_X(name, value) inline constexpr uint32_t name = value;
NV_RM_ESCAPES(NV_UAPI_X)
#undef NV_UAPI_X
