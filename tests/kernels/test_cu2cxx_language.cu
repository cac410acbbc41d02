// The C++ of CUDA programs that cu2cxx accepts beyond plain kernels (docs/tools/cu2cxx.md):
// kernels, launches and dynamic shared arrays in the project's own headers; kernels with default
// arguments launched with fewer arguments; launches through a variable holding a kernel;
// file-scope `#if __CUDA_ARCH__` groups of device code; template instantiations known to the
// function APIs before their first launch. Every result is checked exactly.
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "cu2cxx_header_kernels.cuh"
#include "kernel_test.h"

// --- default arguments ---------------------------------------------------------------------------

// out[i] = i * step + offset (+ extra[i] when given).
__global__ void ramp_with_defaults(int* out, int step, int offset = 1000, const int* extra = nullptr) {
  const int i = static_cast<int>(threadIdx.x);
  out[i] = i * step + offset + (extra != nullptr ? extra[i] : 0);
}

// --- launches through a function-pointer variable ------------------------------------------------

__global__ void pointer_square(int* data, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) data[i] = data[i] * data[i];
}
__global__ void pointer_negate(int* data, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i < n) data[i] = -data[i];
}
// Not a kernel: a launch through a pointer to it must fail.
void pointer_host_only(int*, int) {}

// --- __CUDA_ARCH__ at file scope ------------------------------------------------------------------

// Device code only: compiled as nvcc's device pass sees it, with __CUDA_ARCH__ = 900.
#if __CUDA_ARCH__ >= 700
__device__ int arch_gated(int x) { return x * 3 + __CUDA_ARCH__; }
#else
__device__ int arch_gated(int x) { return -x; }
#endif

// Host code in the group: the host pass's view (no __CUDA_ARCH__).
#ifdef __CUDA_ARCH__
static int host_view_of_arch() { return __CUDA_ARCH__; }
#else
static int host_view_of_arch() { return -1; }
#endif

__global__ void use_arch_gated(int* out) { out[threadIdx.x] = arch_gated(static_cast<int>(threadIdx.x)); }

// --- template instantiations registered at start-up ----------------------------------------------

template <int N>
__global__ void times_n(int* out) {
  out[threadIdx.x] = N * static_cast<int>(threadIdx.x);
}
// The program's use of times_n<3>: a launch (never run before the test's own API calls).
void launch_times_3(int* out) { times_n<3><<<1, 32>>>(out); }

