// nvos.h: the parameter structs of the RM escapes (NVOS00 RM_FREE, NVOS02 RM_ALLOC_MEMORY,
// NVOS21/NVOS64 RM_ALLOC, NVOS33 RM_MAP_MEMORY, NVOS54 RM_CONTROL, ...), their flag words, and
// the alloc parameters nvos.h defines for the memory, VA space, channel group and graphics
// classes (OGKM src/common/sdk/nvidia/inc/nvos.h; the _with_fd wrappers from
// src/nvidia/arch/nvalloc/unix/include/nv-unix-nvos-params-wrappers.h). RM reports its result
// in each struct's `status`; the ioctl itself returns 0. Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include <cstddef>

#include "nvlimits.h"
#include "nvmisc.h"
#include "nvtypes.h"

// nvos.h NVOS00_PARAMETERS - NV_ESC_RM_FREE
typedef struct {
    NvHandle hRoot;          // client
    NvHandle hObjectParent;
    NvHandle hObjectOld;     // object to free (== hRoot frees the whole client)
    NvV32    status;
} NVOS00_PARAMETERS;
static_assert(sizeof(NVOS00_PARAMETERS) == 16, "measured");

// nvos.h NVOS02_PARAMETERS - NV_ESC_RM_ALLOC_MEMORY (class 0x71 pins user pages)
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;  // device
    NvHandle hObjectNew;
    NvV32    hClass;         // NV01_MEMORY_SYSTEM_OS_DESCRIPTOR
    NvV32    flags;          // NVOS02_FLAGS_*
    NvP64    pMemory;        // user VA to pin
    NvU64    limit;          // size - 1
    NvV32    status;
} NVOS02_PARAMETERS;
static_assert(sizeof(NVOS02_PARAMETERS) == 48);
typedef struct {
    NVOS02_PARAMETERS params;
    int               fd;    // the /dev/nvidiaN fd the call is made on
} nv_ioctl_nvos02_parameters_with_fd;
static_assert(sizeof(nv_ioctl_nvos02_parameters_with_fd) == 56, "measured");

// nvos.h NVOS05_PARAMETERS - NV_ESC_RM_ALLOC_OBJECT (legacy)
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    NvV32    hClass;
    NvV32    status;
} NVOS05_PARAMETERS;
static_assert(sizeof(NVOS05_PARAMETERS) == 20);

// nvos.h NVOS21_PARAMETERS - NV_ESC_RM_ALLOC, 32-byte variant (tinygrad)
typedef struct {
    NvHandle hRoot;          // client (0 when allocating a client)
    NvHandle hObjectParent;
    NvHandle hObjectNew;     // in/out; 0 = let RM pick (RS_UNIQUE_HANDLE_BASE..)
    NvV32    hClass;
    NvP64    pAllocParms;    // class-specific alloc params
    NvU32    paramsSize;
    NvV32    status;
} NVOS21_PARAMETERS;
static_assert(sizeof(NVOS21_PARAMETERS) == 32);

// nvos.h NVOS64_PARAMETERS - NV_ESC_RM_ALLOC, 48-byte variant (libcuda, measured).
// The kernel tells the two apart by the _IOC size.
inline constexpr NvU32 NVOS64_FLAGS_NONE = 0x0;
inline constexpr NvU32 NVOS64_FLAGS_FINN_SERIALIZED = 0x1;
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    NvV32    hClass;
    NvP64    pAllocParms;
    NvP64    pRightsRequested;  // RS_ACCESS_MASK* or 0
    NvU32    paramsSize;
    NvU32    flags;             // NVOS64_FLAGS_*
    NvV32    status;
} NVOS64_PARAMETERS;
static_assert(sizeof(NVOS64_PARAMETERS) == 48, "measured");
static_assert(offsetof(NVOS64_PARAMETERS, status) == 40);

