// ctrl/ctrl0000.h: the controls of NV01_ROOT, the client (OGKM ctrl/ctrl0000/ctrl0000system.h,
// ctrl0000gpu.h, ctrl0000client.h). Part of the ioctl ABI (minicuda::uapi).
#pragma once

#include "ctrl/ctrlxxxx.h"
#include "nvlimits.h"
#include "nvtypes.h"

// ctrl0000system.h: the caller supplies three string buffers of sizeOfStrings.
typedef struct {
    NvU32 sizeOfStrings;
    NvP64 pDriverVersionBuffer;  // e.g. "580.xx.xx"
    NvP64 pVersionBuffer;
    NvP64 pTitleBuffer;
    NvU32 changelistNumber;
    NvU32 officialChangelistNumber;
} NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS;
static_assert(sizeof(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS) == 0x28, "measured");

inline constexpr NvU32 NV0000_CTRL_GPU_MAX_ATTACHED_GPUS = 32;
inline constexpr NvU32 NV0000_CTRL_GPU_MAX_PROBED_GPUS = NV_MAX_DEVICES;
inline constexpr NvU32 NV0000_CTRL_GPU_INVALID_ID = 0xFFFFFFFFu;   // ends the gpuIds[] lists
inline constexpr NvU32 NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS = 0x0000FFFFu;
inline constexpr NvU32 NV0000_CTRL_GPU_MAX_SZNAME = 128;
inline constexpr NvS32 NV0000_CTRL_NO_NUMA_NODE = -1;
inline constexpr NvU32 NV0000_GPU_MAX_GID_LENGTH = 0x100;

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
} NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS) == 0x80, "measured");

typedef struct {  // deprecated V1, still issued by libcuda (0x202)
    NvU32 gpuId;
    NvU32 gpuFlags;
    NvU32 deviceInstance;
    NvU32 subDeviceInstance;
    NvP64 szName;     // user buffer of NV0000_CTRL_GPU_MAX_SZNAME
    NvU32 sliStatus;
    NvU32 boardId;
    NvU32 gpuInstance;
    NvS32 numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS) == 0x28, "measured");

typedef struct {
    NvU32 gpuId;              // in
    NvU32 gpuFlags;           // out: NV0000_CTRL_GPU_ID_INFO_* bits
    NvU32 deviceInstance;     // out: use as NV0080_ALLOC_PARAMETERS.deviceId
    NvU32 subDeviceInstance;  // out: use as NV2080_ALLOC_PARAMETERS.subDeviceId
    NvU32 sliStatus;
    NvU32 boardId;
    NvU32 gpuInstance;
    NvS32 numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS) == 0x20, "measured");
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_IN_USE_BIT = 1u << 0;
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_BOOT_MASTER_BIT = 1u << 3;
inline constexpr NvU32 NV0000_CTRL_GPU_ID_INFO_ATS_ENABLED_BIT = 1u << 6;

typedef struct {
    NvU32 gpuId;
    NvU32 status;
} NV0000_CTRL_GPU_GET_INIT_STATUS_PARAMS;
typedef struct {
    NvU32 deviceIds;  // bitmask of valid deviceId values
} NV0000_CTRL_GPU_GET_DEVICE_IDS_PARAMS;

// 0x214. The header we could read has two tables (256 B); the CUDA 13 / 580-series
// driver sends 0x180 = 384 B, i.e. one more NvU32[32] table whose name we did not
// see. It is kept as `reserved` so the struct matches the measured size.
typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
    NvU32 excludedGpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
    NvU32 reserved[NV0000_CTRL_GPU_MAX_PROBED_GPUS];
} NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS) == 0x180, "measured");

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_PROBED_GPUS];  // or {ATTACH_ALL_PROBED_IDS, INVALID..}
    NvU32 failedId;
} NV0000_CTRL_GPU_ATTACH_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_ATTACH_IDS_PARAMS) == 0x84, "measured");

