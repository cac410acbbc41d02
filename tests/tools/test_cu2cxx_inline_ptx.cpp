// cu2cxx: inline PTX in device code (tools/cu2cxx/inline_ptx.cpp; contract: inline_ptx.h). The
// emitted forms, the exact errors for what is not supported, host asm left alone, line counts
// kept and region fission refused for a kernel holding asm. Values: tests/kernels/test_inline_ptx.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "translate.h"

namespace {

using minicuda::cu2cxx::format_error;
using minicuda::cu2cxx::Translation;
using minicuda::cu2cxx::translate;

std::size_t lines_of(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(Cu2cxxInlinePtx, LaneIdBecomesTheIntrinsicOnTheSameLine) {
  const std::string src =
      "__device__ unsigned lane() {\n"
      "  unsigned l;\n"
      "  asm volatile(\"mov.u32 %0, %%laneid;\"\n"
      "               : \"=r\"(l));\n"
      "  return l;\n"
      "}\n";
  const Translation t = translate(src, "/src/a.cu");
  ASSERT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("#include \"minicuda/inline_ptx.h\"\n#line 1 \"/src/a.cu\"\n"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("  { uint32_t mc_asm_0 = uint32_t(); mc_asm_0 = static_cast<uint32_t>(::minicuda::inline_ptx::laneid()); "
                        "(l) = (std::remove_reference_t<decltype(l)>)(mc_asm_0); }\n\n  return l;\n"),
            std::string::npos)
      << t.text;
  EXPECT_EQ(t.text.find("asm volatile"), std::string::npos);
}

TEST(Cu2cxxInlinePtx, HostAsmIsLeftAloneAndNeedsNoHelperHeader) {
  const std::string src = "void spin() { asm volatile(\"pause\"); }\n__host__ __device__ void both() { asm(\"nop\"); }\n";
  const Translation t = translate(src, "/src/h.cu");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("void spin() { asm volatile(\"pause\"); }\n__host__ __device__ void both() { asm(\"nop\"); }\n"),
            std::string::npos);
  EXPECT_EQ(t.text.find("inline_ptx.h"), std::string::npos);
}

TEST(Cu2cxxInlinePtx, X86RegisterConstraintsMarkHostAssemblyInAKernel) {
  const std::string src =
      "__global__ void trap() {\n"
      "  unsigned long long a = 0, d = 1;\n"
      "  asm volatile(\"divl %%ecx\" : \"+a\"(a), \"+d\"(d) : \"c\"(1ull) : \"cc\");\n"
      "  register unsigned long long r9 asm(\"r9\") = 1;\n"
      "}\n";
  const Translation t = translate(src, "/src/x.cu");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("asm volatile(\"divl %%ecx\" : \"+a\"(a), \"+d\"(d) : \"c\"(1ull) : \"cc\");"), std::string::npos);
  EXPECT_NE(t.text.find("asm(\"r9\") = 1;"), std::string::npos);
}

TEST(Cu2cxxInlinePtx, UnsupportedInstructionIsAnErrorNamingItAndTheLine) {
  const std::string src =
      "__global__ void k(float* o, float x) {\n"
      "  float r;\n"
      "  asm(\"tex.2d.v4.f32.f32 {%0, %0, %0, %0}, [tex, {%1, %1}];\" : \"=f\"(r) : \"f\"(x));\n"
      "  o[0] = r;\n"
      "}\n";
  const Translation t = translate(src, "/src/t.cu");
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_EQ(t.errors[0].line, 3);
  EXPECT_EQ(format_error("/src/t.cu", t.errors[0]),
            "/src/t.cu:3: error: cu2cxx: inline PTX instruction 'tex.2d.v4.f32.f32 {%0, %0, %0, %0}, [tex, {%1, %1}]' "
            "at /src/t.cu:3 is not supported");
}

