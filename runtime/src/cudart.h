// Private to libcudart (runtime/src): the runtime's state and helpers.
//
//   errors.cpp   cudaGetErrorName/String, the last-error slot, to_cuda_error() (the one CUresult ->
//                cudaError_t mapping)
//   init.cpp     lazy initialisation, devices, cudaSetDevice/GetDevice/DeviceReset, versions
//   device.cpp   cudaGetDeviceProperties, cudaDeviceGetAttribute
//   memory.cpp   cudaMalloc/Free, pinned host memory, cudaMemGetInfo, cudaPointerGetAttributes
//
// Every cuda* entry point looks alike: open a trace scope, validate, make sure of the context
// (ensure_context), call its driver function by name, translate the result with
// to_cuda_error(), and end with done(), which stores errors in the calling thread's last-error
// slot:
//   if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
//   return done(scope, to_cuda_error(cuMemFree_v2(reinterpret_cast<CUdeviceptr>(devPtr))));
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
// The end of every entry point: records e in the last-error slot when it is an error, sets the
// scope's result and returns e (libcuda's done() does the same for a CUresult).
cudaError_t done(trace::Scope& scope, cudaError_t e);
// done() for the calls whose success also clears the last-error slot: CUDA 13 does that for
// cudaFuncSetAttribute (tests/data/h200/probe_bad_input.txt, rt.lastError.*), not for
// cudaMalloc or a launch.
cudaError_t done_clearing_on_success(trace::Scope& scope, cudaError_t e);
// Sets this thread's last-error slot to e; what it held (calls made on the program's behalf,
// whose errors are not the program's, put the slot back).
cudaError_t exchange_last_error(cudaError_t e);
// The name of a cudaMemcpyKind for the trace ("invalid" for a value outside the enum).
const char* memcpy_kind_name(int kind);
// CUDA arrays (array.cpp): bytes of one element; the driver's format and channel count of a
// channel description (false: none), and back.
size_t array_element_bytes(const CUDA_ARRAY3D_DESCRIPTOR& d);
bool array_format(const cudaChannelFormatDesc& c, CUarray_format* format, unsigned* channels);
cudaChannelFormatDesc channel_desc(CUarray_format format, unsigned channels);

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

// The lazy initialisation, then the loaded kernel of a host function registered with
// __cudaRegisterFunction (launch.cpp): cudaErrorInvalidDeviceFunction for NULL,
// cudaErrorInvalidResourceHandle for a function no kernel was registered for (measured).
cudaError_t context_and_kernel(const void* func, CUkernel* kernel);
// The device address and size of the variable whose host shadow is symbol (registered with
// __cudaRegisterVar; launch.cpp), its module loaded and its globals placed in the current context
// at first use. cudaErrorInvalidSymbol for anything else. The caller has made the context.
cudaError_t symbol_of(const void* symbol, CUdeviceptr* dptr, size_t* size);

// True when wrapper (what __cudaRegisterFatBinary received) holds minicuda's own fatbinary, a
// ModuleImage of host code built by crt/host_runtime.h; false for a fatbinary nvcc built (PTX and
// ELF entries), which libcuda's cuLibraryLoadData reads as it is.
bool is_minicuda_fatbin(const void* wrapper);
// Traces the entries of a fatbinary nvcc built, at its registration (nvcc_abi.cpp).
void trace_nvcc_fatbin(const void* wrapper);
// Whether func was registered with __cudaRegisterFunction, without loading anything: cudaSuccess,
// cudaErrorInvalidDeviceFunction for NULL or an unregistered fatbinary's kernel,
// cudaErrorInvalidResourceHandle for an unknown host function (launch.cpp).
cudaError_t registered_kernel(const void* func);
// The library of the fatbinary registered as handle in this process, loaded at first use
// (cuLibraryLoadData); cudaErrorInvalidResourceHandle for an unknown or unregistered handle. The
// caller has made the context (launch.cpp).
cudaError_t library_of_module(void** handle, CUlibrary* library);

// Which stream a stream-ordered call uses for stream 0 (and, for cudaMemcpy and cudaMemset, as
// its implicit stream): the legacy default stream, or the calling thread's per-thread default
// stream. The plain entry points use Legacy; their _ptds/_ptsz twins (cuda_runtime_api.h), which
// a program built with --default-stream per-thread or CUDA_API_PER_THREAD_DEFAULT_STREAM calls,
// use PerThread. Each pair shares one body that takes the mode and calls the driver's matching
// entry point by name - cuMemcpyHtoD_v2 or cuMemcpyHtoD_v2_ptds - as the real libcudart does; the
// driver decides what its stream 0 means (libcuda's DefaultStream, the same two values).
enum class DefaultStream { Legacy, PerThread };

// cudaLaunchKernel and its twins (api: the name the trace shows; mode: which driver entry point,
// cuLaunchKernel or cuLaunchKernel_ptsz, and so what stream 0 is): lazy loading of func's module,
// then the launch; errors go to the last-error slot (launch.cpp).
cudaError_t launch_kernel(const char* api, DefaultStream mode, const void* func, dim3 gridDim, dim3 blockDim,
                          void** args, size_t sharedMem, cudaStream_t stream);

}  // namespace minicuda::cudart
