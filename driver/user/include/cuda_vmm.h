/*
 * cuda_vmm.h -- virtual memory management of the Driver API (included by cuda.h): physical
 * allocations (cuMemCreate), address reservations (cuMemAddressReserve), mapping one onto the
 * other (cuMemMap), access rights (cuMemSetAccess) and sharing an allocation as a file
 * descriptor. Names, values and layouts are CUDA 13.0's; the comments are minicuda's own. How it
 * reaches the kernel: docs/layers/libcuda.md ("Virtual memory management").
 */
#ifndef MINICUDA_CUDA_VMM_H
#define MINICUDA_CUDA_VMM_H

/* A physical allocation of cuMemCreate (or of cuMemImportFromShareableHandle). */
typedef unsigned long long CUmemGenericAllocationHandle_v1;
typedef CUmemGenericAllocationHandle_v1 CUmemGenericAllocationHandle;

typedef enum CUmemAllocationGranularity_flags_enum {
  CU_MEM_ALLOC_GRANULARITY_MINIMUM     = 0x0, /* sizes and offsets must be multiples of it */
  CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1  /* the multiple that performs best */
} CUmemAllocationGranularity_flags;

typedef enum CUmemAllocationCompType_enum {
  CU_MEM_ALLOCATION_COMP_NONE    = 0x0,
  CU_MEM_ALLOCATION_COMP_GENERIC = 0x1 /* ask for compressible memory (a hint: read it back) */
} CUmemAllocationCompType;

#define CU_MEM_CREATE_USAGE_TILE_POOL     0x1
#define CU_MEM_CREATE_USAGE_HW_DECOMPRESS 0x2

/* What cuMemCreate is asked for. Fields not named here must be zero. */
typedef struct CUmemAllocationProp_st {
  CUmemAllocationType type;                       /* CU_MEM_ALLOCATION_TYPE_PINNED */
  CUmemAllocationHandleType requestedHandleTypes; /* how it may be exported (a bitmask) */
  CUmemLocation location;                         /* where the memory lives: a device */
  void* win32HandleMetaData;                      /* NULL off Windows */
  struct {
    unsigned char compressionType; /* CUmemAllocationCompType */
    unsigned char gpuDirectRDMACapable;
    unsigned short usage; /* CU_MEM_CREATE_USAGE_* */
    unsigned char reserved[4];
  } allocFlags;
} CUmemAllocationProp_v1;
typedef CUmemAllocationProp_v1 CUmemAllocationProp;

#ifdef __cplusplus
extern "C" {
#endif

/* *granularity = the size every cuMemCreate / cuMemMap / cuMemAddressReserve size, offset and
 * address of such an allocation must be a multiple of: 2 MiB on the H200, either option. */
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                               CUmemAllocationGranularity_flags option);
/* Allocates size bytes of video memory with no address: *handle names it. */
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                             unsigned long long flags);
/* Drops a reference to an allocation; its memory goes back once it is also unmapped everywhere. */
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle);
/* Reserves size bytes of the GPU virtual address space, mapped to nothing. */
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                     unsigned long long flags);
/* Gives a whole reservation back; nothing in it may be mapped. */
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size);
/* Maps [offset, offset + size) of an allocation at ptr, inside a reservation. No device can
 * access it until cuMemSetAccess. */
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                          unsigned long long flags);
/* Unmaps whole mappings in [ptr, ptr + size). */
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size);
/* Sets the devices' access to the mapped range [ptr, ptr + size). */
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count);
/* *flags = the CUmemAccess_flags location has on the mapping at ptr. */
CUresult CUDAAPI cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr);
/* Shares an allocation: for CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, *(int*)shareableHandle =
 * a new file descriptor that names it (close it when done). */
CUresult CUDAAPI cuMemExportToShareableHandle(void* shareableHandle, CUmemGenericAllocationHandle handle,
                                              CUmemAllocationHandleType handleType, unsigned long long flags);
/* The allocation a shareable handle names (osHandle: the fd, cast to void*), as a new handle. */
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* handle, void* osHandle,
                                                CUmemAllocationHandleType shHandleType);
/* *prop = what the allocation was created with. */
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle);
/* *handle = the allocation mapped at addr, with one more reference (cuMemRelease it). */
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle, void* addr);

#ifdef __cplusplus
}
#endif

#endif /* MINICUDA_CUDA_VMM_H */
