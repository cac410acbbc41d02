// cudaMemcpy and cudaMemset over the driver's copies (cuMemcpy*_v2, cuMemsetD8_v2). The copy
// engine does the work; see driver/user/src/copy.cpp for what waits and what goes through the
// staging buffer.
#include "cudart.h"
#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;

const char* minicuda::cudart::memcpy_kind_name(int kind) {
  switch (kind) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    default: return "invalid";
  }
}

// Contract: cuda_runtime.h. The kind picks the driver call, as the measured runtime does
// (HostToDevice -> cuMemcpyHtoD_v2, DeviceToHost -> cuMemcpyDtoH_v2, DeviceToDevice ->
// cuMemcpyDtoD_v2); Default and HostToHost use the unified cuMemcpy. With UVA the driver knows
// where each pointer lives, so a kind that names the wrong side still copies (measured:
// memcpy.wrong_direction_h2d_with_dev_src = 0). cudaMemcpy_ptds copies on the calling thread's
// per-thread stream through the driver's _ptds twins; api is the name the trace shows.
namespace {
cudaError_t copy(const char* api, DefaultStream mode, void* dst, const void* src, size_t count,
                 enum cudaMemcpyKind kind) {
  trace::Scope scope(trace::Layer::Cudart, "{}(dst={}, src={}, count={}, kind={})", api, dst, src, count,
                     memcpy_kind_name(kind));
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return done(scope, cudaErrorInvalidMemcpyDirection);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (mode == DefaultStream::Legacy)
    if (auto e = graph::capture_legacy_call(api)) return done(scope, *e);  // capture hook
  if (auto e = graph::capture_unsafe_call(api)) return done(scope, *e);  // capture hook
  if (count == 0) return done(scope, cudaSuccess);
  const bool legacy = mode == DefaultStream::Legacy;
  auto d = reinterpret_cast<CUdeviceptr>(dst);
  auto s = reinterpret_cast<CUdeviceptr>(src);
  CUresult r;
  switch (kind) {
    case cudaMemcpyHostToDevice:
      r = legacy ? cuMemcpyHtoD_v2(d, src, count) : cuMemcpyHtoD_v2_ptds(d, src, count);
      break;
    case cudaMemcpyDeviceToHost:
      r = legacy ? cuMemcpyDtoH_v2(dst, s, count) : cuMemcpyDtoH_v2_ptds(dst, s, count);
      break;
    case cudaMemcpyDeviceToDevice:
      r = legacy ? cuMemcpyDtoD_v2(d, s, count) : cuMemcpyDtoD_v2_ptds(d, s, count);
      break;
    default:
      r = legacy ? cuMemcpy(d, s, count) : cuMemcpy_ptds(d, s, count);
      break;
  }
  return done(scope, to_cuda_error(r));
}

cudaError_t set(const char* api, DefaultStream mode, void* devPtr, int value, size_t count) {
  trace::Scope scope(trace::Layer::Cudart, "{}(devPtr={}, value={}, count={})", api, devPtr, value, count);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (mode == DefaultStream::Legacy)
    if (auto e = graph::capture_legacy_call(api)) return done(scope, *e);  // capture hook
  if (auto e = graph::capture_unsafe_call(api)) return done(scope, *e);  // capture hook
  if (count == 0) return done(scope, cudaSuccess);
  auto d = reinterpret_cast<CUdeviceptr>(devPtr);
  auto uc = static_cast<unsigned char>(value);
  CUresult r = mode == DefaultStream::Legacy ? cuMemsetD8_v2(d, uc, count) : cuMemsetD8_v2_ptds(d, uc, count);
  return done(scope, to_cuda_error(r));
}
}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return copy("cudaMemcpy", DefaultStream::Legacy, dst, src, count, kind);
}
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return copy("cudaMemcpy_ptds", DefaultStream::PerThread, dst, src, count, kind);
}

// Contract: cuda_runtime.h; through cuMemsetD8_v2 (the _ptds twin: cuMemsetD8_v2_ptds).
cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  return set("cudaMemset", DefaultStream::Legacy, devPtr, value, count);
}
cudaError_t cudaMemset_ptds(void* devPtr, int value, size_t count) {
  return set("cudaMemset_ptds", DefaultStream::PerThread, devPtr, value, count);
}

// Contract: cuda_runtime.h. The measured chain: cuCtxGetCurrent, then cuCtxSynchronize_v2.
cudaError_t cudaDeviceSynchronize(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSynchronize()");
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (auto e = graph::capture_device_sync()) return done(scope, *e);  // capture hook
  CUcontext ctx = nullptr;
  cuCtxGetCurrent(&ctx);
  return done(scope, to_cuda_error(cuCtxSynchronize_v2(ctx)));
}
