// nv-ioctl-numbers.h: how an nvidia.ko ioctl request is encoded, and the escapes of nvidia.ko
// itself (OGKM kernel-open/common/inc/nv-ioctl-numbers.h). The RM escapes are in nv_escape.h;
// nv_escape_name() names both. Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include <cstdint>

#include "nv_escape.h"

// The request encoding of Linux asm-generic/ioctl.h (nv-ioctl-numbers.h:33-34):
//   request = dir<<30 | size<<16 | type<<8 | nr    (size: 14 bits)
inline constexpr uint32_t NV_IOC_NONE = 0u;
inline constexpr uint32_t NV_IOC_WRITE = 1u;
inline constexpr uint32_t NV_IOC_READ = 2u;
inline constexpr uint32_t NV_IOC_SIZEBITS = 14u;
inline constexpr uint32_t NV_IOC_SIZE_MAX = (1u << NV_IOC_SIZEBITS) - 1u;  // 16383

constexpr uint32_t nv_ioc(uint32_t dir, uint32_t type, uint32_t nr, uint32_t size) {
    return (dir << 30) | ((size & NV_IOC_SIZE_MAX) << 16) | ((type & 0xFFu) << 8) | (nr & 0xFFu);
}
constexpr uint32_t nv_ioc_dir(uint32_t req) { return req >> 30; }
constexpr uint32_t nv_ioc_size(uint32_t req) { return (req >> 16) & NV_IOC_SIZE_MAX; }
constexpr uint32_t nv_ioc_type(uint32_t req) { return (req >> 8) & 0xFFu; }
constexpr uint32_t nv_ioc_nr(uint32_t req) { return req & 0xFFu; }

inline constexpr uint32_t NV_IOCTL_MAGIC = 'F';
inline constexpr uint32_t NV_IOCTL_BASE = 200;

// Every nvidia.ko request is _IOWR('F', nr, sizeof(params)).
constexpr uint32_t NV_IOWR(uint32_t nr, uint32_t size) {
    return nv_ioc(NV_IOC_READ | NV_IOC_WRITE, NV_IOCTL_MAGIC, nr, size);
}
static_assert(NV_IOWR(0x2b, 48) == 0xc030462bu, "measured RM_ALLOC request");
static_assert(NV_IOWR(0x2a, 32) == 0xc020462au, "measured RM_CONTROL request");
static_assert(NV_IOWR(0xd6, 8) == 0xc00846d6u, "measured SYS_PARAMS request");
static_assert(NV_IOWR(0xc8, 2304) == 0xc90046c8u, "measured CARD_INFO request");

// The escapes of nvidia.ko itself (NV_IOCTL_BASE + n; nv-ioctl-numbers.h, nv-ioctl-numa.h); their
// params are in nv-ioctl.h and nv-ioctl-numa.h.
#define NV_IOCTL_ESCAPES(X)             \
    X(NV_ESC_CARD_INFO, 200)            \
    X(NV_ESC_REGISTER_FD, 201)          \
    X(NV_ESC_ALLOC_OS_EVENT, 206)       \
    X(NV_ESC_FREE_OS_EVENT, 207)        \
    X(NV_ESC_STATUS_CODE, 209)          \
    X(NV_ESC_CHECK_VERSION_STR, 210)    \
    X(NV_ESC_IOCTL_XFER_CMD, 211)       \
    X(NV_ESC_ATTACH_GPUS_TO_FD, 212)    \
    X(NV_ESC_QUERY_DEVICE_INTR, 213)    \
    X(NV_ESC_SYS_PARAMS, 214)           \
    X(NV_ESC_NUMA_INFO, 215)            \
    X(NV_ESC_SET_NUMA_STATUS, 216)      \
    X(NV_ESC_EXPORT_TO_DMABUF_FD, 217)  \
    X(NV_ESC_WAIT_OPEN_COMPLETE, 218)

#define NV_UAPI_X(name, value) inline constexpr uint32_t name = value;
NV_IOCTL_ESCAPES(NV_UAPI_X)
#undef NV_UAPI_X

// Every escape nvidia.ko answers, RM's and its own.
#define NV_UAPI_ESCAPES(X) NV_RM_ESCAPES(X) NV_IOCTL_ESCAPES(X)

// "NV_ESC_RM_ALLOC" for 0x2B; nullptr when nr is not a known escape.
constexpr const char* nv_escape_name(uint32_t nr) {
    switch (nr) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_ESCAPES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}
