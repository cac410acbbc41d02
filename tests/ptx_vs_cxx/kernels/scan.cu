// Inclusive prefix sum of floats within each block (Hillis-Steele, double-buffered in shared
// memory, a barrier per step). Each output is a fixed chain of single additions, so the bits do not
// depend on scheduling. Blocks scan their own segment of `in`.
extern "C" __global__ void xc_scan(const float* in, float* out, int n) {
  extern __shared__ float tmp[];
  int tid = threadIdx.x, nb = blockDim.x;
  int i = blockIdx.x * nb + tid;
  int pout = 0, pin = 1;
  tmp[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < nb; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    float x = tmp[pin * nb + tid];
    if (tid >= offset) x += tmp[pin * nb + tid - offset];
    tmp[pout * nb + tid] = x;
    __syncthreads();
  }
  if (i < n) out[i] = tmp[pout * nb + tid];
}

void xc_scan_cxx(unsigned blocks, unsigned threads, const float* in, float* out, int n) {
  xc_scan<<<blocks, threads, 2 * threads * sizeof(float)>>>(in, out, n);
}
