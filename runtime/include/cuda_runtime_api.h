/* minicuda's cuda_runtime_api.h: the stream, event and asynchronous-copy part of the runtime
 * API, included by cuda_runtime.h (as the real cuda_runtime.h includes cuda_runtime_api.h).
 * A file that includes it alone gets cuda_runtime.h with it.
 *
 * Streams map onto channels of their own (docs/layers/libcuda.md), so the work of different
 * streams overlaps on the GPU; each stream's order holds. Events are timestamped semaphore
 * releases; cudaEventElapsedTime is the simulated GPU's time between two of them
 * (docs/timing.md). */
#if !defined(__CUDA_RUNTIME_H__)
/* Included on its own, as a program may do: cuda_runtime.h brings the types this file needs and
 * then includes this file in full. */
#include "cuda_runtime.h"
#elif !defined(__CUDA_RUNTIME_API_H__)
#define __CUDA_RUNTIME_API_H__

/* The per-thread default stream (nvcc --default-stream per-thread, which defines
 * CUDA_API_PER_THREAD_DEFAULT_STREAM). Defined before cuda_runtime.h is included, it maps the
 * stream-ordered calls to their _ptds/_ptsz twins, as the real header does: for a _ptsz call
 * stream 0 is the calling thread's per-thread stream (cudaStreamPerThread), and a _ptds call
 * (cudaMemcpy, cudaMemset) uses that stream as its implicit one, so neither is ordered with other
 * threads' blocking streams as the legacy stream is. cudaStreamLegacy still names the legacy
 * stream. Here, before the declarations and the inline overloads below, so that those are
 * mapped too, and before crt/host_runtime.h, whose <<<>>> stub then calls cudaLaunchKernel_ptsz.
 * The twins are declared whatever the mode (at the end of the extern "C" part below). */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define __CUDART_API_PER_THREAD_DEFAULT_STREAM
#define __CUDART_API_PTDS(api) api##_ptds
#define __CUDART_API_PTSZ(api) api##_ptsz
#else
#define __CUDART_API_PTDS(api) api
#define __CUDART_API_PTSZ(api) api
#endif

#if defined(__CUDART_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMemcpy            __CUDART_API_PTDS(cudaMemcpy)
#define cudaMemset            __CUDART_API_PTDS(cudaMemset)
#define cudaMemcpyAsync       __CUDART_API_PTSZ(cudaMemcpyAsync)
#define cudaMemsetAsync       __CUDART_API_PTSZ(cudaMemsetAsync)
#define cudaStreamGetPriority __CUDART_API_PTSZ(cudaStreamGetPriority)
#define cudaStreamGetFlags    __CUDART_API_PTSZ(cudaStreamGetFlags)
#define cudaStreamSynchronize __CUDART_API_PTSZ(cudaStreamSynchronize)
#define cudaStreamQuery       __CUDART_API_PTSZ(cudaStreamQuery)
#define cudaStreamWaitEvent   __CUDART_API_PTSZ(cudaStreamWaitEvent)
#define cudaStreamAddCallback __CUDART_API_PTSZ(cudaStreamAddCallback)
#define cudaLaunchHostFunc    __CUDART_API_PTSZ(cudaLaunchHostFunc)
#define cudaEventRecord       __CUDART_API_PTSZ(cudaEventRecord)
#define cudaLaunchKernel      __CUDART_API_PTSZ(cudaLaunchKernel)
#endif

#define cudaStreamDefault       0x00 /* a blocking stream: ordered with the NULL stream */
#define cudaStreamNonBlocking   0x01 /* not ordered with the NULL stream */
#define cudaEventDefault        0x00
#define cudaEventBlockingSync   0x01 /* cudaEventSynchronize sleeps in poll() instead of spinning */
#define cudaEventDisableTiming  0x02 /* cudaEventElapsedTime refuses it */
#define cudaEventInterprocess   0x04 /* not supported: cudaErrorNotSupported */

