// Registered host memory: cudaHostRegister / cudaHostUnregister pin the program's own pages and
// map them for the GPU (cuMemHostRegister_v2 / cuMemHostUnregister: an OS-descriptor RM_ALLOC_MEMORY
// on /dev/nvidia0 and a UVM mapping); cudaHostGetDevicePointer and cudaHostGetFlags answer for
// any pinned memory. Errors are the H200's (tests/data/h200/probe_api_families.txt).
#include "cudart.h"

using namespace minicuda;
using namespace minicuda::cudart;

// Contract: pins [ptr, ptr+size) (whole pages, any alignment) and maps it for the GPU at the same
// address; flags: a mask of cudaHostRegister{Portable,Mapped,ReadOnly} (cudaHostRegisterIoMemory
// and unknown bits: cudaErrorInvalidValue). Already (partly) registered:
// cudaErrorHostMemoryAlreadyRegistered; NULL, size 0, device or cudaHostAlloc memory, or pages the
// simulated process does not own: cudaErrorInvalidValue.
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaHostRegister(ptr={}, size={}, flags={:#x})", ptr, size, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemHostRegister_v2(ptr, size, flags)));
}

// Contract: unpins a registration made at ptr. Not registered: cudaErrorHostMemoryNotRegistered;
// NULL, device memory, memory of cudaHostAlloc, or inside a registration but not at its start:
// cudaErrorInvalidValue.
cudaError_t cudaHostUnregister(void* ptr) {
  trace::Scope scope(trace::Layer::Cudart, "cudaHostUnregister(ptr={})", ptr);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemHostUnregister(ptr)));
}

// Contract: *pDevice = the device address of pinned memory pHost: pHost itself (UVA). flags other
// than 0, NULL pDevice, memory that is not pinned: cudaErrorInvalidValue (*pDevice = NULL then).
cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaHostGetDevicePointer(pDevice={}, pHost={}, flags={})",
                     static_cast<void*>(pDevice), pHost, flags);
  if (pDevice == nullptr) return done(scope, cudaErrorInvalidValue);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  CUdeviceptr p = 0;
  CUresult r = cuMemHostGetDevicePointer_v2(&p, pHost, flags);
  *pDevice = reinterpret_cast<void*>(p);
  return done(scope, to_cuda_error(r));
}

// Contract: *pFlags = cudaHostAllocMapped, plus Portable / WriteCombined as allocated or
// registered (cuMemHostGetFlags). Not pinned, NULL: cudaErrorInvalidValue.
cudaError_t cudaHostGetFlags(unsigned int* pFlags, void* pHost) {
  trace::Scope scope(trace::Layer::Cudart, "cudaHostGetFlags(pFlags={}, pHost={})", static_cast<void*>(pFlags), pHost);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return done(scope, to_cuda_error(cuMemHostGetFlags(pFlags, pHost)));
}
