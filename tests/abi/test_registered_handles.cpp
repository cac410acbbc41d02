// The runtime calls that take a kernel's host function or a variable's host shadow, on kernels
// and variables registered as a program NVIDIA's nvcc built registers them: no nvcc needed. The
// test registers a PTX fatbinary with the hidden ABI of crt/host_runtime.h itself
// (__cudaRegisterFatBinary, __cudaRegisterFunction, __cudaRegisterVar) - nvcc's own fatbinary of
// tests/data/h200/module/kernels.cu, and one wrapping the hand-written tests/data/abi/large_params.ptx
// - with host "stubs" of its own, and then asks the runtime (the static minicuda::cudart) about
// them. Values and errors are the H200's (tests/data/h200/probe_api_families.txt: the keys are
// named at each check); registers per thread are the JIT's, so the occupancy checks use kernels
// whose count stays under the limits that would change the answer.
#include <gtest/gtest.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "abi_test_support.h"
#include "fatbinary.h"

namespace minicuda::abi_testing {
namespace {

// The host side of a registered module: the fatbinary, its wrapper, and the addresses that stand
// for nvcc's host stubs and host shadows (only their addresses matter).
struct Module {
  std::vector<uint64_t> image;
  fatbin::FatbinWrapper wrapper{};
  void** handle = nullptr;
  void register_image() {
    wrapper = {fatbin::kFatbinWrapperMagic, 1, image.data(), nullptr};
    handle = __cudaRegisterFatBinary(&wrapper);
  }
  void kernel(const void* stub, const char* name) {
    __cudaRegisterFunction(handle, static_cast<const char*>(stub), const_cast<char*>(name), name, -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
  }
  void variable(void* shadow, const char* name, size_t size, int constant) {
    __cudaRegisterVar(handle, static_cast<char*>(shadow), const_cast<char*>(name), name, 0, size, constant, 0);
  }
};

// kernels.cu: vadd(a, b, c, n), bump(out) (atomicAdd on g_counter), big_shared(out) (extern
// __shared__); __device__ int g_counter = 7; __constant__ float c_scale[4] = {1, 2, 3, 4}.
char vadd_stub, bump_stub, big_shared_stub;
int g_counter_shadow;
float c_scale_shadow[4];
// large_params.ptx.
char big_param_stub, static_shared_stub;
char c_big_shadow[27904];
char g_big_shadow[40000];
int not_registered;

class RegisteredHandles : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static Module kernels, large;  // registered once per process, as nvcc's start-up code does
    if (kernels.handle != nullptr) return;
    std::string fat = read_text(std::string(MINICUDA_H200_MODULE_IMG) + "/vadd_ptxonly.fatbin");
    kernels.image.assign((fat.size() + 7) / 8, 0);
    std::memcpy(kernels.image.data(), fat.data(), fat.size());
    kernels.register_image();
    kernels.kernel(&vadd_stub, "vadd");
    kernels.kernel(&bump_stub, "bump");
    kernels.kernel(&big_shared_stub, "big_shared");
    kernels.variable(&g_counter_shadow, "g_counter", sizeof g_counter_shadow, 0);
    kernels.variable(c_scale_shadow, "c_scale", sizeof c_scale_shadow, 1);
    __cudaRegisterFatBinaryEnd(kernels.handle);
    large.image = ptx_fatbin(read_text(std::string(MINICUDA_ABI_DATA) + "/large_params.ptx"));
    large.register_image();
    large.kernel(&big_param_stub, "big_param");
    large.kernel(&static_shared_stub, "static_shared");
    large.variable(c_big_shadow, "c_big", sizeof c_big_shadow, 1);
    large.variable(g_big_shadow, "g_big", sizeof g_big_shadow, 0);
    __cudaRegisterFatBinaryEnd(large.handle);
  }
  void TearDown() override { (void)cudaGetLastError(); }
};

TEST_F(RegisteredHandles, FuncGetAttributesDescribesTheJitCompiledKernel) {
  cudaFuncAttributes a{};
  ASSERT_EQ(cudaFuncGetAttributes(&a, &vadd_stub), cudaSuccess);
  EXPECT_EQ(a.maxThreadsPerBlock, 1024);
  EXPECT_EQ(a.sharedSizeBytes, 0u);
  EXPECT_EQ(a.constSizeBytes, 16u);  // the module's __constant__ bytes (c_scale), as k_smem's const=1024
  EXPECT_EQ(a.localSizeBytes, 0u);
  EXPECT_EQ(a.ptxVersion, 90);  // .version 9.0
  EXPECT_EQ(a.binaryVersion, 90);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 49152);
  EXPECT_EQ(a.preferredShmemCarveout, -1);
  // numRegs is the JIT's allocation: the same number the driver reports for the kernel.
  cudaFunction_t f = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&f, &vadd_stub), cudaSuccess);  // rt.getFuncBySymbol
  int regs = -1;
  ASSERT_EQ(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_SUCCESS);
  EXPECT_EQ(a.numRegs, regs);
  EXPECT_GT(regs, 0);
  EXPECT_LE(regs, 32);
}

