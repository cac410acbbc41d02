// A runtime program with module variables, built by nvcc with -cudart shared
// (tests/abi/test_nvcc_programs.cpp): a __device__ variable set with cudaMemcpyToSymbol, a
// __managed__ variable written and read by host code, and a kernel that adds the first to the
// second from each of its 32 threads. Prints "key value" lines: toSymbol, managedBefore, launch,
// sync, managedAfter.
#include <cstdio>

#include <cuda_runtime.h>

__device__ int increment;
__managed__ int managed_total;

__global__ void accumulate() { atomicAdd(&managed_total, increment); }

int main() {
  const int one = 1;
  cudaError_t to_symbol = cudaMemcpyToSymbol(increment, &one, sizeof one);
  std::printf("toSymbol %d %s\n", static_cast<int>(to_symbol), cudaGetErrorName(to_symbol));
  managed_total = 5;  // host code writes the managed variable
  std::printf("managedBefore %d\n", managed_total);
  accumulate<<<1, 32>>>();
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("launch %d %s\n", static_cast<int>(launch), cudaGetErrorName(launch));
  std::printf("sync %d %s\n", static_cast<int>(sync), cudaGetErrorName(sync));
  std::printf("managedAfter %d\n", managed_total);
  return to_symbol == cudaSuccess && launch == cudaSuccess && sync == cudaSuccess ? 0 : 1;
}
