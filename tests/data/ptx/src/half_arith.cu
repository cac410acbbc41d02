// Half-precision arithmetic as cuda_fp16.h and cuda_bf16.h compile it: add, sub, mul, fma, neg,
// abs, min, max and comparisons on __half, __half2, __nv_bfloat16 and __nv_bfloat162.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// For element i: 10 results per format from a[i], b[i], c[i] (16-bit patterns), in the order
// add, sub, mul, fma, neg, abs, min, max, a < b, a == b (the comparisons as 0 or 1).
extern "C" __global__ void half_arith(const unsigned short* a, const unsigned short* b, const unsigned short* c,
                                      unsigned short* f16, unsigned short* bf16, unsigned* pairs, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
  unsigned short* o = f16 + 10 * i;
  o[0] = __half_as_ushort(__hadd(x, y));
  o[1] = __half_as_ushort(__hsub(x, y));
  o[2] = __half_as_ushort(__hmul(x, y));
  o[3] = __half_as_ushort(__hfma(x, y, z));
  o[4] = __half_as_ushort(__hneg(x));
  o[5] = __half_as_ushort(__habs(x));
  o[6] = __half_as_ushort(__hmin(x, y));
  o[7] = __half_as_ushort(__hmax(x, y));
  o[8] = __hlt(x, y);
  o[9] = __heq(x, y);
  const __nv_bfloat16 u = __ushort_as_bfloat16(a[i]), v = __ushort_as_bfloat16(b[i]), w = __ushort_as_bfloat16(c[i]);
  unsigned short* p = bf16 + 10 * i;
  p[0] = __bfloat16_as_ushort(__hadd(u, v));
  p[1] = __bfloat16_as_ushort(__hsub(u, v));
  p[2] = __bfloat16_as_ushort(__hmul(u, v));
  p[3] = __bfloat16_as_ushort(__hfma(u, v, w));
  p[4] = __bfloat16_as_ushort(__hneg(u));
  p[5] = __bfloat16_as_ushort(__habs(u));
  p[6] = __bfloat16_as_ushort(__hmin(u, v));
  p[7] = __bfloat16_as_ushort(__hmax(u, v));
  p[8] = __hlt(u, v);
  p[9] = __heq(u, v);
  // The pair forms: (a, c) with (b, a) element-wise, as 32-bit patterns.
  const __half2 x2 = __halves2half2(x, z), y2 = __halves2half2(y, x);
  const __nv_bfloat162 u2 = __halves2bfloat162(u, w), v2 = __halves2bfloat162(v, u);
  unsigned* q = pairs + 6 * i;
  __half2 r0 = __hadd2(x2, y2), r1 = __hmul2(x2, y2), r2 = __hfma2(x2, y2, x2);
  __nv_bfloat162 s0 = __hadd2(u2, v2), s1 = __hmul2(u2, v2), s2 = __hfma2(u2, v2, u2);
  q[0] = *reinterpret_cast<unsigned*>(&r0);
  q[1] = *reinterpret_cast<unsigned*>(&r1);
  q[2] = *reinterpret_cast<unsigned*>(&r2);
  q[3] = *reinterpret_cast<unsigned*>(&s0);
  q[4] = *reinterpret_cast<unsigned*>(&s1);
  q[5] = *reinterpret_cast<unsigned*>(&s2);
}
