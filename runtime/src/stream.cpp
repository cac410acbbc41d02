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

// Contracts: cuda_runtime_api.h (the _ptsz twins: its per-thread default stream section).
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

// The stream-ordered calls below share one body with their _ptsz twin: api is the name the
// trace shows, cu the driver calls it ends in (cudart.h).
namespace {
cudaError_t stream_synchronize(const char* api, const DriverCalls& cu, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={})", api, static_cast<void*>(stream));
  return through_driver(scope, [&] { return cu.stream_synchronize(stream); });
}
cudaError_t stream_query(const char* api, const DriverCalls& cu, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={})", api, static_cast<void*>(stream));
  return through_driver(scope, [&] { return cu.stream_query(stream); });
}
cudaError_t stream_wait_event(const char* api, const DriverCalls& cu, cudaStream_t stream, cudaEvent_t event,
                              unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, event={}, flags={})", api, static_cast<void*>(stream),
                     static_cast<void*>(event), flags);
  return through_driver(scope, [&] { return cu.stream_wait_event(stream, event, flags); });
}
}  // namespace

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return stream_synchronize("cudaStreamSynchronize", kLegacyDriver, stream);
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return stream_synchronize("cudaStreamSynchronize_ptsz", kPerThreadDriver, stream);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) { return stream_query("cudaStreamQuery", kLegacyDriver, stream); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  return stream_query("cudaStreamQuery_ptsz", kPerThreadDriver, stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return stream_wait_event("cudaStreamWaitEvent", kLegacyDriver, stream, event, flags);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return stream_wait_event("cudaStreamWaitEvent_ptsz", kPerThreadDriver, stream, event, flags);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreateWithPriority(pStream={}, flags={}, priority={})",
                     static_cast<void*>(pStream), flags, priority);
  return through_driver(scope, [&] { return cuStreamCreateWithPriority(pStream, flags, priority); });
}

namespace {
cudaError_t stream_get_priority(const char* api, const DriverCalls& cu, cudaStream_t hStream, int* priority) {
  trace::Scope scope(trace::Layer::Cudart, "{}(hStream={}, priority={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(priority));
  return through_driver(scope, [&] { return cu.stream_get_priority(hStream, priority); });
}
cudaError_t stream_get_flags(const char* api, const DriverCalls& cu, cudaStream_t hStream, unsigned int* flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(hStream={}, flags={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(flags));
  return through_driver(scope, [&] { return cu.stream_get_flags(hStream, flags); });
}
}  // namespace

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  return stream_get_priority("cudaStreamGetPriority", kLegacyDriver, hStream, priority);
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int* priority) {
  return stream_get_priority("cudaStreamGetPriority_ptsz", kPerThreadDriver, hStream, priority);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  return stream_get_flags("cudaStreamGetFlags", kLegacyDriver, hStream, flags);
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int* flags) {
  return stream_get_flags("cudaStreamGetFlags_ptsz", kPerThreadDriver, hStream, flags);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetStreamPriorityRange(leastPriority={}, greatestPriority={})",
                     static_cast<void*>(leastPriority), static_cast<void*>(greatestPriority));
  return through_driver(scope, [&] { return cuCtxGetStreamPriorityRange(leastPriority, greatestPriority); });
}

namespace {
cudaError_t launch_host_func(const char* api, const DriverCalls& cu, cudaStream_t stream, cudaHostFn_t fn,
                             void* userData) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, fn={}, userData={})", api, static_cast<void*>(stream),
                     reinterpret_cast<void*>(fn), userData);
  return through_driver(scope, [&] { return cu.launch_host_func(stream, fn, userData); });
}
}  // namespace

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return launch_host_func("cudaLaunchHostFunc", kLegacyDriver, stream, fn, userData);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return launch_host_func("cudaLaunchHostFunc_ptsz", kPerThreadDriver, stream, fn, userData);
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

cudaError_t add_callback(const char* api, const DriverCalls& cu, cudaStream_t stream, cudaStreamCallback_t callback,
                         void* userData, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, callback={}, userData={}, flags={})", api,
                     static_cast<void*>(stream), reinterpret_cast<void*>(callback), userData, flags);
  return through_driver(scope, [&] {
    if (callback == nullptr) return cu.stream_add_callback(stream, nullptr, userData, flags);
    auto* c = new RuntimeCallback{callback, userData};
    CUresult r = cu.stream_add_callback(stream, call_runtime_callback, c, flags);
    if (r != CUDA_SUCCESS) delete c;
    return r;
  });
}
}  // namespace

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  return add_callback("cudaStreamAddCallback", kLegacyDriver, stream, callback, userData, flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                       unsigned int flags) {
  return add_callback("cudaStreamAddCallback_ptsz", kPerThreadDriver, stream, callback, userData, flags);
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

namespace {
cudaError_t event_record(const char* api, const DriverCalls& cu, cudaEvent_t event, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(event={}, stream={})", api, static_cast<void*>(event),
                     static_cast<void*>(stream));
  return through_driver(scope, [&] { return cu.event_record(event, stream); });
}
}  // namespace

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return event_record("cudaEventRecord", kLegacyDriver, event, stream);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return event_record("cudaEventRecord_ptsz", kPerThreadDriver, event, stream);
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
namespace {
cudaError_t memcpy_async(const char* api, const DriverCalls& cu, void* dst, const void* src, size_t count,
                         enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(dst={}, src={}, count={}, kind={}, stream={})", api, dst, src, count,
                     memcpy_kind_name(kind), static_cast<void*>(stream));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return finish(scope, cudaErrorInvalidMemcpyDirection);
  if (count == 0) return through_driver(scope, [] { return CUDA_SUCCESS; });
  auto d = reinterpret_cast<CUdeviceptr>(dst);
  auto s = reinterpret_cast<CUdeviceptr>(src);
  return through_driver(scope, [&] {
    switch (kind) {
      case cudaMemcpyHostToDevice: return cu.memcpy_htod_async(d, src, count, stream);
      case cudaMemcpyDeviceToHost: return cu.memcpy_dtoh_async(dst, s, count, stream);
      case cudaMemcpyDeviceToDevice: return cu.memcpy_dtod_async(d, s, count, stream);
      default: return cu.memcpy_any_async(d, s, count, stream);
    }
  });
}

cudaError_t memset_async(const char* api, const DriverCalls& cu, void* devPtr, int value, size_t count,
                         cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(devPtr={}, value={}, count={}, stream={})", api, devPtr, value, count,
                     static_cast<void*>(stream));
  if (count == 0) return through_driver(scope, [] { return CUDA_SUCCESS; });
  return through_driver(scope, [&] {
    return cu.memset_d8_async(reinterpret_cast<CUdeviceptr>(devPtr), static_cast<unsigned char>(value), count, stream);
  });
}
}  // namespace

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpy_async("cudaMemcpyAsync", kLegacyDriver, dst, src, count, kind, stream);
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream) {
  return memcpy_async("cudaMemcpyAsync_ptsz", kPerThreadDriver, dst, src, count, kind, stream);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async("cudaMemsetAsync", kLegacyDriver, devPtr, value, count, stream);
}
cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async("cudaMemsetAsync_ptsz", kPerThreadDriver, devPtr, value, count, stream);
}
