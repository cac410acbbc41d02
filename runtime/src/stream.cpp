// Streams, events and the asynchronous copies of the runtime: each is one driver call, as the
// measured chain shows (chain_cupti.txt, "streams + events + async copy": cudaStreamCreate ->
// cuStreamCreate, cudaMemcpyAsync -> cuMemcpyDtoHAsync_v2, cudaEventElapsedTime ->
// cuEventElapsedTime_v2, cudaStreamDestroy -> cuStreamDestroy_v2, ...).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

namespace {
// The lazy initialisation, then one driver call.
template <typename Call>
cudaError_t through_driver(trace::Scope& scope, Call call) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return finish(scope, e);
  return finish(scope, to_cuda_error(call()));
}
}  // namespace

// Contracts: cuda_runtime_api.h.
cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreate(pStream={})", static_cast<void*>(pStream));
  return through_driver(scope, [&] { return cuStreamCreate(pStream, CU_STREAM_DEFAULT); });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreateWithFlags(pStream={}, flags={})",
                     static_cast<void*>(pStream), flags);
  return through_driver(scope, [&] { return cuStreamCreate(pStream, flags); });
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamDestroy(stream={})", static_cast<void*>(stream));
  return through_driver(scope, [&] { return cuStreamDestroy_v2(stream); });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamSynchronize(stream={})", static_cast<void*>(stream));
  return through_driver(scope, [&] { return cuStreamSynchronize(stream); });
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamQuery(stream={})", static_cast<void*>(stream));
  return through_driver(scope, [&] { return cuStreamQuery(stream); });
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamWaitEvent(stream={}, event={}, flags={})",
                     static_cast<void*>(stream), static_cast<void*>(event), flags);
  return through_driver(scope, [&] { return cuStreamWaitEvent(stream, event, flags); });
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreateWithPriority(pStream={}, flags={}, priority={})",
                     static_cast<void*>(pStream), flags, priority);
  return through_driver(scope, [&] { return cuStreamCreateWithPriority(pStream, flags, priority); });
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamGetPriority(hStream={}, priority={})",
                     static_cast<void*>(hStream), static_cast<void*>(priority));
  return through_driver(scope, [&] { return cuStreamGetPriority(hStream, priority); });
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamGetFlags(hStream={}, flags={})", static_cast<void*>(hStream),
                     static_cast<void*>(flags));
  return through_driver(scope, [&] { return cuStreamGetFlags(hStream, flags); });
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetStreamPriorityRange(leastPriority={}, greatestPriority={})",
                     static_cast<void*>(leastPriority), static_cast<void*>(greatestPriority));
  return through_driver(scope, [&] { return cuCtxGetStreamPriorityRange(leastPriority, greatestPriority); });
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  trace::Scope scope(trace::Layer::Cudart, "cudaLaunchHostFunc(stream={}, fn={}, userData={})",
                     static_cast<void*>(stream), reinterpret_cast<void*>(fn), userData);
  return through_driver(scope, [&] { return cuLaunchHostFunc(stream, fn, userData); });
}

namespace {
// A runtime stream callback takes a cudaError_t: the driver's callback calls it through this.
struct RuntimeCallback {
  cudaStreamCallback_t callback;
  void* data;
};
void CUDA_CB call_runtime_callback(CUstream stream, CUresult status, void* data) {
  auto* c = static_cast<RuntimeCallback*>(data);
  c->callback(stream, to_cuda_error(status), c->data);
  delete c;
}
}  // namespace

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamAddCallback(stream={}, callback={}, userData={}, flags={})",
                     static_cast<void*>(stream), reinterpret_cast<void*>(callback), userData, flags);
  return through_driver(scope, [&] {
    if (callback == nullptr) return cuStreamAddCallback(stream, nullptr, userData, flags);
    auto* c = new RuntimeCallback{callback, userData};
    CUresult r = cuStreamAddCallback(stream, call_runtime_callback, c, flags);
    if (r != CUDA_SUCCESS) delete c;
    return r;
  });
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventCreate(event={})", static_cast<void*>(event));
  return through_driver(scope, [&] { return cuEventCreate(event, CU_EVENT_DEFAULT); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventCreateWithFlags(event={}, flags={})", static_cast<void*>(event),
                     flags);
  return through_driver(scope, [&] { return cuEventCreate(event, flags); });
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventDestroy(event={})", static_cast<void*>(event));
  return through_driver(scope, [&] { return cuEventDestroy_v2(event); });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventRecord(event={}, stream={})", static_cast<void*>(event),
                     static_cast<void*>(stream));
  return through_driver(scope, [&] { return cuEventRecord(event, stream); });
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventQuery(event={})", static_cast<void*>(event));
  return through_driver(scope, [&] { return cuEventQuery(event); });
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventSynchronize(event={})", static_cast<void*>(event));
  return through_driver(scope, [&] { return cuEventSynchronize(event); });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventElapsedTime(ms={}, start={}, end={})", static_cast<void*>(ms),
                     static_cast<void*>(start), static_cast<void*>(end));
  // The runtime checks the result pointer itself (the driver would answer INVALID_HANDLE).
  if (ms == nullptr) return finish(scope, cudaErrorInvalidValue);
  return through_driver(scope, [&] { return cuEventElapsedTime_v2(ms, start, end); });
}

// The kind picks the driver call as cudaMemcpy's does, in its Async form.
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemcpyAsync(dst={}, src={}, count={}, kind={}, stream={})", dst, src,
                     count, memcpy_kind_name(kind), static_cast<void*>(stream));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return finish(scope, cudaErrorInvalidMemcpyDirection);
  if (count == 0) return through_driver(scope, [] { return CUDA_SUCCESS; });
  auto d = reinterpret_cast<CUdeviceptr>(dst);
  auto s = reinterpret_cast<CUdeviceptr>(src);
  return through_driver(scope, [&] {
    switch (kind) {
      case cudaMemcpyHostToDevice: return cuMemcpyHtoDAsync_v2(d, src, count, stream);
      case cudaMemcpyDeviceToHost: return cuMemcpyDtoHAsync_v2(dst, s, count, stream);
      case cudaMemcpyDeviceToDevice: return cuMemcpyDtoDAsync_v2(d, s, count, stream);
      default: return cuMemcpyAsync(d, s, count, stream);
    }
  });
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaMemsetAsync(devPtr={}, value={}, count={}, stream={})", devPtr, value,
                     count, static_cast<void*>(stream));
  if (count == 0) return through_driver(scope, [] { return CUDA_SUCCESS; });
  return through_driver(scope, [&] {
    return cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(devPtr), static_cast<unsigned char>(value), count, stream);
  });
}
