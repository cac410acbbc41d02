// A runtime program with a kernel, built by nvcc with -cudart shared
// (tests/abi/test_nvcc_programs.cpp): c = a + b over n floats, launched with <<<>>>. Prints
// "launch <error>", "sync <error>" and, when both succeeded, "mismatches <count>" and "c[7] <value>".
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch %d %s\n", static_cast<int>(launch), cudaGetErrorName(launch));
  std::printf("sync %d %s\n", static_cast<int>(sync), cudaGetErrorName(sync));
  if (launch == cudaSuccess && sync == cudaSuccess) {
    cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
    int mismatches = 0;
    for (int i = 0; i < n; ++i) mismatches += c[i] != a[i] + b[i];
    std::printf("mismatches %d\nc[7] %g\n", mismatches, c[7]);
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return launch == cudaSuccess && sync == cudaSuccess ? 0 : 1;
}