TEST(Cu2cxxInlinePtx, WhatTheTranslatorCannotReadIsAnErrorToo) {
  const std::string src =
      "__device__ void f(unsigned* p) {\n"
      "  asm(\"mov.u32 %0, %%smid;\" : \"=r\"(p[0]));\n"
      "  asm(\"mov.u32 %[x], 1;\" : [x] \"=r\"(p[1]));\n"
      "  asm(\"add.u32 %0, %1, 1;\" : \"=m\"(p[2]) : \"r\"(p[3]));\n"
      "  asm(\"shfl.sync.idx.b32 %0, %1, 0, %2, -1;\" : \"=r\"(p[4]) : \"r\"(p[5]), \"r\"(p[6]));\n"
      "}\n";
  const Translation t = translate(src, "/src/e.cu");
  ASSERT_EQ(t.errors.size(), 4u);
  EXPECT_EQ(t.errors[0].message, "inline PTX instruction 'mov.u32 %0, %smid' at /src/e.cu:2 is not supported");
  EXPECT_EQ(t.errors[1].message, "inline PTX at /src/e.cu:3 is not supported: an operand list it cannot read");
  EXPECT_EQ(t.errors[2].message, "inline PTX at /src/e.cu:4 is not supported: output constraint \"=m\"");
  // A shuffle whose width operand is not an immediate: its segment cannot be known.
  EXPECT_EQ(t.errors[3].message, "inline PTX instruction 'shfl.sync.idx.b32 %0, %1, 0, %2, -1' at /src/e.cu:5 is not supported");
}

TEST(Cu2cxxInlinePtx, CarryChainAndPredicateBlockKeepTheLineCount) {
  const std::string src =
      "__global__ void k(unsigned* o, unsigned a, unsigned b) {\n"
      "  unsigned lo, hi;\n"
      "  asm(\"add.cc.u32 %0, %2, %3;\\n\\t\"\n"
      "      \"addc.u32 %1, 0, 0;\"\n"
      "      : \"=r\"(lo), \"=r\"(hi) : \"r\"(a), \"r\"(b));\n"
      "  asm(\"{ .reg .pred p; setp.ne.u32 p, %1, 0; @p mov.u32 %0, 1; }\" : \"+r\"(lo) : \"r\"(hi));\n"
      "  o[0] = lo; o[1] = hi;\n"
      "}\n";
  const Translation t = translate(src, "/src/c.cu");
  ASSERT_TRUE(t.errors.empty());
  const std::size_t at = t.text.find("#line 1 \"/src/c.cu\"\n");
  const std::string body = t.text.substr(at, t.text.find("// Appended") - at);
  EXPECT_EQ(lines_of(body), lines_of(src) + 1) << body;
  EXPECT_NE(body.find("mc_asm_cc = static_cast<uint32_t>(mc_asm_w >> 32) & 1u;"), std::string::npos) << body;
  EXPECT_NE(body.find("bool mc_asm_r_p = 0;"), std::string::npos) << body;
  EXPECT_NE(body.find("if (mc_asm_r_p) { mc_asm_0 = static_cast<uint32_t>(static_cast<uint32_t>(1ull)); }"), std::string::npos)
      << body;
  EXPECT_NE(body.find("  o[0] = lo; o[1] = hi;\n"), std::string::npos);
}

TEST(Cu2cxxInlinePtx, AKernelWithAsmIsNotSplitIntoRegions) {
  const std::string src =
      "__device__ unsigned sh(unsigned v) {\n"
      "  unsigned r;\n"
      "  asm volatile(\"shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;\" : \"=r\"(r) : \"r\"(v));\n"
      "  return r;\n"
      "}\n"
      "__global__ void direct(unsigned* o) { __syncthreads(); asm(\"bar.sync 0;\"); o[0] = 1; }\n"
      "__global__ void through(unsigned* o) { o[threadIdx.x] = 1; __syncthreads(); o[0] = sh(o[1]); }\n";
  const Translation t = translate(src, "/src/f.cu");
  ASSERT_TRUE(t.errors.empty());
  ASSERT_EQ(t.fission.size(), 2u);
  EXPECT_FALSE(t.fission[0].split);
  EXPECT_NE(t.fission[0].reason.find("'asm'"), std::string::npos) << t.fission[0].reason;
  EXPECT_FALSE(t.fission[1].split);
  EXPECT_NE(t.fission[1].reason.find("sh"), std::string::npos) << t.fission[1].reason;
  EXPECT_NE(t.text.find("__syncthreads(); }"), std::string::npos);  // bar.sync 0
  EXPECT_NE(t.text.find("__shfl_xor_sync(static_cast<uint32_t>(0xffffffffull), mc_asm_1, static_cast<int32_t>(1ull), 32)"),
            std::string::npos)
      << t.text;
}

TEST(Cu2cxxInlinePtx, OperandsCarryTheOtherRewrites) {
  const std::string src =
      "__device__ unsigned g;\n"
      "__global__ void k() { asm(\"add.u32 %0, %0, 1;\" : \"+r\"(g)); }\n";
  const Translation t = translate(src, "/src/v.cu");
  ASSERT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("uint32_t mc_asm_0 = (uint32_t)((*g__device));"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("((*g__device)) = "), std::string::npos) << t.text;
}

}  // namespace
