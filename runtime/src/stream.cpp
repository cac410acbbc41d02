// Streams, events and the asynchronous copies of the runtime: each is one driver call, as the
// measured chain shows (chain_cupti.txt, "streams + events + async copy": cudaStreamCreate ->
// cuStreamCreate, cudaMemcpyAsync -> cuMemcpyDtoHAsync_v2, cudaEventElapsedTime ->
// cuEventElapsedTime_v2, cudaStreamDestroy -> cuStreamDestroy_v2, ...).
#include "cudart.h"
#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Every entry point: its trace scope, the lazy initialisation (ensure_context), then its one
// driver call by name. The stream-ordered calls share one body with their _ptsz twin: api is the
// name the trace shows, mode picks the driver's plain entry point or its _ptsz twin (cudart.h).
// Contracts: cuda_runtime_api.h (the _ptsz twins: its per-thread default stream section).

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreate(pStream={})", static_cast<void*>(pStream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuStreamCreate(pStream, CU_STREAM_DEFAULT)));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreateWithFlags(pStream={}, flags={})",
                     static_cast<void*>(pStream), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuStreamCreate(pStream, flags)));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamDestroy(stream={})", static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuStreamDestroy_v2(stream)));
}

namespace {
cudaError_t stream_synchronize(const char* api, DefaultStream mode, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={})", api, static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_stream_call(stream, api, true)) return done(scope, *e);  // capture hook
  CUresult r = mode == DefaultStream::Legacy ? cuStreamSynchronize(stream) : cuStreamSynchronize_ptsz(stream);
  return done(scope, to_cuda_error(r));
}
cudaError_t stream_query(const char* api, DefaultStream mode, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={})", api, static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_stream_call(stream, api, false)) return done(scope, *e);  // capture hook
  CUresult r = mode == DefaultStream::Legacy ? cuStreamQuery(stream) : cuStreamQuery_ptsz(stream);
  return done(scope, to_cuda_error(r));
}
cudaError_t stream_wait_event(const char* api, DefaultStream mode, cudaStream_t stream, cudaEvent_t event,
                              unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, event={}, flags={})", api, static_cast<void*>(stream),
                     static_cast<void*>(event), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_wait_event(stream, event)) return done(scope, *e);  // capture hook
  CUresult r = mode == DefaultStream::Legacy ? cuStreamWaitEvent(stream, event, flags)
                                             : cuStreamWaitEvent_ptsz(stream, event, flags);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return stream_synchronize("cudaStreamSynchronize", DefaultStream::Legacy, stream);
}
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return stream_synchronize("cudaStreamSynchronize_ptsz", DefaultStream::PerThread, stream);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return stream_query("cudaStreamQuery", DefaultStream::Legacy, stream);
}
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  return stream_query("cudaStreamQuery_ptsz", DefaultStream::PerThread, stream);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return stream_wait_event("cudaStreamWaitEvent", DefaultStream::Legacy, stream, event, flags);
}
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return stream_wait_event("cudaStreamWaitEvent_ptsz", DefaultStream::PerThread, stream, event, flags);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamCreateWithPriority(pStream={}, flags={}, priority={})",
                     static_cast<void*>(pStream), flags, priority);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuStreamCreateWithPriority(pStream, flags, priority)));
}

namespace {
cudaError_t stream_get_priority(const char* api, DefaultStream mode, cudaStream_t hStream, int* priority) {
  trace::Scope scope(trace::Layer::Cudart, "{}(hStream={}, priority={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(priority));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUresult r = mode == DefaultStream::Legacy ? cuStreamGetPriority(hStream, priority)
                                             : cuStreamGetPriority_ptsz(hStream, priority);
  return done(scope, to_cuda_error(r));
}
cudaError_t stream_get_flags(const char* api, DefaultStream mode, cudaStream_t hStream, unsigned int* flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(hStream={}, flags={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(flags));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUresult r = mode == DefaultStream::Legacy ? cuStreamGetFlags(hStream, flags) : cuStreamGetFlags_ptsz(hStream, flags);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  return stream_get_priority("cudaStreamGetPriority", DefaultStream::Legacy, hStream, priority);
}
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int* priority) {
  return stream_get_priority("cudaStreamGetPriority_ptsz", DefaultStream::PerThread, hStream, priority);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  return stream_get_flags("cudaStreamGetFlags", DefaultStream::Legacy, hStream, flags);
}
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int* flags) {
  return stream_get_flags("cudaStreamGetFlags_ptsz", DefaultStream::PerThread, hStream, flags);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetStreamPriorityRange(leastPriority={}, greatestPriority={})",
                     static_cast<void*>(leastPriority), static_cast<void*>(greatestPriority));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority)));
}

