// Golden trace of the stream-ordered allocator, the calls of samples/mempool_async.cu: the first
// cudaMallocAsync asks the kernel for a 32 MiB chunk (RM_ALLOC and the UVM mapping, the cudaMalloc
// chain's "brk"), the free and the second allocation in the same stream stay in the pool's cache
// with no syscall, and the synchronize gives the chunk back (release threshold 0).
#include <cuda_runtime.h>

#include "golden.h"
#include "minicuda/trace.h"

namespace trace = minicuda::trace;

TEST(GoldenMemPool, MallocAsyncFreeAsyncAndTheReleaseAtTheSynchronize) {
  golden::FreshProcess p;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  void *a = nullptr, *b = nullptr;
  std::string tree;
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaMallocAsync(&a, 262144, s), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
    ASSERT_EQ(cudaMallocAsync(&b, 262144, s), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(b, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    tree = rec.tree();
  }
  EXPECT_EQ(a, b);
  golden::expect_golden("mempool_async", golden::normalise(tree, p.windows(a)));
  cudaStreamDestroy(s);
}