#ifdef __cplusplus
extern "C" {
#endif

/* Streams. An unknown or destroyed stream: cudaErrorInvalidResourceHandle. 0 (in the default
 * mode; see the top of this file for the per-thread one) and cudaStreamLegacy are the legacy NULL
 * stream: synchronizing it waits for all work of the device.
 * cudaStreamPerThread is the calling thread's own blocking stream (made at first use): ordered
 * with the legacy stream, not with other streams. */
cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* pStream);
cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags);
cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream);
/* cudaSuccess if all the stream's work is done, else cudaErrorNotReady (never a last error). */
cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream);
/* Work queued on stream after this call waits for event's last record (flags: 0). */
cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
/* Priorities: [greatest, least] = [-5, 0] as on an H200; lower is higher; clamped into range. */
cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority);
cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int* priority);
cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags);
cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority);
/* Host functions: fn(userData) runs on a driver thread after the stream's earlier work, and the
 * stream's later work waits for it. It must not call the CUDA API: a call returns
 * cudaErrorNotPermitted - once it gets the driver's lock, which a thread synchronising with the
 * same work holds while it waits (a deadlock, as CUDA allows).
 * cudaLaunchHostFunc skips fn after a device error; a stream callback is told of it (status).
 * fn or callback NULL, callback flags other than 0: cudaErrorInvalidValue. */
#define CUDART_CB /* calling-convention marker of callbacks; empty on Linux */
typedef void(CUDART_CB* cudaHostFn_t)(void* userData);
typedef void(CUDART_CB* cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void* userData);
cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData);
cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                            unsigned int flags);

/* Events. ElapsedTime: an event never recorded or made with cudaEventDisableTiming:
 * cudaErrorInvalidResourceHandle; not complete yet: cudaErrorNotReady. */
cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event);
cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event);
cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

/* Asynchronous copies: queued on stream and returned from at once when both sides are device or
 * pinned memory; pageable host memory is staged, so such a copy has finished on return. */
cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream);

/* --- Symbols: __device__ and __constant__ variables (runtime/src/symbols.cpp) -------------------- */
/* symbol is the variable's host shadow (the address of the variable as host code names it); its
 * storage is in device memory, loaded with its module. Not the address of a registered variable
 * (a host variable, NULL, a kernel, an element inside one): cudaErrorInvalidSymbol. offset +
 * count past the variable's size (count > 0): cudaErrorInvalidValue. A kind that does not fit
 * the direction (to a symbol: HostToDevice, DeviceToDevice or Default; from one: DeviceToHost,
 * DeviceToDevice or Default): cudaErrorInvalidMemcpyDirection. NULL result pointers or NULL
 * host buffers: cudaErrorInvalidValue. The copies go through the copy engine. */
cudaError_t CUDARTAPI cudaGetSymbolAddress(void** devPtr, const void* symbol);
cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol);
cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                              enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                enum cudaMemcpyKind kind, cudaStream_t stream);

/* Several GPUs: peer access of the current device, and copies between two devices' memory
 * (staged through host memory; they need no peer access). */
cudaError_t CUDARTAPI cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice);
cudaError_t CUDARTAPI cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t CUDARTAPI cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t CUDARTAPI cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count);
cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                          cudaStream_t stream);

/* --- Kernels ----------------------------------------------------------------------------------- */
/* Launches the kernel registered for func (its host function): args[i] points at parameter i.
 * At a module's first launch the runtime loads it (cuLibraryLoadData, cuLibraryGetKernel), then
 * every launch is cuKernelGetName + cuLaunchKernel, as on CUDA 13. Unregistered func:
 * cudaErrorInvalidDeviceFunction; a bad configuration (zero or too large dimensions, > 1024
 * threads, dynamic shared memory over the kernel's limit): cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                       cudaStream_t stream);
/* cudaFuncAttribute and struct cudaFuncAttributes are driver_types.h's. */
/* MaxDynamicSharedMemorySize: 0 .. sharedMemPerBlockOptin; the carveout: -1 .. 100. */
cudaError_t CUDARTAPI cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value);
cudaError_t CUDARTAPI cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func);
/* The driver's function for func's kernel (cuFunc*, cuOccupancy*). */
cudaError_t CUDARTAPI cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr);
/* Blocks of func one SM holds at once (the rules of cuda_occupancy.h); flags: cudaOccupancyDefault
 * or cudaOccupancyDisableCachingOverride. */
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                                    size_t dynamicSMemSize);
cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                             int blockSize, size_t dynamicSMemSize,
                                                                             unsigned int flags);