TEST_F(RegisteredHandles, BadFunctionsGetTheH200Errors) {
  cudaFuncAttributes a{};
  int n = -7;
  size_t avail = 0;
  cudaFunction_t f = nullptr;
  EXPECT_EQ(cudaFuncGetAttributes(&a, nullptr), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaFuncGetAttributes(nullptr, &vadd_stub), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetCacheConfig(nullptr, cudaFuncCachePreferL1), cudaErrorInvalidDeviceFunction);  // .null
  EXPECT_EQ(cudaFuncSetCacheConfig(&not_registered, cudaFuncCachePreferL1), cudaErrorInvalidResourceHandle);  // .hostvar
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, nullptr, 128, 0), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, &not_registered, 128, 0, 0),
            cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, nullptr, 1, 128), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaGetFuncBySymbol(&f, nullptr), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaGetFuncBySymbol(nullptr, &vadd_stub), cudaErrorInvalidValue);
  EXPECT_EQ(n, -7);
}

TEST_F(RegisteredHandles, OccupancyFollowsTheH200Rules) {
  int n = -7;
  // rt.occMaxActive.k_simple.256: 8 blocks of 256 threads fill an SM's 2048 threads.
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &vadd_stub, 256, 0), cudaSuccess);
  EXPECT_EQ(n, 8);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, &vadd_stub, 256, 0,
                                                                   cudaOccupancyDisableCachingOverride),
            cudaSuccess);
  EXPECT_EQ(n, 8);
  // Flags outside the two: invalid (drv.occMaxActiveFlags.bad), in both layers.
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, &vadd_stub, 128, 0, 4), cudaErrorInvalidValue);
  cudaFunction_t f = nullptr;
  ASSERT_EQ(cudaGetFuncBySymbol(&f, &vadd_stub), cudaSuccess);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 128, 0, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &vadd_stub, 0, 0), cudaErrorInvalidValue);
  // Shared memory: 48 KiB + the 1 KiB reservation per block -> 4 blocks of 64 threads per SM.
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &big_shared_stub, 64, 49152), cudaSuccess);
  EXPECT_EQ(n, 4);
  // More dynamic shared memory than the kernel allows, or threads than a block may have: none.
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &big_shared_stub, 64, 49153), cudaSuccess);
  EXPECT_EQ(n, 0);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &vadd_stub, 1025, 0), cudaSuccess);
  EXPECT_EQ(n, 0);
}

