// tools/cu2cxx region fission of the barrier reductions (docs/tools/cu2cxx.md, "Barrier
// reductions"): __syncthreads_count/_and/_or as statements of their own and in the conditions of
// ifs and loops become seams, what the block function makes of each form, and every form that
// keeps fibers, with its reason. tests/kernels/test_fission_reductions.cu runs the split ones.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>

#include "fission_test_support.h"
#include "translate.h"

namespace {

using minicuda::cu2cxx::Translation;
using namespace minicuda::cu2cxx::testing;

// A barrier reduction of its own is a seam: the region before folds each thread's predicate
// (as the int the built-in takes) into the block's accumulator, reset where that region starts;
// the region after runs the statement with the accumulator in place of the call.
TEST(Cu2cxxFission, BarrierReductionsOfTheirOwnAreSeams) {
  const Translation t = split(
      "__global__ void k(int* out, float x) {\n"
      "  int c = __syncthreads_count(x > 0);\n"
      "  out[threadIdx.x] = __syncthreads_and(threadIdx.x);\n"
      "  __syncthreads_or(1);\n"
      "  out[c] <<= __syncthreads_or(x);\n"
      "}\n");
  for (const char* want : {"int minicuda_reduce_0 = 0; int minicuda_reduce_1 = 0; int minicuda_reduce_2 = 0; "
                           "int minicuda_reduce_3 = 0;",
                           "{ minicuda_reduce_0 = 0; for (", "minicuda_reduce_0 += ::minicuda::fission::predicate(x > 0);",
                           "minicuda_value = minicuda_reduce_0;",  // c lives on: kept per thread
                           "{ minicuda_reduce_1 = 1; for (", "minicuda_reduce_1 &= ::minicuda::fission::predicate(threadIdx.x);",
                           "out[threadIdx.x] = minicuda_reduce_1;", "minicuda_reduce_2 |= ::minicuda::fission::predicate(1);",
                           "minicuda_reduce_3 |= ::minicuda::fission::predicate(x);", "out[c] <<= minicuda_reduce_3;"})
    EXPECT_NE(t.text.find(want), std::string::npos) << want << "\n" << t.text;
  EXPECT_EQ(t.text.find("minicuda_reduce_2;"), std::string::npos) << "a dropped result has no statement after its seam";
  EXPECT_EQ(t.text.find("__syncthreads_", t.text.find("k__regions")), std::string::npos) << t.text;
}

// A loop whose condition is a barrier reduction (`F(P)` or `!F(P)`, nothing else) runs as
// `for (;;)` around its body's regions, the condition's region before them (after, for a
// do-while) and the block's exit on the accumulator; an if on one folds it, then branches once.
TEST(Cu2cxxFission, LoopsAndIfsOnABarrierReductionRunTheirConditionAsARegion) {
  const Translation t = split(
      "__global__ void k(int* p) {\n"
      "  int c = p[threadIdx.x];\n"
      "  while (__syncthreads_or(c > 0)) {\n"
      "    --c;\n"
      "  }\n"
      "  do {\n"
      "    ++c;\n"
      "    __syncthreads();\n"
      "  } while (!__syncthreads_and(c >= 2));\n"
      "  if (!__syncthreads_count(c == 3)) {\n"
      "    p[threadIdx.x] = c;\n"
      "  } else {\n"
      "    p[threadIdx.x] = -c;\n"
      "  }\n"
      "}\n");
  const std::string text = t.text.substr(t.text.find("k__regions("));  // the block function
  const std::size_t first = text.find("{ for (;;) {"), second = text.find("{ for (;;) {", first + 1);
  ASSERT_NE(second, std::string::npos) << text;
  const std::size_t gather0 = text.find("minicuda_reduce_0 |= ::minicuda::fission::predicate(c > 0);"),
                    leave0 = text.find("if (!(minicuda_reduce_0)) break;"), body0 = text.find("--c;"),
                    body1 = text.find("++c;"), gather1 = text.find("minicuda_reduce_1 &= ::minicuda::fission::predicate(c >= 2);"),
                    leave1 = text.find("if (!(!minicuda_reduce_1)) break;");
  for (std::size_t at : {gather0, leave0, body0, body1, gather1, leave1}) ASSERT_NE(at, std::string::npos) << text;
  EXPECT_TRUE(first < gather0 && gather0 < leave0 && leave0 < body0 && body0 < second) << "while: the condition first";
  EXPECT_TRUE(second < body1 && body1 < gather1 && gather1 < leave1) << "do-while: the condition last";
  const std::size_t gather2 = text.find("minicuda_reduce_2 += ::minicuda::fission::predicate(c == 3);"),
                    branch2 = text.find("if ((!minicuda_reduce_2)) {"), then2 = text.find("p[threadIdx.x] = c;"),
                    else2 = text.find("p[threadIdx.x] = -c;");
  for (std::size_t at : {gather2, branch2, then2, else2}) ASSERT_NE(at, std::string::npos) << text;
  EXPECT_TRUE(leave1 < gather2 && gather2 < branch2 && branch2 < then2 && then2 < else2) << "if: the condition first";
  EXPECT_EQ(text.find("__syncthreads_"), std::string::npos) << text;
}

// Around the reduction, a condition may hold what a loop's header may (uniform values, pure
// built-ins): it is evaluated once per block, with the accumulator for the call.
TEST(Cu2cxxFission, AConditionAroundABarrierReductionIsEvaluatedOncePerBlock) {
  const Translation t = split(
      "__global__ void k(int* p, int n) {\n"
      "  int c = p[threadIdx.x];\n"
      "  while (__syncthreads_count(c > 0) * 2 > n + (int)blockDim.x / 4) {\n"
      "    c -= 2;\n"
      "  }\n"
      "  if (min(__syncthreads_count(c > 0), 3) == 3) {\n"
      "    p[threadIdx.x] = c;\n"
      "  }\n"
      "}\n");
  for (const char* want : {"if (!(minicuda_reduce_0 * 2 > n + (int)blockDim.x / 4)) break;",
                           "if ((min(minicuda_reduce_1, 3) == 3)) {"})
    EXPECT_NE(t.text.find(want), std::string::npos) << want << "\n" << t.text;
}

// A barrier reduction anywhere but as a statement of its own keeps fibers.
TEST(Cu2cxxFissionFallback, BarrierReductionsInsideExpressions) {
  const std::pair<const char*, const char*> cases[] = {
      {"p[0] = __syncthreads_count(1) + 1;", "is not a statement of its own"},
      {"p[0] == __syncthreads_count(1);", "is compared, not assigned"},
      {"int a = p[1], b = __syncthreads_count(1);", "not one declaration or one assignment"},
      {"p[0] = __syncthreads_count(__syncthreads_or(1));", "has a barrier in its predicate"},
      {"p[0] = p[1] ? 1 : p[2] = __syncthreads_and(1);", "not one declaration or one assignment"},
      {"p[__syncthreads_or(1)] = __syncthreads_and(1);", "shares its statement with another barrier"},
      {"if (__syncthreads_or(p[0]) || p[1]) { __syncthreads(); }", "with &&, || or ?:, which may skip it"},
      {"if (p[1] ? __syncthreads_or(p[0]) : 0) { p[2] = 1; }", "with &&, || or ?:, which may skip it"},
      {"if (__syncthreads_count(p[0]) > threadIdx.x) { p[2] = 1; }", "the condition of an if around a barrier reads threadIdx"},
      {"if (__syncthreads_count(p[0]) == __syncthreads_count(1)) { p[2] = 1; }", "holds a barrier reduction and another barrier"},
      {"if (__syncthreads_or(p[0])) p[1] = 1;", "an if around a barrier has no braced body"},
      {"while (__syncthreads_or(p[0]) && p[1]) { __syncthreads(); }", "with &&, || or ?:, which may skip it"},
      {"if (p[0]) p[1] = __syncthreads_count(1);", "an if around a barrier has no braced body"},
      {"do { p[0]--; __syncthreads(); } while (p[0]);", "not a loop, an if or a block"},
      {"int c = p[0]; do { c--; } while (__syncthreads_count(c) > c);", "the condition of a loop around a barrier reads c"},
      {"__shared__ int s; s = 0; p[0] = s + __syncthreads_count(1);", "is not a statement of its own"},
  };
  for (const auto& [statement, why] : cases)
    expect_not_split("__global__ void k(int* p) { " + std::string(statement) + " }\n", why);
}

}  // namespace
