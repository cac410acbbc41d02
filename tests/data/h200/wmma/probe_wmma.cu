// probe_wmma.cu: what the H200's tensor cores compute for nvcuda::wmma, on inputs chosen to tell
// rounding models apart, and how fragments map matrix elements to lanes (x[i] per lane).
// Output lines (text, one fact each):
//   num <kind> <shape> <type> <num_elements>
//   map <kind> <shape> <type> lane=<l> <value of x[0]> <value of x[1]> ...   (matrix loaded with m[e] = e)
//   case <name> <D[0][0] as hex bits> [more]                                 (single-element probes)
//   rand <name> <i> <hex bits of D[i]>                                         (random tiles, row-major D)
//   in <name> <A|B|C> <i> <hex bits>                                          (the random inputs)
//   cvt tf32 <in bits> <out bits>                                              (wmma::__float_to_tf32)
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include <random>
#include <cmath>
using namespace nvcuda;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("error %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

// One warp: D = A*B + C with A row-major MxK, B row-major KxN, C and D row-major MxN.
template <int M, int N, int K, class TA, class TIn, class TAcc>
__global__ void mma_kernel(const TIn* a, const TIn* b, const TAcc* c, TAcc* d) {
  wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
  wmma::load_matrix_sync(fa, a, K);
  wmma::load_matrix_sync(fb, b, N);
  wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

// Each lane writes its x[i] (as float) to out[lane * 64 + i]; *n = num_elements.
template <class Frag, class T>
__global__ void map_kernel(const T* m, int ld, float* out, int* n) {
  Frag f;
  wmma::load_matrix_sync(f, m, ld);
  for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * 64 + i] = float(f.x[i]);
  if (threadIdx.x == 0) *n = f.num_elements;
}
template <class Frag, class T>
__global__ void map_acc_kernel(const T* m, int ld, float* out, int* n) {
  Frag f;
  wmma::load_matrix_sync(f, m, ld, wmma::mem_row_major);
  for (int i = 0; i < f.num_elements; ++i) out[threadIdx.x * 64 + i] = float(f.x[i]);
  if (threadIdx.x == 0) *n = f.num_elements;
}

__global__ void cvt_kernel(const float* in, float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = wmma::__float_to_tf32(in[i]);
}

template <class T> uint64_t bits(T v) { uint64_t b = 0; memcpy(&b, &v, sizeof v); return b; }

template <int M, int N, int K, class TA, class TIn, class TAcc>
std::vector<TAcc> run_mma(const std::vector<TIn>& a, const std::vector<TIn>& b, const std::vector<TAcc>& c) {
  TIn *da, *db; TAcc *dc, *dd;
  CHECK(cudaMalloc(&da, a.size() * sizeof(TIn))); CHECK(cudaMalloc(&db, b.size() * sizeof(TIn)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(TAcc))); CHECK(cudaMalloc(&dd, c.size() * sizeof(TAcc)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(TIn), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(TIn), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(TAcc), cudaMemcpyHostToDevice));
  mma_kernel<M, N, K, TA, TIn, TAcc><<<1, 32>>>(da, db, dc, dd);
  CHECK(cudaDeviceSynchronize());
  std::vector<TAcc> d(c.size());
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(TAcc), cudaMemcpyDeviceToHost));
  cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dd);
  return d;
}

