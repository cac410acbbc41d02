// nv_uapi.h - the user/kernel ABI of the (simulated) NVIDIA driver stack.
//
// This is the single public entry point of minicuda::uapi. It is shared by
//   * the simulated user-mode driver (driver/, "libcuda"), which builds these
//     structs and issues ioctls, and
//   * the simulated kernel modules (driver/kernel, driver/nvidia_ko: "nvidia.ko",
//     "nvidia-uvm.ko"), which decode and answer them.
// Names, numbers and layouts are the real x86-64 ones, re-declared compactly from
// NVIDIA/open-gpu-kernel-modules (OGKM) headers and checked against the H200 /
// CUDA 13.0 trace in shared/reference/h200-cuda13/chain_full.txt ("measured").
// Every size that is known is pinned with static_assert.
//
// Layout of this header set:
//   nv_uapi.h       basic types, ioctl encoding, escapes, NVOSxx structs,
//                   RM classes, alloc params
//   nv_uapi_status.h NV_STATUS codes (one X-macro table) + name/message lookups
//   nv_uapi_ctrl.h  RM control commands (NVOS54 cmd ids) and their params
//   nv_uapi_uvm.h   /dev/nvidia-uvm ioctls and their params
#pragma once

#include <cstddef>
#include <cstdint>

// ============================================================================
// 1. Basic types (OGKM src/common/sdk/nvidia/inc/nvtypes.h)
// ============================================================================
typedef uint8_t  NvU8;
typedef uint16_t NvU16;
typedef uint32_t NvU32;
typedef uint64_t NvU64;
typedef int8_t   NvS8;
typedef int16_t  NvS16;
typedef int32_t  NvS32;
typedef int64_t  NvS64;
typedef uint8_t  NvBool;   // NV_TRUE / NV_FALSE
typedef uint32_t NvV32;    // "value" 32-bit (class ids, flags, status)
typedef uint32_t NvHandle; // RM object handle
typedef uint32_t NV_STATUS;
// NvP64: a user pointer carried as an 8-byte-aligned 64-bit integer, so that the
// struct layout is the same for 32- and 64-bit callers (NV_ALIGN_BYTES(8)).
typedef uint64_t NvP64;
static_assert(alignof(NvP64) == 8 && alignof(NvU64) == 8, "x86-64 LP64 assumed");

inline constexpr NvBool NV_TRUE = 1, NV_FALSE = 0;
inline constexpr NvU32 NV_MAX_DEVICES = 32;    // nvlimits.h
inline constexpr NvU32 NV_MAX_SUBDEVICES = 8;  // nvlimits.h

inline NvP64 nv_ptr_to_p64(const void* p) { return static_cast<NvP64>(reinterpret_cast<uintptr_t>(p)); }
template <class T>
inline T* nv_p64_to_ptr(NvP64 v) { return reinterpret_cast<T*>(static_cast<uintptr_t>(v)); }

// Bit-field helpers in the spirit of RM's DRF macros ("hi:lo" fields).
constexpr NvU32 nv_field_get(NvU32 word, NvU32 shift, NvU32 mask) { return (word >> shift) & mask; }
constexpr NvU32 nv_field_num(NvU32 shift, NvU32 mask, NvU32 value) { return (value & mask) << shift; }

// ============================================================================
// 2. ioctl request encoding (Linux asm-generic/ioctl.h; OGKM
//    kernel-open/common/inc/nv-ioctl-numbers.h:33-34)
//    request = dir<<30 | size<<16 | type<<8 | nr    (size: 14 bits)
// ============================================================================
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

// ============================================================================
// 3. Escape numbers (the ioctl nr). RM escapes: OGKM
//    src/nvidia/arch/nvalloc/unix/include/nv_escape.h; nv-level escapes:
//    nv-ioctl-numbers.h (NV_IOCTL_BASE + n) and nv-ioctl-numa.h.
// ============================================================================
#define NV_UAPI_ESCAPES(X)                         \
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
    X(NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, 0x5E)  \
    X(NV_ESC_CARD_INFO, 200)                       \
    X(NV_ESC_REGISTER_FD, 201)                     \
    X(NV_ESC_ALLOC_OS_EVENT, 206)                  \
    X(NV_ESC_FREE_OS_EVENT, 207)                   \
    X(NV_ESC_STATUS_CODE, 209)                     \
    X(NV_ESC_CHECK_VERSION_STR, 210)               \
    X(NV_ESC_IOCTL_XFER_CMD, 211)                  \
    X(NV_ESC_ATTACH_GPUS_TO_FD, 212)               \
    X(NV_ESC_QUERY_DEVICE_INTR, 213)               \
    X(NV_ESC_SYS_PARAMS, 214)                      \
    X(NV_ESC_NUMA_INFO, 215)                       \
    X(NV_ESC_SET_NUMA_STATUS, 216)                 \
    X(NV_ESC_EXPORT_TO_DMABUF_FD, 217)             \
    X(NV_ESC_WAIT_OPEN_COMPLETE, 218)

