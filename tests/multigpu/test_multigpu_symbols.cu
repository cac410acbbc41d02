// __device__ variables with two GPUs. Kernel code reaches a variable through one slot per
// program (docs/kernels.md, symbols), so a module's variables live in one context at a time: a
// kernel of that module on the second GPU, while the first GPU's context holds them, must fail
// with cudaErrorNotSupported rather than read or write the first GPU's copy. Once the first
// context is gone, the second may load them.
#include "two_gpu_process.h"

__device__ int g_counter = 5;

__global__ void bump(int* out) { *out = ++g_counter; }

namespace minicuda::testing {
namespace {

class MultiGpuSymbols : public TwoGpuProcess {
 protected:
  int run_bump(int device) {
    EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
    int* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, sizeof(int)), cudaSuccess);
    int out = -1;
    const cudaError_t launched = minicuda::launch<bump>(dim3(1), dim3(1), 0, nullptr, d);
    if (launched == cudaSuccess) {
      EXPECT_EQ(cudaMemcpy(&out, d, sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    } else {
      EXPECT_EQ(launched, cudaErrorNotSupported);
      EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
    }
    EXPECT_EQ(cudaFree(d), cudaSuccess);
    return out;
  }
};

TEST_F(MultiGpuSymbols, AModulesVariablesLiveInOneContextAtATime) {
  EXPECT_EQ(run_bump(0), 6);
  EXPECT_EQ(run_bump(0), 7);   // the same storage, on GPU 0
  EXPECT_EQ(run_bump(1), -1);  // refused, GPU 0's copy untouched
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int value = 0;
  ASSERT_EQ(cudaMemcpyFromSymbol(&value, g_counter, sizeof value), cudaSuccess);
  EXPECT_EQ(value, 7);
  // With GPU 0's context gone, GPU 1 loads the module's variables afresh (initializer 5).
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(run_bump(1), 6);
}

}  // namespace
}  // namespace minicuda::testing
