// cu2cxx pass 7: __device__ and __constant__ variables (tools/cu2cxx/variables.cpp; contract:
// translate.h, rewrites.h). Exact emitted text, with the line count kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "translate.h"

namespace {

using minicuda::cu2cxx::Translation;
using minicuda::cu2cxx::translate;

std::size_t lines_of(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The translated source between the #line header and the appended block.
std::string body_of(const Translation& t, std::string_view source) {
  const std::string marker = "#line 1 \"/src/v.cu\"\n";
  const std::size_t at = t.text.find(marker);
  EXPECT_NE(at, std::string::npos) << t.text;
  std::string rest = t.text.substr(at + marker.size());
  const std::size_t block = rest.find("// Appended by minicuda_cu2cxx");
  if (block != std::string::npos) rest.resize(block);
  EXPECT_EQ(lines_of(rest), lines_of(source)) << rest;
  return rest;
}

TEST(Cu2cxxVariables, SlotsAfterTheDeclarationsAndDeviceUsesThroughThem) {
  const std::string src =
      "__device__ int g[4];\n"
      "__constant__ float c = 2.0f;\n"
      "namespace ns { __device__ double d; }\n"
      "__device__ int twice() { return 2 * g[0]; }\n"
      "__global__ void k(float* o) { o[0] = c + g[1] + o->c + ns::d; }\n"
      "__host__ __device__ int both() { return g[0]; }\n"
      "void host() { g[0] = 1; }\n";
  const Translation t = translate(src, "/src/v.cu");
  EXPECT_EQ(body_of(t, src),
            "__device__ int g[4]; static decltype(g)* g__device = nullptr;\n"
            "__constant__ float c = 2.0f; static const decltype(c)* c__device = nullptr;\n"
            "namespace ns { __device__ double d; static decltype(d)* d__device = nullptr; }\n"
            "__device__ int twice() { return 2 * (*g__device)[0]; }\n"
            "__global__ void k(float* o) { o[0] = (*c__device) + (*g__device)[1] + o->c + ns::d; }\n"
            "__host__ __device__ int both() { return g[0]; }\n"
            "void host() { g[0] = 1; }\n");
  EXPECT_EQ(t.variables, (std::vector<std::string>{"::g", "::c", "::ns::d"}));
  EXPECT_NE(t.text.find("MINICUDA_REGISTER_MODULE(\"v.cu\", MINICUDA_KERNEL(::k), MINICUDA_VARIABLE(::g, ::g__device, 0), "
                        "MINICUDA_VARIABLE(::c, ::c__device, 1), MINICUDA_VARIABLE(::ns::d, ::ns::d__device, 0))\n"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("static_assert(sizeof(::c) <= 65536, \"cu2cxx: the __constant__ variables of v.cu exceed the "
                        "64 KiB constant bank (nvcc rejects this file too)\");\n"),
            std::string::npos)
      << t.text;
}

TEST(Cu2cxxVariables, WhatIsNotAModuleVariableIsLeftAlone) {
  const std::string src =
      "extern __device__ int e;\n"
      "__device__ __managed__ int m;\n"
      "template <class T> __device__ T tv;\n"
      "__device__ int f(int x);\n"
      "__device__ __align__(8) int aligned[2];\n"
      "struct S { __device__ int member() { return 0; } };\n";
  const Translation t = translate(src, "/src/v.cu");
  EXPECT_EQ(t.variables, std::vector<std::string>{"::aligned"});
  EXPECT_TRUE(t.warnings.empty());
}

TEST(Cu2cxxVariables, SeveralVariablesInOneDeclarationAreReported) {
  const Translation t = translate("__device__ int a, b;\n", "/src/v.cu");
  EXPECT_TRUE(t.variables.empty());
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0].line, 1);
  EXPECT_NE(t.warnings[0].message.find("more than one variable"), std::string::npos);
}

TEST(Cu2cxxVariables, AFileWithVariablesOnlyIsStillRegistered) {
  const Translation t = translate("__device__ int only = 3;\n", "/src/v.cu");
  EXPECT_NE(t.text.find("MINICUDA_REGISTER_MODULE(\"v.cu\", MINICUDA_VARIABLE(::only, ::only__device, 0))"),
            std::string::npos)
      << t.text;
  EXPECT_EQ(t.text.find("static_assert"), std::string::npos);
}

}  // namespace
