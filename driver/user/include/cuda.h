/*
 * cuda.h -- minicuda's look-alike of the CUDA 13.0 Driver API header ("libcuda").
 *
 * Ordinary CUDA host code that includes <cuda.h> compiles against this file with a plain C or C++
 * compiler. Names, numeric values and signatures are those of the CUDA 13.0 toolkit header; the
 * comments are minicuda's own. Only the subset that minicuda's user-mode driver (driver/user/src)
 * implements is declared:
 *
 *   init/version   cuInit, cuDriverGetVersion, cuGetExportTable, cuModuleGetLoadingMode
 *   devices        cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceTotalMem_v2,
 *                  cuDeviceGetAttribute, cuDeviceGetUuid_v2
 *   contexts       cuDevicePrimaryCtx*, cuCtxCreate_v4, cuCtxDestroy_v2, cuCtxPush/PopCurrent_v2,
 *                  cuCtxGet/SetCurrent, cuCtxGetDevice(_v2), cuCtxGetApiVersion,
 *                  cuCtxGetStreamPriorityRange, cuCtxSynchronize(_v2)
 *   memory         cuMemAlloc_v2, cuMemFree_v2, cuMemGetInfo_v2, cuMemAllocHost_v2, cuMemHostAlloc,
 *                  cuMemFreeHost, cuMemGetAddressRange_v2, cuPointerGetAttribute(s)
 *   copies         cuMemcpy{HtoD,DtoH,DtoD}_v2, cuMemcpy, cuMemsetD{8,16,32}_v2, and their *Async
 *   streams/events cuStream*, cuEvent*, cuLaunchHostFunc
 *   modules        cuModuleLoad*, cuModuleGet*, cuLink*, cuLibraryLoadFromFile, cuFuncGetName (cuda_modules.h)
 *   kernels        cuLibraryLoadData, cuLibraryUnload, cuLibraryGetKernel, cuLibraryGetGlobal, cuKernelGetName,
 *                  cuKernelGetFunction, cuFuncGet/SetAttribute, cuLaunchKernel,
 *                  cuOccupancyMaxActiveBlocksPerMultiprocessor
 *   errors         cuGetErrorName, cuGetErrorString
 *
 * Sections: 1 version and basic types | 2 CUresult (the MINICUDA_CU_RESULTS table) |
 *           3 enums and flags | 4 ABI-version macros (_v2 names) | 5 functions |
 *           6 the per-thread default stream (_ptds/_ptsz entry points and their macros).
 *
 * Includable together with runtime/include/cuda_runtime.h in one translation unit: the structs
 * both headers need (CUuuid_st, CUstream_st, CUevent_st) are declared compatibly, with the same
 * CU_UUID_HAS_BEEN_DEFINED guard the real headers use.
 */
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__

#include <stddef.h>
#include <stdint.h>

#ifndef CUDAAPI
#define CUDAAPI /* calling-convention marker; empty on Linux, as in the real header */
#endif

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

/* ============================================================================================== */
/* 1. Version and basic types                                                                     */
/* ============================================================================================== */

/* The Driver API version this header describes: 1000 * major + 10 * minor. */
#define CUDA_VERSION 13000

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/* A device virtual address. 64 bits wide on every platform minicuda targets. */
typedef unsigned long long CUdeviceptr_v2;
typedef CUdeviceptr_v2 CUdeviceptr;

/* A device is named by its ordinal, 0 .. cuDeviceGetCount()-1. */
typedef int CUdevice_v1;
typedef CUdevice_v1 CUdevice;

/* Opaque handles. The structs are defined only inside the driver. */
typedef struct CUctx_st* CUcontext;     /* a context (primary or created) */
typedef struct CUmod_st* CUmodule;      /* a loaded module (cuModuleLoad*) */
typedef struct CUfunc_st* CUfunction;   /* a kernel inside a module */
typedef struct CUlib_st* CUlibrary;     /* a context-independent library (cuLibraryLoad*) */
typedef struct CUkern_st* CUkernel;     /* a kernel inside a library */
typedef struct CUevent_st* CUevent;     /* an event; same struct as the runtime's cudaEvent_t */
typedef struct CUstream_st* CUstream;   /* a stream; same struct as the runtime's cudaStream_t */

/* The 16-byte device UUID. Shared with driver_types.h (cuda_runtime.h), hence the guard. */
#ifndef CU_UUID_HAS_BEEN_DEFINED
#define CU_UUID_HAS_BEEN_DEFINED
typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;
#endif

/* Special stream handles: the legacy (synchronizing) NULL stream and the per-thread default stream. */
#define CU_STREAM_LEGACY     ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

/* ============================================================================================== */
/* 2. CUresult                                                                                    */
/* ============================================================================================== */

/*
 * MINICUDA_CU_RESULTS(X) is the one table of driver error codes: X(name, value, message) for each
 * CUresult of CUDA 13.0, in header order. `value` is the real number; `message` is the exact text
 * the real cuGetErrorString returns (recorded from driver 580.159.04 on an H200); cuGetErrorName
 * returns the name itself. The enum below and the driver's cuGetErrorName / cuGetErrorString are
 * all expanded from it, so they cannot drift apart.
 */
