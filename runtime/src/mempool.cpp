// The stream-ordered allocator: cudaMallocAsync / cudaFreeAsync / cudaMallocFromPoolAsync and the
// cudaMemPool* calls, each over its libcuda twin (cuMemAllocAsync, cuMemPool*: mempool.cpp in
// libcuda keeps the pools). The runtime only checks what it must, translates the result and keeps
// the last error; docs/memory-pools.md tells what the pool does below.
#include "cudart.h"
#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

cudaError_t malloc_async(const char* api, DefaultStream mode, void** devPtr, size_t size, cudaMemPool_t pool,
                         bool from_pool, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(devPtr={}, size={}, {}stream={})", api, static_cast<void*>(devPtr), size,
                     from_pool ? fmt::format("memPool={}, ", static_cast<void*>(pool)) : std::string(),
                     static_cast<void*>(stream));
  if (devPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  // On the legacy stream, a capture elsewhere in global mode forbids it (measured:
  // malloc_in_capture_legacy.malloc_legacy = 900, and the capture is invalidated).
  if (stream == nullptr || stream == cudaStreamLegacy)
    if (auto e = graph::capture_unsafe_call(api)) return done(scope, *e);
  if (size == 0 && !graph::capture_frontier_active(stream)) {
    *devPtr = nullptr;
    return done(scope, cudaSuccess);
  }
  // On a capturing stream: an allocation node of the capture's graph (docs/graphs.md).
  if (!from_pool)
    if (auto e = graph::capture_malloc(stream, size, devPtr)) return done(scope, *e);
  if (from_pool && graph::capture_frontier_active(stream)) {
    trace::note(trace::Layer::Cudart, "{}: a capture makes allocation nodes of the device's graph memory only", api);
    return done(scope, cudaErrorNotSupported);
  }
  CUdeviceptr p = 0;
  CUresult r = CUDA_SUCCESS;
  if (mode == DefaultStream::PerThread)
    r = from_pool ? cuMemAllocFromPoolAsync_ptsz(&p, size, pool, stream) : cuMemAllocAsync_ptsz(&p, size, stream);
  else
    r = from_pool ? cuMemAllocFromPoolAsync(&p, size, pool, stream) : cuMemAllocAsync(&p, size, stream);
  if (r != CUDA_SUCCESS) return done(scope, to_cuda_error(r));
  *devPtr = reinterpret_cast<void*>(p);
  if (scope.active()) scope.result("cudaSuccess, *devPtr={}", *devPtr);
  return cudaSuccess;
}

cudaError_t free_async(const char* api, DefaultStream mode, void* devPtr, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(devPtr={}, stream={})", api, devPtr, static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  // On a capturing stream: a free node of the capture's graph, for a graph allocation.
  if (auto e = graph::capture_free(stream, devPtr)) return done(scope, *e);
  // A graph allocation freed outside a graph, after the work queued on stream.
  if (auto e = graph::free_graph_allocation(devPtr, stream, false)) return done(scope, *e);
  const auto p = reinterpret_cast<CUdeviceptr>(devPtr);
  CUresult r = mode == DefaultStream::PerThread ? cuMemFreeAsync_ptsz(p, stream) : cuMemFreeAsync(p, stream);
  return done(scope, to_cuda_error(r));
}

}  // namespace

