// The program of the region-fission debugger test: a kernel that cu2cxx splits at its barriers
// (docs/tools/cu2cxx.md, "Region fission"). `break gdb_regions_target.cu:14` must stop in the
// block function that runs it, at that line of the .cu, under the SM's loop fiber.
#include <cuda_runtime.h>

__global__ void tree_sum(const int* in, int* out) {
  __shared__ int partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    // The next line, 14, is where the test breaks (tests/gdb/CMakeLists.txt names it): a region
    // inside the loop around the barriers, a loop that runs once per block.
    //
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

int main() {
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, 1024 * sizeof(int)) != cudaSuccess || cudaMalloc(&out, 4 * sizeof(int)) != cudaSuccess) return 1;
  cudaMemset(in, 0, 1024 * sizeof(int));
  tree_sum<<<4, 256>>>(in, out);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
