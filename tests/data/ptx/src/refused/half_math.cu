// Half-precision arithmetic (cuda_fp16.h): the JIT refuses it at load, naming the instruction,
// since minicuda's executor has no f16 arithmetic of its own.
#include <cuda_fp16.h>

extern "C" __global__ void half_math(const __half* a, const __half* b, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  c[i] = __hfma(a[i], b[i], __hadd(a[i], b[i]));
}
