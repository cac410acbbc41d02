// nvtypes.h: the fixed-width types every NVIDIA interface is written in, the hardware's class
// headers (class/) and the driver's ioctl ABI (driver/uapi) alike. As OGKM's
// src/common/sdk/nvidia/inc/nvtypes.h, for x86-64 (LP64).
#pragma once

#include <cstddef>
#include <cstdint>

typedef uint8_t NvU8;
typedef uint16_t NvU16;
typedef uint32_t NvU32;
typedef uint64_t NvU64;
typedef int8_t NvS8;
typedef int16_t NvS16;
typedef int32_t NvS32;
typedef int64_t NvS64;
typedef uint8_t NvBool;    // NV_TRUE / NV_FALSE
typedef uint32_t NvV32;    // a 32-bit "value": class ids, flags, status
typedef uint32_t NvHandle; // an RM object handle

// NvP64: a user pointer carried as an 8-byte-aligned 64-bit integer, so that a struct has the
// same layout for 32- and 64-bit callers (NV_ALIGN_BYTES(8)).
typedef uint64_t NvP64;
static_assert(alignof(NvP64) == 8 && alignof(NvU64) == 8, "x86-64 LP64 assumed");

inline constexpr NvBool NV_TRUE = 1;
inline constexpr NvBool NV_FALSE = 0;

inline NvP64 nv_ptr_to_p64(const void* p) {
    return static_cast<NvP64>(reinterpret_cast<uintptr_t>(p));
}
template <class T>
inline T* nv_p64_to_ptr(NvP64 v) {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(v));
}
