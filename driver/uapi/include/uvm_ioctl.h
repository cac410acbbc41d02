// uvm_ioctl.h: the /dev/nvidia-uvm ioctl ABI (nvidia-uvm.ko). Part of the ioctl ABI
// (minicuda::uapi). Source: OGKM kernel-open/nvidia-uvm/uvm_ioctl.h, uvm_linux_ioctl.h, uvm_types.h.
//
// UVM request numbers are RAW integers, not _IOC-encoded (UVM_IOCTL_BASE(i) == i
// on Linux), so the _IOC size field is meaningless: the sniffer shows "size 0",
// and for 0x30000001 it decodes "size 12288" from the high bits. The kernel side
// copies sizeof(<CMD>_PARAMS) bytes. Every params struct ends with rmStatus.
// Before UVM_INITIALIZE every other ioctl fails with NV_ERR_ILLEGAL_ACTION.
#pragma once

#include <cstdint>

#include "nvlimits.h"
#include "nvstatus.h"
#include "nvtypes.h"

// uvm_types.h / nvtypes.h
typedef struct {
    NvU8 uuid[16];
} NvProcessorUuid;
static_assert(sizeof(NvProcessorUuid) == 16);

// UVM_MAX_GPUS = NV_MAX_DEVICES * UVM_PARENT_ID_MAX_SUB_PROCESSORS (550+ layout).
inline constexpr NvU32 UVM_PARENT_ID_MAX_SUB_PROCESSORS = 8;
inline constexpr NvU32 UVM_MAX_GPUS = NV_MAX_DEVICES * UVM_PARENT_ID_MAX_SUB_PROCESSORS;
static_assert(UVM_MAX_GPUS == 256);
inline constexpr NvU32 UVM_MAX_GPUS_V1 = NV_MAX_DEVICES;  // older tables (MPS, UUID table)

// UvmGpuMappingType / UvmGpuCachingType (uvm_types.h)
inline constexpr NvU32 UvmGpuMappingTypeDefault = 0;
inline constexpr NvU32 UvmGpuMappingTypeReadWriteAtomic = 1;
inline constexpr NvU32 UvmGpuMappingTypeReadWrite = 2;
inline constexpr NvU32 UvmGpuMappingTypeReadOnly = 3;
inline constexpr NvU32 UvmGpuCachingTypeDefault = 0;
inline constexpr NvU32 UvmGpuCachingTypeForceUncached = 1;
inline constexpr NvU32 UvmGpuCachingTypeForceCached = 2;

typedef struct {
    NvProcessorUuid gpuUuid;
    NvU32           gpuMappingType;      // UvmGpuMappingType
    NvU32           gpuCachingType;      // UvmGpuCachingType
    NvU32           gpuFormatType;       // UvmGpuFormatType
    NvU32           gpuElementBits;      // UvmGpuFormatElementBits
    NvU32           gpuCompressionType;  // UvmGpuCompressionType
} UvmGpuMappingAttributes;
static_assert(sizeof(UvmGpuMappingAttributes) == 36);

// ============================================================================
// Request numbers. X(name, value)
// ============================================================================
#define NV_UAPI_UVM_IOCTLS(X)                        \
    X(UVM_INITIALIZE, 0x30000001)                    \
    X(UVM_DEINITIALIZE, 0x30000002)                  \
    X(UVM_CREATE_RANGE_GROUP, 23)                    \
    X(UVM_DESTROY_RANGE_GROUP, 24)                   \
    X(UVM_REGISTER_GPU_VASPACE, 25)                  \
    X(UVM_UNREGISTER_GPU_VASPACE, 26)                \
    X(UVM_REGISTER_CHANNEL, 27)                      \
    X(UVM_UNREGISTER_CHANNEL, 28)                    \
    X(UVM_MAP_EXTERNAL_ALLOCATION, 33)               \
    X(UVM_FREE, 34)                                  \
    X(UVM_REGISTER_GPU, 37)                          \
    X(UVM_UNREGISTER_GPU, 38)                        \
    X(UVM_PAGEABLE_MEM_ACCESS, 39)                   \
    X(UVM_SET_PREFERRED_LOCATION, 42)                \
    X(UVM_UNSET_PREFERRED_LOCATION, 43)              \
    X(UVM_ENABLE_READ_DUPLICATION, 44)               \
    X(UVM_DISABLE_READ_DUPLICATION, 45)              \
    X(UVM_SET_ACCESSED_BY, 46)                       \
    X(UVM_UNSET_ACCESSED_BY, 47)                     \
    X(UVM_MIGRATE, 51)                               \
    X(UVM_MAP_DYNAMIC_PARALLELISM_REGION, 65)        \
    X(UVM_UNMAP_EXTERNAL, 66)                        \
    X(UVM_ALLOC_SEMAPHORE_POOL, 68)                  \
    X(UVM_VALIDATE_VA_RANGE, 72)                     \
    X(UVM_CREATE_EXTERNAL_RANGE, 73)                 \
    X(UVM_MM_INITIALIZE, 75)

