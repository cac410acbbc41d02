// A half-precision special function (ex2.approx.f16, written as inline PTX): the JIT refuses it at
// load, naming the instruction, since minicuda's executor has no half-precision ex2 of its own.
#include <cuda_fp16.h>

extern "C" __global__ void half_math(const __half* a, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short r;
  asm("ex2.approx.f16 %0, %1;" : "=h"(r) : "h"(__half_as_ushort(a[i])));
  c[i] = __ushort_as_half(r);
}
