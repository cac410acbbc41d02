// Conversions, double math, min/max/abs, integer division and a __constant__ table with an
// initializer: the instruction families an ordinary kernel uses.
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__device__ int counter = 7;

extern "C" __global__ void math_mix(const double* x, float* y, int* q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double d = x[i];
  float f = (float)d;
  float p = coeffs[0] + f * (coeffs[1] + f * (coeffs[2] + f * coeffs[3]));
  y[i] = fminf(fmaxf(p, -1.0f), 1.0f) + fabsf(f) + expf(f) + __logf(fabsf(f) + 1.0f) + tanhf(f);
  q[i] = (i / 3) % 5 + abs(i - n / 2) + (int)sqrt(d * d) + (int)(d / 3.0) + min(i, 10) + max(i, 20);
  atomicMax(&counter, i);
  __threadfence();
}
