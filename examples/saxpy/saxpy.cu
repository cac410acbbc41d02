// saxpy.cu: the kernels of the example and the host functions that launch them (saxpy.h).
#include "saxpy.h"

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void saxpy_kernel_unchecked(float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + y[i];
}

cudaError_t saxpy_on_device(int n, float a, const float* d_x, float* d_y, int threads_per_block) {
  if (n == 0) return cudaSuccess;
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  saxpy_kernel<<<blocks, threads_per_block>>>(n, a, d_x, d_y);
  if (cudaError_t launched = cudaGetLastError(); launched != cudaSuccess) return launched;
  return cudaDeviceSynchronize();
}

cudaError_t saxpy_on_device_unchecked(int n, float a, const float* d_x, float* d_y, int threads_per_block) {
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  saxpy_kernel_unchecked<<<blocks, threads_per_block>>>(a, d_x, d_y);
  if (cudaError_t launched = cudaGetLastError(); launched != cudaSuccess) return launched;
  return cudaDeviceSynchronize();
}

cudaError_t saxpy(int n, float a, const float* x, float* y) {
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* d_x = nullptr;
  float* d_y = nullptr;
  cudaError_t status = cudaMalloc(&d_x, bytes);
  if (status == cudaSuccess) status = cudaMalloc(&d_y, bytes);
  if (status == cudaSuccess) status = cudaMemcpy(d_x, x, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) status = cudaMemcpy(d_y, y, bytes, cudaMemcpyHostToDevice);
  if (status == cudaSuccess) status = saxpy_on_device(n, a, d_x, d_y, 256);
  if (status == cudaSuccess) status = cudaMemcpy(y, d_y, bytes, cudaMemcpyDeviceToHost);
  cudaFree(d_x);  // cudaFree(nullptr) is a no-op, so the failed paths free what they got
  cudaFree(d_y);
  return status;
}
