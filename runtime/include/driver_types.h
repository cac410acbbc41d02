/*
 * driver_types.h -- the types of the CUDA 13.0 runtime API, as the toolkit's driver_types.h
 * declares them: error codes (cudaError_t), handles (cudaStream_t, cudaEvent_t), flag macros,
 * the enumerations a program passes or reads (cudaMemcpyKind, cudaDeviceAttr, cudaComputeMode,
 * cudaLimit, cudaFuncCache, ...) and the structs the runtime fills (cudaDeviceProp,
 * cudaPointerAttributes, cudaFuncAttributes). Names, numbers and layouts are the toolkit's; the
 * comments are minicuda's own.
 *
 * An enumeration here lists every value CUDA 13.0 defines, also those minicuda's runtime does not
 * act on: a program can name them and gets the real error (cudaErrorNotSupported,
 * cudaErrorInvalidValue...) for what is not built, instead of a compile error.
 *
 * The error table (MINICUDA_CUDA_ERRORS) is in crt/driver_types_errors.h, included here.
 * cuda_runtime.h and builtin_types.h include this file; a program may include it alone.
 */
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__

/* In C++ the enumerations a caller fills in (error codes, attributes, kinds) have int as their
 * fixed underlying type, so every int is one of their values: a program may pass a value no
 * enumerator names - (cudaMemcpyKind)42, as the H200 probes do - and get the real error back,
 * with no undefined behaviour on the way (-fsanitize=enum). The layout is an int either way. */
#ifndef MINICUDA_ENUM_INT
#if defined(__cplusplus)
#define MINICUDA_ENUM_INT : int
#else
#define MINICUDA_ENUM_INT
#endif
#endif

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#else
#include <stddef.h>
#include <stdint.h>
#endif
#include "host_defines.h"
#include "vector_types.h"

/* ============================================================================================== */
/* 1. Error codes                                                                                 */
/* ============================================================================================== */

#include "crt/driver_types_errors.h"

/* ============================================================================================== */
/* 2. Handles and flags                                                                           */
/* ============================================================================================== */

/* Streams, events and functions are the driver's CUstream / CUevent / CUfunction objects under
 * another name. */
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUfunc_st* cudaFunction_t;

/* The 16-byte device UUID, shared with cuda.h (same guard as the real headers). */
#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
struct CUuuid_st {
  char bytes[16];
};
typedef struct CUuuid_st CUuuid;
#endif
typedef struct CUuuid_st cudaUUID_t;

/* cudaHostAlloc flags (the same bits as cuMemHostAlloc's CU_MEMHOSTALLOC_*). */
#define cudaHostAllocDefault       0x00  /* pinned, for the current device's context */
#define cudaHostAllocPortable      0x01  /* pinned for all contexts */
#define cudaHostAllocMapped        0x02  /* also mapped into the device address space */
#define cudaHostAllocWriteCombined 0x04  /* write-combined: fast host writes, slow host reads */

/* cudaHostRegister flags. */
#define cudaHostRegisterDefault  0x00
#define cudaHostRegisterPortable 0x01  /* registered for all contexts */
#define cudaHostRegisterMapped   0x02  /* also mapped into the device address space */
#define cudaHostRegisterIoMemory 0x04  /* the range is I/O memory, not RAM */
#define cudaHostRegisterReadOnly 0x08  /* the device only reads it */

/* cudaDeviceEnablePeerAccess flags, cudaIpcOpenMemHandle flags, cudaMallocManaged /
 * cudaStreamAttachMemAsync flags, occupancy flags. */
#define cudaPeerAccessDefault               0x00
#define cudaIpcMemLazyEnablePeerAccess      0x01
#define cudaMemAttachGlobal                 0x01  /* any stream on any device may use it */
#define cudaMemAttachHost                   0x02  /* only the host, until attached */
#define cudaMemAttachSingle                 0x04  /* only the stream it is attached to */
#define cudaOccupancyDefault                0x00
#define cudaOccupancyDisableCachingOverride 0x01