/* Cooperative launch: as cudaLaunchKernel, and every block is resident at once, so grid_group::sync
 * (cooperative_groups.h) may be used. More blocks than the SMs hold together (the occupancy of one
 * SM times multiProcessorCount): cudaErrorCooperativeLaunchTooLarge. */
cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                                  size_t sharedMem, cudaStream_t stream);
/* cudaLaunchKernelExC: a launch described by a configuration and attributes. Of the attributes,
 * cudaLaunchAttributeCooperative (a cooperative launch, as above), cudaLaunchAttributeIgnore and
 * cudaLaunchAttributeClusterDimension (thread block clusters, docs/clusters.md; the checks are
 * cuLaunchKernelEx's) are honoured; every other known attribute gives cudaErrorNotSupported, an
 * unknown id or a null config cudaErrorInvalidValue. */
typedef enum cudaLaunchAttributeID MINICUDA_ENUM_INT {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;
/* The value of an attribute: 64 bytes, of which minicuda reads the members below. */
typedef union cudaLaunchAttributeValue {
  char pad[64];
  struct cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  enum cudaSynchronizationPolicy syncPolicy;
  struct {
    unsigned int x, y, z;
  } clusterDim;
  int priority;
  unsigned int sharedMemCarveout;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute* attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args);
/* Thread block clusters (docs/clusters.md): the largest cluster of func that config's blocks can
 * form on one GPC, and how many clusters of config's shape (its cluster attribute, else func's
 * __cluster_dims__) are resident at once; cuOccupancyMaxPotentialClusterSize and
 * cuOccupancyMaxActiveClusters for func's kernel. */
cudaError_t CUDARTAPI cudaOccupancyMaxPotentialClusterSize(int* clusterSize, const void* func,
                                                           const cudaLaunchConfig_t* launchConfig);
cudaError_t CUDARTAPI cudaOccupancyMaxActiveClusters(int* numClusters, const void* func,
                                                     const cudaLaunchConfig_t* launchConfig);

/* Stream attributes: a stream takes the launch attributes AccessPolicyWindow (an L2 hint the
 * simulated GPU keeps and returns), SynchronizationPolicy and Priority; the checks and errors are
 * cuStreamSetAttribute's (cuda_attributes.h). */
#define cudaStreamAttrID                         cudaLaunchAttributeID
#define cudaStreamAttrValue                      cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow    cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap      cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain         cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority              cudaLaunchAttributePriority
cudaError_t CUDARTAPI cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value);
cudaError_t CUDARTAPI cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out);
/* Demotes the current device's persisting L2 lines to normal (the simulated L2 keeps none). */
cudaError_t CUDARTAPI cudaCtxResetPersistingL2Cache(void);
/* *value = attr of the link from srcDevice to dstDevice (cuDeviceGetP2PAttribute). value NULL or
 * an unknown attr: cudaErrorInvalidValue; a bad ordinal or srcDevice == dstDevice:
 * cudaErrorInvalidDevice. */
cudaError_t CUDARTAPI cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice);

/* --- The per-thread default stream's entry points (see the top of this file) --------------------- */
/* Each is its plain call with stream 0 meaning this thread's per-thread stream; the trace shows
 * the twin's name, and the twin calls the driver's _ptsz/_ptds twin. (cudaMemcpy_ptds and
 * cudaMemset_ptds are declared in cuda_runtime.h, beside their plain calls.) */
cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                           cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamGetPriority_ptsz(cudaStream_t hStream, int* priority);
cudaError_t CUDARTAPI cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int* flags);
cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t CUDARTAPI cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                                 unsigned int flags);
cudaError_t CUDARTAPI cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData);
cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                            size_t sharedMem, cudaStream_t stream);

#ifdef __cplusplus
}  /* extern "C" */

