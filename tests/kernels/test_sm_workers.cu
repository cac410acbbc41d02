// The kernels of bench/bench_sm_scaling.cpp give the same bits whatever the number of host
// threads that run the SMs (MINICUDA_SM_THREADS, compute_engine.cpp): vector_add over 2^24 ints
// and the split tiled multiply of bench_kernels_regions.cu, each compared bit for bit with a
// serial host loop that sums in the same order. test_kernels runs these with 1, 2, 4 and 16
// workers (tests/kernels/CMakeLists.txt), and with fission off (the multiply on fibers).
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "kernel_test.h"

__global__ void workers_vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// bench_kernels_regions.cu (linked into test_kernels).
__global__ void matmul_tiled_regions(const float* a, const float* b, float* c, int n);

namespace minicuda::kernels_test {
namespace {

using SmWorkers = FreshProcess;

TEST_F(SmWorkers, VectorAddOf2To24IntsMatchesTheHostBitForBit) {
  constexpr int n = 1 << 24;
  std::vector<int> a(n), b(n), want(n);
  for (int i = 0; i < n; ++i) a[i] = i * 7 - 3, b[i] = (i % 1000) * 3, want[i] = a[i] + b[i];
  DeviceArray<int> da(a), db(b), dc(n, 0xff);
  workers_vector_add<<<n / 256, 256>>>(da.get(), db.get(), dc.get(), n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<int> got = dc.read();
  EXPECT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(int)), 0);
}

TEST_F(SmWorkers, TiledMatmulMatchesTheHostBitForBit) {
  constexpr int n = 256, tile = 16;
  std::vector<float> a(n * n), b(n * n), want(n * n);
  for (int i = 0; i < n * n; ++i)
    a[i] = static_cast<float>(i % 17) * 0.37f - 2.1f, b[i] = static_cast<float>(i % 13) * 0.61f - 3.3f;
  for (int row = 0; row < n; ++row)
    for (int col = 0; col < n; ++col) {
      float sum = 0.0f;  // in k order, as each thread sums its products
      for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
      want[row * n + col] = sum;
    }
  DeviceArray<float> da(a), db(b), dc(n * n, 0xff);
  matmul_tiled_regions<<<dim3(n / tile, n / tile), dim3(tile, tile)>>>(da.get(), db.get(), dc.get(), n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> got = dc.read();
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
}

}  // namespace
}  // namespace minicuda::kernels_test