/* cudaMallocArray / cudaMalloc3DArray flags. */
#define cudaArrayDefault          0x00
#define cudaArrayLayered          0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap          0x04
#define cudaArrayTextureGather    0x08
#define cudaArrayColorAttachment  0x20
#define cudaArraySparse           0x40
#define cudaArrayDeferredMapping  0x80

/* Stream flags and special stream handles. */
#define cudaStreamDefault     0x00                 /* synchronizes with the legacy NULL stream */
#define cudaStreamNonBlocking 0x01                 /* does not synchronize with the NULL stream */
#define cudaStreamLegacy      ((cudaStream_t)0x1)  /* the legacy NULL stream, explicitly */
#define cudaStreamPerThread   ((cudaStream_t)0x2)  /* this host thread's default stream */

/* Event flags. */
#define cudaEventDefault       0x00
#define cudaEventBlockingSync  0x01  /* cudaEventSynchronize blocks instead of spinning */
#define cudaEventDisableTiming 0x02  /* no timestamp: cudaEventElapsedTime refuses it */
#define cudaEventInterprocess  0x04  /* shareable across processes; needs DisableTiming */
#define cudaEventRecordDefault  0x00  /* cudaEventRecordWithFlags */
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault    0x00  /* cudaStreamWaitEvent */
#define cudaEventWaitExternal   0x01

/* Device flags (cudaSetDeviceFlags, cudaInitDevice's deviceFlags). */
#define cudaDeviceScheduleAuto         0x00
#define cudaDeviceScheduleSpin         0x01
#define cudaDeviceScheduleYield        0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync         0x04  /* deprecated spelling */
#define cudaDeviceScheduleMask         0x07
#define cudaDeviceMapHost              0x08
#define cudaDeviceLmemResizeToMax      0x10
#define cudaDeviceSyncMemops           0x80
#define cudaDeviceMask                 0xff

/* Special device ids, and cudaInitDevice's `flags`. */
#define cudaCpuDeviceId             ((int)-1)
#define cudaInvalidDeviceId         ((int)-2)
#define cudaInitDeviceFlagsAreValid 0x01

/* ============================================================================================== */
/* 3. Enums and small structs                                                                     */
/* ============================================================================================== */

/* Direction of a cudaMemcpy*. Default infers it from the pointers (needs unified addressing). */
enum cudaMemcpyKind MINICUDA_ENUM_INT {
  cudaMemcpyHostToHost     = 0,
  cudaMemcpyHostToDevice   = 1,
  cudaMemcpyDeviceToHost   = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault        = 4
};

/* What cudaPointerGetAttributes says a pointer is. */
enum cudaMemoryType MINICUDA_ENUM_INT {
  cudaMemoryTypeUnregistered = 0,  /* unknown to CUDA (e.g. pageable malloc memory) */
  cudaMemoryTypeHost         = 1,  /* page-locked host memory (cudaMallocHost, cudaHostAlloc) */
  cudaMemoryTypeDevice       = 2,  /* device memory (cudaMalloc) */
  cudaMemoryTypeManaged      = 3   /* managed memory (cudaMallocManaged) */
};

/* Filled by cudaPointerGetAttributes. */
struct cudaPointerAttributes {
  enum cudaMemoryType type;  /* kind of memory */
  int device;                /* device it was allocated on (or current then, for host memory) */
  void* devicePointer;       /* address usable on the device, or NULL */
  void* hostPointer;         /* address usable on the host, or NULL */
  long reserved[8];          /* must be zero */
};

/*
 * Device attributes for cudaDeviceGetAttribute. The ids are the driver's CUdevice_attribute ids
 * (cudaDevAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE == 10); ids the runtime does not expose
 * (44, 102-105, 107, 110, 136, 137, 146) are absent, as in CUDA 13.0.
 */