// A block is charged its static __shared__ with the dynamic bytes, and may add dynamically what
// 48 KiB (or the opt-in limit) leaves: 4 KiB static -> 45056 (rt.funcGetAttributes.k_smem).
TEST_F(RegisteredHandles, StaticSharedMemoryCountsAgainstTheLimitsAndTheOccupancy) {
  cudaFuncAttributes a{};
  ASSERT_EQ(cudaFuncGetAttributes(&a, &static_shared_stub), cudaSuccess);
  EXPECT_EQ(a.sharedSizeBytes, 40000u);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 49152 - 40000);
  int n = -7;
  // (40000 + 1024) rounded to 128 bytes: 5 blocks in 233472; with the 9152 dynamic bytes: 4.
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &static_shared_stub, 64, 0), cudaSuccess);
  EXPECT_EQ(n, 5);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &static_shared_stub, 64, 9152), cudaSuccess);
  EXPECT_EQ(n, 4);
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &static_shared_stub, 64, 9153), cudaSuccess);
  EXPECT_EQ(n, 0);
  size_t avail = 0;
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &static_shared_stub, 1, 64), cudaSuccess);
  EXPECT_EQ(avail, 9152u);
  int optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(&static_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 40000 + 1),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(&static_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, optin - 40000),
            cudaSuccess);
  // A launch whose static and dynamic shared memory together pass 48 KiB needs that opt-in.
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(int)), cudaSuccess);
  void* args[] = {&out};
  EXPECT_EQ(cudaLaunchKernel(&static_shared_stub, dim3(1), dim3(64), args, 20000, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(&static_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 9152), cudaSuccess);
  EXPECT_EQ(cudaLaunchKernel(&static_shared_stub, dim3(1), dim3(64), args, 9153, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

TEST_F(RegisteredHandles, MaxPotentialBlockSizeSearchesOverTheKernel) {
  int min_grid = -7, block = -7;
  // rt.occMaxPotential.k_simple: 2 blocks of 1024 per SM, 132 SMs.
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, &vadd_stub, 0, 0), cudaSuccess);
  EXPECT_EQ(min_grid, 264);
  EXPECT_EQ(block, 1024);
  // rt.occMaxPotential.limit100: 64 threads (the largest warp multiple under 100), 32 per SM.
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, &vadd_stub, 0, 100), cudaSuccess);
  EXPECT_EQ(min_grid, 4224);
  EXPECT_EQ(block, 64);
  // rt.occMaxPotential.dyn48K: 48 KiB per block still lets 2 blocks of 1024 share an SM.
  ASSERT_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, &big_shared_stub, 49152, 0), cudaSuccess);
  EXPECT_EQ(min_grid, 264);
  EXPECT_EQ(block, 1024);
}

TEST_F(RegisteredHandles, AvailableDynamicSharedMemoryIsTheH200s) {
  size_t avail = 0xdead;
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &vadd_stub, 1, 128), cudaSuccess);  // .1.128
  EXPECT_EQ(avail, 49152u);
  ASSERT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &vadd_stub, 32, 64), cudaSuccess);  // .32.64
  EXPECT_EQ(avail, 7296u);
  avail = 0xdead;
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &vadd_stub, 33, 64), cudaErrorInvalidValue);  // .33.64
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &vadd_stub, 0, 128), cudaErrorInvalidValue);
  EXPECT_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, &vadd_stub, 1, 2048), cudaErrorInvalidValue);
  EXPECT_EQ(avail, 0xdeadu);
}

TEST_F(RegisteredHandles, FuncSettersRecordWhatTheDriverAccepts) {
  EXPECT_EQ(cudaFuncSetCacheConfig(&vadd_stub, cudaFuncCachePreferShared), cudaSuccess);  // .shared
  EXPECT_EQ(cudaFuncSetCacheConfig(&vadd_stub, static_cast<cudaFuncCache>(5)), cudaErrorInvalidValue);  // .bad5
  EXPECT_EQ(cudaFuncSetSharedMemConfig(&vadd_stub, cudaSharedMemBankSizeFourByte), cudaSuccess);
  int optin = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), cudaSuccess);
  ASSERT_EQ(cudaFuncSetAttribute(&big_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000), cudaSuccess);
  cudaFuncAttributes a{};
  ASSERT_EQ(cudaFuncGetAttributes(&a, &big_shared_stub), cudaSuccess);
  EXPECT_EQ(a.maxDynamicSharedSizeBytes, 100000);
  int n = -7;
  // 100000 + 1024 bytes, in 128-byte units, twice in an SM's 233472.
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, &big_shared_stub, 64, 100000), cudaSuccess);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(cudaFuncSetAttribute(&big_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaFuncSetAttribute(&big_shared_stub, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152), cudaSuccess);
  EXPECT_EQ(cudaFuncSetAttribute(nullptr, cudaFuncAttributeMaxDynamicSharedMemorySize, 0),
            cudaErrorInvalidDeviceFunction);
}