#define MINICUDA_CU_RESULTS(X) \
  X(CUDA_SUCCESS,                              0,   "no error") \
  X(CUDA_ERROR_INVALID_VALUE,                  1,   "invalid argument") \
  X(CUDA_ERROR_OUT_OF_MEMORY,                  2,   "out of memory") \
  X(CUDA_ERROR_NOT_INITIALIZED,                3,   "initialization error") \
  X(CUDA_ERROR_DEINITIALIZED,                  4,   "driver shutting down") \
  X(CUDA_ERROR_PROFILER_DISABLED,              5,   "profiler disabled while using external profiling tool") \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED,       6,   "profiler not initialized: call cudaProfilerInitialize()") \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED,       7,   "profiler already started") \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED,       8,   "profiler already stopped") \
  X(CUDA_ERROR_STUB_LIBRARY,                   34,  "CUDA driver is a stub library") \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,     36,  "API call is not supported in the installed CUDA driver") \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE,             46,  "CUDA-capable device(s) is/are busy or unavailable") \
  X(CUDA_ERROR_NO_DEVICE,                      100, "no CUDA-capable device is detected") \
  X(CUDA_ERROR_INVALID_DEVICE,                 101, "invalid device ordinal") \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED,            102, "device doesn't have valid Grid license") \
  X(CUDA_ERROR_INVALID_IMAGE,                  200, "device kernel image is invalid") \
  X(CUDA_ERROR_INVALID_CONTEXT,                201, "invalid device context") \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT,        202, "context already current") \
  X(CUDA_ERROR_MAP_FAILED,                     205, "mapping of buffer object failed") \
  X(CUDA_ERROR_UNMAP_FAILED,                   206, "unmapping of buffer object failed") \
  X(CUDA_ERROR_ARRAY_IS_MAPPED,                207, "array is mapped") \
  X(CUDA_ERROR_ALREADY_MAPPED,                 208, "resource already mapped") \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU,              209, "no kernel image is available for execution on the device") \
  X(CUDA_ERROR_ALREADY_ACQUIRED,               210, "resource already acquired") \
  X(CUDA_ERROR_NOT_MAPPED,                     211, "resource not mapped") \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY,            212, "resource not mapped as array") \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER,          213, "resource not mapped as pointer") \
  X(CUDA_ERROR_ECC_UNCORRECTABLE,              214, "uncorrectable ECC error encountered") \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT,              215, "limit is not supported on this architecture") \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE,         216, "exclusive-thread device already in use by a different thread") \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,        217, "peer access is not supported between these two devices") \
  X(CUDA_ERROR_INVALID_PTX,                    218, "a PTX JIT compilation failed") \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT,       219, "invalid OpenGL or DirectX context") \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE,           220, "uncorrectable NVLink error detected during the execution") \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND,         221, "PTX JIT compiler library not found") \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,        222, "the provided PTX was compiled with an unsupported toolchain.") \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED,       223, "PTX JIT compilation was disabled") \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,      224, "the provided execution affinity is not supported") \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC,       225, "the provided PTX contains unsupported call to cudaDeviceSynchronize") \
  X(CUDA_ERROR_CONTAINED,                      226, "Invalid access of peer GPU memory over nvlink or a hardware error") \
  X(CUDA_ERROR_INVALID_SOURCE,                 300, "device kernel image is invalid") \
  X(CUDA_ERROR_FILE_NOT_FOUND,                 301, "file not found") \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302, "shared object symbol not found") \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,      303, "shared object initialization failed") \
  X(CUDA_ERROR_OPERATING_SYSTEM,               304, "OS call failed or operation not supported on this OS") \
  X(CUDA_ERROR_INVALID_HANDLE,                 400, "invalid resource handle") \
  X(CUDA_ERROR_ILLEGAL_STATE,                  401, "the operation cannot be performed in the present state") \
  X(CUDA_ERROR_LOSSY_QUERY,                    402, "attempted introspection would be semantically lossy") \
  X(CUDA_ERROR_NOT_FOUND,                      500, "named symbol not found") \
  X(CUDA_ERROR_NOT_READY,                      600, "device not ready") \
  X(CUDA_ERROR_ILLEGAL_ADDRESS,                700, "an illegal memory access was encountered") \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,        701, "too many resources requested for launch") \
  X(CUDA_ERROR_LAUNCH_TIMEOUT,                 702, "the launch timed out and was terminated") \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING,  703, "launch uses incompatible texturing mode") \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,    704, "peer access is already enabled") \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,        705, "peer access has not been enabled") \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE,         708, "cannot set while device is active in this process") \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED,           709, "context is destroyed") \
  X(CUDA_ERROR_ASSERT,                         710, "device-side assert triggered") \
  X(CUDA_ERROR_TOO_MANY_PEERS,                 711, "peer mapping resources exhausted") \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712, "part or all of the requested memory range is already mapped") \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,     713, "pointer does not correspond to a registered memory region") \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR,           714, "hardware stack error") \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION,            715, "an illegal instruction was encountered") \
  X(CUDA_ERROR_MISALIGNED_ADDRESS,             716, "misaligned address") \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE,          717, "operation not supported on global/shared address space") \
  X(CUDA_ERROR_INVALID_PC,                     718, "invalid program counter") \
  X(CUDA_ERROR_LAUNCH_FAILED,                  719, "unspecified launch failure") \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,   720, "too many blocks in cooperative launch") \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK,             721, "tensor memory not completely freed") \
  X(CUDA_ERROR_NOT_PERMITTED,                  800, "operation not permitted") \
  X(CUDA_ERROR_NOT_SUPPORTED,                  801, "operation not supported") \
  X(CUDA_ERROR_SYSTEM_NOT_READY,               802, "system not yet initialized") \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,         803, "system has unsupported display driver / cuda driver combination") \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804, "forward compatibility was attempted on non supported HW") \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED,          805, "MPS client failed to connect to the MPS control daemon or the MPS server") \
  X(CUDA_ERROR_MPS_RPC_FAILURE,                806, "the remote procedural call between the MPS server and the MPS client failed") \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY,           807, "MPS server is not ready to accept new MPS client requests") \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED,        808, "the hardware resources required to create MPS client have been exhausted") \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED,    809, "the hardware resources required to support device connections have been exhausted") \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED,          810, "the MPS client has been terminated by the server") \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED,              811, "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it") \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH,           812, "unsupported interaction between different versions of CUDA Dynamic Parallelism") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,     900, "operation not permitted when stream is capturing") \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,     901, "operation failed due to a previous error during capture") \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE,           902, "operation would result in a merge of separate capture sequences") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,       903, "capture was not ended in the same stream as it began") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,        904, "capturing stream has unjoined work") \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,       905, "dependency created on uncaptured work in another stream") \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,        906, "operation would make the legacy stream depend on a capturing blocking stream") \
  X(CUDA_ERROR_CAPTURED_EVENT,                 907, "operation not permitted on an event last recorded in a capturing stream") \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,    908, "attempt to terminate a thread-local capture sequence from another thread") \
  X(CUDA_ERROR_TIMEOUT,                        909, "wait operation timed out") \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,      910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update") \
  X(CUDA_ERROR_EXTERNAL_DEVICE,                911, "an async error has occured in external entity outside of CUDA") \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE,           912, "a kernel launch error has occurred due to cluster misconfiguration") \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED,            913, "the function handle is not loaded when calling an API that requires a loaded function") \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE,          914, "one or more resources passed in are not valid resource types for the operation") \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915, "one or more resources are insufficient or non-applicable for the operation") \
  X(CUDA_ERROR_KEY_ROTATION,                   916, "an error happened during the key rotation sequence") \
  X(CUDA_ERROR_UNKNOWN,                        999, "unknown error")

