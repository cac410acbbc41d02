// cu2cxx on the C++ of real CUDA programs (translate.h, rewrites.h): the project's own headers,
// kernels with default arguments, launches through a kernel pointer, file-scope __CUDA_ARCH__
// groups of device code. Exact emitted text.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "translate.h"

namespace {

using minicuda::cu2cxx::IncludedFile;
using minicuda::cu2cxx::IncludeReader;
using minicuda::cu2cxx::Translation;
using minicuda::cu2cxx::translate;

// A reader over an in-memory directory: "name" next to "/src/x" is "/src/name".
IncludeReader reader_of(const std::map<std::string, std::string>& files) {
  return [files](std::string_view including, std::string_view spelled) -> std::optional<IncludedFile> {
    const std::string dir(including.substr(0, including.rfind('/') + 1));
    const auto it = files.find(dir + std::string(spelled));
    if (it == files.end()) return std::nullopt;
    return IncludedFile{it->first, it->second};
  };
}

bool has(const Translation& t, std::string_view text) { return t.text.find(text) != std::string::npos; }

// --- headers ---------------------------------------------------------------------------------

TEST(Cu2cxxHeaders, AHeaderWithCudaCodeIsInlinedTranslatedAndRegistered) {
  const auto read = reader_of({{"/src/k.cuh",
                                "#pragma once\n"
                                "__global__ void hk(int* p) { extern __shared__ int s[]; p[0] = s[0]; }\n"
                                "inline void go(int* p) { hk<<<1, 1>>>(p); }\n"},
                               {"/src/plain.h", "int plain();\n"}});
  const Translation t = translate("#include \"k.cuh\"\n#include \"plain.h\"\nint x;\n", "/src/t.cu", {}, read);
  EXPECT_TRUE(has(t, "#ifndef MINICUDA_CU2CXX_ONCE_0\n#define MINICUDA_CU2CXX_ONCE_0\n#line 1 \"/src/k.cuh\"\n\n"
                     "__global__ void hk(int* p) { int* const s = ::minicuda::dynamic_shared<int>(); p[0] = s[0]; }\n"
                     "inline void go(int* p) { (__cudaPushCallConfiguration(1, 1) ? (void)0 : "
                     "::minicuda::kernel_stub<hk>::launch(p)); }\n"
                     "#ifndef MINICUDA_CU2CXX_ENTRIES_0\n#define MINICUDA_CU2CXX_ENTRIES_0 MINICUDA_KERNEL(::hk),\n#endif\n"
                     "#endif\n#line 2 \"/src/t.cu\"\n#include \"plain.h\"\nint x;\n"))
      << t.text;
  // The header's entries join the .cu's module; empty where its text was not compiled.
  EXPECT_TRUE(has(t, "#ifndef MINICUDA_CU2CXX_ENTRIES_0\n#define MINICUDA_CU2CXX_ENTRIES_0\n#endif\n"
                     "// Appended by minicuda_cu2cxx: registers this file's kernels at start-up, as nvcc's host code does\n"
                     "MINICUDA_REGISTER_MODULE(\"t.cu\", MINICUDA_CU2CXX_ENTRIES_0)\n"))
      << t.text;
  EXPECT_EQ(t.kernels, std::vector<std::string>{"::hk"});
}

TEST(Cu2cxxHeaders, NestedHeadersAreFoundNextToTheirIncluder) {
  const auto read = reader_of({{"/src/a.cuh", "#include \"sub/b.cuh\"\n"},
                               {"/src/sub/b.cuh", "#include \"c.h\"\n__device__ int f();\n"},
                               {"/src/sub/c.h", "int c();\n"}});
  const Translation t = translate("#include \"a.cuh\"\n", "/src/t.cu", {}, read);
  // a.cuh has no CUDA code of its own but includes a header that does; c.h needs no translation
  // and is named by its path, since the generated file lives elsewhere.
  EXPECT_TRUE(has(t, "#line 1 \"/src/a.cuh\"\n#line 1 \"/src/sub/b.cuh\"\n#include \"/src/sub/c.h\"\n__device__ int f();\n"
                     "#line 2 \"/src/a.cuh\"\n"))
      << t.text;
  EXPECT_TRUE(has(t, "#line 2 \"/src/t.cu\"\n")) << t.text;
}

TEST(Cu2cxxHeaders, WithoutAReaderIncludesStay) {
  const Translation t = translate("#include \"k.cuh\"\n", "/src/t.cu");
  EXPECT_TRUE(has(t, "#line 1 \"/src/t.cu\"\n#include \"k.cuh\"\n")) << t.text;
}

// --- launches ----------------------------------------------------------------------------------

TEST(Cu2cxxLaunchTargets, DefaultArgumentsGoThroughTheKernelsLauncher) {
  const Translation t = translate(
      "__global__ void k(int* p, int n = 4, const float* q = nullptr) { }\n"
      "void h(int* p) { k<<<1, 2>>>(p); }\n",
      "/src/t.cu");
  EXPECT_TRUE(has(t, "{ } [[maybe_unused]] static void k__minicuda_defaults(int* p, int n = 4, const float* q = nullptr) "
                     "{ ::minicuda::kernel_stub<&k>::launch(p, n, q); }\n"
                     "void h(int* p) { (__cudaPushCallConfiguration(1, 2) ? (void)0 : k__minicuda_defaults(p)); }\n"))
      << t.text;
}

TEST(Cu2cxxLaunchTargets, AnUnnamedParameterKeepsTheOrdinaryStub) {
  const Translation t = translate("__global__ void k(int*, int n = 4) { }\nvoid h(int* p) { k<<<1, 2>>>(p, 1); }\n",
                                  "/src/t.cu");
  EXPECT_FALSE(has(t, "__minicuda_defaults")) << t.text;
  EXPECT_TRUE(has(t, "::minicuda::kernel_stub<k>::launch(p, 1)")) << t.text;
}

TEST(Cu2cxxLaunchTargets, AVariableHoldingAKernelIsLaunchedByValue) {
  const Translation t = translate(
      "__global__ void a(float* p) { }\n"
      "void h(float* p) { void (*kernel)(float*) = &a; kernel<<<1, 1>>>(p); a<<<1, 1>>>(p); }\n",
      "/src/t.cu");
  EXPECT_TRUE(has(t, "(__cudaPushCallConfiguration(1, 1) ? (void)0 : ::minicuda::launch_through(kernel)(p)); "
                     "(__cudaPushCallConfiguration(1, 1) ? (void)0 : ::minicuda::kernel_stub<a>::launch(p));"))
      << t.text;
  const Translation assigned = translate(
      "__global__ void a(float* p) { }\nvoid h(float* p) { auto other = a; other<<<1, 1>>>(p); }\n", "/src/t.cu");
  EXPECT_TRUE(has(assigned, "auto other = a; (__cudaPushCallConfiguration(1, 1) ? (void)0 : "
                            "::minicuda::launch_through(other)(p));"))
      << assigned.text;
}

// --- __CUDA_ARCH__ at file scope ----------------------------------------------------------------

TEST(Cu2cxxLaunchTargets, FileScopeArchGroupsOfDeviceCodeAreCompiledForTheDevice) {
  const std::string_view source =
      "#if __CUDA_ARCH__ >= 700\n"                               // 1
      "__device__ int f() { return __CUDA_ARCH__; }\n"           // 2
      "#endif\n"                                                 // 3
      "#ifdef __CUDA_ARCH__\n"                                   // 4
      "int host_too();\n"                                        // 5
      "#endif\n"                                                 // 6
      "#ifdef __CUDA_ARCH__\n"                                   // 7
      "#error no declarations: host view\n"                      // 8
      "#endif\n";                                                // 9
  const Translation t = translate(source, "/src/t.cu");
  // Around the whole group, and not again around f's body inside it.
  EXPECT_TRUE(has(t, "#line 1 \"/src/t.cu\"\n#define __CUDA_ARCH__ 900\n#line 1 \"/src/t.cu\"\n#if __CUDA_ARCH__ >= 700\n"
                     "__device__ int f() { return __CUDA_ARCH__; }\n#endif\n#undef __CUDA_ARCH__\n#line 4 \"/src/t.cu\"\n"
                     "#ifdef __CUDA_ARCH__\nint host_too();\n#endif\n#ifdef __CUDA_ARCH__\n"))
      << t.text;
}

}  // namespace