#define NV_UAPI_X(name, value) inline constexpr uint64_t name = value;
NV_UAPI_UVM_IOCTLS(NV_UAPI_X)
#undef NV_UAPI_X

// "UVM_REGISTER_GPU" for 37; nullptr when unknown.
constexpr const char* uvm_ioctl_name(uint64_t req) {
    switch (req) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_UVM_IOCTLS(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}

// ============================================================================
// Params (uvm_linux_ioctl.h, uvm_ioctl.h), in request-number order
// ============================================================================
// UVM_INITIALIZE: must be the first call on a uvm fd.
inline constexpr NvU64 UVM_INIT_FLAGS_MULTI_PROCESS_SHARING_MODE = 0x2;  // uvm_types.h
typedef struct {
    NvU64     flags;
    NV_STATUS rmStatus;
} UVM_INITIALIZE_PARAMS;
static_assert(sizeof(UVM_INITIALIZE_PARAMS) == 16);

typedef struct {
    NvU64     rangeGroupId;  // out
    NV_STATUS rmStatus;
} UVM_CREATE_RANGE_GROUP_PARAMS;
static_assert(sizeof(UVM_CREATE_RANGE_GROUP_PARAMS) == 16);

typedef struct {
    NvU64     rangeGroupId;  // in
    NV_STATUS rmStatus;
} UVM_DESTROY_RANGE_GROUP_PARAMS;
static_assert(sizeof(UVM_DESTROY_RANGE_GROUP_PARAMS) == 16);

typedef struct {
    NvProcessorUuid gpuUuid;
    NvS32           rmCtrlFd;  // the /dev/nvidiactl fd holding hClient
    NvHandle        hClient;
    NvHandle        hVaSpace;  // FERMI_VASPACE_A object
    NV_STATUS       rmStatus;
} UVM_REGISTER_GPU_VASPACE_PARAMS;
static_assert(sizeof(UVM_REGISTER_GPU_VASPACE_PARAMS) == 32);

typedef struct {
    NvProcessorUuid gpuUuid;
    NV_STATUS       rmStatus;
} UVM_UNREGISTER_GPU_VASPACE_PARAMS;
static_assert(sizeof(UVM_UNREGISTER_GPU_VASPACE_PARAMS) == 20);

typedef struct {
    NvProcessorUuid gpuUuid;
    NvS32           rmCtrlFd;
    NvHandle        hClient;
    NvHandle        hChannel;  // GPFIFO channel
    NvU64           base;      // channel's instance/USERD range
    NvU64           length;
    NV_STATUS       rmStatus;
} UVM_REGISTER_CHANNEL_PARAMS;
static_assert(sizeof(UVM_REGISTER_CHANNEL_PARAMS) == 56);

typedef struct {
    NvProcessorUuid gpuUuid;
    NvHandle        hClient;
    NvHandle        hChannel;
    NV_STATUS       rmStatus;
} UVM_UNREGISTER_CHANNEL_PARAMS;
static_assert(sizeof(UVM_UNREGISTER_CHANNEL_PARAMS) == 28);

// UVM_MAP_EXTERNAL_ALLOCATION: map an RM allocation (hMemory) at `base` (a range
// made by UVM_CREATE_EXTERNAL_RANGE) in each listed GPU's VA space.
typedef struct {
    NvU64                   base;
    NvU64                   length;
    NvU64                   offset;  // into hMemory
    UvmGpuMappingAttributes perGpuAttributes[UVM_MAX_GPUS];
    NvU64                   gpuAttributesCount;
    NvS32                   rmCtrlFd;
    NvU32                   hClient;
    NvU32                   hMemory;
    NV_STATUS               rmStatus;
} UVM_MAP_EXTERNAL_ALLOCATION_PARAMS;
static_assert(sizeof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS) == 9264);
static_assert(offsetof(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, gpuAttributesCount) == 9240);

typedef struct {
    NvU64     base;
    NvU64     length;
    NV_STATUS rmStatus;
} UVM_FREE_PARAMS;
static_assert(sizeof(UVM_FREE_PARAMS) == 24);

typedef struct {
    NvProcessorUuid gpu_uuid;     // in/out
    NvBool          numaEnabled;  // out
    NvS32           numaNodeId;   // out
    NvS32           rmCtrlFd;     // in
    NvHandle        hClient;      // in
    NvHandle        hSmcPartRef;  // in (MIG partition; 0 otherwise)
    NV_STATUS       rmStatus;
} UVM_REGISTER_GPU_PARAMS;
static_assert(sizeof(UVM_REGISTER_GPU_PARAMS) == 40);

typedef struct {
    NvProcessorUuid gpu_uuid;
    NV_STATUS       rmStatus;
} UVM_UNREGISTER_GPU_PARAMS;
static_assert(sizeof(UVM_UNREGISTER_GPU_PARAMS) == 20);

typedef struct {
    NvBool    pageableMemAccess;  // out: HMM/ATS available
    NV_STATUS rmStatus;
} UVM_PAGEABLE_MEM_ACCESS_PARAMS;
static_assert(sizeof(UVM_PAGEABLE_MEM_ACCESS_PARAMS) == 8);