#define MINICUDA_CU_RESULT_ENUMERATOR_(name, value, message) name = value,
typedef enum cudaError_enum MINICUDA_ENUM_INT {
  MINICUDA_CU_RESULTS(MINICUDA_CU_RESULT_ENUMERATOR_)
} CUresult;
#undef MINICUDA_CU_RESULT_ENUMERATOR_

/* ============================================================================================== */
/* 3. Enums and flags                                                                             */
/* ============================================================================================== */

/* Device attributes for cuDeviceGetAttribute: the MINICUDA_CU_DEVICE_ATTRIBUTES table. */
#include "cuda_device_attributes.h"

typedef enum CUdevice_attribute_enum MINICUDA_ENUM_INT {
#define MINICUDA_ENUM_ROW(name, value) name = value,
  MINICUDA_CU_DEVICE_ATTRIBUTES(MINICUDA_ENUM_ROW)
#undef MINICUDA_ENUM_ROW
  CU_DEVICE_ATTRIBUTE_MAX
} CUdevice_attribute;

/* Values of CU_DEVICE_ATTRIBUTE_COMPUTE_MODE (the driver has no exclusive-thread mode, 1). */
typedef enum CUcomputemode_enum MINICUDA_ENUM_INT {
  CU_COMPUTEMODE_DEFAULT           = 0,  /* any number of contexts */
  CU_COMPUTEMODE_PROHIBITED        = 2,  /* no context may be created */
  CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3   /* one context, used by many threads of one process */
} CUcomputemode;

/* Where the memory behind an address lives (CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CUDA_MEMCPY2D...). */
typedef enum CUmemorytype_enum MINICUDA_ENUM_INT {
  CU_MEMORYTYPE_HOST    = 0x01,  /* page-locked host memory */
  CU_MEMORYTYPE_DEVICE  = 0x02,  /* device memory */
  CU_MEMORYTYPE_ARRAY   = 0x03,  /* a CUDA array */
  CU_MEMORYTYPE_UNIFIED = 0x04   /* managed (unified) memory */
} CUmemorytype;

