// Device configuration: flags, limits, cache and bank preferences, cudaChooseDevice, PCI bus ids
// and the profiler markers (one kernel's preferences: func_attributes.cpp). Each is a thin entry
// point over its libcuda call (cuDevicePrimaryCtxSetFlags_v2, cuCtxSetLimit,
// cuDeviceGetPCIBusId...); values and errors are the H200's (tests/data/h200/probe_api_families.txt).
#include <cstdlib>

#include "cuda_profiler_api.h"
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: sets the flags the current device's primary context uses (cuDevicePrimaryCtxSetFlags_v2),
// before or after it is made. More than one cudaDeviceSchedule* policy, or bits outside
// cudaDeviceMapHost | cudaDeviceLmemResizeToMax: cudaErrorInvalidValue.
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaSetDeviceFlags(flags={:#x})", flags);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDevicePrimaryCtxSetFlags_v2(current_device(), flags)));
}

// Contract: *flags = the current device's primary-context flags with cudaDeviceMapHost set
// (measured: 0x8 before any call, 0x9 after cudaSetDeviceFlags(cudaDeviceScheduleSpin)); needs no
// context. NULL: cudaErrorInvalidValue.
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGetDeviceFlags(flags={})", static_cast<void*>(flags));
  if (flags == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  unsigned int ctx_flags = 0;
  int active = 0;
  if (CUresult r = cuDevicePrimaryCtxGetState(current_device(), &ctx_flags, &active); r != CUDA_SUCCESS)
    return done(scope, to_cuda_error(r));
  *flags = ctx_flags | cudaDeviceMapHost;
  if (scope.active()) scope.result("cudaSuccess, *flags={:#x}", *flags);
  return cudaSuccess;
}

// Contract: cuCtxSetLimit on the current device's primary context (values rounded as on the
// H200: stack in 16-byte steps up to 512 KiB, printf FIFO at least 512 KiB, heap at least 4 MiB,
// persisting L2 in 3.75 MiB steps up to 45 MiB). cudaLimitDevRuntimeSyncDepth:
// cudaErrorUnsupportedLimit; out of range or unknown: cudaErrorInvalidValue.
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSetLimit(limit={}, value={})", static_cast<int>(limit), value);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxSetLimit(static_cast<CUlimit>(limit), value)));
}

// Contract: *pValue = the limit (defaults: stack 1024, printf FIFO 8650752, heap 8388608).
// NULL or unknown limit: cudaErrorInvalidValue; cudaLimitDevRuntimeSyncDepth: cudaErrorUnsupportedLimit.
cudaError_t cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetLimit(pValue={}, limit={})", static_cast<void*>(pValue),
                     static_cast<int>(limit));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxGetLimit(pValue, static_cast<CUlimit>(limit))));
}

// Contract: cuCtxSetCacheConfig. Not a cudaFuncCache value: cudaErrorInvalidValue.
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSetCacheConfig(cacheConfig={})", static_cast<int>(cacheConfig));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxSetCacheConfig(static_cast<CUfunc_cache>(cacheConfig))));
}

// Contract: *pCacheConfig = the preference set last (cudaFuncCachePreferNone at first).
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetCacheConfig(pCacheConfig={})", static_cast<void*>(pCacheConfig));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxGetCacheConfig(reinterpret_cast<CUfunc_cache*>(pCacheConfig))));
}

// Contract: cuCtxSetSharedMemConfig: accepted, no effect (Hopper's banks are four bytes wide).
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceSetSharedMemConfig(config={})", static_cast<int>(config));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(config))));
}

// Contract: *pConfig = cudaSharedMemBankSizeFourByte. NULL: cudaErrorInvalidValue.
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig* pConfig) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetSharedMemConfig(pConfig={})", static_cast<void*>(pConfig));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuCtxGetSharedMemConfig(reinterpret_cast<CUsharedconfig*>(pConfig))));
}

// Contract: *device = the device whose compute capability is nearest prop's major.minor (the
// first on a tie; every field zero matches any device). NULL arguments: cudaErrorInvalidValue.
cudaError_t cudaChooseDevice(int* device, const struct cudaDeviceProp* prop) {
  trace::Scope scope(trace::Layer::Cudart, "cudaChooseDevice(device={}, prop={})", static_cast<void*>(device),
                     static_cast<const void*>(prop));
  if (device == nullptr || prop == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  int best = 0, best_distance = -1;
  for (int d = 0; d < device_count(); ++d) {
    const cudaDeviceProp* p = device_properties(d);
    int distance = std::abs((p->major * 10 + p->minor) - (prop->major * 10 + prop->minor));
    if (prop->major == 0 && prop->minor == 0) distance = 0;
    if (best_distance < 0 || distance < best_distance) {
      best = d;
      best_distance = distance;
    }
  }
  *device = best;
  if (scope.active()) scope.result("cudaSuccess, *device={}", best);
  return cudaSuccess;
}

// Contract: cuDeviceGetPCIBusId: "0000:00:06.0". len below 13 (what fits is written), NULL:
// cudaErrorInvalidValue; bad ordinal: cudaErrorInvalidDevice.
cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetPCIBusId(pciBusId={}, len={}, device={})",
                     static_cast<void*>(pciBusId), len, device);
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDeviceGetPCIBusId(pciBusId, len, device)));
}

// Contract: cuDeviceGetByPCIBusId: "[domain:]bus:device.function", any case. Not of that form,
// NULL: cudaErrorInvalidValue; no such device: cudaErrorInvalidDevice.
cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  trace::Scope scope(trace::Layer::Cudart, "cudaDeviceGetByPCIBusId(device={}, pciBusId={})", static_cast<void*>(device),
                     static_cast<const void*>(pciBusId));
  if (cudaError_t e = ensure_initialized(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuDeviceGetByPCIBusId(device, pciBusId)));
}

// Contract: the profiler's start marker (cuProfilerStart), in the trace; cudaSuccess, also twice.
cudaError_t cudaProfilerStart(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaProfilerStart()");
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuProfilerStart()));
}

// Contract: the profiler's stop marker (cuProfilerStop).
cudaError_t cudaProfilerStop(void) {
  trace::Scope scope(trace::Layer::Cudart, "cudaProfilerStop()");
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuProfilerStop()));
}
