/* cuda_context_memory.h -- part of minicuda's cuda.h (included by it, inside its extern "C"
 * block): context limits and preferences, PCI bus ids, the profiler markers, the occupancy
 * helpers, host memory registration, pitched 2-D/3-D copies and memsets, and the event record and
 * wait flags. Include cuda.h, not this file. Values and errors are the H200's under CUDA 13
 * (tests/data/h200/probe_api_families.txt). */
#ifndef MINICUDA_CUDA_CONTEXT_MEMORY_H
#define MINICUDA_CUDA_CONTEXT_MEMORY_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif

typedef enum CUlimit_enum MINICUDA_ENUM_INT {
  CU_LIMIT_STACK_SIZE = 0x00,                       /* per-thread stack, bytes (16-byte steps, <= 512 KiB) */
  CU_LIMIT_PRINTF_FIFO_SIZE = 0x01,                 /* device printf buffer (>= 512 KiB) */
  CU_LIMIT_MALLOC_HEAP_SIZE = 0x02,                 /* device malloc heap (>= 4 MiB) */
  CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 0x03,           /* CUDA_ERROR_UNSUPPORTED_LIMIT on CUDA 13 */
  CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04,
  CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05,         /* 0..128 bytes */
  CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06,         /* rounded up to 1/12 of the 45 MiB maximum */
  CU_LIMIT_SHMEM_SIZE = 0x07,                       /* query only */
  CU_LIMIT_CIG_ENABLED = 0x08,                      /* query only */
  CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 0x09,
  CU_LIMIT_MAX
} CUlimit;
typedef enum CUfunc_cache_enum MINICUDA_ENUM_INT {
  CU_FUNC_CACHE_PREFER_NONE = 0x00, CU_FUNC_CACHE_PREFER_SHARED = 0x01, CU_FUNC_CACHE_PREFER_L1 = 0x02,
  CU_FUNC_CACHE_PREFER_EQUAL = 0x03
} CUfunc_cache;
typedef enum CUsharedconfig_enum MINICUDA_ENUM_INT {
  CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0x00, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 0x01,
  CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 0x02
} CUsharedconfig;
/* Limits of the current context. Unknown limit: CUDA_ERROR_INVALID_VALUE; SYNC_DEPTH:
 * CUDA_ERROR_UNSUPPORTED_LIMIT; setting a query-only limit: CUDA_ERROR_NOT_PERMITTED; a value out
 * of range: CUDA_ERROR_INVALID_VALUE. Values are rounded as the H200 rounds them. */
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value);
CUresult CUDAAPI cuCtxGetLimit(size_t* pvalue, CUlimit limit);
/* The context's preferred L1/shared split (recorded; the simulated SM's shared memory is fixed). */
CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config);
CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache* pconfig);
/* Bank size: Hopper has 4-byte banks only; setting is accepted and changes nothing (measured). */
CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config);
CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig* pConfig);
/* *flags = the current context's flags, with CU_CTX_MAP_HOST always set. */
CUresult CUDAAPI cuCtxGetFlags(unsigned int* flags);
/* The flags the primary context is (or will be) made with: one CU_CTX_SCHED_* value, plus
 * CU_CTX_MAP_HOST and CU_CTX_LMEM_RESIZE_TO_MAX. Others: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags);
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config);
CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config);
/* "0000:00:06.0" (domain:bus:device.function); len < 13: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev);
/* Accepts [domain:]bus:device.function in hex, any case. Not parsable: CUDA_ERROR_INVALID_VALUE;
 * no such device: CUDA_ERROR_INVALID_DEVICE. */
CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice* dev, const char* pciBusId);
/* Profiler markers: a trace line each; always CUDA_SUCCESS in a context (measured, also twice). */
CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);
/* Occupancy helpers (the cuda_occupancy.h algorithm over nv_occupancy.h's rules). */
#define CU_OCCUPANCY_DEFAULT 0x0
#define CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE 0x1
typedef size_t(CUDA_CB* CUoccupancyB2DSize)(int blockSize);
/* cuOccupancyMaxActiveBlocksPerMultiprocessor with flags: CU_OCCUPANCY_DEFAULT or
 * CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE (the same answer); other flags: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize,
                                                                      size_t dynamicSMemSize, unsigned int flags);
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit);
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSizeWithFlags(int* minGridSize, int* blockSize, CUfunction func,
                                                           CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                           size_t dynamicSMemSize, int blockSizeLimit,
                                                           unsigned int flags);
/* Dynamic shared memory one block may use when numBlocks blocks of blockSize threads share an SM.
 * numBlocks or blockSize 0, or more than the SM holds: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, CUfunction func, int numBlocks,
                                                         int blockSize);

/* Host memory registration: pins existing pages of the process and maps them into the GPU's
 * address space at the same address (UVA). */
#define CU_MEMHOSTREGISTER_PORTABLE  0x01
#define CU_MEMHOSTREGISTER_DEVICEMAP 0x02
#define CU_MEMHOSTREGISTER_IOMEMORY  0x04  /* not memory-mapped I/O here: CUDA_ERROR_INVALID_VALUE */
#define CU_MEMHOSTREGISTER_READ_ONLY 0x08
/* Overlapping a registration: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED; NULL, size 0, unknown
 * flags, device or cuMemHostAlloc memory, pages the process does not own: CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags);
/* p must be where a registration starts; inside one: CUDA_ERROR_INVALID_VALUE; elsewhere:
 * CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED. */
CUresult CUDAAPI cuMemHostUnregister(void* p);
/* *pdptr = the device address of pinned host memory (the same address); Flags must be 0. */
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags);
/* *pFlags = CU_MEMHOSTALLOC_DEVICEMAP, plus PORTABLE / WRITECOMBINED as allocated or registered. */
CUresult CUDAAPI cuMemHostGetFlags(unsigned int* pFlags, void* p);

/* Pitched memory and 2-D/3-D copies. Rows are padded to 512 bytes (the H200's pitch). */
typedef struct CUarray_st* CUarray; /* a CUDA array (cuda_textures.h) */
CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes, size_t Height,
                                    unsigned int ElementSizeBytes);
typedef struct CUDA_MEMCPY2D_st {
  size_t srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D_v2;
typedef CUDA_MEMCPY2D_v2 CUDA_MEMCPY2D;
typedef struct CUDA_MEMCPY3D_st {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void* reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void* reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D_v2;
typedef CUDA_MEMCPY3D_v2 CUDA_MEMCPY3D;
/* A pitch below WidthInBytes + XInBytes, or over 2^31 - 1 with Height > 1, a height below
 * Height + Y, an unknown memory type or array, a region outside an array: CUDA_ERROR_INVALID_VALUE. An array side
 * (CU_MEMORYTYPE_ARRAY) uses the array's layout: its Pitch and Height fields are ignored. */
CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy);
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy);
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream);
CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy);
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream);
#define cuMemcpy2DUnaligned cuMemcpy2DUnaligned_v2
/* Height rows of Width elements, dstPitch bytes apart; dstPitch < Width * element size:
 * CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height);
CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                  size_t Height);
CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height);
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                   size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                    size_t Height, CUstream hStream);

/* Event record and wait flags. The EXTERNAL flags only mean something while a stream is being
 * captured into a graph: outside a capture they are CUDA_ERROR_ILLEGAL_STATE (measured). */
typedef enum CUevent_record_flags_enum MINICUDA_ENUM_INT {
  CU_EVENT_RECORD_DEFAULT = 0x0, CU_EVENT_RECORD_EXTERNAL = 0x1
} CUevent_record_flags;
typedef enum CUevent_wait_flags_enum MINICUDA_ENUM_INT { CU_EVENT_WAIT_DEFAULT = 0x0, CU_EVENT_WAIT_EXTERNAL = 0x1 } CUevent_wait_flags;
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags);
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags);

#endif /* MINICUDA_CUDA_CONTEXT_MEMORY_H */
