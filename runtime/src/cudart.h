// Private to libcudart (runtime/src): the runtime's state and helpers.
//
//   errors.cpp   cudaGetErrorName/String, the last-error slot, to_cuda_error() (the one CUresult ->
//                cudaError_t mapping)
//   init.cpp     lazy initialisation, devices, cudaSetDevice/GetDevice/DeviceReset, versions
//   device.cpp   cudaGetDeviceProperties, cudaDeviceGetAttribute
//   memory.cpp   cudaMalloc/Free, pinned host memory, cudaMemGetInfo, cudaPointerGetAttributes
//
// Every cuda* entry point looks alike: open a trace scope, validate, make the driver call(s),
// translate the result with to_cuda_error(), and pass it through finish(), which stores errors
// in the calling thread's last-error slot.
#pragma once

#include <string>
#include <vector>

#include "cuda.h"
#include "cuda_runtime.h"
#include "minicuda/trace.h"

namespace minicuda::cudart {

// "cudaErrorInvalidValue"
const char* error_name(cudaError_t e);
// The one place a CUresult becomes a cudaError_t.
cudaError_t to_cuda_error(CUresult r);
// Records e in the last-error slot when it is an error and returns it; sets the scope's result.
cudaError_t finish(trace::Scope& scope, cudaError_t e);
// finish() for the calls whose success also clears the last-error slot: CUDA 13 does that for
// cudaFuncSetAttribute (tests/data/h200/probe_bad_input.txt, rt.lastError.*), not for
// cudaMalloc or a launch.
cudaError_t finish_clearing_on_success(trace::Scope& scope, cudaError_t e);
// The name of a cudaMemcpyKind for the trace ("invalid" for a value outside the enum).
const char* memcpy_kind_name(int kind);

// cudaErrorNotSupported when called from kernel code (see init.cpp), else cudaSuccess.
cudaError_t refuse_in_kernel_code();
// Runs lazy initialisation (cuInit and the device queries) once per process.
// cudaSuccess, or cudaErrorNoDevice / cudaErrorInitializationError...
cudaError_t ensure_initialized();
// Makes sure the calling thread's device has its primary context retained and current (the
// measured order: cuCtxGetCurrent -> cuCtxSetCurrent -> cuDevicePrimaryCtxRetain).
cudaError_t ensure_context();
// The calling thread's device (cudaSetDevice; 0 by default).
int current_device();
// Makes device the calling thread's device (cudaSetDevice checked the ordinal).
void set_device(int device);
// Forgets the runtime's retain of a device's primary context (after cudaDeviceReset).
void forget_context(int device);
// The number of devices found by lazy init.
int device_count();
// The cached properties of a device (filled by lazy init); null if the ordinal is bad.
const cudaDeviceProp* device_properties(int device);

// The driver calls a stream-ordered runtime call ends in. The plain entry points use
// kLegacyDriver; their _ptds/_ptsz twins (cuda_runtime_api.h, the per-thread default stream) use
// kPerThreadDriver, the driver's _ptds/_ptsz twins, as the real libcudart calls them. So one body
// serves both: the driver decides what stream 0 means (per_thread.cpp). One list makes the struct
// and both tables (X(field, driver call, its twin's suffix)), so they cannot drift apart.
#define MINICUDA_DRIVER_CALLS(X)                                                                   \
  X(memcpy_htod, cuMemcpyHtoD_v2, _ptds)                                                           \
  X(memcpy_dtoh, cuMemcpyDtoH_v2, _ptds)                                                           \
  X(memcpy_dtod, cuMemcpyDtoD_v2, _ptds)                                                           \
  X(memcpy_any, cuMemcpy, _ptds)                                                                   \
  X(memset_d8, cuMemsetD8_v2, _ptds)                                                               \
  X(memcpy_htod_async, cuMemcpyHtoDAsync_v2, _ptsz)                                                \
  X(memcpy_dtoh_async, cuMemcpyDtoHAsync_v2, _ptsz)                                                \
  X(memcpy_dtod_async, cuMemcpyDtoDAsync_v2, _ptsz)                                                \
  X(memcpy_any_async, cuMemcpyAsync, _ptsz)                                                        \
  X(memset_d8_async, cuMemsetD8Async, _ptsz)                                                       \
  X(stream_get_priority, cuStreamGetPriority, _ptsz)                                               \
  X(stream_get_flags, cuStreamGetFlags, _ptsz)                                                     \
  X(stream_synchronize, cuStreamSynchronize, _ptsz)                                                \
  X(stream_query, cuStreamQuery, _ptsz)                                                            \
  X(stream_wait_event, cuStreamWaitEvent, _ptsz)                                                   \
  X(stream_add_callback, cuStreamAddCallback, _ptsz)                                               \
  X(launch_host_func, cuLaunchHostFunc, _ptsz)                                                     \
  X(event_record, cuEventRecord, _ptsz)                                                            \
  X(launch_kernel, cuLaunchKernel, _ptsz)

struct DriverCalls {
#define MINICUDA_DRIVER_CALL_FIELD(field, call, twin) decltype(&call) field;
  MINICUDA_DRIVER_CALLS(MINICUDA_DRIVER_CALL_FIELD)
#undef MINICUDA_DRIVER_CALL_FIELD
};
extern const DriverCalls kLegacyDriver, kPerThreadDriver;

}  // namespace minicuda::cudart