enum cudaDeviceAttr MINICUDA_ENUM_INT {
  cudaDevAttrMaxThreadsPerBlock                     = 1,
  cudaDevAttrMaxBlockDimX                           = 2,
  cudaDevAttrMaxBlockDimY                           = 3,
  cudaDevAttrMaxBlockDimZ                           = 4,
  cudaDevAttrMaxGridDimX                            = 5,
  cudaDevAttrMaxGridDimY                            = 6,
  cudaDevAttrMaxGridDimZ                            = 7,
  cudaDevAttrMaxSharedMemoryPerBlock                = 8,
  cudaDevAttrTotalConstantMemory                    = 9,
  cudaDevAttrWarpSize                               = 10,
  cudaDevAttrMaxPitch                               = 11,
  cudaDevAttrMaxRegistersPerBlock                   = 12,
  cudaDevAttrClockRate                              = 13,
  cudaDevAttrTextureAlignment                       = 14,
  cudaDevAttrGpuOverlap                             = 15,
  cudaDevAttrMultiProcessorCount                    = 16,
  cudaDevAttrKernelExecTimeout                      = 17,
  cudaDevAttrIntegrated                             = 18,
  cudaDevAttrCanMapHostMemory                       = 19,
  cudaDevAttrComputeMode                            = 20,
  cudaDevAttrMaxTexture1DWidth                      = 21,
  cudaDevAttrMaxTexture2DWidth                      = 22,
  cudaDevAttrMaxTexture2DHeight                     = 23,
  cudaDevAttrMaxTexture3DWidth                      = 24,
  cudaDevAttrMaxTexture3DHeight                     = 25,
  cudaDevAttrMaxTexture3DDepth                      = 26,
  cudaDevAttrMaxTexture2DLayeredWidth               = 27,
  cudaDevAttrMaxTexture2DLayeredHeight              = 28,
  cudaDevAttrMaxTexture2DLayeredLayers              = 29,
  cudaDevAttrSurfaceAlignment                       = 30,
  cudaDevAttrConcurrentKernels                      = 31,
  cudaDevAttrEccEnabled                             = 32,
  cudaDevAttrPciBusId                               = 33,
  cudaDevAttrPciDeviceId                            = 34,
  cudaDevAttrTccDriver                              = 35,
  cudaDevAttrMemoryClockRate                        = 36,
  cudaDevAttrGlobalMemoryBusWidth                   = 37,
  cudaDevAttrL2CacheSize                            = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor            = 39,
  cudaDevAttrAsyncEngineCount                       = 40,
  cudaDevAttrUnifiedAddressing                      = 41,
  cudaDevAttrMaxTexture1DLayeredWidth               = 42,
  cudaDevAttrMaxTexture1DLayeredLayers              = 43,
  cudaDevAttrMaxTexture2DGatherWidth                = 45,
  cudaDevAttrMaxTexture2DGatherHeight               = 46,
  cudaDevAttrMaxTexture3DWidthAlt                   = 47,
  cudaDevAttrMaxTexture3DHeightAlt                  = 48,
  cudaDevAttrMaxTexture3DDepthAlt                   = 49,
  cudaDevAttrPciDomainId                            = 50,
  cudaDevAttrTexturePitchAlignment                  = 51,
  cudaDevAttrMaxTextureCubemapWidth                 = 52,
  cudaDevAttrMaxTextureCubemapLayeredWidth          = 53,
  cudaDevAttrMaxTextureCubemapLayeredLayers         = 54,
  cudaDevAttrMaxSurface1DWidth                      = 55,
  cudaDevAttrMaxSurface2DWidth                      = 56,
  cudaDevAttrMaxSurface2DHeight                     = 57,
  cudaDevAttrMaxSurface3DWidth                      = 58,
  cudaDevAttrMaxSurface3DHeight                     = 59,
  cudaDevAttrMaxSurface3DDepth                      = 60,
  cudaDevAttrMaxSurface1DLayeredWidth               = 61,
  cudaDevAttrMaxSurface1DLayeredLayers              = 62,
  cudaDevAttrMaxSurface2DLayeredWidth               = 63,
  cudaDevAttrMaxSurface2DLayeredHeight              = 64,
  cudaDevAttrMaxSurface2DLayeredLayers              = 65,
  cudaDevAttrMaxSurfaceCubemapWidth                 = 66,
  cudaDevAttrMaxSurfaceCubemapLayeredWidth          = 67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers         = 68,
  cudaDevAttrMaxTexture1DLinearWidth                = 69,
  cudaDevAttrMaxTexture2DLinearWidth                = 70,
  cudaDevAttrMaxTexture2DLinearHeight               = 71,
  cudaDevAttrMaxTexture2DLinearPitch                = 72,
  cudaDevAttrMaxTexture2DMipmappedWidth             = 73,
  cudaDevAttrMaxTexture2DMipmappedHeight            = 74,
  cudaDevAttrComputeCapabilityMajor                 = 75,
  cudaDevAttrComputeCapabilityMinor                 = 76,
  cudaDevAttrMaxTexture1DMipmappedWidth             = 77,
  cudaDevAttrStreamPrioritiesSupported              = 78,
  cudaDevAttrGlobalL1CacheSupported                 = 79,
  cudaDevAttrLocalL1CacheSupported                  = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor       = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor          = 82,
  cudaDevAttrManagedMemory                          = 83,
  cudaDevAttrIsMultiGpuBoard                        = 84,
  cudaDevAttrMultiGpuBoardGroupID                   = 85,
  cudaDevAttrHostNativeAtomicSupported              = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio       = 87,
  cudaDevAttrPageableMemoryAccess                   = 88,
  cudaDevAttrConcurrentManagedAccess                = 89,
  cudaDevAttrComputePreemptionSupported             = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem      = 91,
  cudaDevAttrReserved92                             = 92,
  cudaDevAttrReserved93                             = 93,
  cudaDevAttrReserved94                             = 94,
  cudaDevAttrCooperativeLaunch                      = 95,
  cudaDevAttrReserved96                             = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin           = 97,
  cudaDevAttrCanFlushRemoteWrites                   = 98,
  cudaDevAttrHostRegisterSupported                  = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost         = 101,
  cudaDevAttrMaxBlocksPerMultiprocessor             = 106,
  cudaDevAttrMaxPersistingL2CacheSize               = 108,
  cudaDevAttrMaxAccessPolicyWindowSize              = 109,
  cudaDevAttrReservedSharedMemoryPerBlock           = 111,
  cudaDevAttrSparseCudaArraySupported               = 112,
  cudaDevAttrHostRegisterReadOnlySupported          = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported      = 114,
  cudaDevAttrMemoryPoolsSupported                   = 115,
  cudaDevAttrGPUDirectRDMASupported                 = 116,
  cudaDevAttrGPUDirectRDMAFlushWritesOptions        = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering            = 118,
  cudaDevAttrMemoryPoolSupportedHandleTypes         = 119,
  cudaDevAttrClusterLaunch                          = 120,
  cudaDevAttrDeferredMappingCudaArraySupported      = 121,
  cudaDevAttrReserved122                            = 122,
  cudaDevAttrReserved123                            = 123,
  cudaDevAttrReserved124                            = 124,
  cudaDevAttrIpcEventSupport                        = 125,
  cudaDevAttrMemSyncDomainCount                     = 126,
  cudaDevAttrReserved127                            = 127,
  cudaDevAttrReserved128                            = 128,
  cudaDevAttrReserved129                            = 129,
  cudaDevAttrNumaConfig                             = 130,
  cudaDevAttrNumaId                                 = 131,
  cudaDevAttrReserved132                            = 132,
  cudaDevAttrMpsEnabled                             = 133,
  cudaDevAttrHostNumaId                             = 134,
  cudaDevAttrD3D12CigSupported                      = 135,
  cudaDevAttrVulkanCigSupported                     = 138,
  cudaDevAttrGpuPciDeviceId                         = 139,
  cudaDevAttrGpuPciSubsystemId                      = 140,
  cudaDevAttrReserved141                            = 141,
  cudaDevAttrHostNumaMemoryPoolsSupported           = 142,
  cudaDevAttrHostNumaMultinodeIpcSupported          = 143,
  cudaDevAttrHostMemoryPoolsSupported               = 144,
  cudaDevAttrReserved145                            = 145,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported   = 147,
  cudaDevAttrMax
};



