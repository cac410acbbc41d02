// c[i] = a[i] + b[i], one thread per element (memory-bound: two loads and a store per add).
extern "C" __global__ void xc_vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void xc_vector_add_cxx(unsigned blocks, unsigned threads, const float* a, const float* b, float* c, int n) {
  xc_vector_add<<<blocks, threads>>>(a, b, c, n);
}