/* Typed kernel pointers, as in the real header. */
template <class T>
static inline cudaError_t cudaLaunchKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                          size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static inline cudaError_t cudaLaunchCooperativeKernel(T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                     size_t sharedMem = 0, cudaStream_t stream = 0) {
  return ::cudaLaunchCooperativeKernel((const void*)func, gridDim, blockDim, args, sharedMem, stream);
}
/* cudaLaunchKernelEx: the arguments by value, converted to the kernel's parameter types. */
template <class... ExpTypes, class... ActTypes>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(ExpTypes...),
                                            ActTypes&&... args) {
  return [&](ExpTypes... coerced) {
    void* pArgs[] = {&coerced..., nullptr};
    return ::cudaLaunchKernelExC(config, (const void*)kernel, pArgs);
  }(static_cast<ActTypes&&>(args)...);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T* entry, enum cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute((const void*)entry, attr, value);
}
template <class T>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, T* entry) {
  return ::cudaFuncGetAttributes(attr, (const void*)entry);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, T* func,
                                                               const cudaLaunchConfig_t* config) {
  return ::cudaOccupancyMaxPotentialClusterSize(clusterSize, (const void*)func, config);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, T* func, const cudaLaunchConfig_t* config) {
  return ::cudaOccupancyMaxActiveClusters(numClusters, (const void*)func, config);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T func, int blockSize,
                                                                        size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void*)func, blockSize, dynamicSMemSize);
}

/* As in the real header, the stream argument defaults to the NULL stream in C++. */
static inline cudaError_t cudaEventRecord(cudaEvent_t event) { return ::cudaEventRecord(event, 0); }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event) {
  return ::cudaStreamWaitEvent(stream, event, 0);
}
static inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return ::cudaMemcpyAsync(dst, src, count, kind, 0);
}
static inline cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count) {
  return ::cudaMemsetAsync(devPtr, value, count, 0);
}
#endif

/* --- Device configuration, PCI ids, profiler, occupancy, host registration, pitched memory and
 *     event record flags (H200 answers: tests/data/h200/probe_api_families.txt) ----------------- */
/* cudaLimit, cudaFuncCache, cudaSharedMemConfig, cudaArray_t and the pitched-memory structs are
 * in driver_types.h. */
#define cudaHostRegisterDefault   0x00
#define cudaHostRegisterPortable  0x01
#define cudaHostRegisterMapped    0x02
#define cudaHostRegisterIoMemory  0x04 /* no memory-mapped I/O here: cudaErrorInvalidValue */
#define cudaHostRegisterReadOnly  0x08
#define cudaEventRecordDefault    0x00
#define cudaEventRecordExternal   0x01 /* only while capturing a graph: else cudaErrorIllegalState */
#define cudaEventWaitDefault      0x00
#define cudaEventWaitExternal     0x01 /* only while capturing a graph: else cudaErrorIllegalState */
#define cudaOccupancyDefault      0x00
#define cudaOccupancyDisableCachingOverride 0x01

/* Pitched memory: rows of a 2-D or 3-D block padded to the pitch (512 bytes on the H200). CUDA
 * arrays are not simulated: copies naming one are refused. */
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  enum cudaMemcpyKind kind;
};
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void* d, size_t p, size_t xsz, size_t ysz) {
  struct cudaPitchedPtr s;
  s.ptr = d;
  s.pitch = p;
  s.xsize = xsz;
  s.ysize = ysz;
  return s;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z) {
  struct cudaPos p;
  p.x = x;
  p.y = y;
  p.z = z;
  return p;
}
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) {
  struct cudaExtent e;
  e.width = w;
  e.height = h;
  e.depth = d;
  return e;
}

