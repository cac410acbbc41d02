// What __CUDACC__ and __CUDA_ARCH__ mean in a .cu that minicuda builds (docs/kernels.md,
// "__CUDACC__ and __CUDA_ARCH__"): one pass serves host and device, so __CUDACC__ (and nvcc's
// version macros) hold everywhere, and __CUDA_ARCH__ is 900 inside __global__ and __device__
// functions only. __host__ __device__ functions and file scope take the host path.
#include <cuda_runtime.h>

#include <vector>

#include "kernel_test.h"

#ifndef __CUDACC__
#error "a .cu built by minicuda must see __CUDACC__"
#endif
#if __CUDACC_VER_MAJOR__ != 13
#error "__CUDACC_VER_MAJOR__ must be 13"
#endif
#ifdef __CUDA_ARCH__
#error "__CUDA_ARCH__ must not be defined at file scope"
#endif

__device__ int arch_of_device_function() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__;
#else
  return -1;
#endif
}

__host__ __device__ int arch_of_host_device_function() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__;
#else
  return -2;
#endif
}

int arch_of_host_function() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__;
#else
  return -3;
#endif
}

__global__ void report_arch(int* out) {
  out[0] = arch_of_device_function();
  out[1] = arch_of_host_device_function();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  out[2] = __CUDA_ARCH__;
#else
  out[2] = -4;
#endif
}

namespace minicuda::kernels_test {
namespace {

class CudaArch : public FreshProcess {};

TEST_F(CudaArch, DefinedInDeviceFunctionsOnly) {
  DeviceArray<int> out(3);
  report_arch<<<1, 1>>>(out.get());
  EXPECT_EQ(out.read(), (std::vector<int>{900, -2, 900}));
  EXPECT_EQ(arch_of_host_function(), -3);
  EXPECT_EQ(arch_of_host_device_function(), -2);
}

}  // namespace
}  // namespace minicuda::kernels_test
