// article_vector_add: the seed article's kernel-launch example (section 二.2), made complete.
//
// Teaches the launch configuration <<<grid, block>>>: 256 blocks of 256 threads cover exactly
// 65536 elements, each thread finds its element from blockIdx.x * blockDim.x + threadIdx.x, and
// a launch only queues work - cudaDeviceSynchronize is where the host waits for it (and where an
// error met by the kernel would come back). The result is checked against the host.
//
// Run it:  build/bin/article_vector_add
// Traced:  MINICUDA_TRACE=1 build/bin/article_vector_add
//   look for cudaLaunchKernel returning at once (the QMD is written and the doorbell rung, no
//   ioctl), then cudaDeviceSynchronize (cuCtxSynchronize) waiting for the channel's fence.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// One thread per element. The guard matters whenever the grid has more threads than elements;
// here 256 x 256 == 65536 exactly, but a kernel should not rely on its caller for that.
__global__ void vector_add(const int* d_a, const int* d_b, int* d_c, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) d_c[idx] = d_a[idx] + d_b[idx];
}

// Stops the program with the failing call's name and error.
static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

int main() {
  constexpr int kBlocks = 256, kThreads = 256;
  constexpr int n = kBlocks * kThreads;  // 65536
  const size_t bytes = n * sizeof(int);

  std::vector<int> h_a(n), h_b(n), h_c(n, -1);
  for (int i = 0; i < n; ++i) {
    h_a[i] = i;
    h_b[i] = 1000 - 3 * i;
  }

  int *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  check(cudaMalloc(&d_a, bytes), "cudaMalloc(d_a)");
  check(cudaMalloc(&d_b, bytes), "cudaMalloc(d_b)");
  check(cudaMalloc(&d_c, bytes), "cudaMalloc(d_c)");
  check(cudaMemcpy(d_a, h_a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(d_a)");
  check(cudaMemcpy(d_b, h_b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(d_b)");

  // 1 grid of 256 blocks, 256 threads each: 65536 threads, one per element.
  vector_add<<<kBlocks, kThreads>>>(d_a, d_b, d_c, n);
  cudaError_t launched = cudaGetLastError();  // configuration errors show up here
  // The launch is asynchronous: the host continues at once. Wait for the GPU here.
  cudaError_t finished = cudaDeviceSynchronize();  // errors met while running show up here
  std::printf("vector_add<<<%d, %d>>>(%d elements): launch %s, cudaDeviceSynchronize %s\n", kBlocks, kThreads, n,
              cudaGetErrorName(launched), cudaGetErrorName(finished));
  check(launched, "vector_add<<<>>>");
  check(finished, "cudaDeviceSynchronize");

  check(cudaMemcpy(h_c.data(), d_c, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(h_c)");

  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    int expected = h_a[i] + h_b[i];
    if (h_c[i] != expected) {
      if (wrong < 5) std::printf("  c[%d] = %d, expected %d\n", i, h_c[i], expected);
      ++wrong;
    }
  }
  std::printf("c[0] = %d, c[1] = %d, c[%d] = %d\n", h_c[0], h_c[1], n - 1, h_c[n - 1]);

  check(cudaFree(d_a), "cudaFree(d_a)");
  check(cudaFree(d_b), "cudaFree(d_b)");
  check(cudaFree(d_c), "cudaFree(d_c)");

  if (wrong != 0) {
    std::printf("article_vector_add: FAIL: %d of %d sums differ from the host's\n", wrong, n);
    return 1;
  }
  std::printf("article_vector_add: PASS (%d sums match the host)\n", n);
  return 0;
}