#define NV_UAPI_X(name, value) inline constexpr uint32_t name = value;
NV_UAPI_ESCAPES(NV_UAPI_X)
#undef NV_UAPI_X

// "NV_ESC_RM_ALLOC" for 0x2B; nullptr when nr is not a known escape.
constexpr const char* nv_escape_name(uint32_t nr) {
    switch (nr) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_ESCAPES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}

// ============================================================================
// 4. nv-level escape structs (OGKM kernel-open/common/inc/nv-ioctl.h,
//    nv-ioctl-numa.h)
// ============================================================================
typedef struct {
    NvU32 domain;     // PCI domain
    NvU8  bus;        // PCI bus
    NvU8  slot;       // PCI slot (device)
    NvU8  function;   // PCI function
    NvU16 vendor_id;  // 0x10de
    NvU16 device_id;  // 0x2335 on the measured H200
} nv_pci_info_t;
static_assert(sizeof(nv_pci_info_t) == 12);

// NV_ESC_CARD_INFO: the ioctl argument is an array of these (libcuda: 32 = 2304 B).
typedef struct nv_ioctl_card_info {
    NvBool        valid;
    nv_pci_info_t pci_info;
    NvU32         gpu_id;
    NvU16         interrupt_line;
    NvU64         reg_address;   // BAR0
    NvU64         reg_size;
    NvU64         fb_address;    // BAR1
    NvU64         fb_size;
    NvU32         minor_number;  // N in /dev/nvidiaN
    NvU8          dev_name[10];
} nv_ioctl_card_info_t;
static_assert(sizeof(nv_ioctl_card_info_t) == 72);
static_assert(offsetof(nv_ioctl_card_info_t, reg_address) == 24);
inline constexpr NvU32 NV_CARD_INFO_LIBCUDA_ENTRIES = 32;  // measured: size 2304
static_assert(NV_CARD_INFO_LIBCUDA_ENTRIES * sizeof(nv_ioctl_card_info_t) == 2304);

// NV_ESC_IOCTL_XFER_CMD: wraps params too big for the 14-bit _IOC size field.
typedef struct nv_ioctl_xfer {
    NvU32 cmd;   // the real escape nr
    NvU32 size;  // the real params size
    NvP64 ptr;   // user pointer to the real params
} nv_ioctl_xfer_t;
static_assert(sizeof(nv_ioctl_xfer_t) == 16);

// NV_ESC_ALLOC_OS_EVENT / NV_ESC_FREE_OS_EVENT (on /dev/nvidiaN).
typedef struct nv_ioctl_alloc_os_event {
    NvHandle hClient;
    NvHandle hDevice;
    NvU32    fd;
    NvU32    Status;
} nv_ioctl_alloc_os_event_t;
typedef struct nv_ioctl_free_os_event {
    NvHandle hClient;
    NvHandle hDevice;
    NvU32    fd;
    NvU32    Status;
} nv_ioctl_free_os_event_t;
static_assert(sizeof(nv_ioctl_alloc_os_event_t) == 16 && sizeof(nv_ioctl_free_os_event_t) == 16);

// NV_ESC_STATUS_CODE
typedef struct nv_ioctl_status_code {
    NvU32 domain;
    NvU8  bus;
    NvU8  slot;
    NvU32 status;
} nv_ioctl_status_code_t;
static_assert(sizeof(nv_ioctl_status_code_t) == 12);