#ifdef __cplusplus
extern "C" {
#endif
/* The flags the current device's primary context is (or will be) made with: one
 * cudaDeviceSchedule* policy, cudaDeviceMapHost, cudaDeviceLmemResizeToMax. Two policies or other
 * bits: cudaErrorInvalidValue. Allowed while the context is active (CUDA 13). */
cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags);
/* *flags = those flags, with cudaDeviceMapHost always set (0x8 by default). */
cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int* flags);
cudaError_t CUDARTAPI cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit);
cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig);
/* Hopper's banks are four bytes wide: a setting is accepted and reads back as FourByte. */
cudaError_t CUDARTAPI cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t CUDARTAPI cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig* pConfig);
cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig);
cudaError_t CUDARTAPI cudaFuncSetSharedMemConfig(const void* func, enum cudaSharedMemConfig config);
/* *device = the device that best matches *prop (its compute capability, then the first). */
cudaError_t CUDARTAPI cudaChooseDevice(int* device, const struct cudaDeviceProp* prop);
/* "0000:00:06.0"; len below 13: cudaErrorInvalidValue. */
cudaError_t CUDARTAPI cudaDeviceGetPCIBusId(char* pciBusId, int len, int device);
cudaError_t CUDARTAPI cudaDeviceGetByPCIBusId(int* device, const char* pciBusId);
/* Dynamic shared memory per block when numBlocks blocks of blockSize threads share an SM. */
cudaError_t CUDARTAPI cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func,
                                                                int numBlocks, int blockSize);
/* Registration of the program's own memory (pins the pages and maps them for the GPU). */
cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int flags);
cudaError_t CUDARTAPI cudaHostUnregister(void* ptr);
cudaError_t CUDARTAPI cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags);
cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int* pFlags, void* pHost);
/* Pitched and 3-D memory. A pitch below the width: cudaErrorInvalidPitchValue (copies) or
 * cudaErrorInvalidValue (memsets), as on the H200. */
cudaError_t CUDARTAPI cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height);
cudaError_t CUDARTAPI cudaMalloc3D(struct cudaPitchedPtr* pitchedDevPtr, struct cudaExtent extent);
cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                        size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms* p);
cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t CUDARTAPI cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                        cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t CUDARTAPI cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                                        cudaStream_t stream);
/* cudaEventRecord with cudaEventRecord* flags. */
cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
#ifdef __cplusplus
}  /* extern "C" */

template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T* func, enum cudaFuncCache cacheConfig) {
  return ::cudaFuncSetCacheConfig((const void*)func, cacheConfig);
}
template <class T>
static inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, T* func, int numBlocks,
                                                                    int blockSize) {
  return ::cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void*)func, numBlocks, blockSize);
}
/* The block size at which most threads of func are resident on one SM, the search of
 * cuda_occupancy.h: from the largest allowed size (1024, func's limit, blockSizeLimit) down in
 * warp steps, keeping the best, stopping at full occupancy. *minGridSize fills every SM. */
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* minGridSize, int* blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0,
    unsigned int flags = 0) {
  if (minGridSize == 0 || blockSize == 0 || func == 0 || flags > cudaOccupancyDisableCachingOverride)
    return cudaErrorInvalidValue;
  int device = 0, warp = 0, sms = 0, per_sm = 0, max_block = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&max_block, cudaDevAttrMaxThreadsPerBlock, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  struct cudaFuncAttributes attr;
  if (e == cudaSuccess) e = ::cudaFuncGetAttributes(&attr, (const void*)func);
  if (e != cudaSuccess) return e;
  if (attr.maxThreadsPerBlock < max_block) max_block = attr.maxThreadsPerBlock;
  if (blockSizeLimit > 0 && blockSizeLimit < max_block) max_block = blockSizeLimit;
  int best_block = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (max_block + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
    const int size = aligned < max_block ? aligned : max_block;
    int blocks = 0;
    e = ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void*)func, size,
                                                        blockSizeToDynamicSMemSize(size));
    if (e != cudaSuccess) return e;
    if (blocks * size > best_threads) {
      best_block = size;
      best_blocks = blocks;
      best_threads = blocks * size;
    }
    if (best_threads == per_sm) break;
  }
  *minGridSize = best_blocks * sms;
  *blockSize = best_block;
  return cudaSuccess;
}
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* minGridSize, int* blockSize, T func,
                                                                         UnaryFunction blockSizeToDynamicSMemSize,
                                                                         int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                 blockSizeToDynamicSMemSize, blockSizeLimit, 0);
}
/* A fixed dynamic shared memory size, whatever the block size. */
struct __cudaOccupancyB2DHelper {
  size_t n;
  explicit __cudaOccupancyB2DHelper(size_t n_) : n(n_) {}
  size_t operator()(int) const { return n; }
};
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, T func,
                                                                      size_t dynamicSMemSize = 0,
                                                                      int blockSizeLimit = 0, unsigned int flags = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
      minGridSize, blockSize, func, __cudaOccupancyB2DHelper(dynamicSMemSize), blockSizeLimit, flags);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, T func,
                                                             size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit, 0);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T** devPtr, size_t* pitch, size_t width, size_t height) {
  return ::cudaMallocPitch((void**)(void*)devPtr, pitch, width, height);
}
template <class T>
static inline cudaError_t cudaHostGetDevicePointer(T** pDevice, void* pHost, unsigned int flags) {
  return ::cudaHostGetDevicePointer((void**)(void*)pDevice, pHost, flags);
}
/* The C++ overload of cudaEventCreate with flags: cudaEventCreateWithFlags. */
static inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return ::cudaEventCreateWithFlags(event, flags);
}
static inline cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind) {
  return ::cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, 0);
}
static inline cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p) { return ::cudaMemcpy3DAsync(p, 0); }
static inline cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return ::cudaMemset2DAsync(devPtr, pitch, value, width, height, 0);
}
static inline cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent extent) {
  return ::cudaMemset3DAsync(p, value, extent, 0);
}
static inline cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0) {
  return ::cudaEventRecordWithFlags(event, stream, 0);
}
#endif /* __cplusplus */