/* What cuPointerGetAttribute(s) can report about an address. The type of *data is noted. */
#define MINICUDA_CU_POINTER_ATTRIBUTES(X) \
  X(CU_POINTER_ATTRIBUTE_CONTEXT,                    1) /* CUcontext of the allocation */ \
  X(CU_POINTER_ATTRIBUTE_MEMORY_TYPE,                2) /* unsigned int holding a CUmemorytype */ \
  X(CU_POINTER_ATTRIBUTE_DEVICE_POINTER,             3) /* CUdeviceptr usable on the device */ \
  X(CU_POINTER_ATTRIBUTE_HOST_POINTER,               4) /* void* usable on the host (or NULL) */ \
  X(CU_POINTER_ATTRIBUTE_P2P_TOKENS,                 5) /* CUDA_POINTER_ATTRIBUTE_P2P_TOKENS */ \
  X(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,                6) /* int (settable) */ \
  X(CU_POINTER_ATTRIBUTE_BUFFER_ID,                  7) /* unsigned long long, unique per allocation */ \
  X(CU_POINTER_ATTRIBUTE_IS_MANAGED,                 8) /* int: 1 for managed memory */ \
  X(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,             9) /* int: device of the allocation */ \
  X(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, 10) /* int */ \
  X(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,           11) /* CUdeviceptr: start of the allocation */ \
  X(CU_POINTER_ATTRIBUTE_RANGE_SIZE,                 12) /* size_t: size of the allocation */ \
  X(CU_POINTER_ATTRIBUTE_MAPPED,                     13) /* int: 1 if backed by memory */ \
  X(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,       14) /* bitmask of CUmemAllocationHandleType */ \
  X(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, 15) /* int */ \
  X(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,               16) /* CUmemAccess_flags of the current device */ \
  X(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,             17) /* CUmemoryPool or NULL */ \
  X(CU_POINTER_ATTRIBUTE_MAPPING_SIZE,               18) /* size_t: size of the underlying mapping */ \
  X(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,          19) /* void*: start of the underlying mapping */ \
  X(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID,            20) /* unsigned long long: physical block id */ \
  X(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE,   21) /* int */

typedef enum CUpointer_attribute_enum MINICUDA_ENUM_INT {
#define MINICUDA_ENUM_ROW(name, value) name = value,
  MINICUDA_CU_POINTER_ATTRIBUTES(MINICUDA_ENUM_ROW)
#undef MINICUDA_ENUM_ROW
} CUpointer_attribute;

/* Context creation / primary-context flags (cuDevicePrimaryCtxGetState reports these). */
typedef enum CUctx_flags_enum MINICUDA_ENUM_INT {
  CU_CTX_SCHED_AUTO           = 0x00,  /* spin if more contexts than cores, else yield */
  CU_CTX_SCHED_SPIN           = 0x01,  /* busy-wait for results */
  CU_CTX_SCHED_YIELD          = 0x02,  /* yield the CPU while waiting */
  CU_CTX_SCHED_BLOCKING_SYNC  = 0x04,  /* block on a sync primitive while waiting */
  CU_CTX_BLOCKING_SYNC        = 0x04,  /* deprecated spelling of SCHED_BLOCKING_SYNC */
  CU_CTX_SCHED_MASK           = 0x07,
  CU_CTX_MAP_HOST             = 0x08,  /* deprecated: always on since CUDA 3.2 */
  CU_CTX_LMEM_RESIZE_TO_MAX   = 0x10,  /* keep the local-memory allocation after a launch */
  CU_CTX_COREDUMP_ENABLE      = 0x20,
  CU_CTX_USER_COREDUMP_ENABLE = 0x40,
  CU_CTX_SYNC_MEMOPS          = 0x80,
  CU_CTX_FLAGS_MASK           = 0xFF
} CUctx_flags;

/* Flags for cuMemHostAlloc. */
#define CU_MEMHOSTALLOC_PORTABLE      0x01  /* pinned for every context, not just the current one */
#define CU_MEMHOSTALLOC_DEVICEMAP     0x02  /* also map it into the device address space */
#define CU_MEMHOSTALLOC_WRITECOMBINED 0x04  /* write-combined: fast to write from host, slow to read */

/* ============================================================================================== */
/* 4. ABI-version macros                                                                          */
/* ============================================================================================== */

/*
 * As in the real header, a plain API name is a macro for the current ABI version of the entry
 * point, so `cuMemAlloc(&p, n)` calls the exported symbol cuMemAlloc_v2. The list is the real
 * header's, minus the texture, array, graphics-interop, linker and graph entries that minicuda
 * does not model. As in the real header, the stream-ordered ones map on once more, to their
 * _ptds/_ptsz entry points, when the program is compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM
 * (nvcc --default-stream per-thread): section 6.
 * Functions that have a _v2 with a different signature (cuCtxGetDevice_v2, cuCtxSynchronize_v2)
 * are not remapped: both forms are declared below.
 */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDA_API_PER_THREAD_DEFAULT_STREAM
#define __CUDA_API_PTDS(api) api##_ptds
#define __CUDA_API_PTSZ(api) api##_ptsz
#else
#define __CUDA_API_PTDS(api) api
#define __CUDA_API_PTSZ(api) api
#endif