// nvos.h NVOS33_PARAMETERS - NV_ESC_RM_MAP_MEMORY (CPU mapping; then mmap(fd))
typedef struct {
    NvHandle hClient;
    NvHandle hDevice;         // device or subdevice
    NvHandle hMemory;
    NvU64    offset;
    NvU64    length;
    NvP64    pLinearAddress;  // out: the address to pass to mmap() (offset token)
    NvU32    status;
    NvU32    flags;           // NVOS33_FLAGS_*
} NVOS33_PARAMETERS;
static_assert(sizeof(NVOS33_PARAMETERS) == 48);
typedef struct {
    NVOS33_PARAMETERS params;
    int               fd;     // fresh /dev/nvidiaN (or ctl) fd that will be mmapped
} nv_ioctl_nvos33_parameters_with_fd;
static_assert(sizeof(nv_ioctl_nvos33_parameters_with_fd) == 56, "measured");

// nvos.h NVOS34_PARAMETERS - NV_ESC_RM_UNMAP_MEMORY
typedef struct {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hMemory;
    NvP64    pLinearAddress;
    NvU32    status;
    NvU32    flags;
} NVOS34_PARAMETERS;
static_assert(sizeof(NVOS34_PARAMETERS) == 32, "measured");

// nvos.h NVOS46_PARAMETERS - NV_ESC_RM_MAP_MEMORY_DMA (map into a GPU VA space).
// Current layout (with flags2/kindOverride); pre-535 drivers lacked both (56 B).
typedef struct {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hDma;           // virtual memory object (NV50_MEMORY_VIRTUAL/0x70)
    NvHandle hMemory;        // physical memory object
    NvU64    offset;         // into hMemory
    NvU64    length;
    NvV32    flags;          // NVOS46_FLAGS_*
    NvV32    flags2;
    NvV32    kindOverride;
    NvU64    dmaOffset;      // in (if DMA_OFFSET_FIXED) / out: GPU VA
    NvV32    status;
} NVOS46_PARAMETERS;
static_assert(sizeof(NVOS46_PARAMETERS) == 64);
static_assert(offsetof(NVOS46_PARAMETERS, dmaOffset) == 48);

// nvos.h NVOS47_PARAMETERS - NV_ESC_RM_UNMAP_MEMORY_DMA
typedef struct {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hDma;
    NvHandle hMemory;
    NvV32    flags;
    NvU64    dmaOffset;
    NvU64    size;           // 0 = whole mapping
    NvV32    status;
} NVOS47_PARAMETERS;
static_assert(sizeof(NVOS47_PARAMETERS) == 48);

// nvos.h NVOS54_PARAMETERS - NV_ESC_RM_CONTROL
inline constexpr NvU32 NVOS54_FLAGS_NONE = 0x0;
inline constexpr NvU32 NVOS54_FLAGS_IRQL_RAISED = 0x1;
inline constexpr NvU32 NVOS54_FLAGS_LOCK_BYPASS = 0x2;
inline constexpr NvU32 NVOS54_FLAGS_FINN_SERIALIZED = 0x4;
typedef struct {
    NvHandle hClient;
    NvHandle hObject;        // the object whose class owns `cmd`
    NvV32    cmd;            // NVxxxx_CTRL_CMD_* (see ctrl/ctrlxxxx.h)
    NvU32    flags;
    NvP64    params;
    NvU32    paramsSize;     // measured: word 6 of an RM_CONTROL line
    NvV32    status;
} NVOS54_PARAMETERS;
static_assert(sizeof(NVOS54_PARAMETERS) == 32, "measured");

// nvos.h NVOS55_PARAMETERS - NV_ESC_RM_DUP_OBJECT
typedef struct {
    NvHandle hClient;
    NvHandle hParent;
    NvHandle hObject;        // in/out
    NvHandle hClientSrc;
    NvHandle hObjectSrc;
    NvU32    flags;
    NvU32    status;
} NVOS55_PARAMETERS;
static_assert(sizeof(NVOS55_PARAMETERS) == 28);

// nvos.h NVOS56_PARAMETERS - NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO
typedef struct {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hMemory;
    NvP64    pOldCpuAddress;
    NvP64    pNewCpuAddress;
    NvV32    status;
} NVOS56_PARAMETERS;
static_assert(sizeof(NVOS56_PARAMETERS) == 40, "measured");

