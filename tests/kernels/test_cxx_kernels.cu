// The C++ that real kernels are written in, through cu2cxx and the runtime: template kernels
// launched with explicit and with deduced template arguments, overloaded kernels, __device__
// lambdas called in kernels and passed to template kernels, and functors.
#include <cuda_runtime.h>

#include <vector>

#include "cxx_kernels.cuh"
#include "kernel_test.h"

namespace {

template <class T>
__device__ T twice(T v) { return v + v; }

struct AddConstant {
  int c;
  __device__ int operator()(int x) const { return x + c; }
};

}  // namespace

template <class T, int Scale>
__global__ void scale(T* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * static_cast<T>(Scale);
}

template <class T>
__global__ void add_to(T* data, T value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = twice(data[i]) + value;
}

// Two kernels of one name: the launch's argument types choose, as a call would.
__global__ void fill(int* data, int value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value + 1000;
}
__global__ void fill(float* data, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value * 0.5f;
}

// A kernel that takes any callable: a __device__ lambda or a functor, by value.
template <class F>
__global__ void transform(int* data, int n, F f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = f(data[i]);
}

// A template kernel with a barrier: it runs with fibers (templates are not split into regions).
template <int Block>
__global__ void reverse_block(int* data) {
  __shared__ int tile[Block];
  tile[threadIdx.x] = data[blockIdx.x * Block + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * Block + threadIdx.x] = tile[Block - 1 - threadIdx.x];
}

template <class T = int>
__global__ void count_calls(unsigned* counter) { atomicAdd(counter, 1u); }

namespace minicuda::kernels_test {
namespace {

class KernelCxx : public FreshProcess {};

TEST_F(KernelCxx, TemplateKernelsWithExplicitAndDeducedArguments) {
  DeviceArray<float> f(std::vector<float>{1, 2, 3, 4});
  DeviceArray<int> i(std::vector<int>{1, 2, 3, 4});
  scale<float, 3><<<1, 32>>>(f.get(), 4);  // explicit
  scale<int, -2><<<1, 32>>>(i.get(), 4);
  add_to<<<1, 32>>>(f.get(), 0.5f, 4);     // deduced: T = float
  add_to<<<1, 32>>>(i.get(), 7, 4);        // deduced: T = int
  add_to<int><<<1, 32>>>(i.get(), 'a' - 'a' + 1, 4);  // explicit, the argument converts
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(f.read(), (std::vector<float>{6.5f, 12.5f, 18.5f, 24.5f}));
  // ((x * -2) * 2 + 7) * 2 + 1
  EXPECT_EQ(i.read(), (std::vector<int>{7, -1, -9, -17}));
  DeviceArray<unsigned> counter(1);
  count_calls<<<2, 16>>>(counter.get());  // deduced with a default template argument
  count_calls<long><<<1, 8>>>(counter.get());
  EXPECT_EQ(counter.read()[0], 40u);
}

TEST_F(KernelCxx, OverloadedKernelsArePickedByTheArguments) {
  DeviceArray<int> i(3);
  DeviceArray<float> f(3);
  fill<<<1, 32>>>(i.get(), 5, 3);
  fill<<<1, 32>>>(f.get(), 5.0f, 3);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(i.read(), (std::vector<int>{1005, 1005, 1005}));
  EXPECT_EQ(f.read(), (std::vector<float>{2.5f, 2.5f, 2.5f}));
}

TEST_F(KernelCxx, DeviceLambdasAndFunctorsPassedToTemplateKernels) {
  DeviceArray<int> d(std::vector<int>{1, 2, 3, 4, 5});
  const int k = 10;
  auto square_plus = [k] __device__(int x) { return x * x + k; };  // captures by value
  transform<<<1, 32>>>(d.get(), 5, square_plus);                    // deduced F
  transform<decltype(square_plus)><<<1, 32>>>(d.get(), 5, square_plus);  // explicit F
  transform<<<1, 32>>>(d.get(), 5, AddConstant{-1000});
  transform<<<1, 32>>>(d.get(), 5, [] __host__ __device__(int x) { return -x; });  // inline lambda
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<int> want = {1, 2, 3, 4, 5};
  for (int& x : want) x = -((x * x + k) * (x * x + k) + k - 1000);
  EXPECT_EQ(d.read(), want);
}

TEST_F(KernelCxx, TemplateKernelWithABarrierRunsOnFibers) {
  std::vector<int> v(128);
  for (int j = 0; j < 128; ++j) v[j] = j;
  DeviceArray<int> d(v);
  reverse_block<64><<<2, 64>>>(d.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got = d.read();
  for (int j = 0; j < 128; ++j) EXPECT_EQ(got[j], (j / 64) * 64 + 63 - j % 64) << j;
}

TEST_F(KernelCxx, KernelsDefinedInAnIncludedHeader) {
  DeviceArray<int> d(4);
  header_iota<<<1, 4>>>(d.get(), 10);
  header_negate<<<1, 4>>>(d.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(d.read(), (std::vector<int>{-10, -11, -12, -13}));
}

}  // namespace
}  // namespace minicuda::kernels_test