#define cuDeviceTotalMem           cuDeviceTotalMem_v2
#define cuDeviceGetUuid            cuDeviceGetUuid_v2
#define cuDevicePrimaryCtxRelease  cuDevicePrimaryCtxRelease_v2
#define cuDevicePrimaryCtxReset    cuDevicePrimaryCtxReset_v2
#define cuDevicePrimaryCtxSetFlags cuDevicePrimaryCtxSetFlags_v2
#define cuCtxCreate                cuCtxCreate_v4
#define cuCtxDestroy               cuCtxDestroy_v2
#define cuCtxPopCurrent            cuCtxPopCurrent_v2
#define cuCtxPushCurrent           cuCtxPushCurrent_v2
#define cuModuleGetGlobal          cuModuleGetGlobal_v2
#define cuLinkCreate               cuLinkCreate_v2
#define cuLinkAddData              cuLinkAddData_v2
#define cuLinkAddFile              cuLinkAddFile_v2
#define cuMemGetInfo               cuMemGetInfo_v2
#define cuMemAlloc                 cuMemAlloc_v2
#define cuMemAllocPitch            cuMemAllocPitch_v2
#define cuMemFree                  cuMemFree_v2
#define cuMemGetAddressRange       cuMemGetAddressRange_v2
#define cuMemAllocHost             cuMemAllocHost_v2
#define cuMemHostGetDevicePointer  cuMemHostGetDevicePointer_v2
#define cuMemHostRegister          cuMemHostRegister_v2
#define cuMemAdvise                cuMemAdvise_v2
#define cuMemPrefetchAsync         cuMemPrefetchAsync_v2
#define cuMemcpyHtoD               __CUDA_API_PTDS(cuMemcpyHtoD_v2)
#define cuMemcpyDtoH               __CUDA_API_PTDS(cuMemcpyDtoH_v2)
#define cuMemcpyDtoD               __CUDA_API_PTDS(cuMemcpyDtoD_v2)
#define cuMemcpyHtoDAsync          __CUDA_API_PTSZ(cuMemcpyHtoDAsync_v2)
#define cuMemcpyDtoHAsync          __CUDA_API_PTSZ(cuMemcpyDtoHAsync_v2)
#define cuMemcpyDtoDAsync          __CUDA_API_PTSZ(cuMemcpyDtoDAsync_v2)
#define cuMemcpy2D                 cuMemcpy2D_v2
#define cuMemcpy2DAsync            cuMemcpy2DAsync_v2
#define cuMemcpy3D                 cuMemcpy3D_v2
#define cuMemcpy3DAsync            cuMemcpy3DAsync_v2
#define cuMemsetD8                 __CUDA_API_PTDS(cuMemsetD8_v2)
#define cuMemsetD16                __CUDA_API_PTDS(cuMemsetD16_v2)
#define cuMemsetD32                __CUDA_API_PTDS(cuMemsetD32_v2)
#define cuMemsetD2D8               cuMemsetD2D8_v2
#define cuMemsetD2D16              cuMemsetD2D16_v2
#define cuMemsetD2D32              cuMemsetD2D32_v2
#define cuStreamDestroy            cuStreamDestroy_v2
#define cuStreamBeginCapture       cuStreamBeginCapture_v2
#define cuStreamGetCaptureInfo     cuStreamGetCaptureInfo_v3
#define cuEventDestroy             cuEventDestroy_v2
#define cuEventElapsedTime         cuEventElapsedTime_v2
#define cuIpcOpenMemHandle         cuIpcOpenMemHandle_v2
#define cuGetProcAddress           cuGetProcAddress_v2

/* ============================================================================================== */
/* 5. Functions                                                                                   */
/* ============================================================================================== */
/* Every function returns CUDA_SUCCESS or an error code; outputs are written only on success.
 * Any call except cuInit, cuDriverGetVersion and cuGetError* returns CUDA_ERROR_NOT_INITIALIZED
 * before cuInit(0). A sticky error (illegal address, device assert, launch failure...) poisons the
 * context: later calls that use it return the same error until the process exits. */

/* --- Errors --- */

/* *pStr = the message of `error` (table above). Unknown code: CUDA_ERROR_INVALID_VALUE, *pStr = NULL. */
CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr);
/* *pStr = the enumerator's name, e.g. "CUDA_ERROR_INVALID_VALUE". Unknown: as cuGetErrorString. */
CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr);

/* --- Initialization and version --- */

/* Opens the driver (/dev/nvidiactl...) and enumerates devices. Flags must be 0, else
 * CUDA_ERROR_INVALID_VALUE. No GPU: CUDA_ERROR_NO_DEVICE. Calling it again is harmless. */
CUresult CUDAAPI cuInit(unsigned int Flags);
/* *driverVersion = the newest CUDA version the driver supports (13000). Works before cuInit. */
CUresult CUDAAPI cuDriverGetVersion(int* driverVersion);

/* --- Devices --- */

/* *device = the handle of ordinal `ordinal`; out of range: CUDA_ERROR_INVALID_DEVICE. */
CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal);
/* *count = number of usable devices (0 is a success here). */
CUresult CUDAAPI cuDeviceGetCount(int* count);
/* Copies the marketing name ("NVIDIA H200"), NUL-terminated and truncated to len bytes. */
CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev);
/* *bytes = total device memory in bytes. */
CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev);
/* *pi = the value of `attrib`; an unknown attribute is CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev);
/* *uuid = the device's 16-byte UUID (the "GPU-..." id of nvidia-smi). */
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev);

