// reduction: the sum of 1 Mi ints, block by block, then one atomicAdd per block.
//
// Teaches the three levels of a parallel reduction:
//   1. each thread adds two elements while loading them into shared memory (half the blocks);
//   2. the block halves its partial sums in shared memory, a tree with a __syncthreads() between
//      the levels, until 64 values are left;
//   3. the last warp finishes in registers with __shfl_down_sync (no shared memory, no barrier:
//      the 32 lanes of a warp exchange values directly), and lane 0 adds the block's sum into
//      the result with a single atomicAdd - 1 atomic per block instead of 1 per element.
// The input has a length that is not a multiple of the block's 512 elements, so the guard in
// step 1 matters. The result is checked against a sum on the host.
//
// Run it:  build/bin/reduction
// Traced:  MINICUDA_TRACE=1 build/bin/reduction
//   look for cudaMemset clearing the result on the copy engine, then one cudaLaunchKernel of
//   2048 blocks, then the result coming back with cudaMemcpy.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int kThreads = 256;  // threads per block; a power of two, at least 64

// Adds in[0..n) into *result. Block b covers in[b*512 .. b*512+512).
__global__ void reduce_sum(const int* in, int n, int* result) {
  __shared__ int partial[kThreads];  // one per block: 1 KiB of static shared memory
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (blockDim.x * 2) + tid;

  // 1. Load and add two elements (or what is left of the input).
  int v = 0;
  if (i < static_cast<unsigned>(n)) v = in[i];
  if (i + blockDim.x < static_cast<unsigned>(n)) v += in[i + blockDim.x];
  partial[tid] = v;
  __syncthreads();

  // 2. The tree in shared memory: 256 -> 128 -> 64 values.
  for (unsigned stride = blockDim.x / 2; stride > 32; stride /= 2) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();  // the next level reads what this one wrote
  }

  // 3. The last warp: 64 -> 32 in shared memory, then 32 -> 1 by shuffles.
  if (tid < 32) {
    int sum = partial[tid] + partial[tid + 32];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);  // lane l gets lane l+offset's sum
    if (tid == 0) atomicAdd(result, sum);                 // one atomic per block
  }
}

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

int main() {
  constexpr int n = (1 << 20) - 37;  // about 1 Mi ints, not a multiple of 512
  std::vector<int> h_in(n);
  std::mt19937 rng(2025);
  std::uniform_int_distribution<int> dist(-1000, 1000);
  long long host_sum = 0;
  for (int i = 0; i < n; ++i) {
    h_in[i] = dist(rng);
    host_sum += h_in[i];
  }

  int *d_in = nullptr, *d_result = nullptr;
  check(cudaMalloc(&d_in, n * sizeof(int)), "cudaMalloc(d_in)");
  check(cudaMalloc(&d_result, sizeof(int)), "cudaMalloc(d_result)");
  check(cudaMemcpy(d_in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy(d_in)");
  check(cudaMemset(d_result, 0, sizeof(int)), "cudaMemset(d_result)");  // the atomics add into 0

  const int blocks = (n + 2 * kThreads - 1) / (2 * kThreads);
  reduce_sum<<<blocks, kThreads>>>(d_in, n, d_result);
  check(cudaGetLastError(), "reduce_sum<<<>>>");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  int gpu_sum = 0;
  check(cudaMemcpy(&gpu_sum, d_result, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(result)");
  std::printf("reduce_sum<<<%d, %d>>>: %d ints, %d atomicAdds; GPU sum %d, host sum %lld\n", blocks, kThreads, n,
              blocks, gpu_sum, host_sum);

  check(cudaFree(d_in), "cudaFree(d_in)");
  check(cudaFree(d_result), "cudaFree(d_result)");
  if (static_cast<long long>(gpu_sum) != host_sum) {
    std::printf("reduction: FAIL: the GPU's sum differs from the host's\n");
    return 1;
  }
  std::printf("reduction: PASS\n");
  return 0;
}
