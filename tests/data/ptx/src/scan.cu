// Inclusive prefix sum of one block (Hillis-Steele, double-buffered in shared memory).
extern "C" __global__ void scan_block(const float* in, float* out, int n) {
  extern __shared__ float tmp[];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  tmp[tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    float x = tmp[pin * n + tid];
    if (tid >= offset) x += tmp[pin * n + tid - offset];
    tmp[pout * n + tid] = x;
    __syncthreads();
  }
  if (tid < n) out[tid] = tmp[pout * n + tid];
}
