// alloc/alloc_channel.h: the alloc parameters of the objects that feed the GPU work: the context
// share, the GPFIFO channel, the copy engine object and the usermode doorbell page. Part of the
// ioctl ABI (minicuda::uapi); used by libcuda to build a context's channels and by nvidia.ko to
// check and construct them. The classes themselves are the hardware's (minicuda::hw); the real
// headers keep these structs beside some of them, minicuda keeps the ABI apart from the hardware.
//
// Sources: OGKM src/common/sdk/nvidia/inc/alloc/alloc_channel.h (NV_CHANNEL_ALLOC_PARAMS, the
// 570/580 layout: 610 inserts hHandleVASpace after hVASpace), nvos.h
// (NV_CTXSHARE_ALLOCATION_PARAMETERS), class/clb0b5.h (NVB0B5_ALLOCATION_PARAMETERS),
// class/clc661.h (NV_HOPPER_USERMODE_A_PARAMS).
#pragma once

#include <cstddef>

#include "nvlimits.h"
#include "nvtypes.h"

// alloc_channel.h NV_MEMORY_DESC_PARAMS: a physical memory description RM fills in (reserved
// for user space).
typedef struct {
    NvU64 base;
    NvU64 size;
    NvU32 addressSpace;
    NvU32 cacheAttrib;
} NV_MEMORY_DESC_PARAMS;
static_assert(sizeof(NV_MEMORY_DESC_PARAMS) == 24);

inline constexpr NvU32 CC_CHAN_ALLOC_IV_SIZE_DWORD = 3;
inline constexpr NvU32 CC_CHAN_ALLOC_NONCE_SIZE_DWORD = 8;

// alloc_channel.h NV_CHANNEL_ALLOC_PARAMS (alias NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS): the
// pAllocParms of HOPPER_CHANNEL_GPFIFO_A.
typedef struct {
    NvHandle hObjectError;        // error notifier memory (NV_CHANNELGPFIFO_NOTIFICATION_TYPE_ERROR)
    NvHandle hObjectBuffer;       // the pushbuffer's memory object (may be 0)
    NvU64    gpFifoOffset;        // GPU VA of the GPFIFO ring
    NvU32    gpFifoEntries;       // entries of 8 bytes; a power of two
    NvU32    flags;               // NVOS04_FLAGS_*
    NvHandle hContextShare;       // FERMI_CONTEXT_SHARE_A (subcontext)
    NvHandle hVASpace;
    NvHandle hUserdMemory[NV_MAX_SUBDEVICES];  // USERD memory object, 0 = RM provides it
    NvU64    userdOffset[NV_MAX_SUBDEVICES];   // offset of USERD in hUserdMemory
    NvU32    engineType;          // NV2080_ENGINE_TYPE_*
    NvU32    cid;                 // channel id, unique per RM session (out)
    NvU32    subDeviceId;
    NvHandle hObjectEccError;
    NV_MEMORY_DESC_PARAMS instanceMem;  // reserved
    NV_MEMORY_DESC_PARAMS userdMem;     // reserved
    NV_MEMORY_DESC_PARAMS ramfcMem;     // reserved
    NV_MEMORY_DESC_PARAMS mthdbufMem;   // reserved
    NvHandle hPhysChannelGroup;         // reserved
    NvU32    internalFlags;             // reserved
    NV_MEMORY_DESC_PARAMS errorNotifierMem;     // reserved
    NV_MEMORY_DESC_PARAMS eccErrorNotifierMem;  // reserved
    NvU32    ProcessID;                 // reserved
    NvU32    SubProcessID;              // reserved
    NvU32    encryptIv[CC_CHAN_ALLOC_IV_SIZE_DWORD];     // confidential computing (reserved)
    NvU32    decryptIv[CC_CHAN_ALLOC_IV_SIZE_DWORD];
    NvU32    hmacNonce[CC_CHAN_ALLOC_NONCE_SIZE_DWORD];
    NvU32    tpcConfigID;
} NV_CHANNEL_ALLOC_PARAMS;
typedef NV_CHANNEL_ALLOC_PARAMS NV_CHANNELGPFIFO_ALLOCATION_PARAMETERS;
static_assert(offsetof(NV_CHANNEL_ALLOC_PARAMS, hUserdMemory) == 32);
static_assert(offsetof(NV_CHANNEL_ALLOC_PARAMS, engineType) == 128);
static_assert(offsetof(NV_CHANNEL_ALLOC_PARAMS, instanceMem) == 144);
static_assert(offsetof(NV_CHANNEL_ALLOC_PARAMS, errorNotifierMem) == 248);
static_assert(offsetof(NV_CHANNEL_ALLOC_PARAMS, tpcConfigID) == 360);
static_assert(sizeof(NV_CHANNEL_ALLOC_PARAMS) == 368);

// nvos.h NV_CTXSHARE_ALLOCATION_PARAMETERS: FERMI_CONTEXT_SHARE_A (a subcontext / VEID).
inline constexpr NvU32 NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SYNC = 0x0;
inline constexpr NvU32 NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC = 0x1;
typedef struct {
    NvHandle hVASpace;
    NvU32    flags;
    NvU32    subctxId;  // out
} NV_CTXSHARE_ALLOCATION_PARAMETERS;
static_assert(sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS) == 12);

// clb0b5.h NVB0B5_ALLOCATION_PARAMETERS: the copy engine object (*_DMA_COPY_A) in a channel.
inline constexpr NvU32 NVB0B5_ALLOCATION_PARAMETERS_VERSION_1 = 1;
typedef struct {
    NvU32 version;
    NvU32 engineType;  // NV2080_ENGINE_TYPE_COPY(n)
} NVB0B5_ALLOCATION_PARAMETERS;
static_assert(sizeof(NVB0B5_ALLOCATION_PARAMETERS) == 8);

// clc661.h NV_HOPPER_USERMODE_A_PARAMS: the usermode page (doorbell), mapped through BAR1 or
// BAR0; 64 KiB (NVC361_NV_USERMODE__SIZE).
typedef struct {
    NvBool bBar1Mapping;
    NvBool bPriv;
} NV_HOPPER_USERMODE_A_PARAMS;
static_assert(sizeof(NV_HOPPER_USERMODE_A_PARAMS) == 2);

// minicuda's channel-allocation flag (a bit the real NVOS04_FLAGS_* leave unused): the channel's
// work runs inline, in the thread that waits for it in poll() on /dev/nvidiactl, instead of on
// the GPU's own thread. libcuda sets it under CUDA_LAUNCH_BLOCKING=1.
inline constexpr NvU32 NVOS04_FLAGS_MINICUDA_INLINE = 0x80000000u;
