// Handwritten PTX for what nvcc's default output does not show: .ftz and .sat combined with the
// rounding modes, prmt's six byte-selection modes, and the instructions the JIT refuses at load
// (never run as a no-op or with a different answer).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "crt/device_rounding_intrinsics.h"
#include "minicuda/ptx/ptx.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

const char* const kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

// Runs the one-kernel module `body` (parameters pa, po: two u64 pointers) on 32 threads.
void run(const std::string& body, uint64_t pa, uint64_t po) {
  ptx::CompileResult cr = ptx::compile(std::string(kHeader) + body, {});
  ASSERT_EQ(cr.status, ptx::Status::Ok) << cr.error_log;
  const ptx::CompiledKernel& k = cr.kernels.at(0);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(32);
  g.params.assign((k.param_bytes + 7) / 8 + 1, 0);
  std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(0), &pa, 8);
  std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(1), &po, 8);
  ASSERT_FALSE(g.run(*static_cast<const NvSassProgram*>(k.sass.get()), 1).has_value());
}

float ftz(float v) { return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v; }
float sat(float v) { return std::isnan(v) ? 0.0f : std::fmin(std::fmax(v, 0.0f), 1.0f); }

TEST(PtxModifiers, FtzAndSatCombineWithEveryRoundingMode) {
  const std::string body = R"(.visible .entry k(.param .u64 pa, .param .u64 po) {
  .reg .b32 %r<2>; .reg .f32 %f<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pa]; ld.param.u64 %rd2, [po];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8; add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4]; ld.global.f32 %f2, [%rd4+4];
  mul.wide.u32 %rd5, %r1, 32; add.s64 %rd6, %rd2, %rd5;
  add.rz.ftz.f32 %f3, %f1, %f2;
  mul.rp.sat.f32 %f4, %f1, %f2;
  fma.rm.ftz.sat.f32 %f5, %f1, %f2, %f2;
  div.rp.ftz.f32 %f6, %f1, %f2;
  sqrt.rm.ftz.f32 %f7, %f1;
  rcp.rz.ftz.f32 %f8, %f2;
  sub.rm.sat.f32 %f9, %f1, %f2;
  mul.rz.ftz.f32 %f10, %f1, %f2;
  st.global.f32 [%rd6], %f3; st.global.f32 [%rd6+4], %f4; st.global.f32 [%rd6+8], %f5;
  st.global.f32 [%rd6+12], %f6; st.global.f32 [%rd6+16], %f7; st.global.f32 [%rd6+20], %f8;
  st.global.f32 [%rd6+24], %f9; st.global.f32 [%rd6+28], %f10;
  ret;
})";
  const float sub = 3e-39f;  // subnormal in f32
  std::vector<float> in = {1.0f, 3.0f,   0.3f, 0.7f,  sub, 1.0f,   1.5f, sub,   -0.3f, 0.7f,  0.9f, 0.2f,
                           2.0f, 1e-20f, 1e-20f, 1e-19f, 7.0f, -3.0f, std::nanf(""), 1.0f, 0.999f, 1.001f,
                           1e-30f, 1e-10f};
  in.resize(64, 0.5f);
  for (int i = 24; i < 64; ++i) in[i] = static_cast<float>(i % 7) / 3.0f - 0.6f;
  std::vector<float> out(8 * 32, -7.0f);
  run(body, address_of(in), address_of(out));
  for (int t = 0; t < 32; ++t) {
    const float x = ftz(in[2 * t]), y = ftz(in[2 * t + 1]), rx = in[2 * t], ry = in[2 * t + 1];
    const float want[8] = {ftz(__fadd_rz(x, y)),         sat(__fmul_ru(rx, ry)), sat(ftz(__fmaf_rd(x, y, y))),
                           ftz(__fdiv_ru(x, y)),         ftz(__fsqrt_rd(x)),     ftz(__frcp_rz(y)),
                           sat(__fsub_rd(rx, ry)),       ftz(__fmul_rz(x, y))};
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(std::bit_cast<uint32_t>(out[8 * t + j]), std::bit_cast<uint32_t>(want[j])) << "thread " << t << " result " << j;
  }
}