// ---- NVOS02 flags (nvos.h NVOS02_FLAGS_*): field shift/mask + real values ----
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_SHIFT = 4;  // 7:4
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_MASK = 0xF;
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_CONTIGUOUS = 0;
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS = 1;
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_SHIFT = 8;  // 11:8
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_MASK = 0xF;
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_PCI = 0;
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_AGP = 1;
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_VIDMEM = 2;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_SHIFT = 12;  // 15:12
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_MASK = 0xF;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_UNCACHED = 0;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_CACHED = 1;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_WRITE_COMBINE = 2;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_WRITE_BACK = 5;
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_SHIFT = 18;  // 18:18
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_MASK = 0x1;
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_NO = 0;
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_YES = 1;
inline constexpr NvU32 NVOS02_FLAGS_KERNEL_MAPPING_SHIFT = 19;  // 19:19
inline constexpr NvU32 NVOS02_FLAGS_KERNEL_MAPPING_MASK = 0x1;
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_SHIFT = 30;  // 31:30
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_MASK = 0x3;
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_DEFAULT = 0;
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_NO_MAP = 1;
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_NEVER_MAP = 2;
// Measured libcuda values for class 0x71 (chain_full.txt):
//   cudaHostAlloc : 0x40001010 = PHYSICALITY_NONCONTIGUOUS(1<<4) | LOCATION_PCI(0<<8)
//                               | COHERENCY_CACHED(1<<12) | MAPPING_NO_MAP(1<<30)
//   another pin   : 0x40041010 = the same | GPU_CACHEABLE_YES(1<<18)
inline constexpr NvU32 NVOS02_FLAGS_LIBCUDA_HOST_ALLOC =
    nv_field_num(NVOS02_FLAGS_PHYSICALITY_SHIFT, NVOS02_FLAGS_PHYSICALITY_MASK, NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS) |
    nv_field_num(NVOS02_FLAGS_LOCATION_SHIFT, NVOS02_FLAGS_LOCATION_MASK, NVOS02_FLAGS_LOCATION_PCI) |
    nv_field_num(NVOS02_FLAGS_COHERENCY_SHIFT, NVOS02_FLAGS_COHERENCY_MASK, NVOS02_FLAGS_COHERENCY_CACHED) |
    nv_field_num(NVOS02_FLAGS_MAPPING_SHIFT, NVOS02_FLAGS_MAPPING_MASK, NVOS02_FLAGS_MAPPING_NO_MAP);
inline constexpr NvU32 NVOS02_FLAGS_LIBCUDA_PIN_GPU_CACHEABLE =
    NVOS02_FLAGS_LIBCUDA_HOST_ALLOC |
    nv_field_num(NVOS02_FLAGS_GPU_CACHEABLE_SHIFT, NVOS02_FLAGS_GPU_CACHEABLE_MASK, NVOS02_FLAGS_GPU_CACHEABLE_YES);
static_assert(NVOS02_FLAGS_LIBCUDA_HOST_ALLOC == 0x40001010u);
static_assert(NVOS02_FLAGS_LIBCUDA_PIN_GPU_CACHEABLE == 0x40041010u);

// ---- NVOS33 (map memory) flags, nvos.h ----
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_SHIFT = 0;  // 1:0
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_MASK = 0x3;
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_READ_WRITE = 0;
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_READ_ONLY = 1;
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_WRITE_ONLY = 2;
inline constexpr NvU32 NVOS33_FLAGS_MAP_FIXED_SHIFT = 18;  // 18:18
inline constexpr NvU32 NVOS33_FLAGS_MAP_FIXED_MASK = 0x1;
inline constexpr NvU32 NVOS33_FLAGS_RESERVE_ON_UNMAP_SHIFT = 19;  // 19:19
inline constexpr NvU32 NVOS33_FLAGS_RESERVE_ON_UNMAP_MASK = 0x1;
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_SHIFT = 23;  // 25:23
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_MASK = 0x7;
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_CACHED = 0;
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_UNCACHED = 1;
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED = 2;
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_DEFAULT = 6;