// NV_ESC_CHECK_VERSION_STR
inline constexpr NvU32 NV_RM_API_VERSION_STRING_LENGTH = 64;
inline constexpr NvU32 NV_RM_API_VERSION_CMD_STRICT = 0;
inline constexpr NvU32 NV_RM_API_VERSION_CMD_RELAXED = '1';
inline constexpr NvU32 NV_RM_API_VERSION_CMD_QUERY = '2';
inline constexpr NvU32 NV_RM_API_VERSION_REPLY_UNRECOGNIZED = 0;
inline constexpr NvU32 NV_RM_API_VERSION_REPLY_RECOGNIZED = 1;
typedef struct nv_ioctl_rm_api_version {
    NvU32 cmd;
    NvU32 reply;
    char  versionString[NV_RM_API_VERSION_STRING_LENGTH];
} nv_ioctl_rm_api_version_t;
static_assert(sizeof(nv_ioctl_rm_api_version_t) == 72);

// NV_ESC_SYS_PARAMS: libcuda's very first ioctl on /dev/nvidiactl.
typedef struct nv_ioctl_sys_params {
    NvU64 memblock_size;
} nv_ioctl_sys_params_t;
static_assert(sizeof(nv_ioctl_sys_params_t) == 8);

// NV_ESC_REGISTER_FD: issued on a fresh /dev/nvidiaN fd, names the ctl fd.
typedef struct nv_ioctl_register_fd {
    int ctl_fd;
} nv_ioctl_register_fd_t;
static_assert(sizeof(nv_ioctl_register_fd_t) == 4);

// NV_ESC_NUMA_INFO (nv-ioctl-numa.h, 535+ layout with use_auto_online).
// Measured on H200: nid=-1, status=0, memblock_size=0x40000000.
inline constexpr NvU32 NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES = 64;
typedef struct offline_addresses {
    NvU64 addresses[NV_IOCTL_NUMA_INFO_MAX_OFFLINE_ADDRESSES];
    NvU32 numEntries;
} nv_offline_addresses_t;
typedef struct nv_ioctl_numa_info {
    NvS32                  nid;
    NvS32                  status;
    NvU64                  memblock_size;
    NvU64                  numa_mem_addr;
    NvU64                  numa_mem_size;
    NvU8                   use_auto_online;
    nv_offline_addresses_t offline_addresses;
} nv_ioctl_numa_info_t;
static_assert(sizeof(nv_ioctl_numa_info_t) == 560, "measured NUMA_INFO size");
inline constexpr NvS32 NV_IOCTL_NUMA_STATUS_DISABLED = 0;

// ============================================================================
// 5. RM escape structs (OGKM src/common/sdk/nvidia/inc/nvos.h and
//    src/nvidia/arch/nvalloc/unix/include/nv-unix-nvos-params-wrappers.h).
//    RM reports its result in `status`; the ioctl itself returns 0.
// ============================================================================
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
    NvV32    cmd;            // NVxxxx_CTRL_CMD_* (see nv_uapi_ctrl.h)
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
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_SHIFT = 4, NVOS02_FLAGS_PHYSICALITY_MASK = 0xF;  // 7:4
inline constexpr NvU32 NVOS02_FLAGS_PHYSICALITY_CONTIGUOUS = 0, NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS = 1;
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_SHIFT = 8, NVOS02_FLAGS_LOCATION_MASK = 0xF;        // 11:8
inline constexpr NvU32 NVOS02_FLAGS_LOCATION_PCI = 0, NVOS02_FLAGS_LOCATION_AGP = 1, NVOS02_FLAGS_LOCATION_VIDMEM = 2;
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_SHIFT = 12, NVOS02_FLAGS_COHERENCY_MASK = 0xF;     // 15:12
inline constexpr NvU32 NVOS02_FLAGS_COHERENCY_UNCACHED = 0, NVOS02_FLAGS_COHERENCY_CACHED = 1,
                       NVOS02_FLAGS_COHERENCY_WRITE_COMBINE = 2, NVOS02_FLAGS_COHERENCY_WRITE_BACK = 5;
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_SHIFT = 18, NVOS02_FLAGS_GPU_CACHEABLE_MASK = 0x1;  // 18:18
inline constexpr NvU32 NVOS02_FLAGS_GPU_CACHEABLE_NO = 0, NVOS02_FLAGS_GPU_CACHEABLE_YES = 1;
inline constexpr NvU32 NVOS02_FLAGS_KERNEL_MAPPING_SHIFT = 19, NVOS02_FLAGS_KERNEL_MAPPING_MASK = 0x1; // 19:19
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_SHIFT = 30, NVOS02_FLAGS_MAPPING_MASK = 0x3;          // 31:30
inline constexpr NvU32 NVOS02_FLAGS_MAPPING_DEFAULT = 0, NVOS02_FLAGS_MAPPING_NO_MAP = 1, NVOS02_FLAGS_MAPPING_NEVER_MAP = 2;
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
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_SHIFT = 0, NVOS33_FLAGS_ACCESS_MASK = 0x3;  // 1:0
inline constexpr NvU32 NVOS33_FLAGS_ACCESS_READ_WRITE = 0, NVOS33_FLAGS_ACCESS_READ_ONLY = 1, NVOS33_FLAGS_ACCESS_WRITE_ONLY = 2;
inline constexpr NvU32 NVOS33_FLAGS_MAP_FIXED_SHIFT = 18, NVOS33_FLAGS_MAP_FIXED_MASK = 0x1;              // 18:18
inline constexpr NvU32 NVOS33_FLAGS_RESERVE_ON_UNMAP_SHIFT = 19, NVOS33_FLAGS_RESERVE_ON_UNMAP_MASK = 0x1; // 19:19
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_SHIFT = 23, NVOS33_FLAGS_CACHING_TYPE_MASK = 0x7;        // 25:23
inline constexpr NvU32 NVOS33_FLAGS_CACHING_TYPE_CACHED = 0, NVOS33_FLAGS_CACHING_TYPE_UNCACHED = 1,
                       NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED = 2, NVOS33_FLAGS_CACHING_TYPE_DEFAULT = 6;

