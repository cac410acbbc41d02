// Divergence within warps: an early return, nested branches on the data, a loop whose trip count
// differs per lane, a switch, and a warp vote after reconvergence.
extern "C" __global__ void xc_divergence(const int* in, int* out, unsigned* votes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  // Every lane votes before any returns (the full mask must be present).
  unsigned odd = __ballot_sync(0xffffffffu, v & 1);
  if ((threadIdx.x & 31) == 0) votes[i / 32] = odd;
  if (i >= n) return;
  if (v % 7 == 0) {  // early return for a data-dependent subset
    out[i] = -7;
    return;
  }
  int acc = 0;
  if (v > 0) {
    unsigned x = static_cast<unsigned>(v);
    int steps = 0;
    while (x != 1 && steps < 500) {  // per-lane trip count (Collatz)
      if (x & 1) {
        x = 3 * x + 1;
        if (x % 5 == 0) acc += 2;
      } else {
        x >>= 1;
      }
      ++steps;
    }
    acc += steps;
  } else {
    switch ((-v) % 4) {
      case 0: acc = v * v; break;
      case 1: acc = __popc(v) - 3; break;
      case 2:
        for (int k = 0; k < (-v) % 9; ++k) acc += k * v;
        break;
      default: acc = __clz(v) + __brev(v); break;
    }
  }
  out[i] = acc;
}

void xc_divergence_cxx(unsigned blocks, unsigned threads, const int* in, int* out, unsigned* votes, int n) {
  xc_divergence<<<blocks, threads>>>(in, out, votes, n);
}
