// Region fission of the barrier reductions (docs/tools/cu2cxx.md, "Barrier reductions"):
// __syncthreads_count, __syncthreads_and and __syncthreads_or as statements of their own are seams
// like __syncthreads(), the region before each folding every live thread's predicate into the
// block's result and the region after handing it to each thread. Each result is checked against
// the CUDA semantics computed on the host; the fission gate (tests/fission) runs the kernels both
// ways and compares the bytes, and the whole binary runs again with MINICUDA_FISSION=0.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "fission_test.h"
#include "kernel_test.h"

// Every form cu2cxx splits: a reduction's result declared, assigned and added to, a reduction
// whose result is dropped, and one in a loop (its result starts afresh every round). Threads
// with t % 5 == 4 return first and count for none of them.
__global__ void fission_votes(const float* in, int* out, int rounds) {
  const unsigned n = blockDim.x * blockDim.y, t = threadIdx.x + blockDim.x * threadIdx.y;
  if (t % 5 == 4) return;
  const float x = in[blockIdx.x * n + t];
  int* o = out + (blockIdx.x * n + t) * 4;
  const int positive = __syncthreads_count(x > 0.0f);
  o[0] = positive;
  o[1] = __syncthreads_and(x);  // the predicate is an int: 0.5f counts as false
  o[2] = 0;
  __syncthreads_or(t == 0);
  for (int r = 0; r < rounds; ++r) {
    o[2] += __syncthreads_count(t % (r + 2) == 0);
  }
  const int low = __syncthreads_or(x < -0.75f);
  o[3] = low + positive;
}

// Loops on barrier reductions: every thread goes round until the last one has no work left (the
// block's `or`), threads with t % 7 == 6 returning in their second round, then a do-while that
// ends when every live thread agrees (the block's `and`), an if on another `and`, and a loop on
// a count compared with the block's size.
__global__ void fission_reduction_loops(const int* work, int* out) {
  const unsigned n = blockDim.x * blockDim.y, t = threadIdx.x + blockDim.x * threadIdx.y;
  int left = work[blockIdx.x * n + t];
  int rounds = 0;
  while (__syncthreads_or(left > 0)) {
    ++rounds;
    if (t % 7 == 6 && rounds == 2) return;
    if (left > 0) --left;
  }
  int agreed = 0;
  do {
    ++agreed;
  } while (!__syncthreads_and(agreed >= static_cast<int>(t % 4)));
  if (!__syncthreads_and(static_cast<int>(t % 5) < rounds)) {
    agreed += 10;
  }
  int laps = 0;
  const int half = n / 2;  // n is even
  while (__syncthreads_count(laps < (int)(t % 3)) > half) {
    ++laps;
  }
  out[blockIdx.x * n + t] = laps * 1000 + rounds * 100 + agreed;
}

// The benchmark's count of odd elements per block (bench/bench_kernels_regions.cu, compiled into
// this test too): one __syncthreads_count.
__global__ void block_count_odd_regions(const int* in, int* out);