// ---- NVOS46 (map DMA) flags, nvos.h ----
inline constexpr NvU32 NVOS46_FLAGS_ACCESS_SHIFT = 0, NVOS46_FLAGS_ACCESS_MASK = 0x3;        // 1:0
inline constexpr NvU32 NVOS46_FLAGS_CACHE_SNOOP_SHIFT = 4, NVOS46_FLAGS_CACHE_SNOOP_MASK = 0x1; // 4:4
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_SHIFT = 8, NVOS46_FLAGS_PAGE_SIZE_MASK = 0xF;  // 11:8
inline constexpr NvU32 NVOS46_FLAGS_PAGE_SIZE_DEFAULT = 0, NVOS46_FLAGS_PAGE_SIZE_4KB = 1, NVOS46_FLAGS_PAGE_SIZE_BIG = 2,
                       NVOS46_FLAGS_PAGE_SIZE_BOTH = 3, NVOS46_FLAGS_PAGE_SIZE_HUGE = 4, NVOS46_FLAGS_PAGE_SIZE_512M = 5;
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_SHIFT = 15, NVOS46_FLAGS_DMA_OFFSET_FIXED_MASK = 0x1;  // 15:15
inline constexpr NvU32 NVOS46_FLAGS_DMA_OFFSET_FIXED_FALSE = 0, NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE = 1;

