// Golden traces of kernel launches, written as students write them: a .cu file with <<<>>>,
// translated by minicuda_cu2cxx and registered at start-up as nvcc's host code does.
//   - the first launch of a kernel: the runtime loads the module lazily (cuLibraryLoadData,
//     cuLibraryGetKernel), names it (cuKernelGetName), and cudaLaunchKernel -> cuLaunchKernel
//     writes the kernel's code record and a QMD, two compute methods and the doorbell - the
//     order of chain_cupti.txt's "kernel launch vector_add<<<256,256>>>" step, and no system call;
//   - a second launch: only cuKernelGetName and cudaLaunchKernel -> cuLaunchKernel;
//   - cudaDeviceSynchronize after a launch;
//   - the illegal-address sequence of probe_sticky.txt: the launch succeeds, the synchronize
//     returns cudaErrorIllegalAddress, and so does every later call (sticky).
#include <cuda_runtime.h>

#include "golden.h"
#include "minicuda/trace.h"

namespace trace = minicuda::trace;
using golden::FreshProcess;

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void write_through(int* p) { *p = 1; }

TEST(GoldenLaunch, FirstAndSecondLaunchThenSynchronize) {
  FreshProcess p;
  const int n = 65536;
  int *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 0, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(b, 0, n * sizeof(int)), cudaSuccess);
  // The GPU is idle before each recording, so that the caller's thread is the first to trace in
  // it (trace thread numbers are given in order of first event; golden.h keeps thread 1's lines).
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  {
    trace::Recorder rec;
    vector_add<<<256, 256>>>(a, b, c, n);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
    golden::expect_golden("first_launch", golden::normalise(rec.tree(), p.windows(a)));
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  {
    trace::Recorder rec;
    vector_add<<<256, 256>>>(a, b, c, n);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
    golden::expect_golden("second_launch", golden::normalise(rec.tree(), p.windows(a)));
  }
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
    golden::expect_golden("launch_synchronize", golden::normalise(rec.tree(), p.windows(a)));
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
}

TEST(GoldenLaunch, IllegalAddressSequence) {
  FreshProcess p;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  trace::Recorder rec;
  write_through<<<1, 1>>>(nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int* e = nullptr;
  EXPECT_EQ(cudaMalloc(&e, 4), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaMemcpy(d, d, 4, cudaMemcpyDeviceToDevice), cudaErrorIllegalAddress);
  golden::expect_golden("illegal_address", golden::normalise(rec.tree(), p.windows(d)));
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}