// ---- NVOS46 (map DMA) flags, nvos.h ----
inline constexpr NvU32 NVOS46_FLAGS_ACCESS_SHIFT = 0;  // 1:0
inline constexpr NvU32 NVOS46_FLAGS_ACCESS_MASK = 0x3;
inline constexpr NvU32 NVOS46_FLAGS_CACHE_SNOOP_SHIFT = 4;  // 4:4
inline constexpr NvU32 NVOS46_FLAGS_CACHE_SNOOP_MASK = 0x1;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_SHIFT = 8;  // 11:8
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_MASK = 0xF;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_DEFAULT = 0;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_4KB = 1;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_BIG = 2;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_BOTH = 3;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_HUGE = 4;
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_512M = 5;
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_SHIFT = 15;  // 15:15
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_MASK = 0x1;
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_FALSE = 0;
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE = 1;

// nvos.h NV_MEMORY_ALLOCATION_PARAMS - NV01_MEMORY_SYSTEM (0x3E) / LOCAL_USER (0x40)
typedef struct {
    NvU32    owner;
    NvU32    type;           // NVOS32_TYPE_*
    NvU32    flags;          // NVOS32_ALLOC_FLAGS_*
    NvU32    width;
    NvU32    height;
    NvS32    pitch;
    NvU32    attr;           // NVOS32_ATTR_*  (in/out)
    NvU32    attr2;          // NVOS32_ATTR2_* (in/out)
    NvU32    format;
    NvU32    comprCovg;
    NvU32    zcullCovg;
    NvU64    rangeLo;
    NvU64    rangeHi;
    NvU64    size;           // in/out
    NvU64    alignment;
    NvU64    offset;         // in/out (physical offset in FB for vidmem)
    NvU64    limit;          // out
    NvP64    address;        // out
    NvU32    ctagOffset;
    NvHandle hVASpace;
    NvU32    internalflags;
    NvU32    tag;
    NvS32    numaNode;
} NV_MEMORY_ALLOCATION_PARAMS;
static_assert(sizeof(NV_MEMORY_ALLOCATION_PARAMS) == 128);
static_assert(offsetof(NV_MEMORY_ALLOCATION_PARAMS, size) == 64);

// NVOS32 values (nvos.h). Included subset: TYPE_IMAGE; ATTR fields PAGE_SIZE,
// LOCATION, PHYSICALITY, COHERENCY; ATTR2 ZBC, GPU_CACHEABLE, PAGE_SIZE_HUGE;
// the ALLOC_FLAGS a CUDA-style allocator uses.
inline constexpr NvU32 NVOS32_TYPE_IMAGE = 0;
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_SHIFT = 23;  // 24:23
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_DEFAULT = 0;
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_4KB = 1;
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_BIG = 2;
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_HUGE = 3;
inline constexpr NvU32 NVOS32_ATTR_LOCATION_SHIFT = 25;  // 26:25
inline constexpr NvU32 NVOS32_ATTR_LOCATION_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR_LOCATION_VIDMEM = 0;
inline constexpr NvU32 NVOS32_ATTR_LOCATION_PCI = 1;
inline constexpr NvU32 NVOS32_ATTR_LOCATION_ANY = 3;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_SHIFT = 27;  // 28:27
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_DEFAULT = 0;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_NONCONTIGUOUS = 1;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_CONTIGUOUS = 2;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS = 3;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_SHIFT = 29;  // 31:29
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_MASK = 0x7;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_UNCACHED = 0;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_CACHED = 1;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_WRITE_COMBINE = 2;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_WRITE_BACK = 5;
inline constexpr NvU32 NVOS32_ATTR2_ZBC_SHIFT = 0;  // 1:0
inline constexpr NvU32 NVOS32_ATTR2_ZBC_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR2_ZBC_DEFAULT = 0;
inline constexpr NvU32 NVOS32_ATTR2_ZBC_PREFER_NO_ZBC = 1;
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_SHIFT = 2;  // 3:2
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_DEFAULT = 0;
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_YES = 1;
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_NO = 2;
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT = 20;  // 21:20
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_MASK = 0x3;
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_DEFAULT = 0;
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB = 1;
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_512MB = 2;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_FIXED_ADDRESS_ALLOCATE = 0x00000010;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_ALIGNMENT_HINT = 0x00000080;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE = 0x00000100;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_NO_SCANOUT = 0x00001000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED = 0x00004000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED = 0x00008000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM = 0x00010000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_VIRTUAL = 0x00080000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_EXTERNALLY_MANAGED = 0x00400000;
inline constexpr NvU32 NVOS32_ALLOC_FLAGS_SPARSE = 0x04000000;

