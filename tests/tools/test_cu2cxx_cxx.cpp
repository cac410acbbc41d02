// tools/cu2cxx unit tests for the C++ kernels are written in: launches that only the arguments
// can resolve (template kernels without template arguments, overloads) and the refusal of
// dynamic parallelism. Contracts: tools/cu2cxx/translate.h, rewrites.h.
#include <gtest/gtest.h>

#include <string>

#include "translate.h"

namespace minicuda::cu2cxx {
namespace {

Translation run(std::string_view source, const std::vector<std::string>& header_kernels = {}) {
  return translate(source, "/src/t.cu", header_kernels);
}

TEST(Cu2cxxDeduced, TemplateKernelWithoutTemplateArgumentsIsCalledThroughALambda) {
  const Translation t = run(
      "template <class T> __global__ void k(T* p, T v) { *p = v; }\n"
      "void host(float* p) { k<<<1, 2>>>(p, 1.0f); k<float><<<1, 2>>>(p, 2.0f); }\n");
  EXPECT_NE(t.text.find("(__cudaPushCallConfiguration(1, 2) ? (void)0 : ::minicuda::launch_deduced("
                        "[](auto... minicuda_arguments) { k(minicuda_arguments...); }, p, 1.0f))"),
            std::string::npos)
      << t.text;
  // With template arguments the kernel is named exactly: the ordinary stub.
  EXPECT_NE(t.text.find("::minicuda::kernel_stub<k<float>>::launch(p, 2.0f)"), std::string::npos) << t.text;
  EXPECT_TRUE(t.errors.empty());
}

TEST(Cu2cxxDeduced, OverloadsGoThroughTheLambdaAndANonOverloadedKernelDoesNot) {
  const Translation t = run(
      "__global__ void f(int* p) {}\n"
      "__global__ void f(float* p) {}\n"
      "__global__ void g() {}\n"
      "void host(int* p) { f<<<1, 1>>>(p); ns::f<<<1, 1>>>(p); g<<<1, 1>>>(); }\n");
  EXPECT_NE(t.text.find("::minicuda::launch_deduced([](auto... minicuda_arguments) { f(minicuda_arguments...); }, p)"),
            std::string::npos) << t.text;
  EXPECT_NE(t.text.find("{ ns::f(minicuda_arguments...); }, p)"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("::minicuda::kernel_stub<g>::launch()"), std::string::npos) << t.text;
  EXPECT_EQ(t.kernels, (std::vector<std::string>{"::g"}));  // overloads register at first launch
}

TEST(Cu2cxxDeduced, NoArgumentsLeaveNoTrailingComma) {
  const Translation t = run("template <int N> __global__ void z() {}\nvoid h() { z<<<1, 1>>>(); }\n");
  EXPECT_NE(t.text.find("{ z(minicuda_arguments...); }))"), std::string::npos) << t.text;
}

TEST(Cu2cxxDeduced, TemplatesOfIncludedHeadersAreNamedByTheCaller) {
  const std::vector<std::string> names =
      header_kernels_chosen_by_arguments("template <class T> __global__ void h(T) {}\n__global__ void plain() {}\n");
  EXPECT_EQ(names, (std::vector<std::string>{"h"}));
  const Translation t = run("#include \"k.cuh\"\nvoid host() { h<<<1, 1>>>(3); plain<<<1, 1>>>(); }\n", names);
  EXPECT_NE(t.text.find("{ h(minicuda_arguments...); }, 3)"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("::minicuda::kernel_stub<plain>::launch()"), std::string::npos) << t.text;
}

TEST(Cu2cxxDynamicParallelism, ALaunchInsideAKernelGoesToTheDeviceRuntime) {
  const Translation t = run(
      "__global__ void child(int* p) { *p = 1; }\n"
      "__global__ void parent(int* p) {\n"
      "  child<<<1, 2, 0, cudaStreamTailLaunch>>>(p); cudaError_t e = cudaGetLastError();\n"
      "  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); ::cudaStreamDestroy(s);\n"
      "  e = cudaPeekAtLastError(); x.cudaGetLastError(); ns::cudaGetLastError();\n"
      "}\n"
      "int main() { parent<<<1, 1>>>(nullptr); cudaGetLastError(); }\n");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("  (::minicuda::devrt::push_call_configuration(1, 2, 0, cudaStreamTailLaunch) ? (void)0 : "
                        "::minicuda::devrt::device_stub<child>::launch(p)); cudaError_t e = "
                        "::minicuda::devrt::cudaGetLastError();\n"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("  cudaStream_t s; ::minicuda::devrt::cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); "
                        "::minicuda::devrt::cudaStreamDestroy(s);\n"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("  e = ::minicuda::devrt::cudaPeekAtLastError(); x.cudaGetLastError(); ns::cudaGetLastError();\n"),
            std::string::npos)
      << t.text;
  // Host code keeps the runtime's launch and functions.
  EXPECT_NE(t.text.find("int main() { (__cudaPushCallConfiguration(1, 1) ? (void)0 : "
                        "::minicuda::kernel_stub<parent>::launch(nullptr)); cudaGetLastError(); }"),
            std::string::npos)
      << t.text;
}

TEST(Cu2cxxDynamicParallelism, SynchronizeAndMissingDeviceRuntimeCallsAreErrors) {
  const Translation t = run(
      "__device__ void helper(void** args) {\n"
      "  cudaLaunchKernel((const void*)0, 1, 1, args, 0, 0);\n"
      "}\n"
      "__global__ void k() {\n"
      "  if (threadIdx.x == 0) { cudaDeviceSynchronize(); }\n"
      "}\n"
      "__host__ __device__ void both() {}\n"
      "int main() { cudaDeviceSynchronize(); k<<<1, 1>>>(); }\n");
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.errors[0].line, 2);
  EXPECT_NE(t.errors[0].message.find("'helper' calls cudaLaunchKernel(): minicuda's device runtime (CUDA dynamic "
                                     "parallelism) does not have cudaLaunchKernel in device code"),
            std::string::npos)
      << t.errors[0].message;
  EXPECT_EQ(t.errors[1].line, 5);
  EXPECT_NE(t.errors[1].message.find("'k' calls cudaDeviceSynchronize(), which device code cannot call: CUDA 12 and "
                                     "later (dynamic parallelism CDP2)"),
            std::string::npos)
      << t.errors[1].message;
  EXPECT_EQ(format_error("/src/t.cu", t.errors[1]).rfind("/src/t.cu:5: error: cu2cxx: device function 'k'", 0), 0u);
}

TEST(Cu2cxxDeviceHeap, HeapCallsInDeviceCodeGoToTheDeviceHeapAndMarkTheModule) {
  const Translation t = run(
      "__global__ void k(int** out) {\n"
      "  int* p = (int*)malloc(16); free(p); ::free(nullptr);\n"
      "  void* q; cudaError_t e = cudaMalloc(&q, 8); e = cudaFree(q); pool.free(q); std::free(q);\n"
      "}\n"
      "int main() { int* h = (int*)malloc(4); free(h); void* d; cudaMalloc(&d, 4); cudaFree(d); k<<<1, 1>>>(0); }\n");
  EXPECT_TRUE(t.errors.empty());
  EXPECT_NE(t.text.find("  int* p = (int*)::minicuda::devrt::malloc(16); ::minicuda::devrt::free(p); "
                        "::minicuda::devrt::free(nullptr);\n"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("  void* q; cudaError_t e = ::minicuda::devrt::cudaMalloc(&q, 8); e = "
                        "::minicuda::devrt::cudaFree(q); pool.free(q); std::free(q);\n"),
            std::string::npos)
      << t.text;
  // Host code keeps the C library's and the runtime's functions.
  EXPECT_NE(t.text.find("int main() { int* h = (int*)malloc(4); free(h); void* d; cudaMalloc(&d, 4); cudaFree(d);"),
            std::string::npos)
      << t.text;
  EXPECT_NE(t.text.find("MINICUDA_REGISTER_MODULE_WITH_HEAP(\""), std::string::npos) << t.text;
  EXPECT_EQ(run("__global__ void k(int* p) { *p = 1; }\n").text.find("WITH_HEAP"), std::string::npos);
}

TEST(Cu2cxxDynamicParallelism, HostCodeAndLambdasInHostCodeAreNotDeviceCode) {
  const Translation t = run(
      "__global__ void k() {}\n"
      "void host() { auto f = [] __device__ (int x) { return x; }; k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n"
      "__host__ void h2() { k<<<1, 1>>>(); }\n");
  EXPECT_TRUE(t.errors.empty());
}

TEST(Cu2cxxClock, ClockInDeviceCodeIsTheCycleCounterAndHostClockIsLibc) {
  const Translation t = run(
      "__global__ void k(long* t) { t[0] = clock(); t[1] = std::clock(); }\n"
      "__device__ long d() { return clock() + 1; }\n"
      "__host__ __device__ long both() { return clock(); }\n"
      "long host() { return clock(); }\n");
  const std::string device_clock = "static_cast<clock_t>(static_cast<unsigned int>(::clock64()))";
  EXPECT_NE(t.text.find("t[0] = " + device_clock + "; t[1] = std::clock(); }\n"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("return " + device_clock + " + 1; }\n"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("long both() { return clock(); }\n"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("long host() { return clock(); }\n"), std::string::npos) << t.text;
}

}  // namespace
}  // namespace minicuda::cu2cxx
