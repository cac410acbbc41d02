// Half precision and bfloat16 in kernels (cuda_fp16.h, cuda_bf16.h): conversions in every rounding
// mode checked bit for bit (ties, subnormals, overflow, -0, NaN), exhaustively against g++'s
// _Float16 where it is an independent oracle, and the arithmetic against a correctly rounded host
// reference (_Float16 arithmetic rounds float results once, and fma through __float128).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_test.h"

namespace {

uint16_t f16_bits(_Float16 h) { uint16_t b; std::memcpy(&b, &h, 2); return b; }
_Float16 f16_of(uint16_t b) { _Float16 h; std::memcpy(&h, &b, 2); return h; }
float float_of(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
uint16_t ref_bf16(float f) {  // round to nearest even by the bits; NaN canonical
  if (std::isnan(f)) return 0x7fff;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

}  // namespace

// --- kernels --------------------------------------------------------------------------------

// out[4i .. 4i+3] = in[i] to half in rn, rz, rd, ru; the same for bfloat16 in bout.
__global__ void float_to_narrow(const float* in, int n, unsigned short* out, unsigned short* bout) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float f = in[i];
  out[4 * i + 0] = __half_as_ushort(__float2half_rn(f));
  out[4 * i + 1] = __half_as_ushort(__float2half_rz(f));
  out[4 * i + 2] = __half_as_ushort(__float2half_rd(f));
  out[4 * i + 3] = __half_as_ushort(__float2half_ru(f));
  bout[4 * i + 0] = __bfloat16_as_ushort(__float2bfloat16_rn(f));
  bout[4 * i + 1] = __bfloat16_as_ushort(__float2bfloat16_rz(f));
  bout[4 * i + 2] = __bfloat16_as_ushort(__float2bfloat16_rd(f));
  bout[4 * i + 3] = __bfloat16_as_ushort(__float2bfloat16_ru(f));
}

// Every float bit pattern i * stride (+ offset) to half and bfloat16, round to nearest even.
__global__ void float_sweep(unsigned stride, unsigned offset, unsigned short* h, unsigned short* b) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned bits = i * stride + offset;
  float f;
  memcpy(&f, &bits, 4);
  h[i] = __half_as_ushort(__float2half(f));
  b[i] = __bfloat16_as_ushort(__float2bfloat16(f));
}

// Every half and bfloat16 bit pattern to float.
__global__ void narrow_to_float(float* h, float* b) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  h[i] = __half2float(__ushort_as_half(static_cast<unsigned short>(i)));
  b[i] = __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(i)));
}

// out[6i ..] = add, sub, mul, div, fma(a, b, c), sqrt(|a|) of the half bits a[i], b[i], c[i].
__global__ void half_arith(const unsigned short* a, const unsigned short* b, const unsigned short* c, int n,
                           unsigned short* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]), z = __ushort_as_half(c[i]);
  out[6 * i + 0] = __half_as_ushort(x + y);
  out[6 * i + 1] = __half_as_ushort(__hsub(x, y));
  out[6 * i + 2] = __half_as_ushort(x * y);
  out[6 * i + 3] = __half_as_ushort(__hdiv(x, y));
  out[6 * i + 4] = __half_as_ushort(__hfma(x, y, z));
  out[6 * i + 5] = __half_as_ushort(hsqrt(__habs(x)));
}

// The same four binary operations on bfloat16, on both lanes of __nv_bfloat162.
__global__ void bf16_arith(const unsigned short* a, const unsigned short* b, int n, unsigned short* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 x = __ushort_as_bfloat16(a[i]), y = __ushort_as_bfloat16(b[i]);
  const __nv_bfloat162 p = __halves2bfloat162(x, y), q = __halves2bfloat162(y, x);
  const __nv_bfloat162 s = __hadd2(p, q), m = p * q;
  out[4 * i + 0] = __bfloat16_as_ushort(__low2bfloat16(s));
  out[4 * i + 1] = __bfloat16_as_ushort(__high2bfloat16(m));
  out[4 * i + 2] = __bfloat16_as_ushort(x - y);
  out[4 * i + 3] = __bfloat16_as_ushort(__hdiv(x, y));
}