// Contract: *devPtr = size bytes of the device's current pool, usable by work queued on hStream
// after this call. NULL devPtr: cudaErrorInvalidValue; size 0: cudaSuccess with *devPtr = NULL;
// no room: cudaErrorMemoryAllocation.
cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  return malloc_async("cudaMallocAsync", DefaultStream::Legacy, devPtr, size, nullptr, false, hStream);
}
cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t hStream) {
  return malloc_async("cudaMallocAsync_ptsz", DefaultStream::PerThread, devPtr, size, nullptr, false, hStream);
}
// Contract: as cudaMallocAsync, from memPool. NULL memPool: cudaErrorInvalidValue.
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return malloc_async("cudaMallocFromPoolAsync", DefaultStream::Legacy, ptr, size, memPool, true, stream);
}
cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return malloc_async("cudaMallocFromPoolAsync_ptsz", DefaultStream::PerThread, ptr, size, memPool, true, stream);
}
// Contract: returns a pool allocation after the work queued on hStream. A pointer that starts no
// live pool allocation: cudaErrorInvalidValue.
cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  return free_async("cudaFreeAsync", DefaultStream::Legacy, devPtr, hStream);
}
cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream) {
  return free_async("cudaFreeAsync_ptsz", DefaultStream::PerThread, devPtr, hStream);
}

// Contract: a new pool (cuMemPoolCreate); the runtime's struct is the driver's, field for field.
cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const cudaMemPoolProps* poolProps) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolCreate(memPool={}, poolProps={})", static_cast<void*>(memPool),
                     static_cast<const void*>(poolProps));
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMemPoolCreate")) return done(scope, *e);  // pool_calls_in_capture.*
  static_assert(sizeof(cudaMemPoolProps) == sizeof(CUmemPoolProps));
  return done(scope, to_cuda_error(cuMemPoolCreate(memPool, reinterpret_cast<const CUmemPoolProps*>(poolProps))));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolDestroy(memPool={})", static_cast<void*>(memPool));
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemPoolDestroy(memPool)));
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolTrimTo(memPool={}, minBytesToKeep={})",
                     static_cast<void*>(memPool), minBytesToKeep);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMemPoolTrimTo")) return done(scope, *e);  // pool_calls_in_capture.*
  return done(scope, to_cuda_error(cuMemPoolTrimTo(memPool, minBytesToKeep)));
}

// Contract: the attribute numbers are the driver's (cudaMemPoolAttr == CUmemPool_attribute).
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolSetAttribute(memPool={}, attr={}, value={})",
                     static_cast<void*>(memPool), static_cast<int>(attr), value);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMemPoolSetAttribute")) return done(scope, *e);  // pool_calls_in_capture.*
  return done(scope, to_cuda_error(cuMemPoolSetAttribute(memPool, static_cast<CUmemPool_attribute>(attr), value)));
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolGetAttribute(memPool={}, attr={}, value={})",
                     static_cast<void*>(memPool), static_cast<int>(attr), value);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_unsafe_call("cudaMemPoolGetAttribute")) return done(scope, *e);  // pool_calls_in_capture.*
  return done(scope, to_cuda_error(cuMemPoolGetAttribute(memPool, static_cast<CUmemPool_attribute>(attr), value)));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const cudaMemAccessDesc* descList, size_t count) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolSetAccess(memPool={}, descList={}, count={})",
                     static_cast<void*>(memPool), static_cast<const void*>(descList), count);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  static_assert(sizeof(cudaMemAccessDesc) == sizeof(CUmemAccessDesc));
  return done(scope, to_cuda_error(cuMemPoolSetAccess(memPool, reinterpret_cast<const CUmemAccessDesc*>(descList), count)));
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t memPool, cudaMemLocation* location) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemPoolGetAccess(flags={}, memPool={}, location={})",
                     static_cast<void*>(flags), static_cast<void*>(memPool), static_cast<void*>(location));
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemPoolGetAccess(reinterpret_cast<CUmemAccess_flags*>(flags), memPool,
                                                      reinterpret_cast<CUmemLocation*>(location))));
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetDefaultMemPool(memPool={}, device={})",
                     static_cast<void*>(memPool), device);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDeviceGetDefaultMemPool(memPool, device)));
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetMemPool(memPool={}, device={})", static_cast<void*>(memPool),
                     device);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDeviceGetMemPool(memPool, device)));
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSetMemPool(device={}, memPool={})", device,
                     static_cast<void*>(memPool));
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDeviceSetMemPool(device, memPool)));
}