// nvos.h NV_VASPACE_ALLOCATION_PARAMETERS - FERMI_VASPACE_A (0x90F1).
// Current layout ends with pasid (56 B); 535-era headers stopped at vaBase (48 B).
inline constexpr NvU32 NV_VASPACE_ALLOCATION_INDEX_GPU_NEW = 0;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_INDEX_GPU_HOST = 1;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_NONE = 0;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_MINIMIZE_PTETABLE_SIZE = 1u << 0;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_RETRY_PTE_ALLOC_IN_SYS = 1u << 1;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_SHARED_MANAGEMENT = 1u << 2;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED = 1u << 3;
inline constexpr NvU32 NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING = 1u << 6;
typedef struct {
    NvU32 index;             // NV_VASPACE_ALLOCATION_INDEX_*
    NvV32 flags;             // NV_VASPACE_ALLOCATION_FLAGS_*
    NvU64 vaSize;
    NvU64 vaStartInternal;
    NvU64 vaLimitInternal;
    NvU32 bigPageSize;
    NvU64 vaBase;
    NvU32 pasid;
} NV_VASPACE_ALLOCATION_PARAMETERS;
static_assert(sizeof(NV_VASPACE_ALLOCATION_PARAMETERS) == 56);
static_assert(offsetof(NV_VASPACE_ALLOCATION_PARAMETERS, vaBase) == 40);

// nvos.h NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS - KEPLER_CHANNEL_GROUP_A (TSG)
typedef struct {
    NvHandle hObjectError;
    NvHandle hObjectEccError;
    NvHandle hVASpace;
    NvU32    engineType;     // NV2080_ENGINE_TYPE_* (GRAPHICS = 1, COPY0 = 9)
    NvBool   bIsCallingContextVgpuPlugin;
} NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS;
static_assert(sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS) == 20);

// nvos.h NV_GR_ALLOCATION_PARAMETERS - optional for *_COMPUTE_A
typedef struct {
    NvU32 version;
    NvU32 flags;
    NvU32 size;
    NvU32 caps;
} NV_GR_ALLOCATION_PARAMETERS;
static_assert(sizeof(NV_GR_ALLOCATION_PARAMETERS) == 16);

// nvos.h error-notifier index for GPFIFO channels
inline constexpr NvU32 NV_CHANNELGPFIFO_NOTIFICATION_TYPE_ERROR = 0;
inline constexpr NvU32 NV_CHANNELGPFIFO_NOTIFICATION_TYPE_WORK_SUBMIT_TOKEN = 1;

// nvos.h NvNotification: one 16-byte notifier. A GPFIFO channel's error notifier (hObjectError,
// index NV_CHANNELGPFIFO_NOTIFICATION_TYPE_ERROR = 0) is written by RM when the channel faults:
// info32 holds the Xid (nverror.h: 31 ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT, 13
// ROBUST_CHANNEL_GR_EXCEPTION, 94 ROBUST_CHANNEL_CONTAINED_ERROR - an uncorrectable ECC error
// that error containment confined to the contexts using the memory), status becomes
// NV_CHANNELGPFIFO_NOTIFICATION_STATUS_ERROR.
typedef struct {
    NvU64 timeStamp;  // GPU time of the event (ns)
    NvU32 info32;
    NvU16 info16;
    NvU16 status;     // 0 while nothing happened
} NvNotification;
static_assert(sizeof(NvNotification) == 16);
inline constexpr NvU16 NV_CHANNELGPFIFO_NOTIFICATION_STATUS_ERROR = 0xFFFF;
