// __device__ and __constant__ variables and the symbol calls (runtime/src/symbols.cpp): every
// call with the H200's answers (tests/data/h200/probe_api_families.txt, rt.*Symbol*), kernels
// reading values the host wrote, a kernel writing a value the host reads back, static
// initializers, and the copies going through the copy engine.
#include <cstdio>
#include <string>
#include <vector>

#include "kernel_test.h"
#include "minicuda/trace.h"

namespace {
__device__ int g_dev[10];
__constant__ float c_tab[256];
__device__ double g_scalar;
__constant__ float k_init[3] = {1.5f, 2.5f, 3.5f};
__device__ int g_counter = 42;
int host_var[4];
}  // namespace

namespace symbols_test {
__device__ unsigned g_in_namespace = 7;
__device__ unsigned read_in_namespace() { return g_in_namespace; }
}  // namespace symbols_test

__device__ int plus_first(int v) { return v + g_dev[0]; }

__global__ void k_simple(int* out) { out[threadIdx.x] = plus_first(static_cast<int>(c_tab[threadIdx.x])); }
__global__ void k_read_init(float* out, unsigned* ns) {
  out[threadIdx.x] = k_init[threadIdx.x];
  if (threadIdx.x == 0) *ns = symbols_test::read_in_namespace();
}
__global__ void k_count() { atomicAdd(&g_counter, 1); }
__global__ void k_store_scalar(double v) { g_scalar = v; }
// Split at its barrier by region fission: the block function reads the variables the same way.
__global__ void k_block_sum(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = g_dev[threadIdx.x % 10] + static_cast<int>(c_tab[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) {
    int t = 0;
    for (int i = 0; i < 64; ++i) t += s[i];
    *out = t;
  }
}
// A template kernel is registered in a module of its own, at its first launch.
template <int N>
__global__ void k_template_reads(int* out) {
  out[0] = g_counter + N;
}

namespace minicuda::kernels_test {
namespace {

class Symbols : public FreshProcess {};

TEST_F(Symbols, SizesAreTheVariables) {
  size_t sz = 0;
  EXPECT_EQ(cudaGetSymbolSize(&sz, g_dev), cudaSuccess);
  EXPECT_EQ(sz, 40u);
  EXPECT_EQ(cudaGetSymbolSize(&sz, c_tab), cudaSuccess);
  EXPECT_EQ(sz, 1024u);
  EXPECT_EQ(cudaGetSymbolSize(&sz, g_scalar), cudaSuccess);
  EXPECT_EQ(sz, 8u);
}

TEST_F(Symbols, WhatIsNotAVariableIsAnInvalidSymbol) {
  size_t sz = 0;
  void* a = nullptr;
  EXPECT_EQ(cudaGetSymbolSize(&sz, host_var), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolSize(&sz, static_cast<const void*>(nullptr)), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolSize(&sz, reinterpret_cast<const void*>(&k_simple)), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolSize(&sz, static_cast<const void*>(&g_dev[1])), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetSymbolAddress(&a, host_var), cudaErrorInvalidSymbol);
  int v[4] = {};
  EXPECT_EQ(cudaMemcpyToSymbol(host_var, v, 4), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyToSymbol(static_cast<const void*>(nullptr), v, 4, 0, cudaMemcpyHostToDevice),
            cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyFromSymbol(v, host_var, 4), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaMemcpyToSymbolAsync(host_var, v, 4, 0, cudaMemcpyHostToDevice, nullptr), cudaErrorInvalidSymbol);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidSymbol);
}

TEST_F(Symbols, NullResultPointersAreInvalidValues) {
  EXPECT_EQ(cudaGetSymbolSize(nullptr, g_dev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetSymbolAddress(nullptr, g_dev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, nullptr, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyFromSymbol(nullptr, g_dev, 4), cudaErrorInvalidValue);
}

TEST_F(Symbols, TheAddressIsDeviceMemoryNotTheHostShadow) {
  void* a = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&a, g_dev), cudaSuccess);
  EXPECT_NE(a, static_cast<void*>(g_dev));
  cudaPointerAttributes pa{};
  ASSERT_EQ(cudaPointerGetAttributes(&pa, a), cudaSuccess);
  EXPECT_EQ(pa.type, cudaMemoryTypeDevice);
  ASSERT_EQ(cudaGetSymbolAddress(&a, c_tab), cudaSuccess);
  ASSERT_EQ(cudaPointerGetAttributes(&pa, a), cudaSuccess);
  EXPECT_EQ(pa.type, cudaMemoryTypeDevice);
  // The address is where the copies land: a cudaMemcpy there is read by cudaMemcpyFromSymbol.
  const double d = 6.25;
  ASSERT_EQ(cudaGetSymbolAddress(&a, g_scalar), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, &d, sizeof d, cudaMemcpyHostToDevice), cudaSuccess);
  double back = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&back, g_scalar, sizeof back), cudaSuccess);
  EXPECT_EQ(back, 6.25);
}