// Row 0 of A holds `row`, column 0 of B holds `col` (others 0), C[0][0] = c0: D[0][0] = c0 + sum row[k]*col[k].
template <int M, int N, int K, class TA, class TIn, class TAcc>
void dot_case(const char* name, std::vector<double> row, std::vector<double> col, double c0) {
  std::vector<TIn> a(M * K, TIn(0.0f)), b(K * N, TIn(0.0f));
  std::vector<TAcc> c(M * N, TAcc(0));
  for (int k = 0; k < K && k < (int)row.size(); ++k) a[k] = TIn((float)row[k]);
  for (int k = 0; k < K && k < (int)col.size(); ++k) b[k * N] = TIn((float)col[k]);
  c[0] = TAcc(c0);
  auto d = run_mma<M, N, K, TA, TIn, TAcc>(a, b, c);
  printf("case %s %llx\n", name, (unsigned long long)bits(d[0]));
}
template <int M, int N, int K, class TA, class TIn, class TAcc, class Gen>
void rand_case(const char* name, Gen gen, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<TIn> a(M * K), b(K * N);
  std::vector<TAcc> c(M * N);
  for (auto& v : a) v = TIn(gen(rng));
  for (auto& v : b) v = TIn(gen(rng));
  for (auto& v : c) v = TAcc(gen(rng));
  auto d = run_mma<M, N, K, TA, TIn, TAcc>(a, b, c);
  for (size_t i = 0; i < a.size(); ++i) printf("in %s A %zu %llx\n", name, i, (unsigned long long)bits(a[i]));
  for (size_t i = 0; i < b.size(); ++i) printf("in %s B %zu %llx\n", name, i, (unsigned long long)bits(b[i]));
  for (size_t i = 0; i < c.size(); ++i) printf("in %s C %zu %llx\n", name, i, (unsigned long long)bits(c[i]));
  for (size_t i = 0; i < d.size(); ++i) printf("rand %s %zu %llx\n", name, i, (unsigned long long)bits(d[i]));
}

template <class Frag, class T, bool Acc>
void map_case(const char* kind, const char* shape, const char* type, int rows, int cols) {
  std::vector<T> m(rows * cols);
  for (int e = 0; e < rows * cols; ++e) m[e] = T((float)e);
  T* dm; float* dout; int* dn;
  CHECK(cudaMalloc(&dm, m.size() * sizeof(T))); CHECK(cudaMalloc(&dout, 32 * 64 * sizeof(float))); CHECK(cudaMalloc(&dn, sizeof(int)));
  CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(T), cudaMemcpyHostToDevice));
  if constexpr (Acc) map_acc_kernel<Frag, T><<<1, 32>>>(dm, cols, dout, dn); else map_kernel<Frag, T><<<1, 32>>>(dm, cols, dout, dn);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> out(32 * 64); int n = 0;
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&n, dn, sizeof n, cudaMemcpyDeviceToHost));
  printf("num %s %s %s %d\n", kind, shape, type, n);
  for (int l = 0; l < 32; ++l) {
    printf("map %s %s %s lane=%d", kind, shape, type, l);
    for (int i = 0; i < n; ++i) printf(" %g", out[l * 64 + i]);
    printf("\n");
  }
  cudaFree(dm); cudaFree(dout); cudaFree(dn);
}