namespace minicuda::kernels_test {
namespace {

class FissionReductions : public FreshProcess {};

TEST_F(FissionReductions, CountAndOrAsStatementsGiveTheBlocksResultToEveryLiveThread) {
  constexpr int kBlocks = 3, kRounds = 6;
  const dim3 block(32, 5);
  const int n = static_cast<int>(block.x * block.y);
  std::vector<float> in(kBlocks * n);
  for (int i = 0; i < kBlocks * n; ++i) in[i] = static_cast<float>((i * 7) % 11 - 5) * 0.5f;  // -2.5 .. 2.5
  for (int t = 0; t < n; ++t) in[n + t] = 1.0f + static_cast<float>(t % 3);                    // block 1: all >= 1
  for (int t = 0; t < n; ++t) in[2 * n + t] = 0.25f;                                           // block 2: all 0 as ints
  DeviceArray<float> d_in(in);
  DeviceArray<int> d_out(static_cast<std::size_t>(kBlocks * n * 4), 0xff);
  EXPECT_EQ(mode_of("fission_votes", [&] { fission_votes<<<kBlocks, block>>>(d_in.get(), d_out.get(), kRounds); }),
            split_mode());
  const std::vector<int> out = d_out.read();
  for (int b = 0; b < kBlocks; ++b) {
    int positive = 0, all = 1, any_low = 0;
    std::vector<int> rounds(kRounds, 0);
    for (int t = 0; t < n; ++t) {
      if (t % 5 == 4) continue;
      const float x = in[b * n + t];
      positive += x > 0.0f;
      all &= static_cast<int>(x) != 0;
      any_low |= x < -0.75f;
      for (int r = 0; r < kRounds; ++r) rounds[r] += t % (r + 2) == 0;
    }
    int round_sum = 0;
    for (int r : rounds) round_sum += r;
    for (int t = 0; t < n; ++t) {
      const int* o = &out[(b * n + t) * 4];
      if (t % 5 == 4) {
        EXPECT_EQ(o[0], -1) << "a thread that returned wrote nothing: block " << b << " thread " << t;
        continue;
      }
      EXPECT_EQ(o[0], positive) << "block " << b << " thread " << t;
      EXPECT_EQ(o[1], all) << "block " << b << " thread " << t;
      EXPECT_EQ(o[2], round_sum) << "block " << b << " thread " << t;
      EXPECT_EQ(o[3], any_low + positive) << "block " << b << " thread " << t;
    }
  }
  EXPECT_EQ(out[(1 * n + 0) * 4 + 1], 1) << "block 1: every live thread's predicate holds";
  EXPECT_EQ(out[(2 * n + 0) * 4 + 1], 0) << "block 2: 0.25f is 0 as an int";
}

TEST_F(FissionReductions, LoopsAndIfsOnABarrierReductionGoAsTheBlockAgrees) {
  constexpr int kBlocks = 4;
  const dim3 block(16, 6);
  const int n = static_cast<int>(block.x * block.y);
  std::vector<int> work(kBlocks * n);
  for (int i = 0; i < kBlocks * n; ++i) work[i] = (i * 13) % (3 + i / n * 2);  // block b: 0 .. 2 + 2b rounds
  DeviceArray<int> d_work(work), d_out(static_cast<std::size_t>(kBlocks * n), 0xff);
  EXPECT_EQ(mode_of("fission_reduction_loops",
                    [&] { fission_reduction_loops<<<kBlocks, block>>>(d_work.get(), d_out.get()); }),
            split_mode());
  const std::vector<int> out = d_out.read();
  for (int b = 0; b < kBlocks; ++b) {
    // The block as the GPU runs it: rounds while any live thread has work left.
    std::vector<int> left(work.begin() + b * n, work.begin() + (b + 1) * n), rounds(n, 0);
    std::vector<bool> exited(n, false);
    for (;;) {
      bool any = false;
      for (int t = 0; t < n; ++t) any = any || (!exited[t] && left[t] > 0);
      if (!any) break;
      for (int t = 0; t < n; ++t) {
        if (exited[t]) continue;
        if (++rounds[t] == 2 && t % 7 == 6) exited[t] = true;
        else if (left[t] > 0) --left[t];
      }
    }
    int agreed = 1;
    bool all_below = true;
    for (int t = 0; t < n; ++t) {
      if (exited[t]) continue;
      agreed = std::max(agreed, t % 4);
      all_below = all_below && t % 5 < rounds[t];
    }
    if (!all_below) agreed += 10;
    int laps = 0;
    for (;; ++laps) {
      int count = 0;
      for (int t = 0; t < n; ++t) count += !exited[t] && laps < t % 3;
      if (count * 2 <= n) break;
    }
    EXPECT_EQ(all_below, b >= 2) << "block " << b << ": the if goes both ways across the blocks";
    for (int t = 0; t < n; ++t)
      EXPECT_EQ(out[b * n + t], exited[t] ? -1 : laps * 1000 + rounds[t] * 100 + agreed) << "block " << b << " thread " << t;
  }
}

TEST_F(FissionReductions, TheBenchmarksCountRunsAsRegions) {
  constexpr int kBlocks = 24, kThreads = 256;
  std::vector<int> in(kBlocks * kThreads), want(kBlocks, 0);
  for (int i = 0; i < kBlocks * kThreads; ++i) {
    in[i] = (i * 37) % 1001 - 500;
    want[i / kThreads] += in[i] & 1;
  }
  DeviceArray<int> d_in(in), d_out(kBlocks);
  EXPECT_EQ(mode_of("block_count_odd_regions",
                    [&] { block_count_odd_regions<<<kBlocks, kThreads>>>(d_in.get(), d_out.get()); }),
            split_mode());
  EXPECT_EQ(d_out.read(), want);
}

}  // namespace
}  // namespace minicuda::kernels_test
