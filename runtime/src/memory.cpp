// Memory: cudaMalloc/cudaFree over cuMemAlloc_v2/cuMemFree_v2 (the libcuda pool does the work),
// pinned host memory over cuMemHostAlloc/cuMemFreeHost, cudaMemGetInfo, and pointer attributes.
#include "cudart.h"
#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: *devPtr = size bytes of device memory (256-byte aligned or better, not cleared; in
// libcuda's memcheck mode, MINICUDA_MEMCHECK=1, only aligned to the largest power of two dividing
// size, at most 256). size 0: cudaSuccess with *devPtr = NULL (measured); NULL devPtr: cudaErrorInvalidValue; no room:
// cudaErrorMemoryAllocation with *devPtr = NULL, recorded as the last error but not sticky.
cudaError_t cudaMalloc(void** devPtr, size_t size) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMalloc(devPtr={}, size={})", static_cast<void*>(devPtr), size);
  if (devPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  *devPtr = nullptr;  // measured: NULL after a failed allocation too (probe_extra.txt rt.oom.malloc.p)
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMalloc")) return done(scope, *e);  // capture hook
  if (size == 0) return done(scope, cudaSuccess);
  CUdeviceptr p = 0;
  CUresult r = cuMemAlloc_v2(&p, size);
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  *devPtr = reinterpret_cast<void*>(p);
  if (scope.active()) scope.result("cudaSuccess, *devPtr={}", *devPtr);
  return cudaSuccess;
}

// Contract: frees memory from cudaMalloc. NULL: nothing, cudaSuccess. Any pointer that is not the
// start of a live allocation (host, interior, freed): cudaErrorInvalidValue (measured).
cudaError_t cudaFree(void* devPtr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFree(devPtr={})", devPtr);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaFree")) return done(scope, *e);  // capture hook
  if (devPtr == nullptr) return done(scope, cudaSuccess);
  // A graph memory node's allocation (docs/graphs.md): freed after a synchronize.
  if (auto e = graph::free_graph_allocation(devPtr, nullptr, true)) return done(scope, *e);
  return done(scope, to_cuda_error(cuMemFree_v2(reinterpret_cast<CUdeviceptr>(devPtr))));
}

// Contract: *pHost = size bytes of page-locked host memory the device can reach; flags is a mask
// of cudaHostAlloc{Portable,Mapped,WriteCombined}. NULL pHost: cudaErrorInvalidValue; unknown
// flags: cudaErrorInvalidValue with *pHost = NULL (measured); size 0: cudaSuccess and
// *pHost = NULL; no room: cudaErrorMemoryAllocation.
cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaHostAlloc(pHost={}, size={}, flags={:#x})", static_cast<void*>(pHost), size, flags);
  if (pHost == nullptr) return done(scope, cudaErrorInvalidValue);
  if (flags & ~static_cast<unsigned>(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined)) {
    *pHost = nullptr;  // measured: rt.hostAlloc.flags0x80.h = null
    return done(scope, cudaErrorInvalidValue);
  }
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaHostAlloc")) return done(scope, *e);  // capture hook
  if (size == 0) {
    *pHost = nullptr;
    return done(scope, cudaSuccess);
  }
  unsigned cu_flags = 0;
  if (flags & cudaHostAllocPortable) cu_flags |= CU_MEMHOSTALLOC_PORTABLE;
  if (flags & cudaHostAllocMapped) cu_flags |= CU_MEMHOSTALLOC_DEVICEMAP;
  if (flags & cudaHostAllocWriteCombined) cu_flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
  CUresult r = cuMemHostAlloc(pHost, size, cu_flags);
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));  // 2 out of memory: cudaErrorMemoryAllocation
  if (scope.active()) scope.result("cudaSuccess, *pHost={}", *pHost);
  return cudaSuccess;
}

// Contract: cudaHostAlloc(ptr, size, cudaHostAllocDefault) through cuMemAllocHost_v2.
cudaError_t cudaMallocHost(void** ptr, size_t size) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMallocHost(ptr={}, size={})", static_cast<void*>(ptr), size);
  if (ptr == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMallocHost")) return done(scope, *e);  // capture hook
  if (size == 0) {
    *ptr = nullptr;
    return done(scope, cudaSuccess);
  }
  CUresult r = cuMemAllocHost_v2(ptr, size);
  return done(scope, to_cuda_error(r));
}

// Contract: frees memory of cudaHostAlloc / cudaMallocHost. NULL: cudaSuccess. Pageable or device
// memory: cudaErrorInvalidValue (measured).
cudaError_t cudaFreeHost(void* ptr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaFreeHost(ptr={})", ptr);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (ptr == nullptr) return done(scope, cudaSuccess);
  return done(scope, to_cuda_error(cuMemFreeHost(ptr)));
}

// Contract: *free and *total device memory of the current device, in bytes (total equals
// cudaDeviceProp::totalGlobalMem); either pointer may be NULL (measured).
cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemGetInfo(free={}, total={})", static_cast<void*>(free), static_cast<void*>(total));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemGetInfo_v2(free, total)));
}

// Contract: fills *attributes for ptr: device memory (type cudaMemoryTypeDevice, interior pointers
// too), pinned host memory (cudaMemoryTypeHost, hostPointer == devicePointer == ptr), anything
// else cudaMemoryTypeUnregistered with success, device -2, hostPointer = ptr and devicePointer
// NULL (CUDA 11+ behaviour, measured). NULL attributes: cudaErrorInvalidValue.
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaPointerGetAttributes(attributes={}, ptr={})", static_cast<void*>(attributes), ptr);
  if (attributes == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  unsigned int type = 0;
  int ordinal = -2;
  CUdeviceptr device_pointer = 0;
  void* host_pointer = nullptr;
  int managed = 0;
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_HOST_POINTER,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* data[] = {&type, &ordinal, &device_pointer, &host_pointer, &managed};
  CUresult r = cuPointerGetAttributes(5, which, data, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  attributes->type = managed ? cudaMemoryTypeManaged
                     : type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
                     : type == CU_MEMORYTYPE_HOST ? cudaMemoryTypeHost
                                                  : cudaMemoryTypeUnregistered;
  attributes->device = ordinal;
  attributes->devicePointer = reinterpret_cast<void*>(device_pointer);
  attributes->hostPointer = attributes->type == cudaMemoryTypeUnregistered ? const_cast<void*>(ptr) : host_pointer;
  return done(scope, cudaSuccess);
}