typedef struct {
    NvU64           base;
    NvU64           length;
    NvProcessorUuid gpuUuid;
    NV_STATUS       rmStatus;
} UVM_UNMAP_EXTERNAL_PARAMS;
static_assert(sizeof(UVM_UNMAP_EXTERNAL_PARAMS) == 40);

// UVM_ALLOC_SEMAPHORE_POOL: measured to be followed by a 2 MiB mmap of the uvm fd.
typedef struct {
    NvU64                   base;
    NvU64                   length;
    UvmGpuMappingAttributes perGpuAttributes[UVM_MAX_GPUS];
    NvU64                   gpuAttributesCount;
    NV_STATUS               rmStatus;
} UVM_ALLOC_SEMAPHORE_POOL_PARAMS;
static_assert(sizeof(UVM_ALLOC_SEMAPHORE_POOL_PARAMS) == 9248);

typedef struct {
    NvU64     base;
    NvU64     length;
    NV_STATUS rmStatus;
} UVM_VALIDATE_VA_RANGE_PARAMS;
static_assert(sizeof(UVM_VALIDATE_VA_RANGE_PARAMS) == 24);

// UVM_CREATE_EXTERNAL_RANGE: reserve [base, base+length) for external mappings.
typedef struct {
    NvU64     base;
    NvU64     length;
    NV_STATUS rmStatus;
} UVM_CREATE_EXTERNAL_RANGE_PARAMS;
static_assert(sizeof(UVM_CREATE_EXTERNAL_RANGE_PARAMS) == 24);

// UVM_MM_INITIALIZE: issued on a SECOND uvm fd, naming the first (initialized) one.
typedef struct {
    NvS32     uvmFd;
    NV_STATUS rmStatus;
} UVM_MM_INITIALIZE_PARAMS;
static_assert(sizeof(UVM_MM_INITIALIZE_PARAMS) == 8);

// --- managed memory (cudaMallocManaged): mmap() of a uvm fd creates a managed range ----------

// The CPU as a UVM processor (destination of UVM_MIGRATE, a preferred location): the all-zero
// UUID (NV_PROCESSOR_UUID_CPU_DEFAULT).
inline constexpr NvProcessorUuid NV_PROCESSOR_UUID_CPU_DEFAULT = {};

// UVM_SET_PREFERRED_LOCATION / UVM_SET_ACCESSED_BY / UVM_UNSET_ACCESSED_BY: a policy for the
// managed pages of [requestedBase, requestedBase+length) naming one processor.
typedef struct {
    NvU64           requestedBase;
    NvU64           length;
    NvProcessorUuid preferredLocation;
    NV_STATUS       rmStatus;
} UVM_SET_PREFERRED_LOCATION_PARAMS;
static_assert(sizeof(UVM_SET_PREFERRED_LOCATION_PARAMS) == 40);

typedef struct {
    NvU64           requestedBase;
    NvU64           length;
    NvProcessorUuid accessedByUuid;
    NV_STATUS       rmStatus;
} UVM_SET_ACCESSED_BY_PARAMS;
static_assert(sizeof(UVM_SET_ACCESSED_BY_PARAMS) == 40);
typedef UVM_SET_ACCESSED_BY_PARAMS UVM_UNSET_ACCESSED_BY_PARAMS;

// UVM_UNSET_PREFERRED_LOCATION, UVM_ENABLE_READ_DUPLICATION, UVM_DISABLE_READ_DUPLICATION: a
// policy switch over [requestedBase, requestedBase+length).
typedef struct {
    NvU64     requestedBase;
    NvU64     length;
    NV_STATUS rmStatus;
} UVM_UNSET_PREFERRED_LOCATION_PARAMS;
static_assert(sizeof(UVM_UNSET_PREFERRED_LOCATION_PARAMS) == 24);
typedef UVM_UNSET_PREFERRED_LOCATION_PARAMS UVM_ENABLE_READ_DUPLICATION_PARAMS;
typedef UVM_UNSET_PREFERRED_LOCATION_PARAMS UVM_DISABLE_READ_DUPLICATION_PARAMS;

// UVM_MIGRATE: move the managed pages of [base, base+length) to destinationUuid (a GPU, or the
// CPU's all-zero UUID). Without UVM_MIGRATE_FLAG_ASYNC the call returns when the pages are there.
inline constexpr NvU32 UVM_MIGRATE_FLAG_ASYNC = 0x1;
typedef struct {
    NvU64           base;
    NvU64           length;
    NvProcessorUuid destinationUuid;
    NvU32           flags;
    NvU64           semaphoreAddress;
    NvU32           semaphorePayload;
    NvU32           cpuNumaNode;
    NvU64           userSpaceStart;   // out
    NvU64           userSpaceLength;  // out
    NV_STATUS       rmStatus;
} UVM_MIGRATE_PARAMS;
static_assert(sizeof(UVM_MIGRATE_PARAMS) == 80);