TEST_F(Symbols, OffsetsAndCountsAsTheH200Answers) {
  int v[10];
  for (int i = 0; i < 10; ++i) v[i] = 100 + i;
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, sizeof v), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 36, 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 40, 4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 0), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 0, 44), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToSymbolAsync(g_dev, v, 44, 0, cudaMemcpyHostToDevice, nullptr), cudaErrorInvalidValue);
  int w[10] = {};
  EXPECT_EQ(cudaMemcpyFromSymbol(w, g_dev, 40, 8), cudaErrorInvalidValue);
  ASSERT_EQ(cudaMemcpyFromSymbol(w, g_dev, sizeof w), cudaSuccess);
  EXPECT_EQ(w[0], 100);
  EXPECT_EQ(w[1], 100);  // the offset copy put v[0] at element 1
  EXPECT_EQ(w[9], 108);
  int two[2] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(two, g_dev, 8, 32), cudaSuccess);
  EXPECT_EQ(two[0], 107);
  EXPECT_EQ(two[1], 108);
}

TEST_F(Symbols, KindsAsTheH200Answers) {
  int v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyHostToHost), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 4, 0, static_cast<cudaMemcpyKind>(7)), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyFromSymbol(v, g_dev, 4, 0, cudaMemcpyHostToDevice), cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaMemcpyToSymbol(g_dev, v, 4, 0, cudaMemcpyDefault), cudaSuccess);
  DeviceArray<int> dv(std::vector<int>(v, v + 10));
  ASSERT_EQ(cudaMemcpyToSymbol(g_dev, dv.get(), 40, 0, cudaMemcpyDeviceToDevice), cudaSuccess);
  DeviceArray<int> out(10);
  ASSERT_EQ(cudaMemcpyFromSymbol(out.get(), g_dev, 40, 0, cudaMemcpyDeviceToDevice), cudaSuccess);
  EXPECT_EQ(out.read(), std::vector<int>(v, v + 10));
  int w[10] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(w, g_dev, 40, 0, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(std::vector<int>(w, w + 10), std::vector<int>(v, v + 10));
}

// The probe's kernel: out[i] = c_tab[i] + g_dev[0], both written by cudaMemcpyToSymbol.
TEST_F(Symbols, KernelsReadWhatTheHostWrote) {
  int v[10];
  for (int i = 0; i < 10; ++i) v[i] = 100 + i;
  float t[256];
  for (int i = 0; i < 256; ++i) t[i] = static_cast<float>(i);
  ASSERT_EQ(cudaMemcpyToSymbol(g_dev, v, sizeof v), cudaSuccess);
  ASSERT_EQ(cudaMemcpyToSymbolAsync(c_tab, t, sizeof t, 0, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  DeviceArray<int> out(10);
  k_simple<<<1, 10>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> o = out.read();
  EXPECT_EQ(o[0], 100);
  EXPECT_EQ(o[1], 101);
  EXPECT_EQ(o[9], 109);
  // The host shadow is not the storage: it kept its own (zero) value.
  EXPECT_EQ(g_dev[0], 0);
  // A variable of a namespace, through a __device__ function of that namespace.
  const unsigned nine = 9;
  ASSERT_EQ(cudaMemcpyToSymbol(symbols_test::g_in_namespace, &nine, sizeof nine), cudaSuccess);
  DeviceArray<float> init(3);
  DeviceArray<unsigned> ns(1);
  k_read_init<<<1, 3>>>(init.get(), ns.get());
  EXPECT_EQ(ns.read(), std::vector<unsigned>{9u});
  EXPECT_EQ(symbols_test::g_in_namespace, 7u);
}

TEST_F(Symbols, KernelsWriteWhatTheHostReadsBack) {
  k_count<<<4, 64>>>();
  k_store_scalar<<<1, 1>>>(2.75);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int counter = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&counter, g_counter, sizeof counter), cudaSuccess);
  EXPECT_EQ(counter, 42 + 256);
  double s = 0;
  ASSERT_EQ(cudaMemcpyFromSymbolAsync(&s, g_scalar, sizeof s, 0, cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(s, 2.75);
}

TEST_F(Symbols, StaticInitializersReachKernelsAndCopies) {
  float k[3] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(k, k_init, sizeof k), cudaSuccess);
  EXPECT_EQ(k[0], 1.5f);
  EXPECT_EQ(k[2], 3.5f);
  DeviceArray<float> out(3);
  DeviceArray<unsigned> ns(1);
  k_read_init<<<1, 3>>>(out.get(), ns.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read(), (std::vector<float>{1.5f, 2.5f, 3.5f}));
  EXPECT_EQ(ns.read(), std::vector<unsigned>{7u});
  int counter = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&counter, g_counter, sizeof counter), cudaSuccess);
  EXPECT_EQ(counter, 42);  // each process loads the module afresh, from the initializer
}