// ============================================================================
// 6. RM classes (OGKM src/common/sdk/nvidia/inc/class/clXXXX.h, nvos.h;
//    g_allclasses.h for the ones seen in libcuda's init).
// ============================================================================
#define NV_UAPI_CLASSES(X)                        \
    X(NV01_ROOT, 0x00000000)                      \
    X(NV01_ROOT_NON_PRIV, 0x00000001)             \
    X(NV01_MEMORY_SYSTEM, 0x0000003E)             \
    X(NV01_MEMORY_LOCAL_USER, 0x00000040)         \
    X(NV01_ROOT_CLIENT, 0x00000041)               \
    X(NV01_MEMORY_VIRTUAL, 0x00000070)            \
    X(NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, 0x00000071) \
    X(NV01_EVENT_KERNEL_CALLBACK, 0x00000078)     \
    X(NV01_EVENT_OS_EVENT, 0x00000079)            \
    X(NV01_DEVICE_0, 0x00000080)                  \
    X(RM_USER_SHARED_DATA, 0x000000DE)            \
    X(NV20_SUBDEVICE_0, 0x00002080)               \
    X(NV2081_BINAPI, 0x00002081)                  \
    X(NV50_THIRD_PARTY_P2P, 0x0000503C)           \
    X(NV50_MEMORY_VIRTUAL, 0x000050A0)            \
    X(GT200_DEBUGGER, 0x000083DE)                 \
    X(FERMI_CONTEXT_SHARE_A, 0x00009067)          \
    X(GF100_PROFILER, 0x000090CC)                 \
    X(GF100_SUBDEVICE_MASTER, 0x000090E6)         \
    X(FERMI_VASPACE_A, 0x000090F1)                \
    X(KEPLER_CHANNEL_GROUP_A, 0x0000A06C)         \
    X(VOLTA_USERMODE_A, 0x0000C361)               \
    X(VOLTA_CHANNEL_GPFIFO_A, 0x0000C36F)         \
    X(TURING_USERMODE_A, 0x0000C461)              \
    X(TURING_CHANNEL_GPFIFO_A, 0x0000C46F)        \
    X(AMPERE_USERMODE_A, 0x0000C561)              \
    X(AMPERE_CHANNEL_GPFIFO_A, 0x0000C56F)        \
    X(HOPPER_USERMODE_A, 0x0000C661)              \
    X(AMPERE_DMA_COPY_A, 0x0000C6B5)              \
    X(AMPERE_COMPUTE_A, 0x0000C6C0)               \
    X(AMPERE_DMA_COPY_B, 0x0000C7B5)              \
    X(AMPERE_COMPUTE_B, 0x0000C7C0)               \
    X(HOPPER_CHANNEL_GPFIFO_A, 0x0000C86F)        \
    X(HOPPER_DMA_COPY_A, 0x0000C8B5)              \
    X(BLACKWELL_CHANNEL_GPFIFO_A, 0x0000C96F)     \
    X(ADA_COMPUTE_A, 0x0000C9C0)                  \
    X(NV_CONFIDENTIAL_COMPUTE, 0x0000CB33)        \
    X(HOPPER_COMPUTE_A, 0x0000CBC0)               \
    X(BLACKWELL_COMPUTE_A, 0x0000CDC0)

#define NV_UAPI_X(name, value) inline constexpr NvU32 name = value;
NV_UAPI_CLASSES(NV_UAPI_X)
#undef NV_UAPI_X
inline constexpr NvU32 NV1_MEMORY_USER = NV01_MEMORY_LOCAL_USER;  // cl0040.h alias
inline constexpr NvU32 NV01_ROOT_USER = NV01_ROOT_CLIENT;         // nvos.h alias
inline constexpr NvU32 NV01_NULL_OBJECT = 0x0;                    // "no handle"

constexpr const char* nv_class_name(NvU32 hClass) {
    switch (hClass) {
#define NV_UAPI_X(name, value) case value: return #name;
        NV_UAPI_CLASSES(NV_UAPI_X)
#undef NV_UAPI_X
        default: return nullptr;
    }
}

// Handle ranges (OGKM g_resserv_nvoc.h, g_rs_client_nvoc.h). A userspace alloc of
// class 0x0/0x1 is rewritten to NV01_ROOT_CLIENT; client handles are 0xC1D000xx.
inline constexpr NvHandle RS_CLIENT_HANDLE_BASE = 0xC1D00000;
inline constexpr NvHandle RS_UNIQUE_HANDLE_BASE = 0xCAF00000;  // when hObjectNew == 0
inline constexpr NvHandle LIBCUDA_HANDLE_BASE = 0x5C000001;    // measured libcuda choice

// Doorbell page (clc361.h): HOPPER_USERMODE_A is mmapped 64 KiB; write the work
// submit token to offset 0x90 to ring a channel.
inline constexpr NvU32 NVC361_NV_USERMODE__SIZE = 65536;
inline constexpr NvU32 NVC361_NOTIFY_CHANNEL_PENDING = 0x90;

// ============================================================================
// 7. Alloc parameter structs (pAllocParms of NVOS21/NVOS64)
// ============================================================================
// cl0000.h NV0000_ALLOC_PARAMETERS - client (optional; libcuda passes none)
inline constexpr NvU32 NV_PROC_NAME_MAX_LENGTH = 100;
typedef struct {
    NvHandle hClient;   // requested client handle (must stay first)
    NvU32    processID;
    char     processName[NV_PROC_NAME_MAX_LENGTH];
    NvP64    pOsPidInfo;
} NV0000_ALLOC_PARAMETERS;
static_assert(sizeof(NV0000_ALLOC_PARAMETERS) == 120);