/* Compute mode of a device (cudaDevAttrComputeMode): who may create contexts on it. */
enum cudaComputeMode MINICUDA_ENUM_INT {
  cudaComputeModeDefault          = 0,  /* any number of host threads and processes */
  cudaComputeModeExclusive        = 1,  /* one context, used by one thread at a time */
  cudaComputeModeProhibited       = 2,  /* no context may be created */
  cudaComputeModeExclusiveProcess = 3   /* one context, used by many threads of one process */
};

/* Per-context limits (cudaDeviceSetLimit / cudaDeviceGetLimit). */
enum cudaLimit MINICUDA_ENUM_INT {
  cudaLimitStackSize                    = 0x00,  /* bytes of stack per GPU thread */
  cudaLimitPrintfFifoSize               = 0x01,  /* bytes of the device printf buffer */
  cudaLimitMallocHeapSize               = 0x02,  /* bytes of the device malloc heap */
  cudaLimitDevRuntimeSyncDepth          = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity        = 0x05,  /* bytes, 0 .. 128 */
  cudaLimitPersistingL2CacheSize        = 0x06
};

/* L1 / shared memory preference (cudaDeviceSetCacheConfig, cudaFuncSetCacheConfig). */
enum cudaFuncCache MINICUDA_ENUM_INT {
  cudaFuncCachePreferNone   = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1     = 2,
  cudaFuncCachePreferEqual  = 3
};