// Integer conversions, comparisons and the special functions on fixed inputs.
__global__ void half_misc(long long* out) {
  int k = 0;
  out[k++] = __half2int_rn(__float2half(2.5f));    // 2: ties to even
  out[k++] = __half2int_rn(__float2half(3.5f));    // 4
  out[k++] = __half2int_rz(__float2half(-2.75f));  // -2
  out[k++] = __half2int_rd(__float2half(-2.75f));  // -3
  out[k++] = __half2int_ru(__float2half(-2.75f));  // -2
  out[k++] = __half2int_rn(__ushort_as_half(0x7c00));   // +inf: INT_MAX
  out[k++] = __half2int_rn(__ushort_as_half(0xfc00));   // -inf: INT_MIN
  out[k++] = __half2int_rn(__ushort_as_half(0x7e00));   // NaN: 0
  out[k++] = __half2ll_rz(__ushort_as_half(0x7e00));    // NaN: LLONG_MIN
  out[k++] = __half2ushort_rn(__float2half(-5.0f));     // 0
  out[k++] = __half2short_rn(__float2half(60000.0f));   // 32767
  out[k++] = __half_as_ushort(__int2half_rn(65519));    // 0x7bff
  out[k++] = __half_as_ushort(__int2half_rn(65520));    // 0x7c00
  out[k++] = __half_as_ushort(__int2half_rz(70000));    // 0x7bff
  out[k++] = __half_as_ushort(__int2half_rd(-70000));   // 0xfc00
  out[k++] = __half_as_ushort(__uint2half_rn(2049));    // 2048: 0x6800
  out[k++] = __half_as_ushort(__uint2half_ru(2049));    // 2050: 0x6801
  // 2^60 + 2^52 + 1: above the tie, so up; through a plain double it would be a tie, to even.
  out[k++] = __bfloat16_as_ushort(__ull2bfloat16_rn((1ull << 60) + (1ull << 52) + 1));  // 0x5d81
  out[k++] = __bfloat162int_rn(__float2bfloat16(-3.5f));  // -4
  const __half nan = __ushort_as_half(0x7e00), one = __float2half(1.0f), two = __float2half(2.0f);
  out[k++] = (__heq(nan, nan) ? 1 : 0) | (__hequ(nan, one) ? 2 : 0) | (__hne(nan, one) ? 4 : 0) |
             (__hneu(nan, one) ? 8 : 0) | (__hlt(one, two) ? 16 : 0) | (__hgeu(one, nan) ? 32 : 0) |
             (nan != nan ? 64 : 0) | (one < two ? 128 : 0) | (__hisnan(nan) ? 256 : 0);  // 2+8+16+32+64+128+256
  out[k++] = __hisinf(__ushort_as_half(0xfc00)) * 10 + __hisinf(__ushort_as_half(0x7c00));  // -9
  out[k++] = __half_as_ushort(__hmax(nan, two));        // 0x4000: a NaN operand is ignored
  out[k++] = __half_as_ushort(__hmax_nan(nan, two));    // 0x7fff
  out[k++] = __half_as_ushort(__hmin(one, two));        // 0x3c00
  out[k++] = __half_as_ushort(__hadd_sat(one, two));    // 0x3c00: clamped to 1
  out[k++] = __half_as_ushort(__hsub_sat(one, two));    // 0: clamped to 0
  out[k++] = __half_as_ushort(__hfma_relu(one, __hneg(two), one));  // 0: -1 becomes 0
  out[k++] = __half_as_ushort(__hneg(__float2half(0.0f)));  // 0x8000
  out[k++] = __half_as_ushort(hrcp(two));               // 0x3800
  out[k++] = __half_as_ushort(hfloor(__float2half(-1.5f)));  // 0xc000
  out[k++] = __half_as_ushort(hrint(__float2half(2.5f)));    // 0x4000
  out[k++] = __half_as_ushort(hexp(__float2half(0.0f)));     // 0x3c00
  __half acc = one;
  acc += two;
  acc *= two;
  ++acc;
  out[k++] = __half_as_ushort(acc);  // 7: 0x4700
  const __half2 v = __floats2half2_rn(1.5f, -2.0f);
  const __half2 w = __hfma2(v, v, __half2half2(one));  // (3.25, 5)
  out[k++] = static_cast<long long>(__half_as_ushort(__low2half(w))) << 16 | __half_as_ushort(__high2half(w));
  out[k++] = __hlt2_mask(v, __half2half2(one));  // 0xffff0000: only the high lane is below 1
  out[k++] = __hbgt2(w, v) ? 1 : 0;             // 1
  const float2 f2 = __half22float2(__lowhigh2highlow(w));
  out[k++] = static_cast<long long>(f2.x * 100 + f2.y);  // 5 * 100 + 3.25 = 503
  const auto mixed = one + 0.25f;  // a float sum: the __half converts to float
  out[k++] = std::is_same_v<decltype(mixed), const float> ? static_cast<long long>(mixed * 4) : -1;  // 5
}

