// histogram: a 256-bin histogram of random bytes with shared-memory atomics.
//
// Teaches privatization: thousands of threads incrementing 256 global counters would all fight
// over the same few addresses, so each block first counts into its own copy of the bins in
// shared memory (atomicAdd on shared memory: only the block's threads compete), and at the end
// adds each non-zero bin into the global histogram with one atomicAdd per bin per block.
// It also shows the two ways to declare shared memory, with the same kernel body:
//   - histogram_dynamic: `extern __shared__ unsigned int bins[];`, sized by the third launch
//     argument <<<grid, block, 256 * sizeof(unsigned int)>>>;
//   - histogram_static:  `__shared__ unsigned int bins[256];`, sized at compile time.
// The threads walk the input with a grid-stride loop, so a fixed grid covers any length. Both
// histograms are checked against one counted on the host.
//
// Run it:  build/bin/histogram
// Traced:  MINICUDA_TRACE=1 build/bin/histogram
//   look for the two cudaLaunchKernel calls: the first with sharedMem=1024 (the dynamic bins),
//   the second with sharedMem=0 (the static bins are part of the kernel itself).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr int kBins = 256;

// The body both kernels share: clear the block's bins, count, merge into the global histogram.
__device__ void count_bytes(unsigned int* bins, const unsigned char* data, int n, unsigned int* histogram) {
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();  // all bins cleared before anyone counts

  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&bins[data[i]], 1u);
  __syncthreads();  // all of the block's counts are in

  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (bins[b] != 0) atomicAdd(&histogram[b], bins[b]);
}

__global__ void histogram_dynamic(const unsigned char* data, int n, unsigned int* histogram) {
  extern __shared__ unsigned int dyn_bins[];  // the launch's dynamic shared memory
  count_bytes(dyn_bins, data, n, histogram);
}

__global__ void histogram_static(const unsigned char* data, int n, unsigned int* histogram) {
  __shared__ unsigned int static_bins[kBins];  // one copy per block
  count_bytes(static_bins, data, n, histogram);
}

static void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL: %s returned %s (%s)\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
    std::exit(1);
  }
}

// Compares a GPU histogram with the host's; prints the first differences.
static int compare(const char* name, const std::vector<unsigned int>& got, const std::vector<unsigned int>& want) {
  int wrong = 0;
  unsigned long long total = 0;
  for (int b = 0; b < kBins; ++b) {
    total += got[b];
    if (got[b] != want[b]) {
      if (wrong < 5) std::printf("  %s: bin %d = %u, expected %u\n", name, b, got[b], want[b]);
      ++wrong;
    }
  }
  std::printf("%s: %llu bytes counted, bin[0] = %u, bin[255] = %u, %d bins differ from the host\n", name, total,
              got[0], got[kBins - 1], wrong);
  return wrong;
}

int main() {
  constexpr int n = 1 << 20;  // 1 MiB of random bytes
  std::vector<unsigned char> h_data(n);
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> dist(0, 255);
  for (auto& byte : h_data) byte = static_cast<unsigned char>(dist(rng));
  std::vector<unsigned int> want(kBins, 0);
  for (unsigned char byte : h_data) ++want[byte];

  unsigned char* d_data = nullptr;
  unsigned int* d_hist = nullptr;
  check(cudaMalloc(&d_data, n), "cudaMalloc(d_data)");
  check(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)), "cudaMalloc(d_hist)");
  check(cudaMemcpy(d_data, h_data.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy(d_data)");

  const int blocks = 64, threads = 256;  // 16384 threads, 64 bytes each
  std::vector<unsigned int> got(kBins);
  int wrong = 0;

  // 1. Dynamic shared memory: the size is the launch's third argument.
  check(cudaMemset(d_hist, 0, kBins * sizeof(unsigned int)), "cudaMemset(d_hist)");
  histogram_dynamic<<<blocks, threads, kBins * sizeof(unsigned int)>>>(d_data, n, d_hist);
  check(cudaGetLastError(), "histogram_dynamic<<<>>>");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaMemcpy(got.data(), d_hist, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost), "cudaMemcpy(hist)");
  wrong += compare("histogram_dynamic", got, want);

  // 2. Static shared memory: nothing to pass at launch.
  check(cudaMemset(d_hist, 0, kBins * sizeof(unsigned int)), "cudaMemset(d_hist)");
  histogram_static<<<blocks, threads>>>(d_data, n, d_hist);
  check(cudaGetLastError(), "histogram_static<<<>>>");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaMemcpy(got.data(), d_hist, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost), "cudaMemcpy(hist)");
  wrong += compare("histogram_static", got, want);

  check(cudaFree(d_data), "cudaFree(d_data)");
  check(cudaFree(d_hist), "cudaFree(d_hist)");
  if (wrong != 0) {
    std::printf("histogram: FAIL\n");
    return 1;
  }
  std::printf("histogram: PASS (%d bins of %d random bytes match the host, both kernels)\n", kBins, n);
  return 0;
}