/* Shared memory bank width (deprecated calls; every current GPU has 4-byte banks). */
enum cudaSharedMemConfig MINICUDA_ENUM_INT {
  cudaSharedMemBankSizeDefault   = 0,
  cudaSharedMemBankSizeFourByte  = 1,
  cudaSharedMemBankSizeEightByte = 2
};

/* Values of cudaFuncAttributePreferredSharedMemoryCarveout: a percentage, or these. */
enum cudaSharedCarveout MINICUDA_ENUM_INT {
  cudaSharedmemCarveoutDefault   = -1,
  cudaSharedmemCarveoutMaxShared = 100,
  cudaSharedmemCarveoutMaxL1     = 0
};

/* Attributes cudaFuncSetAttribute may set. */
enum cudaFuncAttribute MINICUDA_ENUM_INT {
  cudaFuncAttributeMaxDynamicSharedMemorySize        = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout     = 9,
  cudaFuncAttributeClusterDimMustBeSet               = 10,
  cudaFuncAttributeRequiredClusterWidth              = 11,
  cudaFuncAttributeRequiredClusterHeight             = 12,
  cudaFuncAttributeRequiredClusterDepth              = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed     = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax
};

/* Filled by cudaFuncGetAttributes. */
struct cudaFuncAttributes {
  size_t sharedSizeBytes;  /* static shared memory of the kernel */
  size_t constSizeBytes;
  size_t localSizeBytes;   /* local (stack) memory per thread */
  int maxThreadsPerBlock;  /* the most threads a block of this kernel may have */
  int numRegs;
  int ptxVersion;          /* 10 * major + minor */
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

/* Advice for managed memory (cudaMemAdvise) and what cudaMemRangeGetAttribute reports. */
enum cudaMemoryAdvise MINICUDA_ENUM_INT {
  cudaMemAdviseSetReadMostly          = 1,
  cudaMemAdviseUnsetReadMostly        = 2,
  cudaMemAdviseSetPreferredLocation   = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy          = 5,
  cudaMemAdviseUnsetAccessedBy        = 6
};
enum cudaMemRangeAttribute MINICUDA_ENUM_INT {
  cudaMemRangeAttributeReadMostly               = 1,
  cudaMemRangeAttributePreferredLocation        = 2,
  cudaMemRangeAttributeAccessedBy               = 3,
  cudaMemRangeAttributeLastPrefetchLocation     = 4,
  cudaMemRangeAttributePreferredLocationType    = 5,
  cudaMemRangeAttributePreferredLocationId      = 6,
  cudaMemRangeAttributeLastPrefetchLocationType = 7,
  cudaMemRangeAttributeLastPrefetchLocationId   = 8
};
/* Where memory is or should be (cudaMemPrefetchAsync, cudaMemAdvise): a device or the host. */
enum cudaMemLocationType MINICUDA_ENUM_INT {
  cudaMemLocationTypeInvalid         = 0,
  cudaMemLocationTypeNone            = 0,
  cudaMemLocationTypeDevice          = 1, /* id: a device ordinal */
  cudaMemLocationTypeHost            = 2, /* id ignored */
  cudaMemLocationTypeHostNuma        = 3, /* id: a host NUMA node */
  cudaMemLocationTypeHostNumaCurrent = 4  /* the calling thread's NUMA node; id ignored */
};
struct cudaMemLocation {
  enum cudaMemLocationType type;
  int id;
};

/* Stream capture (graphs): the state of a stream and how strict a capture is. */
enum cudaStreamCaptureStatus MINICUDA_ENUM_INT {
  cudaStreamCaptureStatusNone        = 0,
  cudaStreamCaptureStatusActive      = 1,
  cudaStreamCaptureStatusInvalidated = 2  /* an error ended the capture; end it to reset */
};
enum cudaStreamCaptureMode MINICUDA_ENUM_INT {
  cudaStreamCaptureModeGlobal      = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed     = 2
};

/* cudaStreamUpdateCaptureDependencies: add to, or replace, a capturing stream's dependencies. */
enum cudaStreamUpdateCaptureDependenciesFlags MINICUDA_ENUM_INT {
  cudaStreamAddCaptureDependencies = 0x0,
  cudaStreamSetCaptureDependencies = 0x1
};
/* A graph's conditional variable (cudaGraphConditionalHandleCreate); device code sets it with
 * cudaGraphSetConditional (cuda_device_runtime_api.h). */
typedef unsigned long long cudaGraphConditionalHandle;

/* Attributes of a pair of devices (cudaDeviceGetP2PAttribute). */
enum cudaDeviceP2PAttr MINICUDA_ENUM_INT {
  cudaDevP2PAttrPerformanceRank                  = 1,
  cudaDevP2PAttrAccessSupported                  = 2,
  cudaDevP2PAttrNativeAtomicSupported            = 3,
  cudaDevP2PAttrCudaArrayAccessSupported         = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};

/* cudaDeviceProp::deviceNumaConfig. */
enum cudaDeviceNumaConfig MINICUDA_ENUM_INT {
  cudaDeviceNumaConfigNone     = 0,
  cudaDeviceNumaConfigNumaNode = 1
};

/* Cache behaviour of an access policy window (cudaStreamSetAttribute). */
enum cudaAccessProperty MINICUDA_ENUM_INT {
  cudaAccessPropertyNormal     = 0,
  cudaAccessPropertyStreaming  = 1,
  cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
  void* base_ptr;
  size_t num_bytes;
  float hitRatio;
  enum cudaAccessProperty hitProp;
  enum cudaAccessProperty missProp;
};
/* How a host thread waits for a stream's work (cudaStreamAttributeSynchronizationPolicy). */
enum cudaSynchronizationPolicy MINICUDA_ENUM_INT {
  cudaSyncPolicyAuto         = 1,
  cudaSyncPolicySpin         = 2,
  cudaSyncPolicyYield        = 3,
  cudaSyncPolicyBlockingSync = 4
};

/* Texture and array channel formats (cudaCreateChannelDesc). */
enum cudaChannelFormatKind MINICUDA_ENUM_INT {
  cudaChannelFormatKindSigned                       = 0,
  cudaChannelFormatKindUnsigned                     = 1,
  cudaChannelFormatKindFloat                        = 2,
  cudaChannelFormatKindNone                         = 3,
  cudaChannelFormatKindNV12                         = 4,
  cudaChannelFormatKindUnsignedNormalized8X1        = 5,
  cudaChannelFormatKindUnsignedNormalized8X2        = 6,
  cudaChannelFormatKindUnsignedNormalized8X4        = 7,
  cudaChannelFormatKindUnsignedNormalized16X1       = 8,
  cudaChannelFormatKindUnsignedNormalized16X2       = 9,
  cudaChannelFormatKindUnsignedNormalized16X4       = 10,
  cudaChannelFormatKindSignedNormalized8X1          = 11,
  cudaChannelFormatKindSignedNormalized8X2          = 12,
  cudaChannelFormatKindSignedNormalized8X4          = 13,
  cudaChannelFormatKindSignedNormalized16X1         = 14,
  cudaChannelFormatKindSignedNormalized16X2         = 15,
  cudaChannelFormatKindSignedNormalized16X4         = 16,
  cudaChannelFormatKindUnsignedBlockCompressed1     = 17,
  cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
  cudaChannelFormatKindUnsignedBlockCompressed2     = 19,
  cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
  cudaChannelFormatKindUnsignedBlockCompressed3     = 21,
  cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
  cudaChannelFormatKindUnsignedBlockCompressed4     = 23,
  cudaChannelFormatKindSignedBlockCompressed4       = 24,
  cudaChannelFormatKindUnsignedBlockCompressed5     = 25,
  cudaChannelFormatKindSignedBlockCompressed5       = 26,
  cudaChannelFormatKindUnsignedBlockCompressed6H    = 27,
  cudaChannelFormatKindSignedBlockCompressed6H      = 28,
  cudaChannelFormatKindUnsignedBlockCompressed7     = 29,
  cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
  cudaChannelFormatKindUnsignedNormalized1010102    = 31
};
/* Bits per component (x, y, z, w) and their kind. */
struct cudaChannelFormatDesc {
  int x, y, z, w;
  enum cudaChannelFormatKind f;
};

/* CUDA arrays (opaque: cudaMallocArray, cudaMalloc3DArray). */
typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray* cudaMipmappedArray_const_t;

/* Pitched 2D/3D memory (cudaMallocPitch, cudaMalloc3D, cudaMemcpy3D). */
struct cudaPitchedPtr {
  void* ptr;     /* first byte */
  size_t pitch;  /* bytes from one row to the next */
  size_t xsize;  /* logical width in bytes */
  size_t ysize;  /* logical height in rows */
};
struct cudaExtent {
  size_t width;   /* in bytes for linear memory, in elements for arrays */
  size_t height;
  size_t depth;
};
struct cudaPos {
  size_t x, y, z;
};

/* Inter-process handles (cudaIpcGetMemHandle, cudaIpcGetEventHandle): 64 opaque bytes. */
#define CUDA_IPC_HANDLE_SIZE 64
typedef struct cudaIpcEventHandle_st {
  char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcEventHandle_t;
typedef struct cudaIpcMemHandle_st {
  char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcMemHandle_t;

/* ============================================================================================== */
/* 4. cudaDeviceProp                                                                              */
/* ============================================================================================== */

/*
 * Filled by cudaGetDeviceProperties. Field list, order and types are CUDA 13.0's, so the layout
 * (and sizeof) matches binaries built with the real toolkit. CUDA 13 removed fields that older
 * code may still use: clockRate, memoryClockRate, deviceOverlap, kernelExecTimeoutEnabled,
 * computeMode, maxTexture1DLinear, cooperativeMultiDeviceLaunch and others; query those through
 * cudaDeviceGetAttribute.
 */
struct cudaDeviceProp {
  char          name[256];  /* NUL-terminated marketing name, e.g. "NVIDIA H200" */
  cudaUUID_t    uuid;  /* same bytes as cuDeviceGetUuid */
  char          luid[8];  /* Windows only; undefined elsewhere */
  unsigned int  luidDeviceNodeMask;
  size_t        totalGlobalMem;  /* bytes of device memory */
  size_t        sharedMemPerBlock;  /* default per-block shared memory limit (48 KiB) */
  int           regsPerBlock;  /* 32-bit registers per block */
  int           warpSize;
  size_t        memPitch;
  int           maxThreadsPerBlock;
  int           maxThreadsDim[3];  /* block size limit per dimension */
  int           maxGridSize[3];  /* grid size limit per dimension */
  size_t        totalConstMem;
  int           major;  /* compute capability major (9 on H100/H200) */
  int           minor;
  size_t        textureAlignment;
  size_t        texturePitchAlignment;
  int           multiProcessorCount;  /* number of SMs */
  int           integrated;
  int           canMapHostMemory;
  int           maxTexture1D;  /* texture and surface limits follow (not simulated) */
  int           maxTexture1DMipmap;
  int           maxTexture2D[2];
  int           maxTexture2DMipmap[2];
  int           maxTexture2DLinear[3];
  int           maxTexture2DGather[2];
  int           maxTexture3D[3];
  int           maxTexture3DAlt[3];
  int           maxTextureCubemap;
  int           maxTexture1DLayered[2];
  int           maxTexture2DLayered[3];
  int           maxTextureCubemapLayered[2];
  int           maxSurface1D;
  int           maxSurface2D[2];
  int           maxSurface3D[3];
  int           maxSurface1DLayered[2];
  int           maxSurface2DLayered[3];
  int           maxSurfaceCubemap;
  int           maxSurfaceCubemapLayered[2];
  size_t        surfaceAlignment;
  int           concurrentKernels;
  int           ECCEnabled;
  int           pciBusID;
  int           pciDeviceID;
  int           pciDomainID;
  int           tccDriver;
  int           asyncEngineCount;  /* copy engines usable concurrently */
  int           unifiedAddressing;
  int           memoryBusWidth;
  int           l2CacheSize;
  int           persistingL2CacheMaxSize;
  int           maxThreadsPerMultiProcessor;
  int           streamPrioritiesSupported;
  int           globalL1CacheSupported;
  int           localL1CacheSupported;
  size_t        sharedMemPerMultiprocessor;  /* whole shared memory of one SM */
  int           regsPerMultiprocessor;
  int           managedMemory;
  int           isMultiGpuBoard;
  int           multiGpuBoardGroupID;
  int           hostNativeAtomicSupported;
  int           pageableMemoryAccess;
  int           concurrentManagedAccess;
  int           computePreemptionSupported;
  int           canUseHostPointerForRegisteredMem;
  int           cooperativeLaunch;
  size_t        sharedMemPerBlockOptin;  /* per-block limit after cudaFuncSetAttribute opt-in */
  int           pageableMemoryAccessUsesHostPageTables;
  int           directManagedMemAccessFromHost;
  int           maxBlocksPerMultiProcessor;  /* resident block limit per SM */
  int           accessPolicyMaxWindowSize;
  size_t        reservedSharedMemPerBlock;  /* shared memory the driver keeps per block (1 KiB) */
  int           hostRegisterSupported;
  int           sparseCudaArraySupported;
  int           hostRegisterReadOnlySupported;
  int           timelineSemaphoreInteropSupported;
  int           memoryPoolsSupported;
  int           gpuDirectRDMASupported;
  unsigned int  gpuDirectRDMAFlushWritesOptions;
  int           gpuDirectRDMAWritesOrdering;
  unsigned int  memoryPoolSupportedHandleTypes;
  int           deferredMappingCudaArraySupported;
  int           ipcEventSupported;
  int           clusterLaunch;
  int           unifiedFunctionPointers;
  int           deviceNumaConfig;  /* a cudaDeviceNumaConfig value */
  int           deviceNumaId;
  int           mpsEnabled;
  int           hostNumaId;
  unsigned int  gpuPciDeviceID;
  unsigned int  gpuPciSubsystemID;
  int           hostNumaMultinodeIpcSupported;
  int           reserved[56];  /* pads the struct to its fixed ABI size */
};



/* Resource descriptions of texture and surface objects. */
#include "crt/driver_types_textures.h"

#endif /* __DRIVER_TYPES_H__ */