// __shfl_sync moves __half and __half2 as it moves any 2- or 4-byte value.
__global__ void half_shuffle(unsigned short* out, unsigned* out2) {
  const __half h = __int2half_rn(static_cast<int>(threadIdx.x));
  const __half2 p = __halves2half2(h, __hneg(h));
  out[threadIdx.x] = __half_as_ushort(__shfl_down_sync(0xffffffffu, h, 1));
  const __half2 q = __shfl_xor_sync(0xffffffffu, p, 3);
  unsigned bits;
  memcpy(&bits, &q, 4);
  out2[threadIdx.x] = bits;
}

namespace minicuda::kernels_test {
namespace {

class KernelHalf : public FreshProcess {};

TEST_F(KernelHalf, TypesHaveTheToolkitLayout) {
  EXPECT_EQ(sizeof(__half), 2u);
  EXPECT_EQ(sizeof(__half2), 4u);
  EXPECT_EQ(alignof(__half2), 4u);
  EXPECT_EQ(sizeof(__nv_bfloat16), 2u);
  EXPECT_EQ(sizeof(__nv_bfloat162), 4u);
  EXPECT_EQ(alignof(__nv_bfloat162), 4u);
  const __half2 p = __floats2half2_rn(1.0f, -2.0f);
  uint32_t word;
  std::memcpy(&word, &p, 4);
  EXPECT_EQ(word, 0xc0003c00u);  // the low lane in the low half
  const __half_raw r = __float2half(1.0f);
  EXPECT_EQ(r.x, 0x3c00);
}

TEST_F(KernelHalf, FloatToHalfRoundsInEachModeBitForBit) {
  struct Case {
    float in;
    uint16_t rn, rz, rd, ru;
  };
  const float tiny = std::ldexp(1.0f, -24), half_tiny = std::ldexp(1.0f, -25);
  const std::vector<Case> cases = {
      {1.0009765625f, 0x3c01, 0x3c01, 0x3c01, 0x3c01},        // 1 + 2^-10: exact
      {1.00048828125f, 0x3c00, 0x3c00, 0x3c00, 0x3c01},       // 1 + 2^-11: a tie, to even
      {1.00146484375f, 0x3c02, 0x3c01, 0x3c01, 0x3c02},       // 1 + 3 * 2^-11: a tie, to even
      {-1.00048828125f, 0xbc00, 0xbc00, 0xbc01, 0xbc00},
      {65504.0f, 0x7bff, 0x7bff, 0x7bff, 0x7bff},             // the largest finite half
      {65519.0f, 0x7bff, 0x7bff, 0x7bff, 0x7c00},
      {65520.0f, 0x7c00, 0x7bff, 0x7bff, 0x7c00},             // the tie with 65536: infinity
      {-65520.0f, 0xfc00, 0xfbff, 0xfc00, 0xfbff},
      {1e30f, 0x7c00, 0x7bff, 0x7bff, 0x7c00},
      {tiny, 0x0001, 0x0001, 0x0001, 0x0001},                 // the smallest subnormal, 2^-24
      {half_tiny, 0x0000, 0x0000, 0x0000, 0x0001},            // 2^-25: a tie with 0, to even
      {1.5f * half_tiny, 0x0001, 0x0000, 0x0000, 0x0001},
      {-half_tiny, 0x8000, 0x8000, 0x8001, 0x8000},
      {3 * tiny / 2 + tiny, 0x0002, 0x0002, 0x0002, 0x0003},  // 2.5 * 2^-24: a tie, to even
      {std::ldexp(1.0f, -14), 0x0400, 0x0400, 0x0400, 0x0400},  // the smallest normal
      {std::ldexp(1023.5f, -24), 0x0400, 0x03ff, 0x03ff, 0x0400},
      {0.1f, 0x2e66, 0x2e66, 0x2e66, 0x2e67},
      {-0.0f, 0x8000, 0x8000, 0x8000, 0x8000},
      {INFINITY, 0x7c00, 0x7c00, 0x7c00, 0x7c00},
      {-INFINITY, 0xfc00, 0xfc00, 0xfc00, 0xfc00},
      {NAN, 0x7fff, 0x7fff, 0x7fff, 0x7fff},                  // the canonical NaN
      {std::ldexp(1.0f, -140), 0x0000, 0x0000, 0x0000, 0x0001},  // a float subnormal
  };
  std::vector<float> in;
  for (const Case& c : cases) in.push_back(c.in);
  DeviceArray<float> d_in(in);
  DeviceArray<unsigned short> out(4 * in.size()), bout(4 * in.size());
  float_to_narrow<<<1, 64>>>(d_in.get(), static_cast<int>(in.size()), out.get(), bout.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned short> got = out.read();
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "input " << cases[i].in);
    EXPECT_EQ(got[4 * i + 0], cases[i].rn);
    EXPECT_EQ(got[4 * i + 1], cases[i].rz);
    EXPECT_EQ(got[4 * i + 2], cases[i].rd);
    EXPECT_EQ(got[4 * i + 3], cases[i].ru);
  }
  // bfloat16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7; float's largest finite value rounds up.
  const std::vector<unsigned short> b = bout.read();
  const std::vector<float> bin = {1.00390625f, 3.4028235e38f, -1.00390625f};
  DeviceArray<float> d_bin(bin);
  DeviceArray<unsigned short> hout(4 * bin.size()), bout2(4 * bin.size());
  float_to_narrow<<<1, 32>>>(d_bin.get(), 3, hout.get(), bout2.get());
  const std::vector<unsigned short> bb = bout2.read();
  EXPECT_EQ(bb[0], 0x3f80);  // rn: to even
  EXPECT_EQ(bb[3], 0x3f81);  // ru
  EXPECT_EQ(bb[4], 0x7f80);  // rn: infinity
  EXPECT_EQ(bb[5], 0x7f7f);  // rz: the largest finite value
  EXPECT_EQ(bb[10], 0xbf81); // rd of a negative tie: away from zero
  EXPECT_EQ(b[4 * 20 + 0], 0x7fff);  // NaN
  EXPECT_EQ(b[4 * 17 + 0], 0x8000);  // -0
}

TEST_F(KernelHalf, FloatToNarrowMatchesTheHostOracleOverAMillionPatterns) {
  constexpr unsigned kCount = 1u << 20;
  const unsigned stride = 4093, offset = 12345;  // odd stride: every exponent and many mantissas
  DeviceArray<unsigned short> h(kCount), b(kCount);
  float_sweep<<<kCount / 256, 256>>>(stride, offset, h.get(), b.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned short> gh = h.read(), gb = b.read();
  int wrong = 0;
  for (unsigned i = 0; i < kCount; ++i) {
    const float f = float_of(i * stride + offset);
    const uint16_t want = std::isnan(f) ? 0x7fff : f16_bits(static_cast<_Float16>(f));
    if (gh[i] != want || gb[i] != ref_bf16(f)) {
      if (++wrong < 5) ADD_FAILURE() << std::hex << "float bits " << i * stride + offset << ": half " << gh[i]
                                      << " want " << want << ", bfloat16 " << gb[i] << " want " << ref_bf16(f);
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST_F(KernelHalf, EveryHalfAndBfloat16WidensExactly) {
  DeviceArray<float> h(65536), b(65536);
  narrow_to_float<<<256, 256>>>(h.get(), b.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<float> gh = h.read(), gb = b.read();
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = static_cast<float>(f16_of(static_cast<uint16_t>(i)));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(gh[i])) << i;
    } else {
      ASSERT_EQ(bits_of(gh[i]), bits_of(want)) << i;
    }
    const float wb = float_of(i << 16);
    if (std::isnan(wb)) EXPECT_TRUE(std::isnan(gb[i])) << i;
    else ASSERT_EQ(bits_of(gb[i]), bits_of(wb)) << i;
  }
}

TEST_F(KernelHalf, ArithmeticIsCorrectlyRoundedOnce) {
  constexpr int kN = 1 << 16;
  std::vector<unsigned short> a(kN), b(kN), c(kN);
  uint32_t s = 12345;
  auto next = [&] { s = s * 1664525u + 1013904223u; return static_cast<unsigned short>(s >> 16); };
  for (int i = 0; i < kN; ++i) a[i] = next(), b[i] = next(), c[i] = next();
  a[0] = 0x3c00, b[0] = 0x1400, c[0] = 0x8000;  // fma(1, 2^-10, -0) = 2^-10
  a[1] = 0x7bff, b[1] = 0x7bff, c[1] = 0xfbff;  // the fma's product overflows half, not the sum
  DeviceArray<unsigned short> da(a), db(b), dc(c), out(6 * kN);
  half_arith<<<kN / 256, 256>>>(da.get(), db.get(), dc.get(), kN, out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned short> got = out.read();
  int wrong = 0;
  for (int i = 0; i < kN; ++i) {
    const _Float16 x = f16_of(a[i]), y = f16_of(b[i]), z = f16_of(c[i]);
    const __float128 exact_fma = static_cast<__float128>(x) * static_cast<__float128>(y) + static_cast<__float128>(z);
    const _Float16 want[6] = {static_cast<_Float16>(x + y), static_cast<_Float16>(x - y), static_cast<_Float16>(x * y),
                              static_cast<_Float16>(x / y), static_cast<_Float16>(exact_fma),
                              static_cast<_Float16>(std::sqrt(std::fabs(static_cast<double>(x))))};
    for (int k = 0; k < 6; ++k) {
      const uint16_t w = std::isnan(static_cast<float>(want[k])) ? 0x7fff : f16_bits(want[k]);
      if (got[6 * i + k] != w && ++wrong < 5) {
        ADD_FAILURE() << std::hex << "op " << k << " of " << a[i] << ", " << b[i] << ", " << c[i] << ": "
                      << got[6 * i + k] << " want " << w;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(got[4], 0x1400);
  EXPECT_EQ(got[6 + 4], 0x7c00);  // 65504 * 65504 - 65504 overflows
}

TEST_F(KernelHalf, Bfloat16ArithmeticIsCorrectlyRoundedOnce) {
  constexpr int kN = 1 << 14;
  std::vector<unsigned short> a(kN), b(kN);
  uint32_t s = 777;
  auto next = [&] { s = s * 1664525u + 1013904223u; return static_cast<unsigned short>(s >> 16); };
  for (int i = 0; i < kN; ++i) a[i] = next(), b[i] = next();
  DeviceArray<unsigned short> da(a), db(b), out(4 * kN);
  bf16_arith<<<kN / 256, 256>>>(da.get(), db.get(), kN, out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned short> got = out.read();
  for (int i = 0; i < kN; ++i) {
    const float x = float_of(static_cast<uint32_t>(a[i]) << 16), y = float_of(static_cast<uint32_t>(b[i]) << 16);
    // float results rounded once more to bfloat16 are correctly rounded (24 >= 2 * 8 + 2 bits).
    ASSERT_EQ(got[4 * i + 0], ref_bf16(x + y)) << i;
    ASSERT_EQ(got[4 * i + 1], ref_bf16(y * x)) << i;
    ASSERT_EQ(got[4 * i + 2], ref_bf16(x - y)) << i;
    ASSERT_EQ(got[4 * i + 3], ref_bf16(x / y)) << i;
  }
}

TEST_F(KernelHalf, IntegerConversionsComparisonsAndFunctions) {
  DeviceArray<long long> out(64);
  half_misc<<<1, 1>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<long long> g = out.read();
  const std::vector<long long> want = {2, 4, -2, -3, -2, INT_MAX, INT_MIN, 0, LLONG_MIN, 0, 32767,
                                       0x7bff, 0x7c00, 0x7bff, 0xfc00, 0x6800, 0x6801, 0x5d81, -4,
                                       2 + 8 + 16 + 32 + 64 + 128 + 256, -9, 0x4000, 0x7fff, 0x3c00,
                                       0x3c00, 0, 0, 0x8000, 0x3800, 0xc000, 0x4000, 0x3c00, 0x4700,
                                       (0x4280ll << 16) | 0x4500, 0xffff0000ll, 1, 503, 5};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(g[i], want[i]) << "item " << i;
}

TEST_F(KernelHalf, ShufflesMoveHalfAndHalf2) {
  DeviceArray<unsigned short> out(32);
  DeviceArray<unsigned> out2(32);
  half_shuffle<<<1, 32>>>(out.get(), out2.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<unsigned short> g = out.read();
  const std::vector<unsigned> g2 = out2.read();
  for (unsigned t = 0; t < 32; ++t) {
    const unsigned src = t < 31 ? t + 1 : t;  // shfl_down keeps the last lane's own value
    EXPECT_EQ(g[t], f16_bits(static_cast<_Float16>(static_cast<float>(src)))) << t;
    const unsigned x = t ^ 3;
    const uint32_t lo = f16_bits(static_cast<_Float16>(static_cast<float>(x)));
    const uint32_t hi = f16_bits(static_cast<_Float16>(-static_cast<float>(x)));
    EXPECT_EQ(g2[t], (hi << 16) | lo) << t;
  }
}

}  // namespace
}  // namespace minicuda::kernels_test
