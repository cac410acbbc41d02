/* cuda_managed.h -- part of minicuda's cuda.h (included by it, inside its extern "C" block):
 * managed (unified) memory, one pointer for the host and the device: the attach flags, memory
 * locations, advice, cuMemAllocManaged, cuMemPrefetchAsync and cuStreamAttachMemAsync. Include
 * cuda.h, not this file. */
#ifndef MINICUDA_CUDA_MANAGED_H
#define MINICUDA_CUDA_MANAGED_H

#ifndef __cuda_cuda_h__
#error "include cuda.h"
#endif
typedef enum CUmemAttach_flags_enum {
  CU_MEM_ATTACH_GLOBAL = 0x1, /* any stream of any device may use it */
  CU_MEM_ATTACH_HOST   = 0x2, /* the host only, until attached to a stream */
  CU_MEM_ATTACH_SINGLE = 0x4  /* the stream it is attached to only */
} CUmemAttach_flags;
#define CU_DEVICE_CPU     ((CUdevice)-1)
#define CU_DEVICE_INVALID ((CUdevice)-2)
typedef enum CUmemLocationType_enum {
  CU_MEM_LOCATION_TYPE_INVALID           = 0x0,
  CU_MEM_LOCATION_TYPE_NONE              = 0x0,
  CU_MEM_LOCATION_TYPE_DEVICE            = 0x1, /* id: a device ordinal */
  CU_MEM_LOCATION_TYPE_HOST              = 0x2, /* id ignored */
  CU_MEM_LOCATION_TYPE_HOST_NUMA         = 0x3, /* id: a host NUMA node */
  CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 0x4, /* the calling thread's NUMA node; id ignored */
  CU_MEM_LOCATION_TYPE_MAX               = 0x7FFFFFFF
} CUmemLocationType;
typedef struct CUmemLocation_st {
  CUmemLocationType type;
  int id;
} CUmemLocation_v1;
typedef CUmemLocation_v1 CUmemLocation;
typedef enum CUmem_advise_enum {
  CU_MEM_ADVISE_SET_READ_MOSTLY          = 1,
  CU_MEM_ADVISE_UNSET_READ_MOSTLY        = 2,
  CU_MEM_ADVISE_SET_PREFERRED_LOCATION   = 3,
  CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 4,
  CU_MEM_ADVISE_SET_ACCESSED_BY          = 5,
  CU_MEM_ADVISE_UNSET_ACCESSED_BY        = 6
} CUmem_advise;
/* Allocates bytesize bytes of managed memory: no page resident anywhere until first touched, then
 * migrated on demand between the host and the device. flags: CU_MEM_ATTACH_GLOBAL or
 * CU_MEM_ATTACH_HOST; bytesize 0, a NULL dptr or other flags: CUDA_ERROR_INVALID_VALUE. Freed with
 * cuMemFree. */
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags);
/* Migrates [devPtr, devPtr+count) of managed memory to location (a device, or the host) in
 * stream order. flags must be 0. Not managed memory, count 0 or flags: CUDA_ERROR_INVALID_VALUE;
 * a device that does not exist: CUDA_ERROR_INVALID_DEVICE. */
CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                                       CUstream hStream);
/* Advice about how [devPtr, devPtr+count) of managed memory will be used (CU_MEM_ADVISE_*);
 * location names the device or the host the advice is about (ignored by READ_MOSTLY). */
CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location);
/* Attaches managed memory to a stream (CU_MEM_ATTACH_SINGLE), to the host or to all streams.
 * length must be 0 or the allocation's size. */
CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags);

#endif /* MINICUDA_CUDA_MANAGED_H */
