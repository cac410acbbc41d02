// Launch-configuration checks through <<<>>> (the device stub, then cudaLaunchKernel and
// cuLaunchKernel's check_config), with the codes the H200 gave (probe.txt launch.*): a refused
// launch is cudaErrorInvalidValue in the last-error slot, which cudaGetLastError then clears.
#include <cuda_runtime.h>

#include "kernel_test.h"

__global__ void validation_noop() {}

__global__ void validation_mark(int* out) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, 1);
}

// Parameters of every kind, copied by value into the parameter buffer at the offsets of the CUDA
// parameter ABI (each aligned to its own alignment) and read back by the kernel.
struct Mixed {
  char c;
  double d;
  short s;
  int i;
};
struct Big {
  int values[1000];
};
struct Huge {  // with the pointer after it: 32008 bytes, near the 32764-byte limit of CUDA 12.1+
  int values[8000];
};

__global__ void validation_params(char c, short s, double d, Mixed m, const int* p, dim3 dims, float f, Big big,
                                  unsigned char tail, long long* out) {
  out[0] = c, out[1] = s, out[2] = static_cast<long long>(d * 4), out[3] = m.c, out[4] = static_cast<long long>(m.d * 4);
  out[5] = m.s, out[6] = m.i, out[7] = *p, out[8] = dims.x * 10000 + dims.y * 100 + dims.z;
  out[9] = static_cast<long long>(f * 8);
  long long sum = 0;
  for (int v : big.values) sum += v;
  out[10] = sum, out[11] = tail;
}

__global__ void validation_huge(Huge h, long long* out) {
  long long sum = 0;
  for (int v : h.values) sum += v;
  *out = sum;
}

namespace minicuda::kernels_test {
namespace {

class KernelLaunchValidation : public FreshProcess {};

TEST_F(KernelLaunchValidation, TooManyThreadsPeekThenGet) {
  validation_noop<<<1, 2048>>>();
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);  // launch.block_2048.peek
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);     // launch.block_2048.getlast
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);               // launch.block_2048.getlast2
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);          // not a device error: nothing sticky
}

TEST_F(KernelLaunchValidation, BadConfigurationsAreInvalidValue) {
  validation_noop<<<0, 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // launch.grid_0
  validation_noop<<<dim3(1, 65536), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // launch.gridY_65536
  validation_noop<<<dim3(1, 1, 65536), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_noop<<<1, dim3(1, 1, 65)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // launch.blockZ_65
  validation_noop<<<1, 1, 1 << 20>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // launch.shmem_1M
  validation_noop<<<1, 1025>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_noop<<<1, dim3(1024, 2)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_noop<<<1, dim3(0, 1)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_noop<<<dim3(1, 0), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  // The limits themselves are fine.
  validation_noop<<<dim3(1, 65535), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_noop<<<1, dim3(1, 1, 64)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_noop<<<1, dim3(1024)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_noop<<<1, dim3(16, 64)>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_noop<<<1, 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // launch.ok
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // launch.sync
}

TEST_F(KernelLaunchValidation, DynamicSharedLimitUntilOptIn) {
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0, sizeof(int)), cudaSuccess);
  validation_mark<<<1, 32, 48 << 10>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_mark<<<1, 32, (48 << 10) + 1>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(validation_mark, cudaFuncAttributeMaxDynamicSharedMemorySize, (48 << 10) + 1),
            cudaSuccess);
  validation_mark<<<1, 32, (48 << 10) + 1>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  validation_mark<<<1, 32, (48 << 10) + 2>>>(out);  // the new limit is exact
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  // The opt-in limit is sharedMemPerBlockOptin (232448); one byte more is refused.
  EXPECT_EQ(cudaFuncSetAttribute(validation_mark, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(validation_mark, cudaFuncAttributeMaxDynamicSharedMemorySize, 232449),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_mark<<<1, 32, 232448>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int h = 0;
  ASSERT_EQ(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 3);  // the three launches that were accepted
  // The attribute is the kernel's own: another kernel still has the default limit.
  validation_noop<<<1, 1, (48 << 10) + 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  cudaFree(out);
}

TEST_F(KernelLaunchValidation, LargestGridXIsAcceptedOneMoreIsNot) {
  validation_noop<<<dim3(0x80000000u), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  validation_noop<<<dim3(1, 1, 65536), 1>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  // (2^31 - 1 itself is launched in test_printf_errors.cu, ErrorStopsTheLargestGrid.)
}

TEST_F(KernelLaunchValidation, ParametersOfEveryKind) {
  DeviceArray<long long> out(12);
  DeviceArray<int> value(std::vector<int>{4242});
  Big big{};
  long long big_sum = 0;
  for (int i = 0; i < 1000; ++i) big.values[i] = i * 3 - 7, big_sum += big.values[i];
  validation_params<<<1, 1>>>('q', -1234, 2.75, Mixed{'m', -0.5, 321, -99999}, value.get(), dim3(7, 8, 9), 0.375f,
                              big, 250, out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<long long> want = {'q', -1234, 11, 'm', -2, 321, -99999, 4242, 70809, 3, big_sum, 250};
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelLaunchValidation, ParameterBufferNearTheLimit) {
  static Huge huge;  // 32 KB: not on the test's stack
  long long want = 0;
  for (int i = 0; i < 8000; ++i) huge.values[i] = i % 97, want += i % 97;
  DeviceArray<long long> out(1);
  validation_huge<<<2, 2>>>(huge, out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read()[0], want);
}

// CUDA's vector_types.h declares the 8- and 16-byte vector types __align__(8) / __align__(16),
// which fixes struct layouts and the offsets of kernel parameters (a float4 after a char is at
// offset 16 of the parameter buffer).
TEST_F(KernelLaunchValidation, VectorTypesHaveCudasAlignment) {
  EXPECT_EQ(alignof(int2), 8u);
  EXPECT_EQ(alignof(uint2), 8u);
  EXPECT_EQ(alignof(float2), 8u);
  EXPECT_EQ(alignof(int4), 16u);
  EXPECT_EQ(alignof(uint4), 16u);
  EXPECT_EQ(alignof(float4), 16u);
  EXPECT_EQ(alignof(double2), 16u);
  EXPECT_EQ((minicuda::crt::ParamLayout<char, float4>::offsets[1]), 16u);
}

TEST_F(KernelLaunchValidation, RefusedLaunchLeavesNoStickyError) {
  validation_noop<<<0, 0>>>();
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0, sizeof(int)), cudaSuccess);
  validation_mark<<<2, 64, 64 * sizeof(int)>>>(out);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int h = 0;
  ASSERT_EQ(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 2);
  cudaFree(out);
}

}  // namespace
}  // namespace minicuda::kernels_test