/* --- Managed memory (unified memory; docs/layers/runtime.md) ----------------------------------- */
#ifdef __cplusplus
extern "C" {
#define MINICUDA_DV(v) = v
#else
#define MINICUDA_DV(v)
#endif
/* Allocates size bytes of managed memory (cuMemAllocManaged): one pointer for the host and the
 * device, no page resident until first touched, then migrated on demand. flags:
 * cudaMemAttachGlobal or cudaMemAttachHost. size 0, NULL devPtr, other flags:
 * cudaErrorInvalidValue. Freed with cudaFree. */
cudaError_t CUDARTAPI cudaMallocManaged(void** devPtr, size_t size, unsigned int flags MINICUDA_DV(cudaMemAttachGlobal));
/* Migrates [devPtr, devPtr+count) of managed memory to location in stream order
 * (cuMemPrefetchAsync_v2). flags must be 0. */
cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void* devPtr, size_t count, struct cudaMemLocation location,
                                           unsigned int flags, cudaStream_t stream MINICUDA_DV(0));
/* Advice about [devPtr, devPtr+count) of managed memory (cuMemAdvise_v2). */
cudaError_t CUDARTAPI cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location);
/* Attaches managed memory to a stream, the host, or all streams (cuStreamAttachMemAsync). */
cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length MINICUDA_DV(0),
                                               unsigned int flags MINICUDA_DV(cudaMemAttachSingle));
#ifdef __cplusplus
}  /* extern "C" */
#endif
/* CUDA graphs and stream capture. */
#include "crt/cuda_graph_api.h"
/* The stream-ordered allocator: cudaMallocAsync, memory pools. */
#include "crt/cuda_mempool_api.h"
/* Graph memory nodes, conditional nodes and cudaGraphAddNode (they use the pools' types). */
#include "crt/cuda_graph_nodes_api.h"
/* CUDA arrays, texture and surface objects. */
#include "crt/cuda_texture_api.h"
#undef MINICUDA_DV
#ifdef __cplusplus
template <class T>
static inline cudaError_t cudaMallocManaged(T** devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged((void**)(void*)devPtr, size, flags);
}
template <class T>
static inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T* devPtr, size_t length = 0,
                                                   unsigned int flags = cudaMemAttachSingle) {
  return ::cudaStreamAttachMemAsync(stream, (void*)devPtr, length, flags);
}
#endif

#endif /* __CUDA_RUNTIME_API_H__ (or cuda_runtime.h included instead) */