namespace {
cudaError_t launch_host_func(const char* api, DefaultStream mode, cudaStream_t stream, cudaHostFn_t fn,
                             void* userData) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, fn={}, userData={})", api, static_cast<void*>(stream),
                     reinterpret_cast<void*>(fn), userData);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_host(stream, fn, userData)) return done(scope, *e);  // capture hook
  CUresult r = mode == DefaultStream::Legacy ? cuLaunchHostFunc(stream, fn, userData)
                                             : cuLaunchHostFunc_ptsz(stream, fn, userData);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return launch_host_func("cudaLaunchHostFunc", DefaultStream::Legacy, stream, fn, userData);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  return launch_host_func("cudaLaunchHostFunc_ptsz", DefaultStream::PerThread, stream, fn, userData);
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

// A NULL callback goes to the driver as NULL, which refuses it.
cudaError_t add_callback(const char* api, DefaultStream mode, cudaStream_t stream, cudaStreamCallback_t callback,
                         void* userData, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(stream={}, callback={}, userData={}, flags={})", api,
                     static_cast<void*>(stream), reinterpret_cast<void*>(callback), userData, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUstreamCallback driver_callback = callback != nullptr ? call_runtime_callback : nullptr;
  void* data = callback != nullptr ? new RuntimeCallback{callback, userData} : userData;
  CUresult r = mode == DefaultStream::Legacy ? cuStreamAddCallback(stream, driver_callback, data, flags)
                                             : cuStreamAddCallback_ptsz(stream, driver_callback, data, flags);
  if (r != CUDA_SUCCESS && callback != nullptr) delete static_cast<RuntimeCallback*>(data);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  return add_callback("cudaStreamAddCallback", DefaultStream::Legacy, stream, callback, userData, flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                       unsigned int flags) {
  return add_callback("cudaStreamAddCallback_ptsz", DefaultStream::PerThread, stream, callback, userData, flags);
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventCreate(event={})", static_cast<void*>(event));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuEventCreate(event, CU_EVENT_DEFAULT)));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventCreateWithFlags(event={}, flags={})", static_cast<void*>(event),
                     flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuEventCreate(event, flags)));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventDestroy(event={})", static_cast<void*>(event));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  graph::capture_event_destroyed(event);  // capture hook
  return done(scope, to_cuda_error(cuEventDestroy_v2(event)));
}

namespace {
cudaError_t event_record(const char* api, DefaultStream mode, cudaEvent_t event, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(event={}, stream={})", api, static_cast<void*>(event),
                     static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_event_record(event, stream)) return done(scope, *e);  // capture hook
  CUresult r = mode == DefaultStream::Legacy ? cuEventRecord(event, stream) : cuEventRecord_ptsz(event, stream);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return event_record("cudaEventRecord", DefaultStream::Legacy, event, stream);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return event_record("cudaEventRecord_ptsz", DefaultStream::PerThread, event, stream);
}

