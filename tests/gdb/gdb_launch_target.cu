// The program the launch debugger tests run under CUDA_LAUNCH_BLOCKING=1: one kernel launch,
// which then runs in this program's own thread - from cudaLaunchKernel down through the poll()
// system call into nvidia.ko, the GPU's host interface, the compute engine and the SM, to the
// kernel body (docs/debugging.md).
#include <cuda_runtime.h>

__global__ void double_each(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}

int main() {
  const int n = 1024;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(d, 1, n * sizeof(int));
  double_each<<<n / 256, 256>>>(d, n);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
