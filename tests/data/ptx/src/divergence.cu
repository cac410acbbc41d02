// A branch that splits every warp: even lanes loop more than odd lanes, then all reconverge
// and vote. Also uses a device function, a switch, special registers and a warp ballot.
__device__ __noinline__ int collatz_steps(unsigned x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

extern "C" __global__ void divergent(int* out, unsigned* ballots, long long* clocks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long t0 = clock64();
  int v;
  if (threadIdx.x % 2 == 0) {
    v = collatz_steps(i + 1);
  } else {
    switch (threadIdx.x % 6) {
      case 1: v = -1; break;
      case 3: v = i * i; break;
      default: v = __popc(i) + __clz(i) + __brev(i); break;
    }
  }
  unsigned b = __ballot_sync(0xffffffffu, v > 10);
  if ((threadIdx.x & 31) == 0) ballots[i / 32] = b;
  out[i] = v + __any_sync(0xffffffffu, v < 0) + (int)__fsqrt_rn((float)i) + (int)rsqrtf(i + 1.0f);
  clocks[i] = clock64() - t0 + __sinf((float)i) * 0.0f;
}
