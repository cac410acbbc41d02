// tools/cu2cxx region fission (translate.h rewrite 4, docs/tools/cu2cxx.md): which kernels get a
// block function, what it holds (re-declared, replicated and hoisted locals, the thread loop's
// view of threadIdx, exits), every reason a kernel keeps fibers, and the line numbers of the
// kernel, of its copy and of what follows. The barrier reductions have a file of their own
// (test_cu2cxx_fission_reductions.cpp).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fission_test_support.h"
#include "translate.h"

namespace {

using minicuda::cu2cxx::Translation;
using namespace minicuda::cu2cxx::testing;

// The generated file's lines, each with the .cu line the compiler gives it (following the
// #line directives, as the preprocessor does); directive lines themselves are left out.
std::vector<std::pair<int, std::string>> mapped_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> out;
  int line = 1;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(at, end - at);
    at = end + 1;
    if (l.starts_with("#line ")) {
      line = std::stoi(std::string(l.substr(6)));
      continue;
    }
    out.emplace_back(line++, std::string(l));
  }
  return out;
}

// The .cu lines of every generated line that contains `needle`.
std::vector<int> lines_containing(std::string_view text, std::string_view needle) {
  std::vector<int> found;
  for (const auto& [line, content] : mapped_lines(text))
    if (content.find(needle) != std::string::npos) found.push_back(line);
  return found;
}

constexpr std::string_view kTree =
    "__global__ void tree(const int* in, int* out) {\n"                       // 1
    "  __shared__ int partial[256];\n"                                         // 2
    "  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];\n"    // 3
    "  __syncthreads();\n"                                                     // 4
    "  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {\n"                   // 5
    "    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];\n"  // 6
    "    __syncthreads();\n"                                                   // 7
    "  }\n"                                                                    // 8
    "  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];\n"                  // 9
    "}\n"                                                                      // 10
    "int after_the_kernel;\n";                                                 // 11

// --- what is split ----------------------------------------------------------------------------

