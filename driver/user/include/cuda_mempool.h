/*
 * cuda_mempool.h -- the stream-ordered allocator of the Driver API (included by cuda.h): memory
 * pools (CUmemoryPool), cuMemAllocAsync / cuMemFreeAsync / cuMemAllocFromPoolAsync, the pool
 * attributes, trimming and access. Names, values and layouts are CUDA 13.0's; the comments are
 * minicuda's own. How the pool works and what it asks the kernel for: docs/memory-pools.md.
 */
#ifndef MINICUDA_CUDA_MEMPOOL_H
#define MINICUDA_CUDA_MEMPOOL_H

typedef struct CUmemPoolHandle_st* CUmemoryPool; /* a memory pool; same struct as the runtime's cudaMemPool_t */

typedef enum CUmemAllocationType_enum {
  CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
  CU_MEM_ALLOCATION_TYPE_PINNED  = 0x1, /* the only type a device pool takes */
  CU_MEM_ALLOCATION_TYPE_MANAGED = 0x2,
  CU_MEM_ALLOCATION_TYPE_MAX     = 0x7FFFFFFF
} CUmemAllocationType;

typedef enum CUmemAllocationHandleType_enum {
  CU_MEM_HANDLE_TYPE_NONE                  = 0x0,
  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
  CU_MEM_HANDLE_TYPE_WIN32                 = 0x2,
  CU_MEM_HANDLE_TYPE_WIN32_KMT             = 0x4,
  CU_MEM_HANDLE_TYPE_FABRIC                = 0x8,
  CU_MEM_HANDLE_TYPE_MAX                   = 0x7FFFFFFF
} CUmemAllocationHandleType;

typedef enum CUmemAccess_flags_enum {
  CU_MEM_ACCESS_FLAGS_PROT_NONE      = 0x0,
  CU_MEM_ACCESS_FLAGS_PROT_READ      = 0x1,
  CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
  CU_MEM_ACCESS_FLAGS_PROT_MAX       = 0x7FFFFFFF
} CUmemAccess_flags;

typedef struct CUmemAccessDesc_st {
  CUmemLocation location; /* whose access the entry sets */
  CUmemAccess_flags flags;
} CUmemAccessDesc_v1;
typedef CUmemAccessDesc_v1 CUmemAccessDesc;

/* The pool attributes. The first three are int flags (0 or 1); the rest are cuuint64_t. */
typedef enum CUmemPool_attribute_enum {
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1, /* reuse a block freed in another stream once an event orders it */
  CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,           /* reuse a block whose free has already completed */
  CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES,   /* make the allocating stream wait for a pending free */
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,                   /* bytes the pool keeps at a synchronize */
  CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,                /* bytes the pool holds from the kernel (read only) */
  CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,                   /* its high-water mark (set to 0 to reset) */
  CU_MEMPOOL_ATTR_USED_MEM_CURRENT,                    /* bytes in live allocations (read only) */
  CU_MEMPOOL_ATTR_USED_MEM_HIGH                        /* its high-water mark (set to 0 to reset) */
} CUmemPool_attribute;

typedef struct CUmemPoolProps_st {
  CUmemAllocationType allocType;         /* CU_MEM_ALLOCATION_TYPE_PINNED */
  CUmemAllocationHandleType handleTypes; /* how allocations could be exported */
  CUmemLocation location;                /* where the memory lives: a device */
  void* win32SecurityAttributes;         /* NULL off Windows */
  size_t maxSize;                        /* upper bound of the pool's reserve; 0: the system's */
  unsigned short usage;
  unsigned char reserved[54]; /* must be 0 */
} CUmemPoolProps_v1;
typedef CUmemPoolProps_v1 CUmemPoolProps;

#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemAllocAsync         __CUDA_API_PTSZ(cuMemAllocAsync)
#define cuMemFreeAsync          __CUDA_API_PTSZ(cuMemFreeAsync)
#define cuMemAllocFromPoolAsync __CUDA_API_PTSZ(cuMemAllocFromPoolAsync)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* *dptr = bytesize bytes from the current pool of the stream's device, ordered after the work
 * queued on hStream so far. Blocks freed earlier in hStream are reused at once; blocks freed in
 * other streams by the pool's reuse rules. NULL dptr: CUDA_ERROR_INVALID_VALUE; no room:
 * CUDA_ERROR_OUT_OF_MEMORY; unknown stream: CUDA_ERROR_INVALID_HANDLE. */
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream);
/* As cuMemAllocAsync, from the pool given. NULL pool: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream);
/* Returns an allocation of a pool, ordered after the work queued on hStream so far. A pointer
 * that does not start a live pool allocation: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
/* The _ptsz twins: hStream 0 is the calling thread's per-thread stream. */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                              CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);

/* A new pool on the device poolProps->location names. */
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps);
/* Destroys a pool; allocations still live keep their memory until freed. The default pool of a
 * device cannot be destroyed. */
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool);
/* Releases free memory of the pool to the kernel until it holds at most minBytesToKeep. */
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep);
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value);
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value);
/* Access of other devices to the pool's memory. minicuda's machines have one GPU per pool's view:
 * the owning device always has read-write access. */
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count);
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags* flags, CUmemoryPool memPool, CUmemLocation* location);

/* The device's default pool, and the pool cuMemAllocAsync uses on it (the default one unless
 * cuDeviceSetMemPool chose another). */
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev);
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool* pool, CUdevice dev);
CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool);

#ifdef __cplusplus
}
#endif

#endif /* MINICUDA_CUDA_MEMPOOL_H */
