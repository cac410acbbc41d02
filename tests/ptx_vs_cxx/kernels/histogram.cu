// 256-bin histogram of bytes: per-block bins in shared memory (shared atomics), merged into the
// global bins with one atomicAdd per non-empty bin. Grid-stride loop over the input.
extern "C" __global__ void xc_histogram(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

void xc_histogram_cxx(unsigned blocks, unsigned threads, const unsigned char* data, unsigned* bins, int n) {
  xc_histogram<<<blocks, threads>>>(data, bins, n);
}
