// tools/cu2cxx unit tests: translate() on strings. Contracts: tools/cu2cxx/translate.h.
// Each test checks the exact emitted text, and every rewrite is checked to keep the line count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "translate.h"

namespace {

using minicuda::cu2cxx::Translation;
using minicuda::cu2cxx::translate;

// What every generated file begins with: nvcc's macros, the runtime header (translate.cpp).
#define PROLOGUE                                                                                   \
  "#define __CUDACC__ 1\n#define __CUDACC_VER_MAJOR__ 13\n#define __CUDACC_VER_MINOR__ 0\n"                  \
  "#define __CUDACC_VER_BUILD__ 88\n#include \"cuda_runtime.h\"\n"
constexpr std::string_view kHeader = PROLOGUE "#line 1 \"/src/t.cu\"\n";
constexpr std::string_view kBlockComment =
    "// Appended by minicuda_cu2cxx: registers this file's kernels at start-up, as nvcc's host code "
    "does\n";

Translation run(std::string_view source) { return translate(source, "/src/t.cu"); }

std::size_t lines_of(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The translated source: the output without the two header lines, for a file with no kernel
// definitions (so with no appended block). Also checks that the line count is kept.
std::string body(std::string_view source) {
  const Translation t = run(source);
  EXPECT_TRUE(t.text.starts_with(kHeader)) << t.text;
  std::string rest = t.text.substr(kHeader.size());
  EXPECT_EQ(lines_of(rest), lines_of(source)) << rest;
  return rest;
}

// A launch's rewrite; a callee with template arguments also names its start-up registration.
std::string launch(std::string_view config, std::string_view callee, std::string_view args) {
  const std::string unused = callee.ends_with('>')
                                 ? "(void)&::minicuda::detail::start_up_registration<" + std::string(callee) + ">"
                                 : "(void)0";
  return "(__cudaPushCallConfiguration(" + std::string(config) + ") ? " + unused + " : ::minicuda::kernel_stub<" +
         std::string(callee) + ">::launch(" + std::string(args) + "))";
}

// The rewrite of `extern __shared__ TYPE NAME[];` inside a function body.
std::string shared_pointer(std::string_view type, std::string_view name) {
  return std::string(type) + "* const " + std::string(name) + " = ::minicuda::dynamic_shared<" +
         std::string(type) + ">();";
}

// --- the header ---------------------------------------------------------------------------------

TEST(Cu2cxxHeader, IncludesTheRuntimeThenRestartsLineNumberingAtTheCuFile) {
  const Translation t = translate("int x;\n", "/home/me/proj/vector_add.cu");
  EXPECT_EQ(t.text, PROLOGUE "#line 1 \"/home/me/proj/vector_add.cu\"\nint x;\n");
  EXPECT_TRUE(t.warnings.empty());
}

TEST(Cu2cxxHeader, EscapesQuotesAndBackslashesInThePath) {
  const Translation t = translate("", R"(C:\a "b"\k.cu)");
  EXPECT_EQ(t.text, PROLOGUE "#line 1 \"C:\\\\a \\\"b\\\"\\\\k.cu\"\n");
}

// --- __CUDA_ARCH__ (docs/kernels.md) -------------------------------------------------------------

// Defined in the bodies of __global__ and __device__ functions that name it, as the device pass
// of nvcc defines it; not in __host__ __device__ or host functions, nor at file scope. Every line
// keeps its number (the #line after each directive gives the rest of the line its own).
TEST(Cu2cxxCudaArch, DefinedInDeviceOnlyBodiesThatNameIt) {
  const std::string_view source =
      "__device__ int d() { return __CUDA_ARCH__; }\n"           // 1
      "__host__ __device__ int hd() {\n"                         // 2
      "#ifdef __CUDA_ARCH__\n"                                   // 3
      "  return 1;\n"                                            // 4
      "#endif\n"                                                 // 5
      "  return 0; }\n"                                          // 6
      "int h() { return 0; }\n"                                  // 7
      "__global__ void k(int* p) { p[0] = d(); }\n"              // 8
      "struct S { __device__ int m() {\n"                        // 9
      "#if __CUDA_ARCH__ >= 900\n"                               // 10
      "  return 9; \n"                                           // 11
      "#endif\n"                                                 // 12
      "} };\n";                                                  // 13
  const Translation t = translate(source, "/src/t.cu");
  EXPECT_NE(t.text.find("__device__ int d() {\n#define __CUDA_ARCH__ 900\n#line 1 \"/src/t.cu\"\n return __CUDA_ARCH__; "
                        "\n#undef __CUDA_ARCH__\n#line 1 \"/src/t.cu\"\n}\n"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("struct S { __device__ int m() {\n#define __CUDA_ARCH__ 900\n#line 9 \"/src/t.cu\"\n\n#if"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("#endif\n\n#undef __CUDA_ARCH__\n#line 13 \"/src/t.cu\"\n} };"), std::string::npos) << t.text;
  // hd and h are host code; k does not name the macro, so nothing is added to it.
  EXPECT_NE(t.text.find("__host__ __device__ int hd() {\n#ifdef __CUDA_ARCH__"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("int h() { return 0; }"), std::string::npos);
  EXPECT_NE(t.text.find("__global__ void k(int* p) { p[0] = d(); }"), std::string::npos);
  EXPECT_EQ(t.text.find("#define __CUDA_ARCH__", t.text.find("__global__ void k")), t.text.find("#define __CUDA_ARCH__ 900\n#line 9"));
}

// A #define that names the macro may be expanded in any device body: then every one gets it.
TEST(Cu2cxxCudaArch, EveryDeviceBodyWhenADefineNamesIt) {
  const Translation t = translate("#define ARCH __CUDA_ARCH__\n__global__ void k(int* p) { p[0] = ARCH; }\n", "/src/t.cu");
  EXPECT_NE(t.text.find("__global__ void k(int* p) {\n#define __CUDA_ARCH__ 900\n#line 2 \"/src/t.cu\"\n p[0] = ARCH; "
                        "\n#undef __CUDA_ARCH__\n#line 2 \"/src/t.cu\"\n}"),
            std::string::npos)
      << t.text;
}

// --- launches -----------------------------------------------------------------------------------

TEST(Cu2cxxLaunch, SimpleLaunch) {
  EXPECT_EQ(body("k<<<1, 2>>>(a, b);\n"), launch("1, 2", "k", "a, b") + ";\n");
}

TEST(Cu2cxxLaunch, ConfigWithOneToFourArguments) {
  EXPECT_EQ(body("k<<<g>>>();\n"), launch("g", "k", "") + ";\n");
  EXPECT_EQ(body("k<<<g, b, shmem>>>(x);\n"), launch("g, b, shmem", "k", "x") + ";\n");
  EXPECT_EQ(body("k<<<g, b, 0, stream>>>(x);\n"), launch("g, b, 0, stream", "k", "x") + ";\n");
}

TEST(Cu2cxxLaunch, ConfigWithCallsAndNestedParentheses) {
  EXPECT_EQ(body("k<<<dim3(a, b), dim3(32, 8)>>>(p);\n"), launch("dim3(a, b), dim3(32, 8)", "k", "p") + ";\n");
  EXPECT_EQ(body("k<<<(n + 255) / 256, 256, sizeof(float) * k>>>(p);\n"),
            launch("(n + 255) / 256, 256, sizeof(float) * k", "k", "p") + ";\n");
  EXPECT_EQ(body("k<<<dim3{4, 4}, f(g(1, 2), 3)>>>(p);\n"), launch("dim3{4, 4}, f(g(1, 2), 3)", "k", "p") + ";\n");
  // A template in the config and a shift: neither `>` ends it early.
  EXPECT_EQ(body("k<<<std::max<int>(n >> 2, 1), 64>>>(p);\n"),
            launch("std::max<int>(n >> 2, 1), 64", "k", "p") + ";\n");
}

TEST(Cu2cxxLaunch, ArgumentsPassThroughUnchanged) {
  EXPECT_EQ(body("k<<<1, 1>>>(f(a, b), c[2], [](int x) { return x; }, \">>>\");\n"),
            launch("1, 1", "k", "f(a, b), c[2], [](int x) { return x; }, \">>>\"") + ";\n");
}

TEST(Cu2cxxLaunch, TemplatedCallee) {
  EXPECT_EQ(body("k<float, 4><<<1, 1>>>(p);\n"), launch("1, 1", "k<float, 4>", "p") + ";\n");
  EXPECT_EQ(body("k<T><<<1, 1>>>(p);\n"), launch("1, 1", "k<T>", "p") + ";\n");
  EXPECT_EQ(body("k<std::pair<int, Vec<float>>, (N > 2)><<<1, 1>>>(p);\n"),
            launch("1, 1", "k<std::pair<int, Vec<float>>, (N > 2)>", "p") + ";\n");
}

TEST(Cu2cxxLaunch, QualifiedCallee) {
  EXPECT_EQ(body("ns::k<<<1, 1>>>(p);\n"), launch("1, 1", "ns::k", "p") + ";\n");
  EXPECT_EQ(body("x; ::k<<<1, 1>>>(p);\n"), "x; " + launch("1, 1", "::k", "p") + ";\n");
  EXPECT_EQ(body("a::b<int>::k<T><<<1, 1>>>(p);\n"), launch("1, 1", "a::b<int>::k<T>", "p") + ";\n");
  EXPECT_EQ(body("return ::ns::k<<<1, 1>>>(p);\n"), "return " + launch("1, 1", "::ns::k", "p") + ";\n");
  EXPECT_EQ(body("(void)k<<<1, 1>>>(p);\n"), "(void)" + launch("1, 1", "k", "p") + ";\n");
}

TEST(Cu2cxxLaunch, WhitespaceAroundThePieces) {
  EXPECT_EQ(body("if (x) k <<< g, b >>> ( p );\n"), "if (x) " + launch(" g, b ", "k", " p ") + ";\n");
}

TEST(Cu2cxxLaunch, MultiLineLaunchKeepsTheLineCount) {
  const std::string source =
      "void f() {\n"
      "  ns::k\n"
      "      <<<grid,\n"
      "         block>>>\n"
      "      (a,\n"
      "       b);\n"
      "  int after = __LINE__;\n"
      "}\n";
  const std::string expected =
      "void f() {\n"
      "  (__cudaPushCallConfiguration(grid,\n"
      "         block) ? (void)0 : ::minicuda::kernel_stub<ns::k>::launch(a,\n"
      "       b))\n"  // the two newlines the launch lost (before <<<, after >>>) come at its end
      "\n"
      ";\n"
      "  int after = __LINE__;\n"
      "}\n";
  EXPECT_EQ(body(source), expected);
}

TEST(Cu2cxxLaunch, TwoLaunchesOnOneLine) {
  EXPECT_EQ(body("a<<<1, 2>>>(x); b<<<3, 4>>>(y);\n"),
            launch("1, 2", "a", "x") + "; " + launch("3, 4", "b", "y") + ";\n");
}

TEST(Cu2cxxLaunch, CommentsInsideALaunchAreKept) {
  EXPECT_EQ(body("k<<<1, /* blocks */ 2>>>(a, // first\n b);\n"),
            launch("1, /* blocks */ 2", "k", "a, // first\n b") + ";\n");
}

TEST(Cu2cxxLaunch, NestedTemplatesClosingWithThreeAnglesAreNotALaunch) {
  const std::string source = "std::vector<std::vector<std::vector<int>>> v; int y = a << b;\n";
  EXPECT_EQ(body(source), source);
}

// --- text that is not code ----------------------------------------------------------------------

TEST(Cu2cxxSkips, CommentsAreNeverRewritten) {
  const std::string source =
      "// k<<<1, 1>>>(a);\n"
      "/* k<<<1, 1>>>(a);\n"
      "   extern __shared__ float s[]; */\n"
      "// a continued comment \\\n"
      "k<<<1, 1>>>(a);\n";
  EXPECT_EQ(body(source), source);
  EXPECT_TRUE(run(source).warnings.empty());
}

TEST(Cu2cxxSkips, StringAndCharLiteralsAreNeverRewritten) {
  const std::string source =
      "const char* a = \"k<<<1, 1>>>(a); \\\" k<<<1,1>>>()\";\n"
      "const char* b = u8\"extern __shared__ float s[];\";\n"
      "char c = '<'; char d = '\\''; int n = 1'000'000;\n"
      "const wchar_t* w = L\"k<<<1, 1>>>(a)\";\n";
  EXPECT_EQ(body(source), source);
}

TEST(Cu2cxxSkips, RawStringsAreNeverRewritten) {
  const std::string source =
      "auto a = R\"(k<<<1, 1>>>(a); \" still inside)\";\n"
      "auto b = R\"xy(k<<<1, 1>>>(a);\n"
      ")\" still inside\n"
      "extern __shared__ float s[];)xy\";\n"
      "auto c = u8R\"(k<<<1,1>>>())\";\n";
  EXPECT_EQ(body(source), source);
  EXPECT_TRUE(run(source).warnings.empty());
}

TEST(Cu2cxxSkips, PreprocessorLinesAreNeverRewritten) {
  const std::string source =
      "#define LAUNCH(k) k<<<1, 1>>>()\n"
      "#define LONG(k) \\\n"
      "    k<<<1, 1>>>(a)\n"
      "  #  if 0 /* a comment\n"
      "  k<<<1, 1>>>(spanning the directive) */\n"
      "#error don't k<<<1,1>>>()\n"
      "#endif\n";
  EXPECT_EQ(body(source), source);
  EXPECT_TRUE(run(source).warnings.empty());
}

TEST(Cu2cxxSkips, CodeAfterSkippedTextIsStillRewritten) {
  EXPECT_EQ(body("#define X 1\n/* c */ k<<<1, 1>>>(\"<<<\", '>'); // k<<<2,2>>>()\n"),
            "#define X 1\n/* c */ " + launch("1, 1", "k", "\"<<<\", '>'") + "; // k<<<2,2>>>()\n");
}

// --- malformed launches -------------------------------------------------------------------------

TEST(Cu2cxxMalformed, NoCalleeLeavesTheTextAndWarns) {
  const std::string source = "int a;\n  <<<1, 2>>>(x);\n";
  const Translation t = run(source);
  EXPECT_EQ(body(source), source);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0].line, 2);
  EXPECT_EQ(minicuda::cu2cxx::format_warning("/src/t.cu", t.warnings[0]),
            "/src/t.cu:2: warning: cu2cxx: '<<<' does not follow a kernel name; launch left unchanged");
}

TEST(Cu2cxxMalformed, NoArgumentListLeavesTheTextAndWarns) {
  const std::string source = "\n\nk<<<1, 2>>>;\n";
  const Translation t = run(source);
  EXPECT_EQ(body(source), source);
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_EQ(t.warnings[0].line, 3);
  EXPECT_NE(t.warnings[0].message.find("'>>>' is not followed by '('"), std::string::npos);
}

TEST(Cu2cxxMalformed, MissingCloseOrBadConfigLeavesTheTextAndWarns) {
  for (const std::string source : {"k<<<1, 2>>(x);\n", "k<<<>>>(x);\n", "k<<<1, 2, 3, 4, 5>>>(x);\n",
                                   "k<<<1, 2>>>(x;\n"}) {
    const Translation t = run(source);
    EXPECT_EQ(body(source), source);
    EXPECT_EQ(t.warnings.size(), 1u) << source;
  }
}

TEST(Cu2cxxMalformed, AGoodLaunchAfterABadOneIsStillRewritten) {
  const Translation t = run("k<<<1>>>;\nk<<<1>>>(a);\n");
  EXPECT_EQ(t.text.substr(kHeader.size()), "k<<<1>>>;\n" + launch("1", "k", "a") + ";\n");
  EXPECT_EQ(t.warnings.size(), 1u);
}

// --- extern __shared__ --------------------------------------------------------------------------

TEST(Cu2cxxShared, AtNamespaceScopeBecomesDynamicShared) {
  EXPECT_EQ(body("extern __shared__ float s[];\n"), "::minicuda::DynamicShared<float> s;\n");
  EXPECT_EQ(body("namespace ns { extern __shared__ float2 tile[]; }\n"),
            "namespace ns { ::minicuda::DynamicShared<float2> tile; }\n");
  EXPECT_EQ(body("extern \"C\" { extern __shared__ int c[]; }\n"),
            "extern \"C\" { ::minicuda::DynamicShared<int> c; }\n");
  // Initializer and class braces, and a function that has ended, leave namespace scope as it was.
  EXPECT_EQ(body("int a[] = {1}; int b[]{2}; struct S : B<int> { int x{3}; };\n"
                 "void f() { } extern __shared__ float s[];\n"),
            "int a[] = {1}; int b[]{2}; struct S : B<int> { int x{3}; };\n"
            "void f() { } ::minicuda::DynamicShared<float> s;\n");
}

TEST(Cu2cxxShared, InAFunctionBodyBecomesAPointer) {
  EXPECT_EQ(body("void f() { extern __shared__ float s[]; }\n"),
            "void f() { " + shared_pointer("float", "s") + " }\n");
  EXPECT_EQ(body("__device__ void k(float* p) {\n  if (p) { extern __shared__ float2 tile[]; }\n}\n"),
            "__device__ void k(float* p) {\n  if (p) { " + shared_pointer("float2", "tile") + " }\n}\n");
  EXPECT_EQ(body("namespace ns { template <class T> __global__ void __launch_bounds__(64) k(T*) {\n"
                 "  extern __shared__ T t[]; } }\n"),
            "namespace ns { template <class T> __global__ void __launch_bounds__(64) k(T*) {\n  " +
                shared_pointer("T", "t") + " } }\n");
}

TEST(Cu2cxxShared, AnArrayOfRowsInAFunctionBecomesAPointerToRows) {
  // cuda-samples' tensor-core GEMMs: `extern __shared__ half shmem[][CHUNK_K * K + SKEW_HALF];`.
  EXPECT_EQ(body("void f() { extern __shared__ half shmem[][8 * 16 + 16]; }\n"),
            "void f() { half (* const shmem)[8 * 16 + 16] = reinterpret_cast<half (*)[8 * 16 + 16]>"
            "(::minicuda::dynamic_shared<half>()); }\n");
  EXPECT_EQ(body("void f() { extern __shared__ float s[][4][N]; }\n"),
            "void f() { float (* const s)[4][N] = reinterpret_cast<float (*)[4][N]>(::minicuda::dynamic_shared<float>()); }\n");
}

TEST(Cu2cxxShared, AnAlignmentSpecifierAfterSharedMovesBeforeIt) {
  // globalToShmemAsyncCopy: `__shared__ alignas(alignof(float4)) float As[4][16][16];`.
  EXPECT_EQ(body("void f() { __shared__ alignas(alignof(float4)) float As[4][16]; }\n"),
            "void f() { alignas(alignof(float4)) __shared__ float As[4][16]; }\n");
  EXPECT_EQ(body("__shared__ __align__(16) int t[8];\n"), "__align__(16) __shared__ int t[8];\n");
}

TEST(Cu2cxxShared, SharedMayComeAfterTheTypeAmongTheSpecifiers) {
  // `extern double __shared__ s[];` declares the same array as `extern __shared__ double s[];`
  // (cuda-samples' reductionMultiBlockCG writes it so).
  EXPECT_EQ(body("void f() { extern double __shared__ sdata[]; }\n"),
            "void f() { " + shared_pointer("double", "sdata") + " }\n");
  EXPECT_EQ(body("extern unsigned int __shared__ u[];\n"), "::minicuda::DynamicShared<unsigned int> u;\n");
  // An extern declaration without __shared__ before its declarator is left alone.
  EXPECT_EQ(body("extern int g[]; extern int h; extern \"C\" void f();\n"),
            "extern int g[]; extern int h; extern \"C\" void f();\n");
}

TEST(Cu2cxxShared, FunctionBodiesAfterTrailingSpecifiers) {
  const std::string decl = "extern __shared__ int s[];";
  for (const std::string head : {"auto f() const noexcept(true) -> int* {", "void f() noexcept {",
                                 "void S::m() const & override final {", "void f() __attribute__((noinline)) {",
                                 "void f() [[gnu::cold]] {", "auto f() -> std::vector<int> {",
                                 "auto f() -> decltype(g()) {", "template <class T> void f() requires C<T> {",
                                 "S::S() : a(1), b(2) {", "struct S { void m() const { int x; } void n() {",
                                 "auto l = [&](int i) mutable {", "auto l = [] {", "auto l = [=]() -> float {",
                                 "int operator()(int) {"}) {
    const std::string source = head + " " + decl + " }\n";
    EXPECT_EQ(body(source), head + " " + shared_pointer("int", "s") + " }\n") << head;
  }
}

TEST(Cu2cxxShared, PointerFormWorksWithCasts) {
  // The pointer form is what `reinterpret_cast<float*>(s)` and `(float*)s` need.
  EXPECT_EQ(body("void f() { extern __shared__ unsigned char raw[]; float* p = reinterpret_cast<float*>(raw); }\n"),
            "void f() { " + shared_pointer("unsigned char", "raw") +
                " float* p = reinterpret_cast<float*>(raw); }\n");
  EXPECT_EQ(body("void f() { extern __shared__ float* ptrs[]; }\n"),
            "void f() { " + shared_pointer("float*", "ptrs") + " }\n");
}

TEST(Cu2cxxShared, MultiTokenTypes) {
  EXPECT_EQ(body("extern __shared__ unsigned char smem[];\n"), "::minicuda::DynamicShared<unsigned char> smem;\n");
  EXPECT_EQ(body("extern __shared__ ns::T data[];\n"), "::minicuda::DynamicShared<ns::T> data;\n");
  EXPECT_EQ(body("extern __shared__ Pair<int, float> p[];\n"),
            "::minicuda::DynamicShared<Pair<int, float>> p;\n");
  EXPECT_EQ(body("void f() { extern __shared__ Pair<int, float> p[]; }\n"),
            "void f() { " + shared_pointer("Pair<int, float>", "p") + " }\n");
}

TEST(Cu2cxxShared, AlignmentSpecifiersAreDropped) {
  EXPECT_EQ(body("extern __shared__ __align__(16) unsigned char smem[];\n"),
            "::minicuda::DynamicShared<unsigned char> smem;\n");
  EXPECT_EQ(body("extern __shared__ float4 __align__(sizeof(float4)) v[];\n"),
            "::minicuda::DynamicShared<float4> v;\n");
  EXPECT_EQ(body("extern __shared__ alignas(8) double d[];\n"), "::minicuda::DynamicShared<double> d;\n");
  EXPECT_EQ(body("void f() { extern __shared__ __align__(16) double d[]; }\n"),
            "void f() { " + shared_pointer("double", "d") + " }\n");
}

TEST(Cu2cxxShared, MultiLineDeclarationKeepsTheLineCount) {
  EXPECT_EQ(body("extern __shared__\n  __align__(16)\n  int s[];\nint x;\n"),
            "::minicuda::DynamicShared<int> s;\n\n\nint x;\n");
  EXPECT_EQ(body("void f() {\n  extern __shared__\n    int s[];\n  int x = __LINE__;\n}\n"),
            "void f() {\n  " + shared_pointer("int", "s") + "\n\n  int x = __LINE__;\n}\n");
}

TEST(Cu2cxxShared, StaticSharedIsLeftToTheHeaders) {
  const std::string source = "__shared__ float tile[32][32];\n";
  EXPECT_EQ(body(source), source);
}

TEST(Cu2cxxShared, OtherExternSharedFormsAreLeftAndWarned) {
  for (const std::string source :
       {"extern __shared__ float s[64];\n", "void f() {\n  extern __shared__ float s[64];\n}\n"}) {
    const Translation t = run(source);
    EXPECT_EQ(body(source), source);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_EQ(t.warnings[0].line, source.starts_with("void") ? 2 : 1);
  }
}

// --- the registration block ---------------------------------------------------------------------

std::string block(std::string_view module, std::string_view kernels) {
  return std::string(kBlockComment) + "MINICUDA_REGISTER_MODULE(\"" + std::string(module) + "\"" +
         std::string(kernels) + ")\n";
}

TEST(Cu2cxxRegistration, OneKernel) {
  const std::string source = "__global__ void vector_add(const float* a, float* c, int n) {\n  c[0] = a[0];\n}\n";
  const Translation t = translate(source, "/x/y/vector_add.cu");
  EXPECT_EQ(t.text, PROLOGUE "#line 1 \"/x/y/vector_add.cu\"\n" + source +
                        block("vector_add.cu", ", MINICUDA_KERNEL(::vector_add)"));
  EXPECT_EQ(t.kernels, std::vector<std::string>{"::vector_add"});
}

TEST(Cu2cxxRegistration, SourceWithoutFinalNewline) {
  const Translation t = run("__global__ void k() {}");
  EXPECT_EQ(t.text, std::string(kHeader) + "__global__ void k() {}\n" + block("t.cu", ", MINICUDA_KERNEL(::k)"));
}

TEST(Cu2cxxRegistration, Namespaces) {
  const std::string source =
      "namespace ns {\n"
      "__global__ void k2(int* p) { if (p) { *p = 1; } }\n"
      "namespace inner { __global__ void k(int) {} }\n"
      "namespace { __global__ void hidden() {} }\n"
      "}  // namespace ns\n"
      "namespace { __global__ void anon() {} }\n"
      "namespace a::b { __global__ void nested() {} }\n"
      "inline namespace v1 { __global__ void versioned() {} }\n"
      "namespace alias = ns;\n"
      "using namespace ns;\n"
      "extern \"C\" { __global__ void c_linkage() {} }\n"
      "__global__ void top() {}\n";
  EXPECT_EQ(run(source).kernels,
            (std::vector<std::string>{"::ns::k2", "::ns::inner::k", "::ns::hidden", "::anon", "::a::b::nested",
                                      "::v1::versioned", "::c_linkage", "::top"}));
}

TEST(Cu2cxxRegistration, EmittedForm) {
  const Translation t = run("namespace ns { __global__ void k2() {} }\n__global__ void vector_add() {}\n");
  EXPECT_TRUE(t.text.ends_with(block("t.cu", ", MINICUDA_KERNEL(::ns::k2), MINICUDA_KERNEL(::vector_add)")))
      << t.text;
}

TEST(Cu2cxxRegistration, TemplatesAreSkipped) {
  const std::string source =
      "template <typename T, int N = (3 > 2)>\n"
      "__global__ void scale(T* p) {}\n"
      "template <class T> __launch_bounds__(128) static __global__ void t2(T) {}\n"
      "template __global__ void scale<float>(float*);\n"
      "template <> __global__ void scale<int>(int*) {}\n"
      "__global__ void plain() {}\n";
  EXPECT_EQ(run(source).kernels, std::vector<std::string>{"::plain"});
}

TEST(Cu2cxxRegistration, OverloadsAreSkipped) {
  const std::string source =
      "__global__ void ov(int) {}\n"
      "__global__ void ov(float) {}\n"
      "template <class T> __global__ void tov(T) {}\n"
      "__global__ void tov(double) {}\n"
      "namespace other { __global__ void ov(int) {} }\n";
  EXPECT_EQ(run(source).kernels, std::vector<std::string>{"::other::ov"});
}

TEST(Cu2cxxRegistration, AttributesAndSpecifiers) {
  const std::string source =
      "__global__ void __launch_bounds__(256, 2) lb(float* p) {}\n"
      "__launch_bounds__(256) __global__ void lb2() {}\n"
      "static __global__ void st() {}\n"
      "static inline __global__ void __launch_bounds__(64) __maxnreg__(32) multi() {}\n"
      "extern \"C\" __global__ void c_kernel() {}\n"
      "[[maybe_unused]] __global__ void attributed() {}\n"
      "__global__ void\n"
      "spread(int a,\n"
      "       int b)\n"
      "{\n"
      "}\n";
  EXPECT_EQ(run(source).kernels,
            (std::vector<std::string>{"::lb", "::lb2", "::st", "::multi", "::c_kernel", "::attributed", "::spread"}));
}

TEST(Cu2cxxRegistration, DeclarationsAndDefinitionsOutsideTheNamespace) {
  const std::string source =
      "__global__ void declared(int);\n"
      "namespace ns { __global__ void later(); }\n"
      "__global__ void ns::later() {}\n"
      "__global__ void declared(int) {}\n";
  EXPECT_EQ(run(source).kernels, (std::vector<std::string>{"::ns::later", "::declared"}));
}

TEST(Cu2cxxRegistration, KernelsInCommentsStringsOrClassesAreNotFound) {
  const std::string source =
      "// __global__ void commented() {}\n"
      "const char* s = \"__global__ void quoted() {}\";\n"
      "#define DEF __global__ void macro() {}\n"
      "struct S { friend __global__ void member() {} };\n"
      "void host() { [] { }; }\n";
  const Translation t = run(source);
  EXPECT_TRUE(t.kernels.empty());
  EXPECT_EQ(t.text, std::string(kHeader) + source);
}

TEST(Cu2cxxRegistration, NoKernelsNoBlock) {
  const std::string source = "int main() { k<<<1, 1>>>(); }\n";
  const Translation t = run(source);
  EXPECT_EQ(t.text.find("MINICUDA_REGISTER_MODULE"), std::string::npos);
  EXPECT_TRUE(t.text.ends_with(launch("1, 1", "k", "") + "; }\n"));
}

TEST(Cu2cxxRegistration, OnlyTemplatesNoBlock) {
  const Translation t = run("template <class T> __global__ void k(T) {}\n");
  EXPECT_EQ(t.text, std::string(kHeader) + "template <class T> __global__ void k(T) {}\n");
}

// --- all together -------------------------------------------------------------------------------

TEST(Cu2cxxFile, KernelLaunchAndSharedTogetherKeepEveryLine) {
  const std::string source =
      "#include \"helpers.cuh\"\n"
      "__global__ void sum(const float* in, float* out) {\n"
      "  extern __shared__ __align__(16) float partial[];\n"
      "  partial[threadIdx.x] = in[threadIdx.x];\n"
      "}\n"
      "int main() {\n"
      "  sum<<<dim3(4), 256,\n"
      "        256 * sizeof(float)>>>(in, out);\n"
      "  return 0;\n"
      "}\n";
  const Translation t = run(source);
  const std::string expected_body =
      "#include \"helpers.cuh\"\n"
      "__global__ void sum(const float* in, float* out) {\n"
      "  float* const partial = ::minicuda::dynamic_shared<float>();\n"
      "  partial[threadIdx.x] = in[threadIdx.x];\n"
      "}\n"
      "int main() {\n"
      "  (__cudaPushCallConfiguration(dim3(4), 256,\n"
      "        256 * sizeof(float)) ? (void)0 : ::minicuda::kernel_stub<sum>::launch(in, out));\n"
      "  return 0;\n"
      "}\n";
  EXPECT_EQ(t.text, std::string(kHeader) + expected_body + block("t.cu", ", MINICUDA_KERNEL(::sum)"));
  EXPECT_TRUE(t.warnings.empty());
}

}  // namespace
