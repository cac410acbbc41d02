// Block sum of ints: a shared-memory tree down to 64 values, warp shuffles, one atomicAdd a block.
// Integer addition is associative, so the result is the same whatever order the blocks land in.
extern "C" __global__ void xc_reduce(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + tid;
  int v = 0;
  if (i < n) v = in[i];
  if (i + static_cast<int>(blockDim.x) < n) v += in[i + blockDim.x];
  buf[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) buf[tid] = v = v + buf[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v += buf[tid + 32];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0) atomicAdd(out, v);
  }
}

// The host side of the C++ path (nvcc -ptx keeps only the kernel).
void xc_reduce_cxx(unsigned blocks, unsigned threads, const int* in, int* out, int n) {
  xc_reduce<<<blocks, threads, threads * sizeof(int)>>>(in, out, n);
}
