/*
 * cuda_runtime.h -- minicuda's look-alike of the CUDA 13.0 Runtime API header ("libcudart"),
 * folding in the parts of driver_types.h, vector_types.h and cuda_runtime_api.h that host code
 * needs.
 *
 * Ordinary CUDA host code that includes <cuda_runtime.h> compiles against this file with g++.
 * Names, numeric values, struct layouts and signatures are those of the CUDA 13.0 toolkit; the
 * comments are minicuda's own. The functions declared are the ones minicuda's runtime
 * (runtime/src) implements:
 *
 *   errors     cudaGetLastError, cudaPeekAtLastError, cudaGetErrorName, cudaGetErrorString
 *   versions   cudaRuntimeGetVersion, cudaDriverGetVersion
 *   devices    cudaGetDeviceCount, cudaGetDeviceProperties, cudaDeviceGetAttribute,
 *              cudaSetDevice, cudaGetDevice, cudaInitDevice, cudaDeviceReset, cudaDeviceSynchronize
 *   memory     cudaMalloc, cudaFree, cudaMallocHost, cudaHostAlloc, cudaFreeHost, cudaMemGetInfo,
 *              cudaPointerGetAttributes, cudaMemcpy, cudaMemset
 *   and, in cuda_runtime_api.h: streams, events, host functions, asynchronous copies, kernel
 *   launches and function attributes.
 *
 * Sections: 1 version and error codes (the MINICUDA_CUDA_ERRORS table) | 2 handles and flags |
 *           3 enums and small structs | 4 dim3 | 5 cudaDeviceProp | 6 functions |
 *           7 C++ overloads.
 *
 * Like the real header it does not include cuda.h; the structs both headers need (CUuuid_st,
 * CUstream_st, CUevent_st) are declared compatibly, so both can be included in one translation
 * unit in either order.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

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
#include "minicuda/device_code.h" /* vector types, qualifiers, built-ins: what nvcc includes implicitly */

#ifndef CUDARTAPI
#define CUDARTAPI /* calling-convention marker; empty on Linux, as in the real header */
#endif

/* ============================================================================================== */
/* 1. Version and error codes                                                                     */
/* ============================================================================================== */

/* The runtime version this header describes: 1000 * major + 10 * minor. */
#define CUDART_VERSION 13000

/*
 * MINICUDA_CUDA_ERRORS(X) is the one table of runtime error codes: X(name, value, message) for each
 * cudaError of CUDA 13.0, in header order. `value` is the real number; `message` is the exact text
 * the real cudaGetErrorString returns (recorded from libcudart 13.0); cudaGetErrorName returns the
 * name itself. A code outside the table gives "unrecognized error code" from both functions.
 * The runtime has its own numbers below 200 (e.g. 2 cudaErrorMemoryAllocation is the driver's
 * CUDA_ERROR_OUT_OF_MEMORY); from 200 on they mostly equal the CUresult numbers.
 */