TEST_F(RegisteredHandles, SymbolsAreTheModulesVariables) {
  size_t size = 0;
  ASSERT_EQ(cudaGetSymbolSize(&size, g_counter_shadow), cudaSuccess);
  EXPECT_EQ(size, 4u);
  ASSERT_EQ(cudaGetSymbolSize(&size, c_scale_shadow), cudaSuccess);
  EXPECT_EQ(size, 16u);
  void* address = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&address, g_counter_shadow), cudaSuccess);
  EXPECT_NE(address, nullptr);
  // The PTX initializers are the variables' first values.
  float scale[4] = {};
  ASSERT_EQ(cudaMemcpyFromSymbol(scale, c_scale_shadow, sizeof scale), cudaSuccess);
  EXPECT_EQ(scale[0], 1.0f);
  EXPECT_EQ(scale[3], 4.0f);
  int counter = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&counter, g_counter_shadow, sizeof counter), cudaSuccess);
  EXPECT_EQ(counter, 7);
  // The H200's errors (rt.memcpyToSymbol.*, rt.getSymbolSize.*).
  EXPECT_EQ(cudaMemcpyToSymbol(g_counter_shadow, &counter, 8), cudaErrorInvalidValue);  // .overflow
  EXPECT_EQ(cudaMemcpyToSymbol(not_registered, &counter, 4), cudaErrorInvalidSymbol);    // .hostvar
  EXPECT_EQ(cudaMemcpyToSymbol(vadd_stub, &counter, 1), cudaErrorInvalidSymbol);         // a kernel
  EXPECT_EQ(cudaGetSymbolSize(&size, static_cast<const void*>(nullptr)), cudaErrorInvalidSymbol);  // .nullsym
  EXPECT_EQ(cudaMemcpyToSymbol(g_counter_shadow, &counter, 4, 0, cudaMemcpyDeviceToHost),
            cudaErrorInvalidMemcpyDirection);  // .kind_d2h
}

TEST_F(RegisteredHandles, KernelsReadAndWriteTheSymbolsTheHostCopied) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int value = 42;
  ASSERT_EQ(cudaMemcpyToSymbolAsync(g_counter_shadow, &value, sizeof value, 0, cudaMemcpyHostToDevice, stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(int)), cudaSuccess);
  void* args[] = {&out};
  ASSERT_EQ(cudaLaunchKernel(&bump_stub, dim3(1), dim3(1), args, 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int seen = 0;
  ASSERT_EQ(cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(seen, 43);
  int after = 0;
  ASSERT_EQ(cudaMemcpyFromSymbolAsync(&after, g_counter_shadow, sizeof after, 0, cudaMemcpyDeviceToHost, stream),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(after, 43);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

// LargeKernelParameter's shapes: a __constant__ array of 27904 bytes, filled by the host at an
// offset, read back and read by a kernel whose parameters are CUDA 12.1's whole 32764 bytes.
TEST_F(RegisteredHandles, LargeConstantsAndParametersReachTheKernel) {
  size_t size = 0;
  ASSERT_EQ(cudaGetSymbolSize(&size, c_big_shadow), cudaSuccess);
  EXPECT_EQ(size, 27904u);
  ASSERT_EQ(cudaGetSymbolSize(&size, g_big_shadow), cudaSuccess);
  EXPECT_EQ(size, 40000u);
  std::vector<int> words(27904 / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = static_cast<int>(i * 3);
  ASSERT_EQ(cudaMemcpyToSymbol(c_big_shadow, words.data(), 27904 - 4096, 4096), cudaSuccess);
  EXPECT_EQ(cudaMemcpyToSymbol(c_big_shadow, words.data(), 4096 + 4, 27904 - 4096), cudaErrorInvalidValue);
  std::vector<int> back(words.size(), -1);
  ASSERT_EQ(cudaMemcpyFromSymbol(back.data(), c_big_shadow, 27904 - 4096, 4096), cudaSuccess);
  EXPECT_EQ(back[0], 0);
  EXPECT_EQ(back[(27904 - 4096) / 4 - 1], static_cast<int>(words[(27904 - 4096) / 4 - 1]));
  std::vector<char> big(40000, 5);
  ASSERT_EQ(cudaMemcpyToSymbol(g_big_shadow, big.data(), big.size()), cudaSuccess);
  std::vector<char> big_back(40000, 0);
  ASSERT_EQ(cudaMemcpyFromSymbol(big_back.data(), g_big_shadow, big_back.size()), cudaSuccess);
  EXPECT_EQ(big_back, big);

  struct Large {
    int words[32756 / 4];
  };
  static Large param;
  param.words[0] = 11;
  param.words[32756 / 4 - 1] = 22;
  int* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 3 * sizeof(int)), cudaSuccess);
  void* args[] = {&out, &param};
  ASSERT_EQ(cudaLaunchKernel(&big_param_stub, dim3(1), dim3(1), args, 0, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int seen[3] = {};
  ASSERT_EQ(cudaMemcpy(seen, out, sizeof seen, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(seen[0], 11);
  EXPECT_EQ(seen[1], 22);
  EXPECT_EQ(seen[2], words[(27904 - 4096) / 4 - 1]);  // c_big's last word, copied at offset 4096
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::abi_testing
