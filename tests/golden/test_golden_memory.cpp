// Golden traces of the memory call chains students read in the walkthroughs: the first
// cudaMalloc (lazy init, RM object tree, pool growth), the second small one (no syscall), a
// 4 MiB one (its own chunk), cudaFree (slots back, then the chunk back to the kernel),
// cudaHostAlloc/cudaFreeHost (pinning), and glibc's malloc sequence from host_malloc.c.
// Each runs in a fresh simulated process, so that the driver and runtime start uninitialised.
#include <cuda_runtime.h>

#include "golden.h"
#include "host_malloc.h"
#include "minicuda/kernel.h"
#include "minicuda/libc.h"
#include "minicuda/trace.h"

namespace trace = minicuda::trace;

using golden::FreshProcess;

TEST(GoldenMemory, FirstCudaMalloc) {
  FreshProcess p;
  void* d_a = nullptr;
  std::string tree;
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaMalloc(&d_a, 262144), cudaSuccess);
    tree = rec.tree();
  }
  golden::expect_golden("first_cudamalloc", golden::normalise(tree, p.windows(d_a)));
  cudaFree(d_a);
}

TEST(GoldenMemory, SecondSmallCudaMallocMakesNoSyscall) {
  FreshProcess p;
  void *d_a = nullptr, *d_b = nullptr;
  ASSERT_EQ(cudaMalloc(&d_a, 262144), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMalloc(&d_b, 262144), cudaSuccess);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty());
  golden::expect_golden("second_cudamalloc", golden::normalise(rec.tree(), p.windows(d_a)));
  cudaFree(d_b);
  cudaFree(d_a);
}

TEST(GoldenMemory, FourMiBCudaMallocGetsItsOwnChunk) {
  FreshProcess p;
  void *d_a = nullptr, *d_big = nullptr;
  ASSERT_EQ(cudaMalloc(&d_a, 256), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMalloc(&d_big, 4 << 20), cudaSuccess);
  golden::expect_golden("cudamalloc_4mib", golden::normalise(rec.tree(), p.windows(d_a)));
  cudaFree(d_big);
  cudaFree(d_a);
}

TEST(GoldenMemory, CudaFreeGivesTheEmptyChunkBack) {
  FreshProcess p;
  void *d_a = nullptr, *d_b = nullptr;
  ASSERT_EQ(cudaMalloc(&d_a, 262144), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_b, 262144), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaFree(d_b), cudaSuccess);
  ASSERT_EQ(cudaFree(d_a), cudaSuccess);
  golden::expect_golden("cudafree", golden::normalise(rec.tree(), p.windows(d_a)));
}

TEST(GoldenMemory, CudaHostAllocPinsPages) {
  FreshProcess p;
  void* d_a = nullptr;
  ASSERT_EQ(cudaMalloc(&d_a, 256), cudaSuccess);
  trace::Recorder rec;
  void* h = nullptr;
  ASSERT_EQ(cudaHostAlloc(&h, 65536, cudaHostAllocDefault), cudaSuccess);
  ASSERT_EQ(cudaFreeHost(h), cudaSuccess);
  golden::expect_golden("cudahostalloc", golden::normalise(rec.tree(), p.windows(d_a)));
  cudaFree(d_a);
}

TEST(GoldenMemory, HostMallocSequence) {
  FreshProcess p;
  trace::Recorder rec;
  minicuda::testing::run_host_malloc_c();
  golden::expect_golden("host_malloc", golden::normalise(rec.tree(), p.windows(nullptr)));
}

// A double free, as docs/layers/libc.md quotes it: glibc would abort; minicuda reports the
// message glibc prints, counts it, and ignores the call.
TEST(GoldenMemory, HostDoubleFreeIsReportedAndIgnored) {
  FreshProcess p;
  namespace libc = minicuda::libc;
  void* a = libc::malloc(64);
  void* b = libc::malloc(200);
  std::string tree;
  {
    trace::Recorder rec;
    libc::free(b);
    libc::free(b);
    tree = rec.tree();
  }
  EXPECT_EQ(libc::malloc_stats().bad_frees, 1u);
  golden::expect_golden("host_double_free", golden::normalise(tree, p.windows(nullptr)));
  libc::free(a);
}