#define MINICUDA_CUDA_ERRORS(X) \
  X(cudaSuccess,                             0,     "no error") \
  X(cudaErrorInvalidValue,                   1,     "invalid argument") \
  X(cudaErrorMemoryAllocation,               2,     "out of memory") \
  X(cudaErrorInitializationError,            3,     "initialization error") \
  X(cudaErrorCudartUnloading,                4,     "driver shutting down") \
  X(cudaErrorProfilerDisabled,               5,     "profiler disabled while using external profiling tool") \
  X(cudaErrorProfilerNotInitialized,         6,     "profiler not initialized: call cudaProfilerInitialize()") \
  X(cudaErrorProfilerAlreadyStarted,         7,     "profiler already started") \
  X(cudaErrorProfilerAlreadyStopped,         8,     "profiler already stopped") \
  X(cudaErrorInvalidConfiguration,           9,     "invalid configuration argument") \
  X(cudaErrorInvalidPitchValue,              12,    "invalid pitch argument") \
  X(cudaErrorInvalidSymbol,                  13,    "invalid device symbol") \
  X(cudaErrorInvalidHostPointer,             16,    "invalid host pointer") \
  X(cudaErrorInvalidDevicePointer,           17,    "invalid device pointer") \
  X(cudaErrorInvalidTexture,                 18,    "invalid texture reference") \
  X(cudaErrorInvalidTextureBinding,          19,    "texture is not bound to a pointer") \
  X(cudaErrorInvalidChannelDescriptor,       20,    "invalid channel descriptor") \
  X(cudaErrorInvalidMemcpyDirection,         21,    "invalid copy direction for memcpy") \
  X(cudaErrorAddressOfConstant,              22,    "invalid address of constant") \
  X(cudaErrorTextureFetchFailed,             23,    "fetch from texture failed") \
  X(cudaErrorTextureNotBound,                24,    "cannot fetch from a texture that is not bound") \
  X(cudaErrorSynchronizationError,           25,    "incorrect use of __syncthreads()") \
  X(cudaErrorInvalidFilterSetting,           26,    "linear filtering not supported for non-float type") \
  X(cudaErrorInvalidNormSetting,             27,    "read as normalized float not supported for data type") \
  X(cudaErrorMixedDeviceExecution,           28,    "device emulation mode and device execution mode cannot be mixed") \
  X(cudaErrorNotYetImplemented,              31,    "feature not yet implemented") \
  X(cudaErrorMemoryValueTooLarge,            32,    "memory size or pointer value too large to fit in 32 bit") \
  X(cudaErrorStubLibrary,                    34,    "CUDA driver is a stub library") \
  X(cudaErrorInsufficientDriver,             35,    "CUDA driver version is insufficient for CUDA runtime version") \
  X(cudaErrorCallRequiresNewerDriver,        36,    "API call is not supported in the installed CUDA driver") \
  X(cudaErrorInvalidSurface,                 37,    "invalid surface reference") \
  X(cudaErrorDuplicateVariableName,          43,    "duplicate global variable looked up by string name") \
  X(cudaErrorDuplicateTextureName,           44,    "duplicate texture looked up by string name") \
  X(cudaErrorDuplicateSurfaceName,           45,    "duplicate surface looked up by string name") \
  X(cudaErrorDevicesUnavailable,             46,    "CUDA-capable device(s) is/are busy or unavailable") \
  X(cudaErrorIncompatibleDriverContext,      49,    "incompatible driver context") \
  X(cudaErrorMissingConfiguration,           52,    "__global__ function call is not configured") \
  X(cudaErrorPriorLaunchFailure,             53,    "unspecified launch failure in prior launch") \
  X(cudaErrorLaunchMaxDepthExceeded,         65,    "launch would exceed maximum depth of nested launches") \
  X(cudaErrorLaunchFileScopedTex,            66,    "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)") \
  X(cudaErrorLaunchFileScopedSurf,           67,    "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)") \
  X(cudaErrorSyncDepthExceeded,              68,    "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth") \
  X(cudaErrorLaunchPendingCountExceeded,     69,    "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount") \
  X(cudaErrorInvalidDeviceFunction,          98,    "invalid device function") \
  X(cudaErrorNoDevice,                       100,   "no CUDA-capable device is detected") \
  X(cudaErrorInvalidDevice,                  101,   "invalid device ordinal") \
  X(cudaErrorDeviceNotLicensed,              102,   "device doesn't have valid Grid license") \
  X(cudaErrorSoftwareValidityNotEstablished, 103,   "integrity checks failed") \
  X(cudaErrorStartupFailure,                 127,   "startup failure in cuda runtime") \
  X(cudaErrorInvalidKernelImage,             200,   "device kernel image is invalid") \
  X(cudaErrorDeviceUninitialized,            201,   "invalid device context") \
  X(cudaErrorMapBufferObjectFailed,          205,   "mapping of buffer object failed") \
  X(cudaErrorUnmapBufferObjectFailed,        206,   "unmapping of buffer object failed") \
  X(cudaErrorArrayIsMapped,                  207,   "array is mapped") \
  X(cudaErrorAlreadyMapped,                  208,   "resource already mapped") \
  X(cudaErrorNoKernelImageForDevice,         209,   "no kernel image is available for execution on the device") \
  X(cudaErrorAlreadyAcquired,                210,   "resource already acquired") \
  X(cudaErrorNotMapped,                      211,   "resource not mapped") \
  X(cudaErrorNotMappedAsArray,               212,   "resource not mapped as array") \
  X(cudaErrorNotMappedAsPointer,             213,   "resource not mapped as pointer") \
  X(cudaErrorECCUncorrectable,               214,   "uncorrectable ECC error encountered") \
  X(cudaErrorUnsupportedLimit,               215,   "limit is not supported on this architecture") \
  X(cudaErrorDeviceAlreadyInUse,             216,   "exclusive-thread device already in use by a different thread") \
  X(cudaErrorPeerAccessUnsupported,          217,   "peer access is not supported between these two devices") \
  X(cudaErrorInvalidPtx,                     218,   "a PTX JIT compilation failed") \
  X(cudaErrorInvalidGraphicsContext,         219,   "invalid OpenGL or DirectX context") \
  X(cudaErrorNvlinkUncorrectable,            220,   "uncorrectable NVLink error detected during the execution") \
  X(cudaErrorJitCompilerNotFound,            221,   "PTX JIT compiler library not found") \
  X(cudaErrorUnsupportedPtxVersion,          222,   "the provided PTX was compiled with an unsupported toolchain.") \
  X(cudaErrorJitCompilationDisabled,         223,   "PTX JIT compilation was disabled") \
  X(cudaErrorUnsupportedExecAffinity,        224,   "the provided execution affinity is not supported") \
  X(cudaErrorUnsupportedDevSideSync,         225,   "the provided PTX contains unsupported call to cudaDeviceSynchronize") \
  X(cudaErrorContained,                      226,   "Invalid access of peer GPU memory over nvlink or a hardware error") \
  X(cudaErrorInvalidSource,                  300,   "device kernel image is invalid") \
  X(cudaErrorFileNotFound,                   301,   "file not found") \
  X(cudaErrorSharedObjectSymbolNotFound,     302,   "shared object symbol not found") \
  X(cudaErrorSharedObjectInitFailed,         303,   "shared object initialization failed") \
  X(cudaErrorOperatingSystem,                304,   "OS call failed or operation not supported on this OS") \
  X(cudaErrorInvalidResourceHandle,          400,   "invalid resource handle") \
  X(cudaErrorIllegalState,                   401,   "the operation cannot be performed in the present state") \
  X(cudaErrorLossyQuery,                     402,   "attempted introspection would be semantically lossy") \
  X(cudaErrorSymbolNotFound,                 500,   "named symbol not found") \
  X(cudaErrorNotReady,                       600,   "device not ready") \
  X(cudaErrorIllegalAddress,                 700,   "an illegal memory access was encountered") \
  X(cudaErrorLaunchOutOfResources,           701,   "too many resources requested for launch") \
  X(cudaErrorLaunchTimeout,                  702,   "the launch timed out and was terminated") \
  X(cudaErrorLaunchIncompatibleTexturing,    703,   "launch uses incompatible texturing mode") \
  X(cudaErrorPeerAccessAlreadyEnabled,       704,   "peer access is already enabled") \
  X(cudaErrorPeerAccessNotEnabled,           705,   "peer access has not been enabled") \
  X(cudaErrorSetOnActiveProcess,             708,   "cannot set while device is active in this process") \
  X(cudaErrorContextIsDestroyed,             709,   "context is destroyed") \
  X(cudaErrorAssert,                         710,   "device-side assert triggered") \
  X(cudaErrorTooManyPeers,                   711,   "peer mapping resources exhausted") \
  X(cudaErrorHostMemoryAlreadyRegistered,    712,   "part or all of the requested memory range is already mapped") \
  X(cudaErrorHostMemoryNotRegistered,        713,   "pointer does not correspond to a registered memory region") \
  X(cudaErrorHardwareStackError,             714,   "hardware stack error") \
  X(cudaErrorIllegalInstruction,             715,   "an illegal instruction was encountered") \
  X(cudaErrorMisalignedAddress,              716,   "misaligned address") \
  X(cudaErrorInvalidAddressSpace,            717,   "operation not supported on global/shared address space") \
  X(cudaErrorInvalidPc,                      718,   "invalid program counter") \
  X(cudaErrorLaunchFailure,                  719,   "unspecified launch failure") \
  X(cudaErrorCooperativeLaunchTooLarge,      720,   "too many blocks in cooperative launch") \
  X(cudaErrorTensorMemoryLeak,               721,   "tensor memory not completely freed") \
  X(cudaErrorNotPermitted,                   800,   "operation not permitted") \
  X(cudaErrorNotSupported,                   801,   "operation not supported") \
  X(cudaErrorSystemNotReady,                 802,   "system not yet initialized") \
  X(cudaErrorSystemDriverMismatch,           803,   "system has unsupported display driver / cuda driver combination") \
  X(cudaErrorCompatNotSupportedOnDevice,     804,   "forward compatibility was attempted on non supported HW") \
  X(cudaErrorMpsConnectionFailed,            805,   "MPS client failed to connect to the MPS control daemon or the MPS server") \
  X(cudaErrorMpsRpcFailure,                  806,   "the remote procedural call between the MPS server and the MPS client failed") \
  X(cudaErrorMpsServerNotReady,              807,   "MPS server is not ready to accept new MPS client requests") \
  X(cudaErrorMpsMaxClientsReached,           808,   "the hardware resources required to create MPS client have been exhausted") \
  X(cudaErrorMpsMaxConnectionsReached,       809,   "the hardware resources required to support device connections have been exhausted") \
  X(cudaErrorMpsClientTerminated,            810,   "the MPS client has been terminated by the server") \
  X(cudaErrorCdpNotSupported,                811,   "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it") \
  X(cudaErrorCdpVersionMismatch,             812,   "unsupported interaction between different versions of CUDA Dynamic Parallelism") \
  X(cudaErrorStreamCaptureUnsupported,       900,   "operation not permitted when stream is capturing") \
  X(cudaErrorStreamCaptureInvalidated,       901,   "operation failed due to a previous error during capture") \
  X(cudaErrorStreamCaptureMerge,             902,   "operation would result in a merge of separate capture sequences") \
  X(cudaErrorStreamCaptureUnmatched,         903,   "capture was not ended in the same stream as it began") \
  X(cudaErrorStreamCaptureUnjoined,          904,   "capturing stream has unjoined work") \
  X(cudaErrorStreamCaptureIsolation,         905,   "dependency created on uncaptured work in another stream") \
  X(cudaErrorStreamCaptureImplicit,          906,   "operation would make the legacy stream depend on a capturing blocking stream") \
  X(cudaErrorCapturedEvent,                  907,   "operation not permitted on an event last recorded in a capturing stream") \
  X(cudaErrorStreamCaptureWrongThread,       908,   "attempt to terminate a thread-local capture sequence from another thread") \
  X(cudaErrorTimeout,                        909,   "wait operation timed out") \
  X(cudaErrorGraphExecUpdateFailure,         910,   "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update") \
  X(cudaErrorExternalDevice,                 911,   "an async error has occured in external entity outside of CUDA") \
  X(cudaErrorInvalidClusterSize,             912,   "a kernel launch error has occurred due to cluster misconfiguration") \
  X(cudaErrorFunctionNotLoaded,              913,   "the function handle is not loaded when calling an API that requires a loaded function") \
  X(cudaErrorInvalidResourceType,            914,   "one or more resources passed in are not valid resource types for the operation") \
  X(cudaErrorInvalidResourceConfiguration,   915,   "one or more resources are insufficient or non-applicable for the operation") \
  X(cudaErrorUnknown,                        999,   "unknown error") \
  X(cudaErrorApiFailureBase,                 10000, "api failure base")