// cl0080.h NV0080_ALLOC_PARAMETERS - NV01_DEVICE_0
inline constexpr NvU32 NV_DEVICE_ALLOCATION_FLAGS_NONE = 0x0;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_FLAGS_VASPACE_SIZE = 0x8;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_OPTIONAL_MULTIPLE_VASPACES = 0;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_SINGLE_VASPACE = 1;
inline constexpr NvU32 NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES = 2;
typedef struct {
    NvU32    deviceId;       // GPU index (NV0000 GET_ID_INFO deviceInstance)
    NvHandle hClientShare;
    NvHandle hTargetClient;
    NvHandle hTargetDevice;
    NvV32    flags;          // NV_DEVICE_ALLOCATION_FLAGS_*
    NvU64    vaSpaceSize;
    NvU64    vaStartInternal;
    NvU64    vaLimitInternal;
    NvV32    vaMode;         // NV_DEVICE_ALLOCATION_VAMODE_*
} NV0080_ALLOC_PARAMETERS;
static_assert(sizeof(NV0080_ALLOC_PARAMETERS) == 56);

// cl2080.h NV2080_ALLOC_PARAMETERS - NV20_SUBDEVICE_0
typedef struct {
    NvU32 subDeviceId;
} NV2080_ALLOC_PARAMETERS;
static_assert(sizeof(NV2080_ALLOC_PARAMETERS) == 4);

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
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_SHIFT = 23, NVOS32_ATTR_PAGE_SIZE_MASK = 0x3;      // 24:23
inline constexpr NvU32 NVOS32_ATTR_PAGE_SIZE_DEFAULT = 0, NVOS32_ATTR_PAGE_SIZE_4KB = 1,
                       NVOS32_ATTR_PAGE_SIZE_BIG = 2, NVOS32_ATTR_PAGE_SIZE_HUGE = 3;
inline constexpr NvU32 NVOS32_ATTR_LOCATION_SHIFT = 25, NVOS32_ATTR_LOCATION_MASK = 0x3;        // 26:25
inline constexpr NvU32 NVOS32_ATTR_LOCATION_VIDMEM = 0, NVOS32_ATTR_LOCATION_PCI = 1, NVOS32_ATTR_LOCATION_ANY = 3;
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_SHIFT = 27, NVOS32_ATTR_PHYSICALITY_MASK = 0x3;  // 28:27
inline constexpr NvU32 NVOS32_ATTR_PHYSICALITY_DEFAULT = 0, NVOS32_ATTR_PHYSICALITY_NONCONTIGUOUS = 1,
                       NVOS32_ATTR_PHYSICALITY_CONTIGUOUS = 2, NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS = 3;
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_SHIFT = 29, NVOS32_ATTR_COHERENCY_MASK = 0x7;      // 31:29
inline constexpr NvU32 NVOS32_ATTR_COHERENCY_UNCACHED = 0, NVOS32_ATTR_COHERENCY_CACHED = 1,
                       NVOS32_ATTR_COHERENCY_WRITE_COMBINE = 2, NVOS32_ATTR_COHERENCY_WRITE_BACK = 5;
inline constexpr NvU32 NVOS32_ATTR2_ZBC_SHIFT = 0, NVOS32_ATTR2_ZBC_MASK = 0x3;                 // 1:0
inline constexpr NvU32 NVOS32_ATTR2_ZBC_DEFAULT = 0, NVOS32_ATTR2_ZBC_PREFER_NO_ZBC = 1;
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_SHIFT = 2, NVOS32_ATTR2_GPU_CACHEABLE_MASK = 0x3;  // 3:2
inline constexpr NvU32 NVOS32_ATTR2_GPU_CACHEABLE_DEFAULT = 0, NVOS32_ATTR2_GPU_CACHEABLE_YES = 1,
                       NVOS32_ATTR2_GPU_CACHEABLE_NO = 2;
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT = 20, NVOS32_ATTR2_PAGE_SIZE_HUGE_MASK = 0x3;  // 21:20
inline constexpr NvU32 NVOS32_ATTR2_PAGE_SIZE_HUGE_DEFAULT = 0, NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB = 1,
                       NVOS32_ATTR2_PAGE_SIZE_HUGE_512MB = 2;
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
inline constexpr NvU32 NV2080_ENGINE_TYPE_GRAPHICS = 0x1, NV2080_ENGINE_TYPE_COPY0 = 0x9;  // cl2080.h

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

// ============================================================================
// 8. The rest of the ABI
// ============================================================================
#include "nv_uapi_status.h"
#include "nv_uapi_ctrl.h"
#include "nv_uapi_uvm.h"
#include "nv_uapi_channel.h"
