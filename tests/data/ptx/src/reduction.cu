// Block-wise sum: a shared-memory tree down to one warp, then warp shuffles; one atomicAdd per block.
extern "C" __global__ void reduce_sum(const int* in, int* out, int n) {
  extern __shared__ int buf[];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + tid;
  int v = 0;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  buf[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) buf[tid] = v = v + buf[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    if (blockDim.x >= 64) v += buf[tid + 32];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0) atomicAdd(out, v);
  }
}