namespace minicuda::kernels_test {
namespace {

class Cu2cxxLanguage : public FreshProcess {};

TEST_F(Cu2cxxLanguage, HeaderTemplateKernelWithDynamicSharedArrays) {
  constexpr unsigned kBlock = 64, kBlocks = 3, kN = kBlock * kBlocks;
  std::vector<int> ints(kN);
  std::vector<float> floats(kN);
  for (unsigned i = 0; i < kN; ++i) {
    ints[i] = static_cast<int>(i * 7 + 1);
    floats[i] = static_cast<float>(i) * 0.375f - 11.0f;
  }
  DeviceArray<int> int_in(ints), int_out(kN);
  DeviceArray<float> float_in(floats), float_out(kN);
  header_reverse<int><<<kBlocks, kBlock, kBlock * sizeof(int)>>>(int_in.get(), int_out.get());
  header_reverse<float><<<kBlocks, kBlock, kBlock * sizeof(float)>>>(float_in.get(), float_out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got_ints = int_out.read();
  const std::vector<float> got_floats = float_out.read();
  for (unsigned b = 0; b < kBlocks; ++b) {
    for (unsigned t = 0; t < kBlock; ++t) {
      const unsigned from = b * kBlock + (kBlock - 1 - t);
      EXPECT_EQ(got_ints[b * kBlock + t], ints[from]) << b << " " << t;
      EXPECT_EQ(bits_of(got_floats[b * kBlock + t]), bits_of(floats[from])) << b << " " << t;
    }
  }
}

TEST_F(Cu2cxxLanguage, HeaderKernelLaunchedFromTheHeaderIsRegistered) {
  // Registered at start-up with this file's module: known before its first launch.
  cudaFuncAttributes attributes{};
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, header_affine), cudaSuccess);
  EXPECT_EQ(attributes.maxThreadsPerBlock, 1024);
  std::vector<int> host(48);
  for (int i = 0; i < 48; ++i) host[i] = i - 20;
  DeviceArray<int> data(host);
  ASSERT_EQ(launch_header_affine(data.get(), 48, -3, 5), cudaSuccess);
  const std::vector<int> got = data.read();
  for (int i = 0; i < 48; ++i) EXPECT_EQ(got[i], (i - 20) * -3 + 5) << i;
}

TEST_F(Cu2cxxLanguage, DefaultArgumentsFillAShorterLaunch) {
  DeviceArray<int> two(32), three(32), four(32);
  std::vector<int> extra(32);
  for (int i = 0; i < 32; ++i) extra[i] = 100 * i;
  DeviceArray<int> extra_d(extra);
  ramp_with_defaults<<<1, 32>>>(two.get(), 5);
  ramp_with_defaults<<<1, 32>>>(three.get(), 2, -7);
  ramp_with_defaults<<<1, 32>>>(four.get(), 1, 0, extra_d.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got2 = two.read(), got3 = three.read(), got4 = four.read();
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(got2[i], i * 5 + 1000) << i;
    EXPECT_EQ(got3[i], i * 2 - 7) << i;
    EXPECT_EQ(got4[i], i + 100 * i) << i;
  }
}

TEST_F(Cu2cxxLanguage, LaunchThroughAFunctionPointerVariable) {
  std::vector<int> host(40);
  for (int i = 0; i < 40; ++i) host[i] = i - 9;
  DeviceArray<int> data(host);
  void (*kernel)(int*, int) = &pointer_square;
  kernel<<<1, 64>>>(data.get(), 40);
  kernel = pointer_negate;
  kernel<<<1, 64>>>(data.get(), 40);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got = data.read();
  for (int i = 0; i < 40; ++i) EXPECT_EQ(got[i], -(i - 9) * (i - 9)) << i;

  // A pointer to a host function is no registered kernel: the launch fails as cudaLaunchKernel
  // does for a function it does not know, and nothing runs.
  kernel = pointer_host_only;
  kernel<<<1, 1>>>(data.get(), 40);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(data.read(), got);
}

TEST_F(Cu2cxxLanguage, FileScopeArchGroupsOfDeviceCodeTakeTheDeviceBranch) {
  DeviceArray<int> out(32);
  use_arch_gated<<<1, 32>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got = out.read();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(got[i], i * 3 + 900) << i;
  EXPECT_EQ(host_view_of_arch(), -1);
}

TEST_F(Cu2cxxLanguage, LaunchedTemplateInstantiationIsKnownBeforeItsFirstLaunch) {
  EXPECT_EQ(cudaFuncSetCacheConfig(times_n<3>, cudaFuncCachePreferL1), cudaSuccess);
  cudaFuncAttributes attributes{};
  ASSERT_EQ(cudaFuncGetAttributes(&attributes, times_n<3>), cudaSuccess);
  EXPECT_EQ(attributes.maxThreadsPerBlock, 1024);
  DeviceArray<int> out(32);
  int* out_ptr = out.get();
  void* args[] = {&out_ptr};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(times_n<3>), dim3(1), dim3(32), args, 0, nullptr),
            cudaSuccess);
  std::vector<int> got = out.read();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(got[i], 3 * i) << i;
  DeviceArray<int> again(32);
  launch_times_3(again.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  got = again.read();
  for (int i = 0; i < 32; ++i) EXPECT_EQ(got[i], 3 * i) << i;
}

}  // namespace
}  // namespace minicuda::kernels_test