/* --- Primary context (the one per device per process that the runtime uses) --- */

/* *pctx = the device's primary context, creating it on first use; adds a reference. Does not make
 * it current. */
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev);
/* Drops one reference; the context is reset when the last one goes. Never retained:
 * CUDA_ERROR_INVALID_CONTEXT. Unlike cuCtxDestroy it never pops the context. */
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev);
/* Destroys the primary context now (all its allocations and streams), whatever the reference
 * count; the next Retain makes a fresh one. */
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev);
/* *flags = the CU_CTX_* flags; *active = 1 if the primary context currently exists. */
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active);

/* --- Contexts --- */

typedef struct CUctxCreateParams_st { void* execAffinityParams; int numExecAffinityParams; void* cigParams; } CUctxCreateParams;
/* A context of its own (VA space, pool, channel), pushed as current. Execution affinity or CIG
 * parameters: CUDA_ERROR_NOT_SUPPORTED. Destroy pops it if current; the primary: INVALID_CONTEXT.
 * Destroy or push of NULL: CUDA_ERROR_INVALID_VALUE (as the H200 answers). */
CUresult CUDAAPI cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx); /* the thread's context stack */
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext* pctx);
/* *pctx = this host thread's current context, or NULL if none (still CUDA_SUCCESS). */
CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx);
/* Makes ctx current for this thread (replaces the top of the thread's context stack); NULL
 * unbinds. */
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
/* *device = device of the current context; no current context: CUDA_ERROR_INVALID_CONTEXT. */
CUresult CUDAAPI cuCtxGetDevice(CUdevice* device);
/* As cuCtxGetDevice, for `ctx` (NULL = the current context). The runtime calls this form. */
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx);
/* *version = the API version of ctx (NULL = current context), e.g. 3020; not the driver version. */
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int* version);
/* Blocks until all work in the current context has finished; returns a pending sticky error. */
CUresult CUDAAPI cuCtxSynchronize(void);
/* As cuCtxSynchronize, for `ctx` (NULL = the current context). The runtime calls this form. */
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx);

/* --- Memory --- */

/* *free / *total = free and total device memory of the current context's device, in bytes. */
CUresult CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total);
/* Allocates bytesize bytes of device memory in the current context, suitably aligned for any
 * type, not cleared. bytesize 0: CUDA_ERROR_INVALID_VALUE. No room: CUDA_ERROR_OUT_OF_MEMORY.
 * minicuda's memcheck mode (MINICUDA_MEMCHECK=1) aligns it only to the largest power of two
 * dividing bytesize, at most 256, so that it can end at an unmapped guard. */
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize);
/* Frees memory from cuMemAlloc. dptr must be the start of a live allocation, else
 * CUDA_ERROR_INVALID_VALUE. May synchronize with pending work. */
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr);
/* Allocates bytesize bytes of page-locked host memory that the device can access. */
CUresult CUDAAPI cuMemAllocHost_v2(void** pp, size_t bytesize);
/* Allocates page-locked host memory; Flags is a mask of CU_MEMHOSTALLOC_*. */
CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags);
/* Frees memory from cuMemAllocHost / cuMemHostAlloc; anything else: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemFreeHost(void* p);
/* *pbase / *psize (each may be NULL) = the start and size of the cuMemAlloc allocation that
 * contains dptr. Not in an allocation: CUDA_ERROR_NOT_FOUND. */
CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr);
/* Writes one attribute of the memory containing ptr into *data (type per CUpointer_attribute).
 * An address CUDA does not know: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr);
/* Several attributes at once; data[i] receives attributes[i]. Unlike the single form, an unknown
 * address succeeds, with zeroed/NULL results (MEMORY_TYPE 0, CONTEXT NULL). */
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes,
                                        void** data, CUdeviceptr ptr);

#include "cuda_managed.h" /* managed memory: cuMemAllocManaged, prefetch, advice, attach */
#include "cuda_mempool.h" /* the stream-ordered allocator: cuMemAllocAsync, memory pools */
#include "cuda_vmm.h"     /* virtual memory management: cuMemCreate, cuMemAddressReserve, cuMemMap */

/* --- Copies and memsets (synchronous forms) --- */

/* Copies ByteCount bytes from host memory to device memory. Pageable memory is staged through a
 * pinned buffer; returns once the data has reached the device. A device range outside one
 * allocation, or an unreadable host range: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount);
/* Copies from device to host memory; returns after the copy has completed. */
CUresult CUDAAPI cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount);
/* Copies between device allocations; the host does not wait for it. */
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
/* Copies between any two addresses of the unified address space (direction from the pointers). */
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
/* Sets N 8-, 16- or 32-bit values from dstDevice on (which must be aligned to the value size). */
CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N);
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N);

/* --- Streams and events --- */
/* All streams of a context feed its one channel in submission order (see docs/layers/libcuda.md). */

