// nv-ioctl.h: the parameter structs of nvidia.ko's own escapes (NV_ESC_CARD_INFO,
// NV_ESC_SYS_PARAMS, NV_ESC_REGISTER_FD, ...), as OGKM kernel-open/common/inc/nv-ioctl.h. Part of
// the ioctl ABI (minicuda::uapi).
#pragma once

#include <cstddef>

#include "nvtypes.h"

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
