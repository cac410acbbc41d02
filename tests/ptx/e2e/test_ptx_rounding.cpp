// nvcc's PTX for the rounding-mode intrinsics (tests/data/ptx/src/rounding.cu: .rn/.rz/.rm/.rp on
// add, sub, mul, fma, div, rcp, sqrt and cvt, f32 and f64) run by the SIMT executor gives, bit
// for bit, what the C++ kernels' own intrinsics (crt/device_rounding_intrinsics.h, which
// cu2cxx's kernels call) give for the same source. The operands are chosen so that the four
// modes give different answers. Half-precision arithmetic is refused at load, naming it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "crt/device_rounding_intrinsics.h"
#include "minicuda/ptx/ptx.h"
#include "ptx_module.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

std::string fixture(const std::string& name) {
  return minicuda::gpu::testing::read_text(std::string(MINICUDA_PTX_DATA_DIR) + "/" + name + ".ptx");
}

std::vector<uint64_t> params(const ptx::CompiledKernel& k, const std::vector<uint64_t>& values) {
  std::vector<uint64_t> block((k.param_bytes + 7) / 8 + 1, 0);
  for (size_t i = 0; i < values.size() && i < k.param_offsets.size(); ++i)
    std::memcpy(reinterpret_cast<char*>(block.data()) + k.param_offsets[i], &values[i], k.param_sizes[i]);
  return block;
}

template <class T>
uint64_t bits_of(T v) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
  else return std::bit_cast<uint64_t>(v);
}

// What rounding.cu computes for thread i, through the C++ intrinsics.
void expected(float x, float y, double u, double v, float* f, int* q, double* g, long long* r) {
  int k = 0;
#define F(m)                          \
  f[k] = __fadd##m(x, y);             \
  f[k + 1] = __fsub##m(x, y);         \
  f[k + 2] = __fmul##m(x, y);         \
  f[k + 3] = __fmaf##m(x, y, 0.1f);   \
  f[k + 4] = __fdiv##m(x, y);         \
  f[k + 5] = __frcp##m(y);            \
  f[k + 6] = __fsqrt##m(x);           \
  g[k] = __dadd##m(u, v);             \
  g[k + 1] = __dsub##m(u, v);         \
  g[k + 2] = __dmul##m(u, v);         \
  g[k + 3] = __fma##m(u, v, 0.1);     \
  g[k + 4] = __ddiv##m(u, v);         \
  g[k + 5] = __drcp##m(v);            \
  g[k + 6] = __dsqrt##m(u);           \
  k += 7;
  F(_rn) F(_rz) F(_ru) F(_rd)
#undef F
  k = 0;
#define C(m)                                                              \
  q[k] = std::bit_cast<int>(__double2float##m(u));                        \
  q[k + 1] = std::bit_cast<int>(__int2float##m(std::bit_cast<int>(x)));   \
  q[k + 2] = __float2int##m(x * 1.0e6f);                                  \
  k += 3;
  C(_rn) C(_rz) C(_ru) C(_rd)
#undef C
  q[12] = std::bit_cast<int>(__ull2float_rz(std::bit_cast<unsigned long long>(u)));
  q[13] = __double2int_rd(v * 1.0e9);
  r[0] = std::bit_cast<long long>(__ll2double_rz(std::bit_cast<long long>(u) ^ 0x1234567ll));
  r[1] = std::bit_cast<long long>(__ll2double_ru(std::bit_cast<long long>(v)));
  r[2] = __double2ll_rd(u * 1.0e12);
  r[3] = __double2ll_ru(v * 1.0e12);
  r[4] = __float2ll_rz(x * 1.0e10f);
  r[5] = std::bit_cast<long long>(__uint2double_rn(std::bit_cast<unsigned>(y)));
}

class PtxRounding : public ::testing::TestWithParam<unsigned> {};

TEST_P(PtxRounding, EveryModeOfEveryOperationMatchesTheCxxIntrinsicsBitForBit) {
  ptx::CompileResult cr = ptx::compile(fixture("corpus/rounding"), {});
  ASSERT_EQ(cr.status, ptx::Status::Ok) << cr.error_log;
  ASSERT_EQ(cr.kernels.size(), 1u);
  const ptx::CompiledKernel& k = cr.kernels[0];
  // Operands whose results are inexact in every operation, both signs, tiny, huge, subnormal
  // and special values.
  std::vector<float> a = {1.0f, -1.0f, 3.0f, 1e-3f, -7.25f, 2.0f, 1e30f, -1e-40f, 0.0f, -0.0f,
                          std::numeric_limits<float>::infinity(), std::nanf(""), 16777217.0f, 0.7f,
                          -3.3e-39f, 123456.789f};
  std::vector<float> b = {3.0f, 7.0f, -11.0f, 3e-3f, 0.1f, 3.0f, 1e10f, 3.0f, -5.0f, 3.0f,
                          2.0f, 1.0f, -1.5f, 0.3f, 1e-5f, -9.87f};
  const int n = static_cast<int>(a.size());
  std::vector<double> c(n), d(n);
  for (int i = 0; i < n; ++i) {
    c[i] = static_cast<double>(a[i]) / 3.0 + (i % 2 ? -1e-300 : 1e-17);
    d[i] = 1.0 / (static_cast<double>(i) + 0.3) - 0.9;
  }
  c[6] = 1e308, d[6] = 1e10;  // overflow: inf or the largest finite, by mode
  c[7] = std::numeric_limits<double>::denorm_min(), d[7] = 0.5;
  std::vector<float> o(28 * n, -1);
  std::vector<int> oi(14 * n, -1);
  std::vector<double> p(28 * n, -1);
  std::vector<long long> pl(6 * n, -1);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(32);
  g.params = params(k, {address_of(a), address_of(b), address_of(c), address_of(d), address_of(o), address_of(oi),
                        address_of(p), address_of(pl), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(*static_cast<const NvSassProgram*>(k.sass.get()), GetParam()).has_value());
  int differing_modes = 0;
  for (int i = 0; i < n; ++i) {
    float ef[28];
    int eq[14];
    double eg[28];
    long long er[6];
    expected(a[i], b[i], c[i], d[i], ef, eq, eg, er);
    for (int j = 0; j < 28; ++j) {
      EXPECT_EQ(bits_of(o[28 * i + j]), bits_of(ef[j])) << "thread " << i << " f32 result " << j;
      EXPECT_EQ(bits_of(p[28 * i + j]), bits_of(eg[j])) << "thread " << i << " f64 result " << j;
      if (j < 7 && bits_of(ef[j]) != bits_of(ef[j + 7])) ++differing_modes;  // rn vs rz
    }
    for (int j = 0; j < 14; ++j) EXPECT_EQ(oi[14 * i + j], eq[j]) << "thread " << i << " int result " << j;
    for (int j = 0; j < 6; ++j) EXPECT_EQ(pl[6 * i + j], er[j]) << "thread " << i << " 64-bit result " << j;
  }
  EXPECT_GT(differing_modes, 20);  // the operands do tell the modes apart
}

INSTANTIATE_TEST_SUITE_P(Threads, PtxRounding, ::testing::Values(1u, 3u));

TEST(PtxRefusal, HalfPrecisionSpecialFunctionsAreRefusedAtLoadNamingTheInstruction) {
  ptx::CompileResult cr = ptx::compile(fixture("refused/half_math"), {});
  EXPECT_NE(cr.status, ptx::Status::Ok);
  EXPECT_NE(cr.error_log.find("'ex2.approx.f16' (half-precision arithmetic) is not supported by minicuda's JIT"),
            std::string::npos)
      << cr.error_log;
}

}  // namespace
