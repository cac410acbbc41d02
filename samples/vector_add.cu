// vector_add: the "hello world" of CUDA, as a .cu file compiled by g++ through minicuda_cu2cxx.
// Adds two vectors of 65536 ints on the simulated GPU (256 blocks of 256 threads), checks the
// result against the host, and prints what the launch did. Run it with MINICUDA_TRACE=1 to see
// the first launch load the module (cuLibraryLoadData, cuLibraryGetKernel), then cuLaunchKernel
// write a QMD and ring the doorbell without a system call.
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 16;
  std::vector<int> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = i, b[i] = 2 * i;
  int *d_a, *d_b, *d_c;
  cudaMalloc(&d_a, n * sizeof(int));
  cudaMalloc(&d_b, n * sizeof(int));
  cudaMalloc(&d_c, n * sizeof(int));
  cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), n * sizeof(int), cudaMemcpyHostToDevice);

  vector_add<<<(n + 255) / 256, 256>>>(d_a, d_b, d_c, n);
  cudaError_t launched = cudaGetLastError();
  cudaError_t finished = cudaDeviceSynchronize();
  cudaMemcpy(c.data(), d_c, n * sizeof(int), cudaMemcpyDeviceToHost);

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != 3 * i;
  std::printf("vector_add<<<%d, 256>>>: launch %s, synchronize %s, %d of %d sums wrong\n", (n + 255) / 256,
              cudaGetErrorName(launched), cudaGetErrorName(finished), wrong, n);
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return wrong == 0 && launched == cudaSuccess && finished == cudaSuccess ? 0 : 1;
}