typedef struct {
    NvU32 gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
} NV0000_CTRL_GPU_DETACH_IDS_PARAMS;

typedef struct {
    NvU32 gpuId;
    NvU32 domain;
    NvU16 bus;
    NvU16 slot;
} NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS) == 12);

typedef struct {
    NvU8  gpuUuid[NV0000_GPU_MAX_GID_LENGTH];  // in
    NvU32 flags;
    NvU32 gpuId;
    NvU32 deviceInstance;
    NvU32 subdeviceInstance;
} NV0000_CTRL_GPU_GET_UUID_INFO_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_UUID_INFO_PARAMS) == 272);

typedef struct {
    NvU32 gpuId;
    NvU32 flags;                               // FORMAT 1:0 (ASCII 0, BINARY 2), TYPE 2:2 (SHA1 0)
    NvU8  gpuUuid[NV0000_GPU_MAX_GID_LENGTH];  // out
    NvU32 uuidStrLen;
} NV0000_CTRL_GPU_GET_UUID_FROM_GPU_ID_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_UUID_FROM_GPU_ID_PARAMS) == 268);

typedef struct {
    NvU32 enableMask;  // NV0000_CTRL_GPU_FLAGS_MEMOP_ENABLE
} NV0000_CTRL_GPU_GET_MEMOP_ENABLE_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_MEMOP_ENABLE_PARAMS) == 4, "measured");
inline constexpr NvU32 NV0000_CTRL_GPU_FLAGS_MEMOP_ENABLE = 0x1;

inline constexpr NvU32 NV0000_CTRL_GPU_MAX_ACTIVE_DEVICES = 256;
typedef struct {
    NvU32 gpuId;
    NvU32 gpuInstanceId;      // NV0000_CTRL_GPU_INVALID_ID when not in MIG mode
    NvU32 computeInstanceId;  // idem
} NV0000_CTRL_GPU_ACTIVE_DEVICE;
typedef struct {
    NvU32                         numDevices;
    NV0000_CTRL_GPU_ACTIVE_DEVICE devices[NV0000_CTRL_GPU_MAX_ACTIVE_DEVICES];
} NV0000_CTRL_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS;
static_assert(sizeof(NV0000_CTRL_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS) == 0xC04, "measured");

typedef struct {
    NvHandle hObject;        // in: memory object
    NvU32    mapFlags;       // in
    NvU32    addrSpaceType;  // out: NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_*
} NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS;
static_assert(sizeof(NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS) == 0xC, "measured");
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_INVALID = 0;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM = 1;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM = 2;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_REGMEM = 3;
inline constexpr NvU32 NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_FABRIC = 4;

// ctrl0000unix.h: sharing an RM object through a file descriptor of /dev/nvidiactl. The caller
// opens the fd itself; EXPORT binds the object to it, IMPORT dups the bound object into a client.
typedef enum {
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_NONE = 0,
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM = 1,
} NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE;

typedef struct {
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE type;
    union {
        struct {
            NvHandle hDevice;
            NvHandle hParent;
            NvHandle hObject;
        } rmObject;
    } data;
} NV0000_CTRL_OS_UNIX_EXPORT_OBJECT;
static_assert(sizeof(NV0000_CTRL_OS_UNIX_EXPORT_OBJECT) == 16);

typedef struct {
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT object;  // in: the object to bind
    NvS32 fd;                                   // in: an open fd of /dev/nvidiactl, bound to nothing
    NvU32 flags;                                // in: NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_*
} NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS;
static_assert(sizeof(NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS) == 24);
inline constexpr NvU32 NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD_TRUE = 0x1;

typedef struct {
    NvS32 fd;                                   // in: an fd an object was exported to
    NV0000_CTRL_OS_UNIX_EXPORT_OBJECT object;  // in: where the dup goes (hParent) and its handle (hObject)
} NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS;
static_assert(sizeof(NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS) == 20);
