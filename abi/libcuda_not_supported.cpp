// The answer of a CUDA 13 Driver API function minicuda's libcuda does not build: every name of
// abi/cuda13_driver_api.txt has a weak definition in lib/libcuda.so.1 that calls this
// (abi/not_supported.cpp.in), so that a Driver API program built by nvcc loads and links whatever
// it calls (docs/nvcc-programs.md). The runtime's twin is minicuda::cudart::not_supported
// (runtime/src/errors.cpp), which also records the error in the last-error slot.
#include "minicuda/trace.h"

namespace minicuda::libcuda {

constexpr int kCudaErrorNotSupported = 801;  // CUDA_ERROR_NOT_SUPPORTED

// Contract: CUDA_ERROR_NOT_SUPPORTED, with a trace line naming api.
int not_supported(const char* api) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(...)", api);
  trace::note(trace::Layer::Libcuda, "{}: not supported by minicuda", api);
  if (scope.active()) scope.result("CUDA_ERROR_NOT_SUPPORTED");
  return kCudaErrorNotSupported;
}

}  // namespace minicuda::libcuda
