// The parameter layout of a kernel (cuKernelGetParamInfo, cuFuncGetParamInfo): what libcudart's
// graph nodes use to copy a launch's argument values when a node is made (docs/graphs.md). Read
// from the kernel's image, the layout the launch writes into the constant bank (launch.cpp).
#include "libcuda.h"
#include "minicuda/trace.h"

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {
// CUDA_ERROR_INVALID_VALUE for a NULL output or an index past the last parameter (the CUDA 13
// header documents INVALID_VALUE for both; not recorded on the device), CUDA_ERROR_INVALID_HANDLE
// for a handle that is no live kernel.
CUresult param_info(const char* api, const void* handle, size_t index, size_t* offset, size_t* size) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(kernel={}, paramIndex={})", api, handle, index);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (offset == nullptr && size == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUfunc_st* f = find_function(handle);
  if (f == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (index >= f->image->param_count) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (offset != nullptr) *offset = f->image->param_offsets[index];
  if (size != nullptr) *size = f->image->param_sizes[index];
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return param_info("cuKernelGetParamInfo", kernel, paramIndex, paramOffset, paramSize);
}
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset, size_t* paramSize) {
  return param_info("cuFuncGetParamInfo", func, paramIndex, paramOffset, paramSize);
}
