/*
 * crt/cuda_mempool_api.h -- the stream-ordered allocator in the runtime API (included by
 * cuda_runtime_api.h): the memory-pool handle, attributes, properties and access types of CUDA
 * 13.0's driver_types.h, and the cudaMallocAsync / cudaFreeAsync / cudaMemPool* entry points
 * minicuda builds. Names, values and layouts are the toolkit's; the comments are minicuda's own.
 * How the pool works: docs/memory-pools.md.
 */
#ifndef MINICUDA_CRT_CUDA_MEMPOOL_API_H
#define MINICUDA_CRT_CUDA_MEMPOOL_API_H

typedef struct CUmemPoolHandle_st* cudaMemPool_t; /* the driver's CUmemoryPool */

enum cudaMemPoolAttr MINICUDA_ENUM_INT {
  cudaMemPoolReuseFollowEventDependencies   = 0x1, /* int */
  cudaMemPoolReuseAllowOpportunistic        = 0x2, /* int */
  cudaMemPoolReuseAllowInternalDependencies = 0x3, /* int */
  cudaMemPoolAttrReleaseThreshold           = 0x4, /* unsigned long long */
  cudaMemPoolAttrReservedMemCurrent         = 0x5, /* unsigned long long, read only */
  cudaMemPoolAttrReservedMemHigh            = 0x6, /* unsigned long long, settable to 0 */
  cudaMemPoolAttrUsedMemCurrent             = 0x7, /* unsigned long long, read only */
  cudaMemPoolAttrUsedMemHigh                = 0x8  /* unsigned long long, settable to 0 */
};

enum cudaMemAccessFlags MINICUDA_ENUM_INT {
  cudaMemAccessFlagsProtNone      = 0,
  cudaMemAccessFlagsProtRead      = 1,
  cudaMemAccessFlagsProtReadWrite = 3
};
struct cudaMemAccessDesc {
  struct cudaMemLocation location;
  enum cudaMemAccessFlags flags;
};

enum cudaMemAllocationType MINICUDA_ENUM_INT {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned  = 0x1,
  cudaMemAllocationTypeManaged = 0x2,
  cudaMemAllocationTypeMax     = 0x7FFFFFFF
};
enum cudaMemAllocationHandleType MINICUDA_ENUM_INT {
  cudaMemHandleTypeNone                = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32               = 0x2,
  cudaMemHandleTypeWin32Kmt            = 0x4,
  cudaMemHandleTypeFabric              = 0x8
};
struct cudaMemPoolProps {
  enum cudaMemAllocationType allocType;
  enum cudaMemAllocationHandleType handleTypes;
  struct cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize; /* 0: the system's bound */
  unsigned short usage;
  unsigned char reserved[54]; /* must be 0 */
};

#if defined(__CUDART_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMallocAsync         __CUDART_API_PTSZ(cudaMallocAsync)
#define cudaFreeAsync           __CUDART_API_PTSZ(cudaFreeAsync)
#define cudaMallocFromPoolAsync __CUDART_API_PTSZ(cudaMallocFromPoolAsync)
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* size bytes from the current pool of the device, ordered after the work queued on stream
 * (cuMemAllocAsync). A block freed earlier in the same stream is reused at once; see
 * docs/memory-pools.md for other streams. */
cudaError_t CUDARTAPI cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream);
/* As cudaMallocAsync, from memPool (cuMemAllocFromPoolAsync). */
cudaError_t CUDARTAPI cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
/* Returns a pool allocation, ordered after the work queued on hStream (cuMemFreeAsync). */
cudaError_t CUDARTAPI cudaFreeAsync(void* devPtr, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool,
                                                   cudaStream_t stream);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream);

cudaError_t CUDARTAPI cudaMemPoolCreate(cudaMemPool_t* memPool, const struct cudaMemPoolProps* poolProps);
cudaError_t CUDARTAPI cudaMemPoolDestroy(cudaMemPool_t memPool);
cudaError_t CUDARTAPI cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
cudaError_t CUDARTAPI cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value);
cudaError_t CUDARTAPI cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value);
cudaError_t CUDARTAPI cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc* descList,
                                           size_t count);
cudaError_t CUDARTAPI cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t memPool,
                                           struct cudaMemLocation* location);
cudaError_t CUDARTAPI cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device);
cudaError_t CUDARTAPI cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device);
cudaError_t CUDARTAPI cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
#ifdef __cplusplus
} /* extern "C" */

template <class T>
static inline cudaError_t cudaMallocAsync(T** devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync((void**)(void*)devPtr, size, stream);
}
template <class T>
static inline cudaError_t cudaMallocAsync(T** devPtr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void**)(void*)devPtr, size, memPool, stream);
}
static inline cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}
template <class T>
static inline cudaError_t cudaMallocFromPoolAsync(T** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return ::cudaMallocFromPoolAsync((void**)(void*)ptr, size, memPool, stream);
}
#endif

#endif /* MINICUDA_CRT_CUDA_MEMPOOL_API_H */