int main() {
  const double u = std::ldexp(1.0, -23);  // fp32 ulp of 1
  // ---- fp16 inputs, fp32 accumulate, m16n16k16 ----
  dot_case<16, 16, 16, half, half, float>("h16_c1_p0.75ulp", {std::ldexp(1.0, -12)}, {std::ldexp(1.5, -12)}, 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_c1_m0.75ulp", {-std::ldexp(1.0, -12)}, {std::ldexp(1.5, -12)}, 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_c1_p0.5ulp", {std::ldexp(1.0, -12)}, {std::ldexp(1.0, -12)}, 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_c1_p1.5ulp", {std::ldexp(1.0, -12)}, {std::ldexp(1.5, -11)}, 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_c2^24_16ones", std::vector<double>(16, 1.0), std::vector<double>(16, 1.0), 16777216.0);
  dot_case<16, 16, 16, half, half, float>("h16_c0_16x0.75ulp_of1",
      std::vector<double>(16, 1.0), std::vector<double>(16, 0.75 * u), 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_big_cancel", {256.0, std::ldexp(1.0, -12)}, {256.0, std::ldexp(1.0, -12)}, -65536.0);
  dot_case<16, 16, 16, half, half, float>("h16_big_cancel_c0", {256.0, -256.0, std::ldexp(1.0, -12)}, {256.0, 256.0, std::ldexp(1.0, -12)}, 0.0);
  dot_case<16, 16, 16, half, half, float>("h16_c1_8x0.25ulp", std::vector<double>(8, std::ldexp(1.0, -12)), std::vector<double>(8, std::ldexp(1.0, -13)), 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_c1_k0_k8_k15", {std::ldexp(1.0,-12), 0,0,0,0,0,0,0, std::ldexp(1.0,-12),0,0,0,0,0,0, std::ldexp(1.0,-12)},
      {std::ldexp(1.0,-13), 0,0,0,0,0,0,0, std::ldexp(1.0,-13),0,0,0,0,0,0, std::ldexp(1.0,-13)}, 1.0);
  dot_case<16, 16, 16, half, half, float>("h16_overflow", std::vector<double>(16, 65504.0), std::vector<double>(16, 65504.0), 0.0);
  dot_case<16, 16, 16, half, half, float>("h16_subnormal_out", {std::ldexp(1.0, -24)}, {std::ldexp(1.0, -24)}, 0.0);
  dot_case<16, 16, 16, half, half, float>("h16_neg_zero", {-1.0}, {0.0}, -0.0);
  // ---- fp16 accumulate (half C/D) ----
  dot_case<16, 16, 16, half, half, half>("hh16_c1_p0.75ulp", {std::ldexp(1.0, -6)}, {std::ldexp(1.5, -6)}, 1.0);
  dot_case<16, 16, 16, half, half, half>("hh16_c2048_16ones", std::vector<double>(16, 1.0), std::vector<double>(16, 1.0), 2048.0);
  // ---- bf16 ----
  dot_case<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("b16_c1_p0.75ulp", {std::ldexp(1.0, -12)}, {std::ldexp(1.5, -12)}, 1.0);
  dot_case<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("b16_c2^24_16ones", std::vector<double>(16, 1.0), std::vector<double>(16, 1.0), 16777216.0);
  dot_case<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("b16_big_cancel", {65536.0, std::ldexp(1.0, -12)}, {65536.0, std::ldexp(1.0, -12)}, -4294967296.0);
  // ---- tf32 (raw floats loaded, no __float_to_tf32) ----
  dot_case<16, 16, 8, wmma::precision::tf32, float, float>("t32_raw_low_bits", {1.0 + 3 * u}, {1.0}, 0.0);
  dot_case<16, 16, 8, wmma::precision::tf32, float, float>("t32_raw_half_tf32ulp", {1.0 + 1024 * u + 1023 * u}, {1.0}, 0.0);
  dot_case<16, 16, 8, wmma::precision::tf32, float, float>("t32_raw_neg", {-(1.0 + 2047 * u)}, {1.0}, 0.0);
  dot_case<16, 16, 8, wmma::precision::tf32, float, float>("t32_c1_p0.75ulp", {std::ldexp(1.0, -12)}, {std::ldexp(1.5, -12)}, 1.0);
  dot_case<16, 16, 8, wmma::precision::tf32, float, float>("t32_c2^24_8ones", std::vector<double>(8, 1.0), std::vector<double>(8, 1.0), 16777216.0);
  // ---- double m8n8k4 ----
  const double e = std::ldexp(1.0, -53);
  dot_case<8, 8, 4, double, double, double>("d_c1_4x2^-53", {1, 1, 1, 1}, {e, e, e, e}, 1.0);
  dot_case<8, 8, 4, double, double, double>("d_c1_fma", {1.0 + std::ldexp(1.0, -30)}, {1.0 - std::ldexp(1.0, -30)}, -1.0);
  dot_case<8, 8, 4, double, double, double>("d_order", {1e16, 1, -1e16, 1}, {1, 1, 1, 1}, 0.0);
  dot_case<8, 8, 4, double, double, double>("d_order2", {1, 1e16, 1, -1e16}, {1, 1, 1, 1}, 0.0);
  dot_case<8, 8, 4, double, double, double>("d_order3", {1, -1e16, 1e16, 1}, {1, 1, 1, 1}, 1e16);
  // ---- int8 / uint8, s32 accumulate ----
  dot_case<16, 16, 16, signed char, signed char, int>("s8_minmax", {-128, 127, -128}, {-128, -128, 127}, 5.0);
  dot_case<16, 16, 16, signed char, signed char, int>("s8_wrap", {127}, {127}, 2147483647.0);
  dot_case<16, 16, 16, unsigned char, unsigned char, int>("u8_255", {255, 255}, {255, 255}, -1.0);
  // ---- random tiles ----
  auto unit = [](std::mt19937& r) { return std::uniform_real_distribution<float>(-1.0f, 1.0f)(r); };
  auto wide = [](std::mt19937& r) { return std::ldexp(std::uniform_real_distribution<float>(-1.0f, 1.0f)(r), (int)(r() % 16) - 8); };
  auto ints = [](std::mt19937& r) { return (float)((int)(r() % 256) - 128); };
  auto uints = [](std::mt19937& r) { return (float)(r() % 256); };
  rand_case<16, 16, 16, half, half, float>("h16x16x16_unit", unit, 1);
  rand_case<16, 16, 16, half, half, float>("h16x16x16_wide", wide, 2);
  rand_case<32, 8, 16, half, half, float>("h32x8x16_unit", unit, 3);
  rand_case<8, 32, 16, half, half, float>("h8x32x16_unit", unit, 4);
  rand_case<16, 16, 16, half, half, half>("hh16x16x16_unit", unit, 5);
  rand_case<16, 16, 16, __nv_bfloat16, __nv_bfloat16, float>("b16x16x16_wide", wide, 6);
  rand_case<16, 16, 8, wmma::precision::tf32, float, float>("t16x16x8_wide", wide, 7);
  rand_case<8, 8, 4, double, double, double>("d8x8x4_wide", wide, 8);
  rand_case<16, 16, 16, signed char, signed char, int>("s16x16x16", ints, 9);
  rand_case<16, 16, 16, unsigned char, unsigned char, int>("u16x16x16", uints, 10);
  // ---- __float_to_tf32 ----
  {
    std::vector<float> in;
    const uint32_t pats[] = {0x3f800000u, 0x3f800fffu, 0x3f801000u, 0x3f801001u, 0x3f802000u, 0x3f803000u, 0xbf801000u,
                             0xbf803000u, 0x3f7ff000u, 0x7f7fffffu, 0x7f800000u, 0x7fc00001u, 0x00000001u, 0x00001000u, 0x3f800800u};
    for (uint32_t p : pats) { float f; memcpy(&f, &p, 4); in.push_back(f); }
    float *di, *dout;
    CHECK(cudaMalloc(&di, in.size() * 4)); CHECK(cudaMalloc(&dout, in.size() * 4));
    CHECK(cudaMemcpy(di, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    cvt_kernel<<<1, 32>>>(di, dout, (int)in.size());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> out(in.size());
    CHECK(cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < in.size(); ++i) printf("cvt tf32 %08x %08x\n", (unsigned)bits(in[i]), (unsigned)bits(out[i]));
  }
  // ---- fragment maps ----
  map_case<wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>, half, false>("matrix_a", "16x16x16", "half_row", 16, 16);
  map_case<wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major>, half, false>("matrix_a", "16x16x16", "half_col", 16, 16);
  map_case<wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major>, half, false>("matrix_b", "16x16x16", "half_row", 16, 16);
  map_case<wmma::fragment<wmma::accumulator, 16, 16, 16, float>, float, true>("accumulator", "16x16x16", "float", 16, 16);
  map_case<wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major>, half, false>("matrix_a", "32x8x16", "half_row", 32, 16);
  map_case<wmma::fragment<wmma::accumulator, 32, 8, 16, float>, float, true>("accumulator", "32x8x16", "float", 32, 8);
  map_case<wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>, float, false>("matrix_a", "16x16x8", "tf32_row", 16, 8);
  map_case<wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>, float, false>("matrix_b", "16x16x8", "tf32_col", 16, 8);
  map_case<wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major>, double, false>("matrix_a", "8x8x4", "double_row", 8, 4);
  map_case<wmma::fragment<wmma::accumulator, 8, 8, 4, double>, double, true>("accumulator", "8x8x4", "double", 8, 8);
  map_case<wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major>, signed char, false>("matrix_a", "16x16x16", "s8_row", 16, 16);
  map_case<wmma::fragment<wmma::accumulator, 16, 16, 16, int>, int, true>("accumulator", "16x16x16", "int", 16, 16);
  map_case<wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major>, __nv_bfloat16, false>("matrix_a", "16x16x16", "bf16_row", 16, 16);
  printf("done\n");
  return 0;
}