#define MINICUDA_CUDA_ERROR_ENUMERATOR_(name, value, message) name = value,
enum cudaError MINICUDA_ENUM_INT {
  MINICUDA_CUDA_ERRORS(MINICUDA_CUDA_ERROR_ENUMERATOR_)
};
#undef MINICUDA_CUDA_ERROR_ENUMERATOR_
typedef enum cudaError cudaError_t;

/* ============================================================================================== */
/* 2. Handles and flags                                                                           */
/* ============================================================================================== */

/* Streams and events are the driver's CUstream / CUevent objects under another name. */
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

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

/* ============================================================================================== */
/* 4. dim3                                                                                        */
/* ============================================================================================== */

/* uint3, dim3 and the other vector types come with the kernel language (vector_types.h's
 * part of minicuda/device_code.h), included at the top of this file. */

/* ============================================================================================== */
/* 5. cudaDeviceProp                                                                              */
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

/* ============================================================================================== */
/* 6. Functions                                                                                   */
/* ============================================================================================== */
/* Every runtime call that fails also stores its error in this host thread's last-error slot
 * (read by cudaGetLastError / cudaPeekAtLastError). A sticky error (illegal address, device
 * assert, launch failure...) poisons the context: later calls return it until the process exits.
 * The first call that needs a device initializes the runtime and the device's primary context. */

