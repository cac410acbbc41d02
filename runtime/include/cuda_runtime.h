/*
 * cuda_runtime.h -- minicuda's look-alike of the CUDA 13.0 Runtime API header ("libcudart").
 *
 * Ordinary CUDA host code that includes <cuda_runtime.h> compiles against this file with g++.
 * Names, numeric values, struct layouts and signatures are those of the CUDA 13.0 toolkit; the
 * comments are minicuda's own. As in the toolkit, this header brings in:
 *
 *   builtin_types.h      driver_types.h (cudaError_t, enums, cudaDeviceProp, flags),
 *                        device_types.h, vector_types.h (char1 .. double4, dim3)
 *   vector_functions.h   make_int2, make_float4, ...
 *   host_defines.h       __host__, __device__, __global__, __align__, ...
 *   math_functions.h     the C math library in the global namespace (sqrtf, powf, ...), the
 *                        CUDA-only math functions and the global min/max overloads
 *   cuda_runtime_api.h   streams, events, asynchronous copies, launches, function attributes
 *   and the rest of the kernel language (minicuda/device_code.h), as nvcc makes it visible.
 *
 * The functions declared here are the ones minicuda's runtime (runtime/src) implements:
 *
 *   errors     cudaGetLastError, cudaPeekAtLastError, cudaGetErrorName, cudaGetErrorString
 *   versions   cudaRuntimeGetVersion, cudaDriverGetVersion
 *   devices    cudaGetDeviceCount, cudaGetDeviceProperties, cudaDeviceGetAttribute,
 *              cudaSetDevice, cudaGetDevice, cudaInitDevice, cudaDeviceReset, cudaDeviceSynchronize
 *   memory     cudaMalloc, cudaFree, cudaMallocHost, cudaHostAlloc, cudaFreeHost, cudaMemGetInfo,
 *              cudaPointerGetAttributes, cudaMemcpy, cudaMemset
 *
 * Sections: 6 functions | 7 C++ overloads (the types, sections 1-4, are driver_types.h's).
 *
 * Like the real header it does not include cuda.h; the structs both headers need (CUuuid_st,
 * CUstream_st, CUevent_st) are declared compatibly, so both can be included in one translation
 * unit in either order.
 */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__

#include "builtin_types.h"       /* driver_types.h, device_types.h, vector_types.h */
#include "vector_functions.h"    /* make_int2, make_float4, ... */
#include "minicuda/device_code.h" /* qualifiers, built-ins, intrinsics, math: what nvcc includes implicitly */

#ifndef CUDARTAPI
#define CUDARTAPI /* calling-convention marker; empty on Linux, as in the real header */
#endif

/* The runtime version this header describes: 1000 * major + 10 * minor. */
#define CUDART_VERSION 13000

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
/* The message from the MINICUDA_CUDA_ERRORS table (crt/driver_types_errors.h); "unrecognized error code" for unknown codes. */
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

/* The symbol calls take the variable itself, as the real header's templates do. */
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol) {
  return ::cudaGetSymbolAddress(devPtr, (const void*)&symbol);
}
template <class T>
static inline cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol) {
  return ::cudaGetSymbolSize(size, (const void*)&symbol);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::cudaMemcpyToSymbol((const void*)&symbol, src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::cudaMemcpyFromSymbol(dst, (const void*)&symbol, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t stream = 0) {
  return ::cudaMemcpyToSymbolAsync((const void*)&symbol, src, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                    cudaStream_t stream = 0) {
  return ::cudaMemcpyFromSymbolAsync(dst, (const void*)&symbol, count, offset, kind, stream);
}

/* The CUDA 11 form of cudaGraphInstantiate, kept by the real header for older code: the error
 * node and log buffer are not filled in; it instantiates with flags 0. */
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                               cudaGraphNode_t* pErrorNode, char* pLogBuffer, size_t bufferSize) {
  (void)pErrorNode;
  (void)pLogBuffer;
  (void)bufferSize;
  return ::cudaGraphInstantiate(pGraphExec, graph, 0);
}

/* The CUDA 11 form of cudaGraphExecUpdate: the node that failed and the result, each written when
 * its pointer is not NULL, from the CUDA 12 form's result info. */
static inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                              cudaGraphNode_t* hErrorNode_out,
                                              enum cudaGraphExecUpdateResult* updateResult_out) {
  cudaGraphExecUpdateResultInfo info{};
  const cudaError_t status = ::cudaGraphExecUpdate(hGraphExec, hGraph, &info);
  if (hErrorNode_out != nullptr) *hErrorNode_out = info.errorNode;
  if (updateResult_out != nullptr) *updateResult_out = info.result;
  return status;
}

#include "channel_descriptor.h" /* cudaCreateChannelDesc<T>() */
#include "crt/host_runtime.h" /* kernel registration and <<<>>> (what nvcc's host code calls) */

#endif /* __cplusplus */

#endif /* __CUDA_RUNTIME_H__ */