TEST(Cu2cxxFission, TreeReductionGetsABlockFunctionAndItsRegistration) {
  const Translation t = run(kTree);
  ASSERT_EQ(t.fission.size(), 1u);
  EXPECT_TRUE(t.fission[0].split) << t.fission[0].reason;
  EXPECT_NE(t.text.find("static bool tree__regions(const int* in, int* out) {"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("MINICUDA_REGISTER_MODULE(\"f.cu\", MINICUDA_KERNEL_REGIONS(::tree, ::tree__regions))"),
            std::string::npos);
  // The loop around the barriers runs once per block, verbatim; each region is a thread loop.
  EXPECT_NE(t.text.find("{ for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("for (unsigned minicuda_x = 0, minicuda_t = minicuda_nx * (minicuda_y + minicuda_ny * minicuda_z); "
                        "minicuda_x < minicuda_nx; ++minicuda_x, ++minicuda_t)"),
            std::string::npos);
  // No call in the regions: threadIdx is the loop's own index.
  EXPECT_NE(t.text.find("[[maybe_unused]] const uint3 threadIdx{minicuda_x, minicuda_y, minicuda_z};"), std::string::npos);
  EXPECT_EQ(t.text.find("minicuda_exited"), std::string::npos);  // no return: no exit flags
}

TEST(Cu2cxxFission, ARegionGuardedByThreadIdxXBelowAUniformBoundRunsOnlyThoseThreads) {
  const Translation t = run(kTree);
  // The halving region: the x loop ends where `threadIdx.x < s` first fails, found by bisection.
  EXPECT_NE(t.text.find("[[maybe_unused]] const uint3 threadIdx{minicuda_mid, 0, 0}; minicuda_in = (threadIdx.x < s); }"),
            std::string::npos) << t.text;
  // The last region: `threadIdx.x == 0`, only x = 0.
  EXPECT_NE(t.text.find("const unsigned minicuda_x_end = minicuda_nx < 1u ? minicuda_nx : 1u;"), std::string::npos);
  const std::size_t first = t.text.find("minicuda_x < minicuda_x_end");
  EXPECT_NE(t.text.find("minicuda_x < minicuda_x_end", first + 1), std::string::npos);  // both regions
}

TEST(Cu2cxxFission, OnlyConditionsMonotoneInXAndUniformBoundTheLoop) {
  auto bounded = [](std::string_view condition_and_body) {
    const std::string source = "__global__ void k(int* p, int n) {\n  __shared__ int s[64];\n"
                               "  const int tid = threadIdx.x;\n  s[tid] = 0;\n  __syncthreads();\n  " +
                               std::string(condition_and_body) + "\n}\n";
    const Translation t = split(source);
    return t.text.find("minicuda_x_end") != std::string::npos;
  };
  EXPECT_TRUE(bounded("if (tid <= n / 2) s[tid] += 1;"));   // a re-declared copy of threadIdx.x, `<=`
  EXPECT_TRUE(bounded("if (threadIdx.x < blockDim.x - 8) s[0] = 1;"));
  EXPECT_FALSE(bounded("if (threadIdx.x < n) s[0] = 1; else s[1] = 1;"));  // an else
  EXPECT_FALSE(bounded("if (threadIdx.x < p[0]) s[0] = 1;"));              // reads memory
  EXPECT_FALSE(bounded("if (threadIdx.y < n) s[0] = 1;"));
  EXPECT_FALSE(bounded("if (threadIdx.x < n == true) s[0] = 1;"));         // not monotone in x
  EXPECT_FALSE(bounded("if (threadIdx.x < n && threadIdx.y == 0) s[0] = 1;"));
  EXPECT_FALSE(bounded("if (threadIdx.x == 1) s[0] = 1;"));
  EXPECT_FALSE(bounded("if (threadIdx.x < n) s[0] = 1; s[1] = 2;"));      // not the region's only statement
}

TEST(Cu2cxxFission, LinesOfTheKernelItsCopyAndWhatFollowsAreKept) {
  const Translation t = run(kTree);
  EXPECT_EQ(lines_containing(t.text, "partial[threadIdx.x] += partial[threadIdx.x + s];"), (std::vector<int>{6, 6}));
  EXPECT_EQ(lines_containing(t.text, "out[blockIdx.x] = partial[0];"), (std::vector<int>{9, 9}));
  EXPECT_EQ(lines_containing(t.text, "__shared__ int partial[256];"), (std::vector<int>{2, 2}));  // hoisted
  EXPECT_EQ(lines_containing(t.text, "for (unsigned s = blockDim.x / 2;"), (std::vector<int>{5, 5}));
  EXPECT_EQ(lines_containing(t.text, "int after_the_kernel;"), (std::vector<int>{11}));
  EXPECT_EQ(lines_containing(t.text, "static bool tree__regions("), (std::vector<int>{1}));
}

TEST(Cu2cxxFission, LocalsOfBuiltinsAndParametersAreRecomputedInEachRegion) {
  const std::string_view source =
      "__global__ void k(int* out, int n) {\n"
      "  __shared__ int s[64];\n"
      "  const int tid = threadIdx.x, base = blockIdx.x * n;\n"
      "  s[tid] = base;\n"
      "  __syncthreads();\n"
      "  out[base + tid] = s[63 - tid];\n"
      "}\n";
  const Translation t = split(source);
  // Re-declared at the start of the second region; nothing kept per thread.
  EXPECT_NE(t.text.find("[[maybe_unused]] const int tid = threadIdx.x; [[maybe_unused]] const int base = blockIdx.x * n; {"),
            std::string::npos) << t.text;
  EXPECT_EQ(t.text.find("minicuda_r1"), std::string::npos);
}

TEST(Cu2cxxFission, LocalsThatChangeOrReadMemoryAreKeptPerThread) {
  const std::string_view source =
      "__global__ void k(const float* in, float* out) {\n"
      "  __shared__ float s[64];\n"
      "  float sum = 0.0f;\n"
      "  const float v = in[threadIdx.x], w[2] = {1.0f, 2.0f};\n"
      "  s[threadIdx.x] = v;\n"
      "  __syncthreads();\n"
      "  sum += s[63 - threadIdx.x] + w[1];\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = sum * v;\n"
      "}\n";
  const Translation t = split(source);
  EXPECT_NE(t.text.find("using minicuda_T1 = float  ;"), std::string::npos) << t.text;           // sum
  EXPECT_NE(t.text.find("using minicuda_T2 = const float  ;"), std::string::npos);               // v
  EXPECT_NE(t.text.find("using minicuda_T3 = const float  [2];"), std::string::npos);            // w
  EXPECT_NE(t.text.find("if constexpr (!::minicuda::fission::replicable<minicuda_S1, minicuda_S2, minicuda_S3>)"),
            std::string::npos);
  EXPECT_NE(t.text.find("{ alignas(::minicuda::fission::Replica<minicuda_S1>) minicuda_T1 minicuda_value = 0.0f; "
                        "::minicuda::fission::initialize(minicuda_r1[minicuda_t].value, minicuda_value); } "
                        "[[maybe_unused]] minicuda_T1& sum = minicuda_r1[minicuda_t].value;"),
            std::string::npos);
  EXPECT_NE(t.text.find("[[maybe_unused]] minicuda_T3& w = minicuda_r3[minicuda_t].value;"), std::string::npos);
  // The declaration's lines are kept although it was rewritten.
  EXPECT_EQ(lines_containing(t.text, "out[threadIdx.x] = sum * v;"), (std::vector<int>{9, 9}));
}

// A local is re-declared in a later region only when computing it again there must give the
// same value: its initializer may read no memory. Each of these reads memory (or may), so each
// local is kept per thread.
TEST(Cu2cxxFission, LocalsReadThroughAPointerAreKeptPerThreadWhateverTheSpelling) {
  const std::string_view initializers[] = {
      "(int)*p",             // a C-style cast, then a dereference: not a multiplication
      "(const int)*p",       //
      "(unsigned) * p",      //
      "(int)(*p)",           //
      "(T)*p",               // a cast to a type the translator does not know
      "(int)*p + n",         //
      "VAL",                 // a macro that dereferences
      "ELEM",                // a macro that subscripts
      "min(p, 1)",           // a function of the file that shadows a built-in's name
      "sizeof(int) * *p",    //
      "n ? *p : 0",          //
  };
  for (std::string_view init : initializers) {
    const std::string source = std::string(
                                   "typedef int T;\n"
                                   "#define VAL (*p)\n"
                                   "#define ELEM p[1]\n"
                                   "__device__ int min(const int* q, int i) { return q[i]; }\n"
                                   "__global__ void k(int* p, int* out, int n) {\n"
                                   "  const int v = ") +
                               std::string(init) +
                               ";\n"
                               "  __syncthreads();\n"
                               "  if (threadIdx.x == 0) *p = 42;\n"
                               "  __syncthreads();\n"
                               "  out[threadIdx.x] = v;\n"
                               "}\n";
    const Translation t = split(source);
    EXPECT_NE(t.text.find("[[maybe_unused]] minicuda_T1& v = minicuda_r1[minicuda_t].value;"), std::string::npos)
        << init << "\n" << t.text;
    EXPECT_EQ(t.text.find("[[maybe_unused]] const int v ="), std::string::npos) << init;
  }
}

// Arithmetic that reads no memory is still recomputed: a parenthesized value times another, a
// call's result times another, constants made of macros.
TEST(Cu2cxxFission, ParenthesizedArithmeticAndConstantMacrosAreStillRecomputed) {
  const std::string_view initializers[] = {"(n + 1) * n", "(n) * 2", "min(n, 4) * n", "sizeof(int) * n",
                                           "M * (int)threadIdx.x", "(N) * n"};
  for (std::string_view init : initializers) {
    const std::string source = std::string(
                                   "#define N 16\n"
                                   "#define M (2 * N)\n"
                                   "__global__ void k(int* out, int n) {\n"
                                   "  const int v = ") +
                               std::string(init) +
                               ";\n"
                               "  __syncthreads();\n"
                               "  out[threadIdx.x] = v;\n"
                               "}\n";
    const Translation t = split(source);
    EXPECT_NE(t.text.find("[[maybe_unused]] const int v = "), std::string::npos) << init << "\n" << t.text;
    EXPECT_EQ(t.text.find("minicuda_r1"), std::string::npos) << init;
  }
}

// An if whose condition is the same in every thread of the block (here: a parameter and
// blockIdx) runs its condition once per block, around its bodies' regions.
TEST(Cu2cxxFission, AnIfAroundBarriersWithAUniformConditionIsSplit) {
  const Translation t = split(
      "__global__ void k(int* out, int n) {\n"                      // 1
      "  __shared__ int s[64];\n"                                   // 2
      "  const int half = n / 2;\n"                                 // 3
      "  s[threadIdx.x] = threadIdx.x;\n"                           // 4
      "  if (blockIdx.x % 2 == 0 && half > 0) {\n"                  // 5
      "    __syncthreads();\n"                                      // 6
      "    out[threadIdx.x] = s[63 - threadIdx.x];\n"               // 7
      "  } else {\n"                                                // 8
      "    const int v = s[threadIdx.x];\n"                         // 9
      "    __syncthreads();\n"                                      // 10
      "    out[threadIdx.x] = v + 1;\n"                             // 11
      "  }\n"                                                       // 12
      "}\n");
  EXPECT_NE(t.text.find("{ [[maybe_unused]] const int half = n / 2; if (blockIdx.x % 2 == 0 && half > 0) {"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("else {"), std::string::npos);
  EXPECT_NE(t.text.find("[[maybe_unused]] minicuda_T1& v = minicuda_r1[minicuda_t].value;"), std::string::npos);
  EXPECT_EQ(lines_containing(t.text, "out[threadIdx.x] = v + 1;"), (std::vector<int>{11, 11}));
}

TEST(Cu2cxxFission, UniformLocalsMayControlALoopAroundBarriers) {
  const std::string_view source =
      "constexpr int kTile = 16;\n"
      "__global__ void k(float* out, int n) {\n"
      "  __shared__ float s[kTile];\n"
      "  const int tiles = n / kTile;\n"
      "  for (int t = 0; t < tiles; ++t) {\n"
      "    s[threadIdx.x] = t;\n"
      "    __syncthreads();\n"
      "    out[t * kTile + threadIdx.x] = s[kTile - 1 - threadIdx.x];\n"
      "    __syncthreads();\n"
      "  }\n"
      "}\n";
  const Translation t = split(source);
  EXPECT_NE(t.text.find("{ [[maybe_unused]] const int tiles = n / kTile; for (int t = 0; t < tiles; ++t) {"),
            std::string::npos) << t.text;
}

TEST(Cu2cxxFission, AReturnMarksTheThreadDone) {
  const std::string_view source =
      "__global__ void k(int* out, int n) {\n"
      "  __shared__ int s[64];\n"
      "  if (threadIdx.x >= n) return;\n"
      "  s[threadIdx.x] = 1;\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = s[0];\n"
      "}\n";
  const Translation t = split(source);
  EXPECT_NE(t.text.find("if (threadIdx.x >= n) { minicuda_exited[minicuda_t] = true; --minicuda_live; goto minicuda_next_0; }"),
            std::string::npos) << t.text;
  EXPECT_NE(t.text.find("minicuda_next_0:;"), std::string::npos);
  EXPECT_NE(t.text.find("if (minicuda_exited[minicuda_t]) continue;"), std::string::npos);
}

TEST(Cu2cxxFission, ALoopAroundBarriersEndsOnceEveryThreadHasReturned) {
  const Translation t = split(
      "__global__ void k(int* p) {\n"
      "  for (;;) {\n"
      "    if (p[threadIdx.x]-- <= 0) return;\n"
      "    __syncthreads();\n"
      "  }\n"
      "}\n");
  EXPECT_NE(t.text.find("{ for (;;) { if (minicuda_live == 0) break;"), std::string::npos) << t.text;
}

TEST(Cu2cxxFission, ARegionThatCallsAFunctionOfTheFileSetsTheGlobalThreadIdx) {
  const std::string_view source =
      "__device__ int lane() { return threadIdx.x % 32; }\n"
      "__global__ void k(int* out) {\n"
      "  __shared__ int s[64];\n"
      "  s[threadIdx.x] = lane();\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = s[63 - threadIdx.x];\n"
      "}\n";
  const Translation t = split(source);
  EXPECT_NE(t.text.find("::threadIdx.x = minicuda_x; ::threadIdx.y = minicuda_y; ::threadIdx.z = minicuda_z; { "),
            std::string::npos) << t.text;
  EXPECT_NE(t.text.find("const uint3 threadIdx{"), std::string::npos);  // the second region calls nothing
}

TEST(Cu2cxxFission, DynamicSharedMemoryIsHoistedAsRewritten) {
  const std::string_view source =
      "__global__ void k(int* data) {\n"
      "  extern __shared__ int buf[];\n"
      "  buf[threadIdx.x] = data[threadIdx.x];\n"
      "  __syncthreads();\n"
      "  data[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];\n"
      "}\n";
  const Translation t = split(source);
  EXPECT_EQ(lines_containing(t.text, "int* const buf = ::minicuda::dynamic_shared<int>();"), (std::vector<int>{2, 2}));
}

TEST(Cu2cxxFission, OnlyKernelsAreConsidered) {
  const Translation t = run("void host() { __syncthreads(); }\n");
  EXPECT_TRUE(t.fission.empty());
  EXPECT_EQ(t.text.find("__regions"), std::string::npos);
}

// A template kernel: its block function is a template with the same head, declared before the
// kernel on its line, and the kernel's body records each instantiation's block function. The
// template parameters are constants: `base` (from N) is re-declared, and is uniform enough for
// the loop header that reads it.
// A __shared__ array declared in the body of a loop around barriers is one array per block on
// the GPU too: hoisted to the top of the block function, once, and gone from the loop.
TEST(Cu2cxxFission, SharedDeclarationInsideALoopAroundABarrierIsHoisted) {
  const Translation t = split(
      "__global__ void k(int* p) { for (int i = 0; i < 2; ++i) { __shared__ int s[4]; s[threadIdx.x] = i; "
      "__syncthreads(); p[threadIdx.x] += s[3 - threadIdx.x]; __syncthreads(); } }\n");
  const std::size_t block_function = t.text.find("static bool k__regions(int* p) {");
  ASSERT_NE(block_function, std::string::npos) << t.text;
  const std::size_t hoisted = t.text.find("__shared__ int s[4];", block_function);
  EXPECT_LT(hoisted, t.text.find("const unsigned minicuda_nx", block_function)) << t.text;
  EXPECT_EQ(t.text.find("__shared__ int s[4];", hoisted + 1), std::string::npos) << t.text;
}

TEST(Cu2cxxFission, TemplateKernelGetsATemplateBlockFunctionThatItsBodyLinks) {
  const Translation t = split(
      "template <int N, unsigned M>\n"                                                  // 1
      "__global__ void tk(float* p, int n) {\n"                                         // 2
      "  const int base = N * 2;\n"                                                     // 3
      "  for (int i = base; i < n; i += N) { p[i + threadIdx.x] = M; __syncthreads(); }\n"  // 4
      "}\n");
  EXPECT_EQ(lines_containing(t.text, "template <int N, unsigned M> static bool tk__regions(float* p, int n); "
                                     "template <int N, unsigned M>"),
            (std::vector<int>{1}))
      << t.text;
  EXPECT_EQ(lines_containing(t.text, "{ (void)::minicuda::crt::RegionLink<&tk<N, M>, &tk__regions<N, M>>::linked;"),
            (std::vector<int>{2}));
  EXPECT_NE(t.text.find("template <int N, unsigned M> static bool tk__regions(float* p, int n) {"), std::string::npos);
  EXPECT_NE(t.text.find("{ [[maybe_unused]] const int base = N * 2; for (int i = base; i < n; i += N) {"),
            std::string::npos)
      << t.text;
  // Registered at its first launch, not in the module block.
  EXPECT_EQ(t.text.find("MINICUDA_REGISTER_MODULE"), std::string::npos);
}

// --- what keeps fibers, and why ------------------------------------------------------------------

TEST(Cu2cxxFissionFallback, NoBarrier) {
  expect_not_split("__global__ void k(int* p) { p[threadIdx.x] = 1; }\n", "no __syncthreads");
}
TEST(Cu2cxxFissionFallback, BarrierUnderAnIfWhoseConditionMayDifferBetweenThreads) {
  expect_not_split("__global__ void k(int* p, int n) { if (threadIdx.x < n) { __syncthreads(); } p[0] = 1; }\n",
                   "the condition of an if around a barrier reads threadIdx");
  expect_not_split("__global__ void k(int* p) { int v = p[threadIdx.x]; if (v > 0) { __syncthreads(); } p[0] = v; }\n",
                   "the condition of an if around a barrier reads v, which may differ between threads");
  expect_not_split("__global__ void k(int* p, int n) { if (n-- > 0) { __syncthreads(); } p[0] = 1; }\n",
                   "reads n, which may differ between threads");
}
TEST(Cu2cxxFissionFallback, BarrierUnderAnIfWithoutBraces) {
  expect_not_split("__global__ void k(int* p, int n) { if (n > 0) __syncthreads(); p[0] = 1; }\n",
                   "an if around a barrier has no braced body");
  expect_not_split("__global__ void k(int* p, int n) { if (n > 0) { p[1] = 2; } else if (n < -1) { __syncthreads(); } }\n",
                   "the else of an if around a barrier has no braced body");
}
TEST(Cu2cxxFissionFallback, BarrierInADoWhile) {
  expect_not_split("__global__ void k(int n) { int i = 0; do { __syncthreads(); } while (++i < n); }\n",
                   "not a loop, an if or a block at a split level");
}
TEST(Cu2cxxFissionFallback, LoopWithoutBraces) {
  expect_not_split("__global__ void k(int n) { for (int i = 0; i < n; ++i) __syncthreads(); }\n", "no braced body");
}
TEST(Cu2cxxFissionFallback, WarpOperations) {
  expect_not_split("__global__ void k(int* p) { int v = p[threadIdx.x]; __syncthreads(); p[0] = __shfl_down_sync(~0u, v, 1); }\n",
                   "warp operations");
}
// Warp operations and barriers reached through cooperative groups, and the newer intrinsics.
TEST(Cu2cxxFissionFallback, CooperativeGroupsAndNewWarpIntrinsics) {
  expect_not_split("__global__ void k(int* p) { __syncthreads(); auto g = cg::coalesced_threads(); p[0] = g.size(); }\n",
                   "coalesced_threads");
  expect_not_split("__global__ void k(int* p) { __syncthreads(); auto g = cg::labeled_partition(t, 1); }\n",
                   "labeled_partition");
  expect_not_split("__global__ void k(int* p) { __syncthreads(); p[0] = __match_any_sync(~0u, p[1]); }\n",
                   "__match_any_sync");
  expect_not_split("__global__ void k(int* p) { __syncthreads(); p[0] = __reduce_add_sync(~0u, p[1]); }\n",
                   "__reduce_add_sync");
  expect_not_split("__global__ void k(int* p) { __syncthreads(); cg::this_grid().sync(); }\n", "this_grid");
}
TEST(Cu2cxxFissionFallback, Lambdas) {
  expect_not_split("__global__ void k(int* p) { auto f = [&](int i) { return p[i]; }; __syncthreads(); p[0] = f(1); }\n",
                   "lambda");
}
TEST(Cu2cxxFissionFallback, Goto) {
  expect_not_split("__global__ void k(int* p) { __syncthreads(); if (p[0]) goto done; p[0] = 1; done: ; }\n", "'goto'");
}
TEST(Cu2cxxFissionFallback, LoopHeaderReadsThreadIdx) {
  expect_not_split("__global__ void k(int* p) { for (int i = threadIdx.x; i < 64; i += 32) { p[i] = 0; __syncthreads(); } }\n",
                   "reads threadIdx");
}
TEST(Cu2cxxFissionFallback, LoopHeaderReadsAPerThreadLocal) {
  expect_not_split("__global__ void k(int* p) { int n = p[threadIdx.x]; __syncthreads(); "
                   "for (int i = 0; i < n; ++i) { p[i] = 0; __syncthreads(); } }\n",
                   "may differ between threads");
}
TEST(Cu2cxxFissionFallback, LoopVariableChangesInTheBody) {
  expect_not_split("__global__ void k(int* p) { for (int i = 0; i < 8; ++i) { i += p[0]; __syncthreads(); } }\n",
                   "changes in its body");
}
TEST(Cu2cxxFissionFallback, LoopHeaderWithSideEffects) {
  expect_not_split("__device__ int count;\n"
                   "__global__ void k(int* p) { for (int i = 0; i < 4; ++i, ++count) { p[i] = 0; __syncthreads(); } }\n",
                   "changes count");
  expect_not_split("__global__ void k(int* p) { for (int i = 0; atomicAdd(p, 1) < 4; ++i) { __syncthreads(); } }\n",
                   "calls atomicAdd");
}
TEST(Cu2cxxFissionFallback, StructuredBinding) {
  expect_not_split("__global__ void k(int2* p) { auto [a, b] = p[0]; __syncthreads(); p[1].x = a + b; }\n",
                   "structured binding");
}
TEST(Cu2cxxFissionFallback, RangeForAroundABarrier) {
  expect_not_split("__global__ void k(int* p) { int a[2] = {1, 2}; for (int v : a) { p[0] = v; __syncthreads(); } }\n",
                   "range-for");
}
TEST(Cu2cxxFissionFallback, BreakOutOfALoopAroundABarrier) {
  expect_not_split("__global__ void k(int* p, int n) { for (int i = 0; i < n; ++i) { if (p[0]) break; __syncthreads(); } }\n",
                   "break or continue");
}
TEST(Cu2cxxFissionFallback, BreakOfAnInnerLoopIsFine) {
  const minicuda::cu2cxx::FissionNote n = note_of(
      "__global__ void k(int* p, int n) { for (int i = 0; i < n; ++i) { for (;;) { break; } __syncthreads(); } }\n");
  EXPECT_TRUE(n.split) << n.reason;
}
TEST(Cu2cxxFissionFallback, CallToAFunctionNotInTheFile) {
  expect_not_split("__device__ int helper(int);\n"
                   "__global__ void k(int* p) { p[0] = helper(1); __syncthreads(); }\n",
                   "neither a device built-in nor defined in this file");
}
TEST(Cu2cxxFissionFallback, CallToAFunctionWithABarrier) {
  // (A call as a statement is inlined: tests/tools/test_cu2cxx_fission_inline.cpp.)
  expect_not_split("__device__ int sync_all() { __syncthreads(); return 0; }\n"
                   "__device__ int indirect() { return sync_all(); }\n"
                   "__global__ void k(int* p) { p[indirect()] = 1; __syncthreads(); }\n",
                   "a call cu2cxx cannot inline");
}
// A parameter the body changes is one copy per thread, each made from the parameter's value.
TEST(Cu2cxxFission, AChangedParameterIsKeptPerThreadFromItsValue) {
  const Translation t = split("__global__ void k(int* p, int n) { p += threadIdx.x; n -= 1; __syncthreads(); p[0] = n; }\n");
  EXPECT_NE(t.text.find("static bool k__regions(int* minicuda_param_p, int minicuda_param_n) {"), std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("::minicuda::fission::initialize(minicuda_r1[minicuda_t].value, minicuda_param_p);"),
            std::string::npos);
  EXPECT_NE(t.text.find("[[maybe_unused]] minicuda_T2& n = minicuda_r2[minicuda_t].value;"), std::string::npos);
}
TEST(Cu2cxxFissionFallback, ChangedParameters) {
  expect_not_split("__global__ void k(int p[4], int n) { p += 1; __syncthreads(); p[0] = n; }\n",
                   "modifies its array parameter p");
  expect_not_split("__global__ void k(int* p, int n) { n += threadIdx.x; for (int i = 0; i < n; ++i) { __syncthreads(); } }\n",
                   "reads n, which may differ between threads");
}
// cg::sync(h) and h.sync() on the block's handle are __syncthreads(); the handle's declaration
// runs nowhere in the block function.
TEST(Cu2cxxFission, CooperativeGroupsBlockSyncIsABarrier) {
  const Translation t = split(
      "namespace cg = cooperative_groups;\n"
      "__global__ void k(int* p) { cg::thread_block cta = cg::this_thread_block(); p[threadIdx.x] = 1; cg::sync(cta);"
      " p[0] += 1; cta.sync(); p[1] = 2; }\n");
  const std::size_t block_function = t.text.find("static bool k__regions(int* p) {");
  ASSERT_NE(block_function, std::string::npos) << t.text;
  EXPECT_EQ(t.text.find("this_thread_block", block_function), std::string::npos) << t.text;
  EXPECT_EQ(t.text.find("sync", block_function), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("{ p[1] = 2; }", block_function), std::string::npos) << t.text;
}
TEST(Cu2cxxFissionFallback, CooperativeGroupsHandlesUsedOtherwise) {
  expect_not_split("namespace cg = cooperative_groups;\n"
                   "__device__ void f(int* p, cg::thread_block b) { p[b.thread_rank()] = 1; b.sync(); }\n"
                   "__global__ void k(int* p) { cg::thread_block cta = cg::this_thread_block(); cg::sync(cta); f(p, cta); }\n",
                   "a block handle is used other than to sync");
  expect_not_split("__global__ void k(int* p) { cg::thread_block cta = cg::this_thread_block(); p[0] = 1; cg::sync(cta); }\n",
                   "NS being cooperative_groups or an alias this file declares");
}
// A nested { } around barriers is a split level of its own; its locals keep their scope.
TEST(Cu2cxxFission, ANestedBlockAroundBarriersIsASplitLevel) {
  const Translation t = split(
      "__global__ void k(int* p) { p[threadIdx.x] = 1; { int v = p[threadIdx.x ^ 1]; __syncthreads(); p[threadIdx.x] = v; } }\n");
  EXPECT_NE(t.text.find("[[maybe_unused]] minicuda_T1& v = minicuda_r1[minicuda_t].value;"), std::string::npos) << t.text;
}
TEST(Cu2cxxFission, ALocalBoundToAReferenceIsKeptPerThreadNotRecomputed) {
  const Translation t = split(
      "__global__ void k(int* p) {\n"
      "  int x = threadIdx.x;\n"
      "  int& r = x;\n"
      "  r += 5;\n"
      "  __syncthreads();\n"
      "  p[threadIdx.x] = x;\n"
      "}\n");
  EXPECT_NE(t.text.find("minicuda_T1& x = minicuda_r1[minicuda_t].value;"), std::string::npos) << t.text;
}
TEST(Cu2cxxFissionFallback, ParameterChangedThroughAReference) {
  expect_not_split("__global__ void k(int* p, int n) { int& r = n; r = 1; __syncthreads(); p[0] = n; }\n",
                   "a reference is bound to its parameter n");
}
TEST(Cu2cxxFissionFallback, AutoLocalAcrossABarrier) {
  expect_not_split("__global__ void k(int* p) { auto v = p[threadIdx.x]; __syncthreads(); p[0] = v; }\n",
                   "cannot name its type");
}
TEST(Cu2cxxFissionFallback, ReferenceAcrossABarrier) {
  expect_not_split("__global__ void k(int* p) { int& r = p[threadIdx.x]; __syncthreads(); r = 1; }\n",
                   "cannot name its type");
}
TEST(Cu2cxxFissionFallback, PreprocessorConditionalInTheBody) {
  expect_not_split("__global__ void k(int* p) {\n#if 1\n  p[0] = 1;\n#endif\n  __syncthreads();\n}\n", "preprocessor");
}
TEST(Cu2cxxFissionFallback, MacroNamingABarrier) {
  expect_not_split("#define SYNC __syncthreads()\n__global__ void k(int* p) { p[0] = 1; SYNC; __syncthreads(); }\n",
                   "#define");
}
TEST(Cu2cxxFissionFallback, NameDeclaredTwiceAtSplitLevels) {
  expect_not_split("__global__ void k(int* p) { int a = p[0]; __syncthreads();\n"
                   "  for (int i = 0; i < 2; ++i) { int a = p[i]; p[a] = 0; __syncthreads(); } }\n",
                   "declared twice");
}
TEST(Cu2cxxFissionFallback, NameUsedBeforeAHoistedDeclaration) {
  expect_not_split("__device__ int buf[4];\n"
                   "__global__ void k(int* p) { p[0] = buf[0]; __shared__ int buf[4]; buf[0] = 1; __syncthreads(); p[1] = buf[0]; }\n",
                   "used before its __shared__");
}
TEST(Cu2cxxFissionFallback, DefinitionOutsideItsNamespace) {
  expect_not_split("namespace ns { __global__ void k(int* p); }\n"
                   "__global__ void ns::k(int* p) { p[0] = 1; __syncthreads(); }\n",
                   "outside its namespace");
}
TEST(Cu2cxxFissionFallback, TemplateParameterWithADefault) {
  expect_not_split("template <int N = 4> __global__ void k(int* p) { p[0] = N; __syncthreads(); }\n",
                   "template parameter of the kernel has a default argument");
}
TEST(Cu2cxxFissionFallback, TemplateTypeParameter) {
  expect_not_split("template <typename T> __global__ void k(T* p) { p[0] = p[1] + p[2]; __syncthreads(); }\n",
                   "type parameter T");
}
TEST(Cu2cxxFissionFallback, TemplateParameterPack) {
  expect_not_split("template <int... N> __global__ void k(int* p) { p[0] = sizeof...(N); __syncthreads(); }\n",
                   "parameter pack");
}
TEST(Cu2cxxFissionFallback, TemplateKernelParameterWithADefault) {
  expect_not_split("template <int N> __global__ void k(int* p, int n = 2) { p[0] = N + n; __syncthreads(); }\n",
                   "parameter of the template kernel has a default argument");
}
TEST(Cu2cxxFissionFallback, OverloadedTemplateKernelsAreNotConsidered) {
  const Translation t = run(
      "template <int N> __global__ void k(int* p) { p[0] = N; __syncthreads(); }\n"
      "template <int N> __global__ void k(float* p) { p[0] = N; __syncthreads(); }\n");
  EXPECT_TRUE(t.fission.empty());
  EXPECT_EQ(t.text.find("__regions"), std::string::npos);
}

}  // namespace
