// Probe: the SIMD-in-a-word intrinsics (__vadd2 ... __vsubus4) on the H200, for a fixed set of
// operands. Prints "name a b result" per line (hex); tests/kernels/test_simd_intrinsics.cu
// compares minicuda's kernel results with the recording, probe_simd.txt.
// Build and run on the H200: nvcc -arch=sm_90 -o probe_simd probe_simd.cu && ./probe_simd
#include <cstdio>

#define SIMD_UNARY(X) X(__vabs2) X(__vabs4) X(__vabsss2) X(__vabsss4) X(__vneg2) X(__vneg4) X(__vnegss2) X(__vnegss4)
#define SIMD_BINARY(X)                                                                                            \
  X(__vabsdiffs2) X(__vabsdiffs4) X(__vabsdiffu2) X(__vabsdiffu4) X(__vadd2) X(__vadd4) X(__vaddss2)            \
  X(__vaddss4) X(__vaddus2) X(__vaddus4) X(__vavgs2) X(__vavgs4) X(__vavgu2) X(__vavgu4) X(__vcmpeq2)            \
  X(__vcmpeq4) X(__vcmpges2) X(__vcmpges4) X(__vcmpgeu2) X(__vcmpgeu4) X(__vcmpgts2) X(__vcmpgts4)               \
  X(__vcmpgtu2) X(__vcmpgtu4) X(__vcmples2) X(__vcmples4) X(__vcmpleu2) X(__vcmpleu4) X(__vcmplts2)              \
  X(__vcmplts4) X(__vcmpltu2) X(__vcmpltu4) X(__vcmpne2) X(__vcmpne4) X(__vhaddu2) X(__vhaddu4) X(__vmaxs2)       \
  X(__vmaxs4) X(__vmaxu2) X(__vmaxu4) X(__vmins2) X(__vmins4) X(__vminu2) X(__vminu4) X(__vsads2) X(__vsads4)    \
  X(__vsadu2) X(__vsadu4) X(__vseteq2) X(__vseteq4) X(__vsetges2) X(__vsetges4) X(__vsetgeu2) X(__vsetgeu4)      \
  X(__vsetgts2) X(__vsetgts4) X(__vsetgtu2) X(__vsetgtu4) X(__vsetles2) X(__vsetles4) X(__vsetleu2)              \
  X(__vsetleu4) X(__vsetlts2) X(__vsetlts4) X(__vsetltu2) X(__vsetltu4) X(__vsetne2) X(__vsetne4) X(__vsub2)     \
  X(__vsub4) X(__vsubss2) X(__vsubss4) X(__vsubus2) X(__vsubus4)

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