typedef enum CUstream_flags_enum MINICUDA_ENUM_INT { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 } CUstream_flags;
typedef enum CUevent_flags_enum MINICUDA_ENUM_INT {
  CU_EVENT_DEFAULT = 0x0, CU_EVENT_BLOCKING_SYNC = 0x1, CU_EVENT_DISABLE_TIMING = 0x2, CU_EVENT_INTERPROCESS = 0x4
} CUevent_flags;
/* Stream calls: unknown stream -> CUDA_ERROR_INVALID_HANDLE; NULL/LEGACY/PER_THREAD = the NULL stream. */
CUresult CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags);
CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream);
CUresult CUDAAPI cuStreamQuery(CUstream hStream); /* CUDA_SUCCESS, or CUDA_ERROR_NOT_READY */
/* Later work on hStream waits for hEvent's last record (Flags must be 0). */
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags);
/* Priorities: lower numbers are higher priorities; the range is [greatest, least] =
 * cuCtxGetStreamPriorityRange; a priority outside it is clamped to it. The NULL stream has
 * priority 0 and flags CU_STREAM_DEFAULT. */
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority);
CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int* priority);
CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int* flags);
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
/* Host functions: fn(userData) runs on a driver thread once the stream's earlier work has
 * finished, and the stream's later work waits for it. It must not call the CUDA API: such a
 * call returns CUDA_ERROR_NOT_PERMITTED once it gets the driver lock, which a thread
 * synchronising with that work holds while it waits (a deadlock, which CUDA allows). cuLaunchHostFunc skips fn after a device error;
 * cuStreamAddCallback calls callback with the error. */
#define CUDA_CB /* calling-convention marker of callbacks; empty on Linux */
typedef void(CUDA_CB* CUhostFn)(void* userData);
typedef void(CUDA_CB* CUstreamCallback)(CUstream hStream, CUresult status, void* userData);
CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData);
CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags);
/* Events are timestamped semaphore releases; ElapsedTime is GPU time in ms. */
CUresult CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags);
CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent);
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventQuery(CUevent hEvent);
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent);
CUresult CUDAAPI cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd);
/* Asynchronous copies: queued on hStream; pageable host memory is staged and so waited for. */
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
/* Several GPUs: peer access between contexts and copies between devices. */
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev);
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags);
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext);
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount);
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);

/* --- Modules --- */

/* How modules are loaded (CUDA_MODULE_LOADING=EAGER|LAZY; lazy by default since CUDA 12.2). */
typedef enum CUmoduleLoadingMode_enum MINICUDA_ENUM_INT {
  CU_MODULE_EAGER_LOADING = 0x1, /* every kernel of a module is loaded with the module */
  CU_MODULE_LAZY_LOADING  = 0x2  /* a kernel is loaded at its first use */
} CUmoduleLoadingMode;
/* *mode = the loading mode chosen by CUDA_MODULE_LOADING at cuInit. NULL: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode* mode);
typedef enum CUlibraryOption_enum MINICUDA_ENUM_INT { CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0 } CUlibraryOption;
#include "cuda_modules.h" /* the JIT options, cuModuleLoad*, cuLink* */
typedef enum CUfunction_attribute_enum MINICUDA_ENUM_INT {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3, CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5, CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  /* Thread block clusters (docs/clusters.md): whether a launch must give a cluster shape (a kernel
   * compiled with __cluster_dims__), the shape it was compiled for (0 if none), whether clusters of
   * more than 8 blocks (up to 16) may launch, and the scheduling policy preference. */
  CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15
} CUfunction_attribute;
/* Loads a fatbinary (minicuda's, as crt/host_runtime.h emits it; the lazy loader of CUDA 13 calls
 * it at a module's first launch). Not a fatbinary: CUDA_ERROR_INVALID_IMAGE; one holding only
 * real GPU code (PTX or SASS): CUDA_ERROR_NO_BINARY_FOR_GPU. No system call. */
CUresult CUDAAPI cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jitOptions,
                                   void** jitOptionsValues, unsigned int numJitOptions, CUlibraryOption* libraryOptions,
                                   void** libraryOptionValues, unsigned int numLibraryOptions);
CUresult CUDAAPI cuLibraryUnload(CUlibrary library);
/* A kernel of the library by name; unknown name: CUDA_ERROR_NOT_FOUND. */
CUresult CUDAAPI cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name);
CUresult CUDAAPI cuKernelGetName(const char** name, CUkernel hfunc);
#include "cuda_graphs.h" /* cuKernelGetParamInfo, cuFuncGetParamInfo */
/* A __device__ or __constant__ variable of the library by name: its device address in the current
 * context (the module's globals are loaded there at the first call) and its size; either output
 * may be NULL. Unknown name: CUDA_ERROR_NOT_FOUND. */
CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name);
/* The kernel's function in the current context (its code record uploaded there on first use). */
CUresult CUDAAPI cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel);
CUresult CUDAAPI cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc);
/* Only MAX_DYNAMIC_SHARED_SIZE_BYTES (<= optin - static) and the carveout (0..100) can be set. */
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value);
/* Launches f (a CUfunction, or a CUkernel cast to one) on hStream: a QMD, two methods on the compute
 * subchannel, no system call. Invalid dims, > 1024 threads or too much dynamic shared memory:
 * CUDA_ERROR_INVALID_VALUE; unknown f: CUDA_ERROR_INVALID_HANDLE. The parameters come either from
 * kernelParams or from the buffer of `extra` (cuda_launch.h), never both: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra);
/* Blocks of f that one SM holds at once (cuda_occupancy.h rules: threads, blocks, registers, smem). */
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                             size_t dynamicSMemSize);
/* As cuLaunchKernel, and every block is resident at once (grid_group::sync may be used). More
 * blocks than the SMs hold together: CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE. */
CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                           unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                           void** kernelParams);

/* --- Export tables ("dark API") --- */

/* The real libcudart reaches libcuda through private function tables fetched with
 * cuGetExportTable (an exported but undocumented call). minicuda keeps the mechanism and
 * documents its one table: CU_ETID_MinicudaRuntime gives the runtime the primary context's handle
 * before it is retained, so that lazy initialisation can run in the measured order
 * (cuCtxGetCurrent -> cuCtxSetCurrent -> cuDevicePrimaryCtxRetain). */
typedef struct CUetblMinicudaRuntime_st {
  size_t size; /* sizeof(CUetblMinicudaRuntime) */
  /* *pctx = the primary context of dev, whether or not it has been retained. */
  CUresult (*PrimaryCtxGetHandle)(CUcontext* pctx, CUdevice dev);
} CUetblMinicudaRuntime;
extern const CUuuid CU_ETID_MinicudaRuntime;
/* *ppExportTable = the table with this id. NULL arguments or an unknown id: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId);

/* --- Context configuration, PCI ids, profiler markers, occupancy helpers, host registration,
 *     pitched copies, event record/wait flags: in cuda_context_memory.h (kept apart for length). --- */
#include "cuda_context_memory.h"
/* --- Attributes of device pairs (P2P) and of streams (the access policy window): in cuda_attributes.h. --- */
#include "cuda_attributes.h"
#include "cuda_launch.h" /* cuLaunchKernel's `extra` keys, cuLaunchKernelEx */
/* --- CUDA arrays, texture and surface objects: in cuda_textures.h. --- */
#include "cuda_textures.h"

/* ============================================================================================== */
/* 6. The per-thread default stream                                                               */
/* ============================================================================================== */

/*
 * Every stream-ordered call has twins in libcuda: a _ptsz one ("per-thread stream zero"), for
 * which hStream 0 is the calling thread's per-thread stream (CU_STREAM_PER_THREAD) instead of the
 * legacy stream, and for the synchronous copies and memsets a _ptds one, whose implicit stream is
 * the per-thread stream: it is not ordered with other threads' blocking streams as the legacy
 * stream is, and waits as the plain call does. Otherwise each is its plain call, and the trace
 * names the twin. CU_STREAM_LEGACY still names the legacy stream. The twins are always declared,
 * so a program may call them by name; compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM defined,
 * the plain names map to them (section 4's macros and those below, as in the real header),
 * which is what nvcc --default-stream per-thread does.
 */
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N);
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                           CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                           CUstream hStream);
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int* priority);
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int* flags);
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags);
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void* userData,
                                          unsigned int flags);
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void* userData);
CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void** kernelParams, void** extra);

/* The mapping of the names without an ABI version, after the declarations above so that both
 * forms stay declared; the versioned ones map in section 4 (cuMemcpyHtoD ->
 * __CUDA_API_PTDS(cuMemcpyHtoD_v2)), as in the real header. So a program that calls the _v2 name
 * itself, cuMemcpyHtoD_v2, gets the plain call in either mode, as with the real header. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemcpy             __CUDA_API_PTDS(cuMemcpy)
#define cuMemcpyAsync        __CUDA_API_PTSZ(cuMemcpyAsync)
#define cuMemsetD8Async      __CUDA_API_PTSZ(cuMemsetD8Async)
#define cuStreamGetPriority  __CUDA_API_PTSZ(cuStreamGetPriority)
#define cuStreamGetFlags     __CUDA_API_PTSZ(cuStreamGetFlags)
#define cuStreamSynchronize  __CUDA_API_PTSZ(cuStreamSynchronize)
#define cuStreamQuery        __CUDA_API_PTSZ(cuStreamQuery)
#define cuStreamWaitEvent    __CUDA_API_PTSZ(cuStreamWaitEvent)
#define cuStreamAddCallback  __CUDA_API_PTSZ(cuStreamAddCallback)
#define cuLaunchHostFunc     __CUDA_API_PTSZ(cuLaunchHostFunc)
#define cuEventRecord        __CUDA_API_PTSZ(cuEventRecord)
#define cuLaunchKernel       __CUDA_API_PTSZ(cuLaunchKernel)
#define cuLaunchKernelEx     __CUDA_API_PTSZ(cuLaunchKernelEx)
#endif

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* __cuda_cuda_h__ */