#ifdef __cplusplus
extern "C" {
#endif

/* --- Errors --- */

/* Returns the last error of this thread and resets the slot to cudaSuccess. */
cudaError_t CUDARTAPI cudaGetLastError(void);
/* Returns the last error of this thread without resetting it. */
cudaError_t CUDARTAPI cudaPeekAtLastError(void);
/* The enumerator's name ("cudaErrorInvalidValue"); "unrecognized error code" for unknown codes. */
const char* CUDARTAPI cudaGetErrorName(cudaError_t error);
/* The message from the table above; "unrecognized error code" for unknown codes. */
const char* CUDARTAPI cudaGetErrorString(cudaError_t error);

/* --- Versions --- */

/* *runtimeVersion = CUDART_VERSION of the runtime library (13000). No device needed. */
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* runtimeVersion);
/* *driverVersion = the driver's cuDriverGetVersion, or 0 when no driver is installed. */
cudaError_t CUDARTAPI cudaDriverGetVersion(int* driverVersion);

/* --- Devices --- */

/* *count = number of usable devices. */
cudaError_t CUDARTAPI cudaGetDeviceCount(int* count);
/* Fills *prop for `device`; bad ordinal: cudaErrorInvalidDevice. */
cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device);
/* *value = one attribute of `device` (cuDeviceGetAttribute underneath). */
cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
/* Makes `device` current for this thread and its primary context current (initializing it).
 * Bad ordinal (99, -1): cudaErrorInvalidDevice. */