TEST(PtxModifiers, PrmtSelectsBytesInEachOfItsModes) {
  const std::string body = R"(.visible .entry k(.param .u64 pa, .param .u64 po) {
  .reg .b32 %r<12>; .reg .b64 %rd<8>;
  ld.param.u64 %rd2, [po]; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 24; add.s64 %rd6, %rd2, %rd5;
  mov.b32 %r2, 0x33221100; mov.b32 %r3, 0x77665544;
  prmt.b32.f4e %r4, %r2, %r3, %r1;
  prmt.b32.b4e %r5, %r2, %r3, %r1;
  prmt.b32.rc8 %r6, %r2, %r3, %r1;
  prmt.b32.ecl %r7, %r2, %r3, %r1;
  prmt.b32.ecr %r8, %r2, %r3, %r1;
  prmt.b32.rc16 %r9, %r2, %r3, %r1;
  st.global.u32 [%rd6], %r4; st.global.u32 [%rd6+4], %r5; st.global.u32 [%rd6+8], %r6;
  st.global.u32 [%rd6+12], %r7; st.global.u32 [%rd6+16], %r8; st.global.u32 [%rd6+20], %r9;
  ret;
})";
  std::vector<uint32_t> out(6 * 32, 0xDEADBEEF);
  run(body, 0, address_of(out));
  // The PTX ISA's tables: the source byte of d.b3 d.b2 d.b1 d.b0 per mode and selector c & 3.
  const char* const table[6][4] = {{"3210", "4321", "5432", "6543"},  // f4e
                                   {"5670", "6701", "7012", "0123"},  // b4e
                                   {"0000", "1111", "2222", "3333"},  // rc8
                                   {"3210", "3211", "3222", "3333"},  // ecl
                                   {"0000", "1110", "2210", "3210"},  // ecr
                                   {"1010", "3232", "1010", "3232"}};  // rc16
  for (unsigned t = 0; t < 32; ++t)
    for (unsigned m = 0; m < 6; ++m) {
      uint32_t want = 0;
      for (unsigned k = 0; k < 4; ++k) want = (want << 8) | 0x11u * static_cast<uint32_t>(table[m][t & 3][k] - '0');
      EXPECT_EQ(out[6 * t + m], want) << "thread " << t << " mode " << m;
    }
}

// Each of these is refused at load with the PTX instruction named.
TEST(PtxModifiers, WhatTheExecutorDoesNotRunExactlyIsRefusedAtLoad) {
  const struct {
    const char* line;
    const char* named;
  } cases[] = {
      {"cvt.rz.f16.f32 %rs1, %f1;", "'cvt.rz.f16.f32' (this rounding mode to a half-precision type)"},
      {"min.NaN.f16 %rs1, %rs2, %rs3;", "the modifier .NaN of 'min'"},
      {"div.rn.f16 %rs1, %rs2, %rs3;", "'div.rn.f16' (half-precision arithmetic)"},
      {"setp.lt.f16x2 %p0|%p1, %r2, %r3;", "'setp.lt.f16x2' (a comparison of half pairs)"},
      {"ex2.approx.f16 %rs1, %rs2;", "'ex2.approx.f16' (half-precision arithmetic)"},
      {"fma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs0;", "the modifier .relu of 'fma'"},
      {"add.rz.f16x2 %r1, %r2, %r3;", "'add.rz.f16x2' (this rounding mode)"},
  };
  for (const auto& c : cases) {
    const std::string text = std::string(kHeader) +
                             ".visible .entry k() {\n  .reg .b16 %rs<4>; .reg .b32 %r<4>; .reg .f32 %f<2>; .reg .pred %p<2>;\n  " +
                             c.line + "\n  ret;\n}\n";
    ptx::CompileResult cr = ptx::compile(text, {});
    EXPECT_NE(cr.status, ptx::Status::Ok) << c.line;
    EXPECT_NE(cr.error_log.find(std::string(c.named) + " is not supported by minicuda's JIT"), std::string::npos)
        << c.line << "\n" << cr.error_log;
  }
}

}  // namespace

namespace {

// .attribute(.managed) (nvcc's __managed__) is accepted on .global and marks the variable for the
// loader's managed segment; anything else inside .attribute(...) is a syntax error.
TEST(PtxModifiers, ManagedAttributeMarksTheGlobal) {
  ptx::CompileResult cr = ptx::compile(std::string(kHeader) +
                                           ".global .align 4 .u32 plain;\n"
                                           ".global .attribute(.managed) .align 4 .u32 total;\n",
                                       {});
  ASSERT_EQ(cr.status, ptx::Status::Ok) << cr.error_log;
  ASSERT_EQ(cr.globals.size(), 2u);
  EXPECT_FALSE(cr.globals[0].managed);
  EXPECT_TRUE(cr.globals[1].managed);
  EXPECT_EQ(cr.globals[1].size, 4u);
  EXPECT_NE(ptx::compile(std::string(kHeader) + ".global .attribute(.bogus) .u32 x;\n", {}).status, ptx::Status::Ok);
}

}  // namespace
