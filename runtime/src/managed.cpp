// Managed memory: cudaMallocManaged, cudaMemPrefetchAsync, cudaMemAdvise and
// cudaStreamAttachMemAsync, each one call of its libcuda twin (driver/user/src/managed.cpp).
// cudaFree of managed memory is cudaFree's (cuMemFree_v2 knows the range).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {

CUmemLocation to_cu_location(const cudaMemLocation& l) {
  CUmemLocation out{};
  out.type = static_cast<CUmemLocationType>(l.type);
  out.id = l.id;
  return out;
}

}  // namespace

// Contract: *devPtr = size bytes of managed memory (cuMemAllocManaged): one address for the host
// and the device, no page resident until touched. flags: cudaMemAttachGlobal or
// cudaMemAttachHost. size 0 (as the toolkit documents, unlike cudaMalloc), NULL devPtr or other
// flags: cudaErrorInvalidValue.
cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMallocManaged(devPtr={}, size={}, flags={:#x})",
                     static_cast<void*>(devPtr), size, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (devPtr == nullptr) return done(scope, cudaErrorInvalidValue);
  CUdeviceptr p = 0;
  CUresult r = cuMemAllocManaged(&p, size, flags);
  if (r == CUDA_SUCCESS) *devPtr = reinterpret_cast<void*>(p);
  return done(scope, to_cuda_error(r));
}

// Contract: migrates the managed pages of [devPtr, devPtr+count) to location in stream order
// (cuMemPrefetchAsync_v2): a device (cudaMemLocationTypeDevice, id = ordinal) or the host
// (cudaMemLocationTypeHost). flags must be 0. Errors: the driver's, translated.
cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaMemPrefetchAsync(devPtr={}, count={}, location={{{}, {}}}, flags={}, stream={})", devPtr,
                     count, static_cast<int>(location.type), location.id, flags, static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemPrefetchAsync_v2(reinterpret_cast<CUdeviceptr>(devPtr), count,
                                                         to_cu_location(location), flags, stream)));
}

// Contract: advice about [devPtr, devPtr+count) of managed memory (cuMemAdvise_v2). Not managed
// memory, count 0, unknown advice or location type: cudaErrorInvalidValue; a device ordinal that
// does not exist: cudaErrorInvalidDevice.
cudaError_t cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice, struct cudaMemLocation location) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemAdvise(devPtr={}, count={}, advice={}, location={{{}, {}}})", devPtr,
                     count, static_cast<int>(advice), static_cast<int>(location.type), location.id);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemAdvise_v2(reinterpret_cast<CUdeviceptr>(devPtr), count,
                                                  static_cast<CUmem_advise>(advice), to_cu_location(location))));
}

// Contract: associates managed memory with stream (cuStreamAttachMemAsync); see its contract.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamAttachMemAsync(stream={}, devPtr={}, length={}, flags={:#x})",
                     static_cast<void*>(stream), devPtr, length, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuStreamAttachMemAsync(stream, reinterpret_cast<CUdeviceptr>(devPtr), length, flags)));
}
