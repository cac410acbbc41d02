// Device printf and assert: calls of vprintf and __assertfail, string constants in .global,
// the printf argument buffer in .local.
#include <cassert>
#include <cstdio>

extern "C" __global__ void report(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(v[i] >= 0);
  if (i == 0) printf("v[0]=%d n=%d\n", v[0], n);
}