cudaError_t CUDARTAPI cudaSetDevice(int device);
/* *device = this thread's current device (0 if none was set). */
cudaError_t CUDARTAPI cudaGetDevice(int* device);
/* Initializes the runtime and `device`'s primary context without making it current. A device
 * out of range: cudaErrorInvalidDevice. Device flags are not modelled: deviceFlags or flags other
 * than 0 are cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
/* Destroys the current device's primary context now (all its memory, streams, events); the next
 * call that needs it makes a fresh one. Does not clear a sticky error in the process. */
cudaError_t CUDARTAPI cudaDeviceReset(void);

/* --- Memory --- */

/* Allocates size bytes of device memory (cuMemAlloc_v2), not cleared, 256-byte aligned at least.
 * size 0: success with *devPtr = NULL. devPtr NULL: cudaErrorInvalidValue. No room:
 * cudaErrorMemoryAllocation. */
cudaError_t CUDARTAPI cudaMalloc(void** devPtr, size_t size);
/* Frees cudaMalloc memory (cuMemFree_v2). NULL: no-op success. Interior, host, unknown or already
 * freed pointer: cudaErrorInvalidValue. May synchronize with the device. */
cudaError_t CUDARTAPI cudaFree(void* devPtr);
/* Allocates size bytes of page-locked host memory, mapped into the device address space. */
cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size);
/* Allocates page-locked host memory (cuMemHostAlloc); flags is a mask of cudaHostAlloc*. */
cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int flags);
/* Frees cudaMallocHost / cudaHostAlloc memory (cuMemFreeHost); pageable: cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaFreeHost(void* ptr);
/* *free / *total = free and total memory of the current device, in bytes. */
cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free, size_t* total);
/* Waits until the current device has finished all work submitted to it (cuCtxSynchronize_v2);
 * returns an error the work met (700 after an illegal address). */
cudaError_t CUDARTAPI cudaDeviceSynchronize(void);
/* Copies count bytes; kind is a cudaMemcpyKind (Default: inferred from the pointers). Returns
 * once the data can be used (device-to-device copies do not wait). Invalid kind:
 * cudaErrorInvalidMemcpyDirection; ranges outside an allocation, NULL or unknown device
 * pointers: cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
/* Sets count bytes of device memory at devPtr to (unsigned char)value. Outside an allocation:
 * cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaMemset(void* devPtr, int value, size_t count);
/* The per-thread default stream's twins of the two (cuda_runtime_api.h maps the plain names to
 * them under CUDA_API_PER_THREAD_DEFAULT_STREAM): the same, with the calling thread's per-thread
 * stream as their implicit stream instead of the legacy stream. */
cudaError_t CUDARTAPI cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemset_ptds(void* devPtr, int value, size_t count);
/* Describes ptr. Device memory (interior pointers too): type Device. Pinned host: type Host with
 * hostPointer == devicePointer == ptr. Memory CUDA does not know: success, type Unregistered. */
cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#include "cuda_runtime_api.h" /* streams, events, asynchronous copies */

#ifdef __cplusplus
/* ============================================================================================== */
/* 7. C++ overloads (as in the real cuda_runtime.h)                                               */
/* ============================================================================================== */
/* These let typed pointers through without casts: `int* d; cudaMalloc(&d, n);`. Like the real
 * header, cudaMallocHost with a typed pointer (or with flags) goes through cudaHostAlloc, while
 * cudaMallocHost(void**, size_t) is the C entry point. */

/* cudaMallocHost with flags: the same as cudaHostAlloc. */
static inline cudaError_t cudaMallocHost(void** ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc(ptr, size, flags);
}

template <class T>
static inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return ::cudaHostAlloc((void**)(void*)ptr, size, flags);
}

template <class T>
static inline cudaError_t cudaMalloc(T** devPtr, size_t size) {
  return ::cudaMalloc((void**)(void*)devPtr, size);
}

template <class T>
static inline cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags = 0) {
  return cudaMallocHost((void**)(void*)ptr, size, flags);
}

#include "crt/host_runtime.h" /* kernel registration and <<<>>> (what nvcc's host code calls) */

#endif /* __cplusplus */

#endif /* __CUDA_RUNTIME_H__ */