TEST_F(Symbols, KernelsSplitAtBarriersReadTheDeviceValues) {
  int v[10];
  for (int i = 0; i < 10; ++i) v[i] = i + 1;
  float t[256];
  for (int i = 0; i < 256; ++i) t[i] = static_cast<float>(2 * i);
  ASSERT_EQ(cudaMemcpyToSymbol(g_dev, v, sizeof v), cudaSuccess);
  ASSERT_EQ(cudaMemcpyToSymbol(c_tab, t, sizeof t), cudaSuccess);
  DeviceArray<int> out(1);
  k_block_sum<<<1, 64>>>(out.get());
  int expected = 0;
  for (int i = 0; i < 64; ++i) expected += v[i % 10] + 2 * i;
  EXPECT_EQ(out.read(), std::vector<int>{expected});
}

// No symbol call first: the launch alone places the variables (with their initializers).
TEST_F(Symbols, ATemplateKernelAloneReachesTheVariables) {
  DeviceArray<int> out(1);
  k_template_reads<5><<<1, 1>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(out.read(), std::vector<int>{47});
}

TEST_F(Symbols, CopiesGoThroughTheCopyEngine) {
  int v[10] = {};
  ASSERT_EQ(cudaMemcpyToSymbol(g_dev, v, sizeof v), cudaSuccess);  // the module's globals load first
  void* at = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&at, g_dev), cudaSuccess);
  char address[32];
  std::snprintf(address, sizeof address, "%#llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(at)));
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemcpyToSymbol(g_dev, v, sizeof v), cudaSuccess);
  ASSERT_EQ(cudaMemcpyFromSymbol(v, g_dev, sizeof v), cudaSuccess);
  const std::string tree = recorder.tree();
  EXPECT_NE(tree.find("cudaMemcpyToSymbol("), std::string::npos) << tree;
  EXPECT_NE(tree.find("cuLibraryGetGlobal(name=g_dev)"), std::string::npos) << tree;
  EXPECT_NE(tree.find("cuMemcpyHtoD_v2("), std::string::npos) << tree;
  EXPECT_NE(tree.find("cuMemcpyDtoH_v2("), std::string::npos) << tree;
  // The GPU's copy engine moved the bytes to and from the variable's device address.
  EXPECT_NE(tree.find(std::string(": copy 40 B ") + "0x"), std::string::npos) << tree;
  EXPECT_NE(tree.find(std::string("-> ") + address), std::string::npos) << tree;
  EXPECT_NE(tree.find(std::string(": copy 40 B ") + address + " ->"), std::string::npos) << tree;
}

TEST_F(Symbols, TheModuleLoadPlacesTheVariablesInDeviceMemory) {
  trace::Recorder recorder;
  size_t sz = 0;
  ASSERT_EQ(cudaGetSymbolSize(&sz, c_tab), cudaSuccess);
  const std::string tree = recorder.tree();
  EXPECT_NE(tree.find("global segment of test_symbols.cu"), std::string::npos) << tree;
  EXPECT_NE(tree.find("constant bank of test_symbols.cu"), std::string::npos) << tree;
}

}  // namespace
}  // namespace minicuda::kernels_test
