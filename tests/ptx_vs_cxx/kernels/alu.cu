// ALU-bound: each thread iterates x = x * 1.0001 + 0.5 (fmaf) `iters` times in registers, then
// stores x once.
extern "C" __global__ void xc_alu(float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = static_cast<float>(i);
  for (int k = 0; k < iters; ++k) x = fmaf(x, 1.0001f, 0.5f);
  out[i] = x;
}

void xc_alu_cxx(unsigned blocks, unsigned threads, float* out, int iters) {
  xc_alu<<<blocks, threads>>>(out, iters);
}