// Contract: cudaEventRecord with record flags (cuEventRecordWithFlags): cudaEventRecordDefault
// records; cudaEventRecordExternal outside a stream capture: cudaErrorIllegalState; other flags:
// cudaErrorInvalidValue; an unknown event: cudaErrorInvalidResourceHandle (measured).
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventRecordWithFlags(event={}, stream={}, flags={})",
                     static_cast<void*>(event), static_cast<void*>(stream), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuEventRecordWithFlags(event, stream, flags)));
}
// Contract: as cudaEventRecordWithFlags; stream 0 is this thread's per-thread stream.
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventRecordWithFlags_ptsz(event={}, stream={}, flags={})",
                     static_cast<void*>(event), static_cast<void*>(stream), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuEventRecordWithFlags_ptsz(event, stream, flags)));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventQuery(event={})", static_cast<void*>(event));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_event_use(event)) return done(scope, *e);  // capture hook
  return done(scope, to_cuda_error(cuEventQuery(event)));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventSynchronize(event={})", static_cast<void*>(event));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_event_use(event)) return done(scope, *e);  // capture hook
  return done(scope, to_cuda_error(cuEventSynchronize(event)));
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  trace::Scope scope(trace::Layer::Cudart, "cudaEventElapsedTime(ms={}, start={}, end={})", static_cast<void*>(ms),
                     static_cast<void*>(start), static_cast<void*>(end));
  // The runtime checks the result pointer itself (the driver would answer INVALID_HANDLE).
  if (ms == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuEventElapsedTime_v2(ms, start, end)));
}

// The kind picks the driver call as cudaMemcpy's does, in its Async form. A copy of 0 bytes
// still needs the context, and makes no driver call.
namespace {
cudaError_t memcpy_async(const char* api, DefaultStream mode, void* dst, const void* src, size_t count,
                         enum cudaMemcpyKind kind, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(dst={}, src={}, count={}, kind={}, stream={})", api, dst, src, count,
                     memcpy_kind_name(kind), static_cast<void*>(stream));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_copy(stream, dst, src, count, kind)) return done(scope, *e);  // capture hook
  if (count == 0) return done(scope, cudaSuccess);
  const bool legacy = mode == DefaultStream::Legacy;
  auto d = reinterpret_cast<CUdeviceptr>(dst);
  auto s = reinterpret_cast<CUdeviceptr>(src);
  CUresult r;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      r = legacy ? cuMemcpyHtoDAsync_v2(d, src, count, stream) : cuMemcpyHtoDAsync_v2_ptsz(d, src, count, stream);
      break;
    case cudaMemcpyDeviceToHost:
      r = legacy ? cuMemcpyDtoHAsync_v2(dst, s, count, stream) : cuMemcpyDtoHAsync_v2_ptsz(dst, s, count, stream);
      break;
    case cudaMemcpyDeviceToDevice:
      r = legacy ? cuMemcpyDtoDAsync_v2(d, s, count, stream) : cuMemcpyDtoDAsync_v2_ptsz(d, s, count, stream);
      break;
    default:
      r = legacy ? cuMemcpyAsync(d, s, count, stream) : cuMemcpyAsync_ptsz(d, s, count, stream);
      break;
  }
  return done(scope, to_cuda_error(r));
}

cudaError_t memset_async(const char* api, DefaultStream mode, void* devPtr, int value, size_t count,
                         cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "{}(devPtr={}, value={}, count={}, stream={})", api, devPtr, value, count,
                     static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_memset(stream, devPtr, value, count)) return done(scope, *e);  // capture hook
  if (count == 0) return done(scope, cudaSuccess);
  auto d = reinterpret_cast<CUdeviceptr>(devPtr);
  auto uc = static_cast<unsigned char>(value);
  CUresult r = mode == DefaultStream::Legacy ? cuMemsetD8Async(d, uc, count, stream)
                                             : cuMemsetD8Async_ptsz(d, uc, count, stream);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpy_async("cudaMemcpyAsync", DefaultStream::Legacy, dst, src, count, kind, stream);
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream) {
  return memcpy_async("cudaMemcpyAsync_ptsz", DefaultStream::PerThread, dst, src, count, kind, stream);
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async("cudaMemsetAsync", DefaultStream::Legacy, devPtr, value, count, stream);
}
cudaError_t cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_async("cudaMemsetAsync_ptsz", DefaultStream::PerThread, devPtr, value, count, stream);
}
