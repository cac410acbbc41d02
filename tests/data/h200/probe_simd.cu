// Probe: the SIMD-in-a-word intrinsics (__vadd2 ... __vsubus4) on the H200, for a fixed set of
// operands. Prints "name a b result" per line (hex); tests/headers/test_simd_intrinsics.cu
// compares minicuda's kernel results with the recording, probe_simd.txt.
// Build and run on the H200: nvcc -arch=sm_90 -o probe_simd probe_simd.cu && ./probe_simd
#include <cstdio>

#include "probe_simd_list.h"

#define COUNT(f) +1
constexpr int kUnary = 0 SIMD_UNARY(COUNT);
constexpr int kBinary = 0 SIMD_BINARY(COUNT);
constexpr int kPairs = 48;

__global__ void run_all(const unsigned* a, const unsigned* b, unsigned* out) {
  int i = threadIdx.x;
  if (i >= kPairs) return;
  unsigned* o = out + i * (kUnary + kBinary);
  int k = 0;
#define U(f) o[k++] = f(a[i]);
#define B(f) o[k++] = f(a[i], b[i]);
  SIMD_UNARY(U)
  SIMD_BINARY(B)
}

// Edge values in every lane, then a fixed pseudo-random sequence.
void operands(unsigned* a, unsigned* b) {
  const unsigned edges[] = {0x00000000u, 0xffffffffu, 0x7fff8000u, 0x80007fffu, 0x7f807f80u, 0x807f807fu,
                            0x01ff80feu, 0xfe0180ffu, 0x80008000u, 0x7fff7fffu, 0x80808080u, 0x7f7f7f7fu,
                            0x00010001u, 0xffff0001u, 0x0000ffffu, 0x12345678u};
  const int n = sizeof(edges) / sizeof(edges[0]);
  unsigned state = 0x9e3779b9u;
  auto next = [&] { state ^= state << 13; state ^= state >> 17; state ^= state << 5; return state; };
  for (int i = 0; i < kPairs; ++i) {
    if (i < n) { a[i] = edges[i]; b[i] = edges[(i * 7 + 3) % n]; }
    else { a[i] = next(); b[i] = next(); }
  }
}

int main() {
  unsigned ha[kPairs], hb[kPairs], hout[kPairs * (kUnary + kBinary)];
  operands(ha, hb);
  unsigned *da, *db, *dout;
  cudaMalloc(&da, sizeof ha); cudaMalloc(&db, sizeof hb); cudaMalloc(&dout, sizeof hout);
  cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
  run_all<<<1, kPairs>>>(da, db, dout);
  if (cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost) != cudaSuccess) { std::printf("FAILED\n"); return 1; }
  const char* names[] = {
#define NAME(f) #f,
      SIMD_UNARY(NAME) SIMD_BINARY(NAME)};
  for (int i = 0; i < kPairs; ++i)
    for (int k = 0; k < kUnary + kBinary; ++k)
      std::printf("%s %08x %08x %08x\n", names[k], ha[i], k < kUnary ? 0u : hb[i], hout[i * (kUnary + kBinary) + k]);
  return 0;
}
