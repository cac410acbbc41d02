// tools/cu2cxx region fission of kernels that reach barriers through calls (fission_inline.h,
// docs/tools/cu2cxx.md "Barriers in device functions"): the shapes that are inlined and split,
// and every shape that keeps fibers, with its reason. tests/kernels/test_fission_inline.cu runs
// the split ones; the fission gate compares them with fibers.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "translate.h"

namespace {

using minicuda::cu2cxx::translate;

// The fission note of the file's kernel `k`.
minicuda::cu2cxx::FissionNote note_of(std::string_view source) {
  const minicuda::cu2cxx::Translation t = translate(source, "/src/f.cu");
  for (const auto& n : t.fission)
    if (n.kernel == "::k") return n;
  ADD_FAILURE() << "no kernel k";
  return {};
}

void expect_split(std::string_view source) {
  const auto n = note_of(source);
  EXPECT_TRUE(n.split) << n.reason << "\n" << source;
}

void expect_fibers(std::string_view source, std::string_view why) {
  const auto n = note_of(source);
  EXPECT_FALSE(n.split) << source;
  EXPECT_NE(n.reason.find(why), std::string::npos) << "reason: " << n.reason;
}

constexpr std::string_view kSum =
    "__device__ int sum(int* s, int v) {\n"
    "  s[threadIdx.x] = v;\n"
    "  __syncthreads();\n"
    "  int total = 0;\n"
    "  for (unsigned i = 0; i < blockDim.x; ++i) total += s[i];\n"
    "  __syncthreads();\n"
    "  return total;\n"
    "}\n";

std::string with_sum(std::string_view kernel) { return std::string(kSum) + std::string(kernel); }

TEST(Cu2cxxFissionInline, ShapesThatAreInlinedAndSplit) {
  // A declaration, an assignment, a compound assignment, an expression around the call.
  expect_split(with_sum("__global__ void k(int* o) { __shared__ int s[256]; int t = sum(s, 1); o[threadIdx.x] = t; }"));
  expect_split(with_sum("__global__ void k(int* o) { __shared__ int s[256]; int t; t = sum(s, 1); o[0] = t; }"));
  expect_split(with_sum("__global__ void k(int* o) { __shared__ int s[256]; int t = 2; t += sum(s, t); o[0] = t; }"));
  expect_split(with_sum("__global__ void k(int* o, int n) { __shared__ int s[256]; int a = n;\n"
                        "  int t = 2 * sum(s, a) - a + n; o[0] = t; }"));
  // The call as a statement, inside a braced loop and if around it.
  expect_split(with_sum("__global__ void k(int* o, int n) { __shared__ int s[256];\n"
                        "  for (int i = 0; i < n; ++i) { sum(s, i); }\n"
                        "  if (n > 2) { o[threadIdx.x] = sum(s, n); } else { sum(s, 0); } }"));
  // Through two functions; a void one with a reference parameter.
  expect_split(with_sum("__device__ int twice(int* s, int v) { return sum(s, v) + v; }\n"
                        "__device__ void bump(int* s, int& x) { x += sum(s, x); }\n"
                        "__global__ void k(int* o) { __shared__ int s[256]; int x = twice(s, 3); bump(s, x); o[0] = x; }"));
}

TEST(Cu2cxxFissionInline, TheBlockFunctionHoldsTheInlinedBody) {
  const auto t = translate(with_sum("__global__ void k(int* o) { __shared__ int s[256]; int t = sum(s, 1); o[0] = t; }"),
                           "/src/f.cu");
  const std::size_t regions = t.text.find("static bool k__regions");
  ASSERT_NE(regions, std::string::npos);
  const std::string block = t.text.substr(regions);
  EXPECT_NE(block.find("minicuda_result_1"), std::string::npos);
  EXPECT_NE(block.find("total__inl2"), std::string::npos);
  EXPECT_NE(block.find("int * s__inl2 = s;"), std::string::npos) << block;
  // The kernel itself still calls the function (the fiber path).
  EXPECT_NE(t.text.substr(0, regions).find("int t = sum(s, 1);"), std::string::npos);
  // A #line names the function's own lines inside the copy.
  EXPECT_NE(block.find("#line 2 \"/src/f.cu\""), std::string::npos);
}

TEST(Cu2cxxFissionInline, ShapesThatKeepFibers) {
  const std::string k = "__global__ void k(int* o, int n) { __shared__ int s[256]; ";
  expect_fibers(with_sum(k + "if (sum(s, 1) > 0) { o[0] = 1; } }"), "in a condition or loop header");
  expect_fibers(with_sum(k + "int t = sum(s, 1) + sum(s, 2); o[0] = t; }"), "calls functions with barriers twice");
  expect_fibers(with_sum(k + "int t = sum(s, 1) + s[0]; o[0] = t; }"), "reads s, which the call might change");
  expect_fibers(with_sum(k + "int t = sum(s, 1) + o[0]; o[0] = t; }"), "has '['");
  expect_fibers(with_sum(k + "int t = sum(s, 1) + *o; o[0] = t; }"), "reads through a pointer");
  expect_fibers(with_sum(k + "int a = 1; int* p = &a; int t = sum(s, 1) + a; o[0] = t + *p; }"),
                "reads a, which the call might change");
  expect_fibers(with_sum(k + "int t = n > 0 ? sum(s, 1) : 0; o[0] = t; }"), "has '?'");
  expect_fibers(with_sum(k + "int t = n > 0 && sum(s, 1); o[0] = t; }"), "conditionally");
  expect_fibers(with_sum(k + "int i = 0; int t = sum(s, i++); o[0] = t; }"), "side effect");
  expect_fibers(with_sum(k + "int t = sum(s, o[0]++); o[0] = t; }"), "side effect");
  expect_fibers(with_sum(k + "o[sum(s, 1)] = 1; }"), "expression statement");
  expect_fibers(with_sum(k + "switch (n) { case 1: sum(s, 1); }  }"), "cannot read every declaration of the kernel");
  expect_fibers(with_sum(k + "if (n) sum(s, 1); }"), "without braces");
  expect_fibers(with_sum(k + "int a = 1, t = sum(s, 1); o[0] = a + t; }"), "comma");
  // The function's shape.
  const std::string use = "__global__ void k(int* o) { __shared__ int s[256]; int t = f(s, 1); o[0] = t; }";
  expect_fibers("__device__ int f(int* s, int v) { if (v) { return 1; } __syncthreads(); return v; }\n" + use,
                "returns before its last statement");
  expect_fibers("template <int N> __device__ int f(int* s, int v) { __syncthreads(); return v; }\n" + use, "template");
  expect_fibers("__device__ int& f(int* s, int v) { __syncthreads(); return s[v]; }\n" + use, "result type");
  expect_fibers("__device__ int f(int* s, int v);\n" + use + "\n__device__ int f(int* s, int v) { __syncthreads(); return v; }",
                "defined after the kernel");
  expect_fibers("namespace a { __device__ int f(int* s, int v) { __syncthreads(); return v; } }\nusing a::f;\n" + use,
                "not in the kernel's namespace");
  expect_fibers("__device__ int f(int* s, int v) { __syncthreads(); return v; }\n"
                "__device__ int f(float* s, int v) { __syncthreads(); return v; }\n" + use,
                "defined 2 times");
  expect_fibers("__device__ int f(int s[], int v) { __syncthreads(); return v; }\n" + use, "array");
  expect_fibers("__device__ int f(const int& s, int v) { __syncthreads(); return v; }\n"
                "__global__ void k(int* o) { int a = 1; int t = f(a, 1); o[0] = t; }",
                "by a reference");
  expect_fibers("constexpr int N = 4;\n__device__ int f(int* s, int v) { __syncthreads(); return v + N; }\n"
                "__global__ void k(int* o) { __shared__ int s[256]; int N = 2; int t = f(s, 1); o[0] = t + N; }",
                "reads N, which the kernel declares too");
  expect_fibers("__device__ int f(int* s, int v) { __shared__ int x; x = v; __syncthreads(); return x; }\n"
                "__global__ void k(int* o) { __shared__ int s[256]; int t = f(s, 1); t += f(s, 2); o[0] = t; }",
                "called twice");
  expect_fibers("__device__ void f(int* s) { __syncwarp(); }\n"
                "__global__ void k(int* o) { __shared__ int s[256]; f(s); o[0] = 1; }",
                "no __syncthreads()");
}

TEST(Cu2cxxFissionInline, ResultTypesNotKnownToBeScalarsAreCheckedAtCompileTime) {
  const auto t = translate("typedef unsigned uint_t;\n"
                           "__device__ uint_t f(int* s, int v) { __syncthreads(); return v; }\n"
                           "__global__ void k(int* o) { __shared__ int s[256]; uint_t t = f(s, 1); o[0] = t; }",
                           "/src/f.cu");
  EXPECT_NE(t.text.find("scalar_results<uint_t>"), std::string::npos);
}

}  // namespace
