// Warp operations of the simulated SM (device_sim/src/sm.cpp, BlockRun::warp_op): __shfl_sync
// (broadcast, arbitrary and out-of-range source lanes), __shfl_up/down/xor_sync with width 32, 16
// and 8 (a segment's edge keeps its own value for up/down), 64-bit, float and double values,
// __ballot_sync/__any_sync/__all_sync, __syncwarp, disjoint masks in the two halves of a warp, and
// __activemask in a partial last warp.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "alignment_checks.h"
#include "kernel_test.h"

namespace {
constexpr unsigned kFull = 0xffffffffu;
}

// --- kernels --------------------------------------------------------------------------------

__global__ void shfl_idx(int* out) {
  const int t = threadIdx.x, lane = t % 32;
  const int v = t * 10 + 7;
  int* o = out + t * 6;
  o[0] = __shfl_sync(kFull, v, 5);                    // broadcast
  o[1] = __shfl_sync(kFull, v, (lane * 7 + 3) % 32);  // a permutation
  o[2] = __shfl_sync(kFull, v, lane + 37);            // source lane taken modulo width: lane + 5
  o[3] = __shfl_sync(kFull, v, 31 - lane, 8);         // within 8-lane segments
  o[4] = __shfl_sync(kFull, v, 3, 16);                // broadcast per 16-lane segment
  o[5] = __shfl_sync(kFull, v, lane);                 // identity
}

__global__ void shfl_up_down(int* out, unsigned delta, int width) {
  const int t = threadIdx.x;
  const int v = t * 3 + 1;
  out[2 * t] = __shfl_up_sync(kFull, v, delta, width);
  out[2 * t + 1] = __shfl_down_sync(kFull, v, delta, width);
}

// A butterfly reduction over each segment of `width` lanes: every lane ends with the segment's sum.
__global__ void shfl_xor_reduce(int* out, int width) {
  const int t = threadIdx.x;
  int v = t + 1;
  for (int m = width / 2; m >= 1; m /= 2) v += __shfl_xor_sync(kFull, v, m, width);
  out[2 * t] = v;
  out[2 * t + 1] = __shfl_xor_sync(kFull, t, 5);  // plain exchange with lane ^ 5
}

// __shfl_xor_sync with a lane mask of width or more.
__global__ void shfl_xor_across_segments(int* out, int lane_mask, int width) {
  const int t = threadIdx.x;
  out[t] = __shfl_xor_sync(kFull, t * 3 + 1, lane_mask, width);
}

__global__ void shfl_wide(long long* o64, unsigned long long* ou64, double* od, float* of) {
  const int t = threadIdx.x, lane = t % 32;
  const long long v = (1LL << 40) * (lane + 1) - t;
  o64[t] = __shfl_down_sync(kFull, v, 1);
  const unsigned long long u = 0xF00D000000000000ull | (static_cast<unsigned long long>(t) << 33) | t;
  ou64[t] = __shfl_up_sync(kFull, u, 2, 16);
  const double d = 1.0 / (t + 3) + 1e10;
  od[t] = __shfl_xor_sync(kFull, d, 3);
  const float f = 1.0f / (t + 1) - 0.5f * t;
  of[t] = __shfl_sync(kFull, f, 31 - lane);
}

__global__ void votes(unsigned* out) {
  const unsigned t = threadIdx.x, lane = t % 32;
  unsigned* o = out + t * 8;
  o[0] = __ballot_sync(kFull, lane % 3 == 0);
  o[1] = __ballot_sync(kFull, t >= 40);
  o[2] = __ballot_sync(kFull, 0);
  o[3] = static_cast<unsigned>(__any_sync(kFull, lane == 17));
  o[4] = static_cast<unsigned>(__any_sync(kFull, 0));
  o[5] = static_cast<unsigned>(__all_sync(kFull, lane < 32));
  o[6] = static_cast<unsigned>(__all_sync(kFull, lane != 9));
  o[7] = __ballot_sync(kFull, t);  // non-zero predicates count as true
}

// The two halves of each warp run different shuffles with disjoint masks.
__global__ void split_warp(int* out) {
  const int t = threadIdx.x, lane = t % 32;
  const int v = t * 2 + 1;
  if (lane < 16)
    out[t] = __shfl_sync(0x0000ffffu, v, 3);
  else
    out[t] = __shfl_sync(0xffff0000u, v, 20);
}

__global__ void syncwarp_exchange(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x, lane = t % 32, base = t - lane;
  for (int r = 0; r < 3; ++r) {
    s[t] = t * 5 + r;
    __syncwarp();
    out[t * 3 + r] = s[base + (lane + r + 1) % 32];
    __syncwarp();
  }
}

// blockDim 40: a full warp and a partial warp of 8 lanes.
__global__ void partial_warp(unsigned* out) {
  const unsigned t = threadIdx.x;
  const unsigned m = __activemask();
  unsigned* o = out + t * 5;
  o[0] = m;
  o[1] = __ballot_sync(m, 1);
  o[2] = static_cast<unsigned>(__all_sync(m, 1));
  o[3] = __shfl_sync(m, t, 0);
  o[4] = __shfl_xor_sync(m, t, 1);
}

// Lanes 16..31 of every warp return before the rest ask for the active mask.
__global__ void activemask_after_exit(unsigned* out) {
  if (threadIdx.x % 32 >= 16) return;
  out[threadIdx.x] = __activemask();
}

// __activemask() inside a branch taken by lanes 0..15, as the mask of a shuffle.
__global__ void activemask_divergent(unsigned* masks, int* shuffled) {
  const unsigned t = threadIdx.x;
  if (t % 32 < 16) {
    const unsigned m = __activemask();
    masks[t] = m;
    shuffled[t] = __shfl_sync(m, static_cast<int>(t), 0);
  }
  __syncthreads();
}

// The lanes that exited do not take part in a later ballot with their bits in the mask.
__global__ void ballot_after_exit(unsigned* out) {
  const unsigned t = threadIdx.x;
  if (t % 32 >= 16) return;
  out[t] = __ballot_sync(kFull, 1);
}

// Lanes 16..31 return; the others vote with the full mask, which names the exited lanes (allowed:
// only non-exited lanes named in the mask must take part).
__global__ void votes_after_exit(unsigned* out) {
  const unsigned t = threadIdx.x;
  if (t % 32 >= 16) return;
  out[t * 3 + 0] = static_cast<unsigned>(__all_sync(kFull, 1));
  out[t * 3 + 1] = static_cast<unsigned>(__any_sync(kFull, t % 32 == 15));
  out[t * 3 + 2] = static_cast<unsigned>(__all_sync(kFull, t % 32 != 15));
}

// A warp-shuffle reduction of each warp inside a loop over many elements, then across the block's
// warps through shared memory: sums of (i % 1000) for i < n.
__global__ void warp_reduce(const int* in, long long* out, int n) {
  __shared__ long long warp_sums[32];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  for (int d = 16; d >= 1; d /= 2) sum += __shfl_down_sync(kFull, sum, d);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0;
    for (int d = 16; d >= 1; d /= 2) sum += __shfl_down_sync(kFull, sum, d);
    if (lane == 0) out[blockIdx.x] = sum;
  }
}

// Shuffles, a vote and __syncwarp in every lane, then lane 31 reads an int one byte past an
// aligned address.
__global__ void warp_ops_then_misaligned_load(const char* bytes, int* out) {
  int v = threadIdx.x;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  v += static_cast<int>(__ballot_sync(0xffffffffu, v > 0));
  __syncwarp();
  out[threadIdx.x] = v;
  if (threadIdx.x == 31) out[0] = *reinterpret_cast<const int*>(bytes + 1);
}

namespace minicuda::kernels_test {
namespace {

class KernelWarpOps : public FreshProcess {};

TEST_F(KernelWarpOps, ShflBroadcastAndArbitrarySource) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads * 6);
  shfl_idx<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  auto v = [](int t) { return t * 10 + 7; };
  for (int t = 0; t < threads; ++t) {
    const int lane = t % 32, base = t - lane;
    EXPECT_EQ(h[t * 6 + 0], v(base + 5)) << t;
    EXPECT_EQ(h[t * 6 + 1], v(base + (lane * 7 + 3) % 32)) << t;
    EXPECT_EQ(h[t * 6 + 2], v(base + (lane + 5) % 32)) << t;
    EXPECT_EQ(h[t * 6 + 3], v(base + lane / 8 * 8 + (31 - lane) % 8)) << t;
    EXPECT_EQ(h[t * 6 + 4], v(base + lane / 16 * 16 + 3)) << t;
    EXPECT_EQ(h[t * 6 + 5], v(t)) << t;
  }
}

TEST_F(KernelWarpOps, ShflUpDownKeepOwnValueAtSegmentEdge) {
  constexpr int threads = 64;
  auto v = [](int t) { return t * 3 + 1; };
  for (int width : {32, 16, 8}) {
    for (unsigned delta : {1u, 3u, 7u, 16u}) {
      if (delta >= static_cast<unsigned>(width) && delta != 16) continue;
      DeviceArray<int> out(threads * 2);
      shfl_up_down<<<1, threads>>>(out.get(), delta, width);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<int> h = out.read();
      for (int t = 0; t < threads; ++t) {
        const int offset = t % 32 % width;
        const int d = static_cast<int>(delta);
        SCOPED_TRACE(::testing::Message() << "width " << width << " delta " << delta << " thread " << t);
        EXPECT_EQ(h[2 * t], offset >= d ? v(t - d) : v(t));
        EXPECT_EQ(h[2 * t + 1], offset + d < width ? v(t + d) : v(t));
      }
    }
  }
}

TEST_F(KernelWarpOps, ShflXorButterflyPerSegment) {
  constexpr int threads = 96;
  for (int width : {32, 16, 8, 2}) {
    DeviceArray<int> out(threads * 2);
    shfl_xor_reduce<<<1, threads>>>(out.get(), width);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<int> h = out.read();
    for (int t = 0; t < threads; ++t) {
      const int first = t / width * width;  // segments never cross a warp (width divides 32)
      int sum = 0;
      for (int s = first; s < first + width; ++s) sum += s + 1;
      EXPECT_EQ(h[2 * t], sum) << "width " << width << " thread " << t;
      EXPECT_EQ(h[2 * t + 1], t ^ 5) << t;
    }
  }
}

// The CUDA C++ Programming Guide on __shfl_xor_sync: "If width is less than warpSize then each
// group of width consecutive threads are able to access elements from earlier groups of threads,
// however if they attempt to access elements from later groups of threads their own value of var
// will be returned" (PTX shfl.bfly checks the source lane only against the end of the caller's
// segment). Measured on the H200 (CUDA 13.0): width 8, lane mask 8 -> lanes 8..15 and 24..31 read
// lanes 0..7 and 16..23, the others keep their own value.
TEST_F(KernelWarpOps, ShflXorReadsEarlierSegments) {
  constexpr int threads = 64;
  for (int width : {8, 16}) {
    DeviceArray<int> out(threads);
    shfl_xor_across_segments<<<1, threads>>>(out.get(), width, width);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<int> h = out.read();
    for (int t = 0; t < threads; ++t) {
      const int lane = t % 32, src = lane ^ width;
      const int want = src < lane ? (t - lane + src) * 3 + 1 : t * 3 + 1;
      EXPECT_EQ(h[t], want) << "width " << width << " thread " << t;
    }
  }
}

// Was a simulator bug (fixed: the test pins it): shfl.bfly uses the lane mask's low 5 bits. Measured on
// the H200: width 32, lane mask 33 -> every lane reads lane ^ 1. The SM (try_complete, mode 3)
// computes lane ^ 33 >= 32 and returns every lane its own value.
TEST_F(KernelWarpOps, ShflXorUsesTheLowFiveBitsOfTheLaneMask) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads);
  shfl_xor_across_segments<<<1, threads>>>(out.get(), 33, 32);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(h[t], (t ^ 1) * 3 + 1) << "lane mask 33, thread " << t;
}

TEST_F(KernelWarpOps, ShflMovesWideAndFloatingValuesExactly) {
  constexpr int threads = 64;
  DeviceArray<long long> o64(threads);
  DeviceArray<unsigned long long> ou64(threads);
  DeviceArray<double> od(threads);
  DeviceArray<float> of(threads);
  shfl_wide<<<1, threads>>>(o64.get(), ou64.get(), od.get(), of.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<long long> h64 = o64.read();
  std::vector<unsigned long long> hu64 = ou64.read();
  std::vector<double> hd = od.read();
  std::vector<float> hf = of.read();
  auto v64 = [](int t) { return (1LL << 40) * (t % 32 + 1) - t; };
  auto u64 = [](int t) { return 0xF00D000000000000ull | (static_cast<unsigned long long>(t) << 33) | t; };
  auto d = [](int t) { return 1.0 / (t + 3) + 1e10; };
  auto f = [](int t) { return 1.0f / (t + 1) - 0.5f * t; };
  for (int t = 0; t < threads; ++t) {
    const int lane = t % 32, base = t - lane;
    EXPECT_EQ(h64[t], lane < 31 ? v64(t + 1) : v64(t)) << t;
    EXPECT_EQ(hu64[t], lane % 16 >= 2 ? u64(t - 2) : u64(t)) << t;
    EXPECT_EQ(bits_of(hd[t]), bits_of(d(t ^ 3))) << t;
    EXPECT_EQ(bits_of(hf[t]), bits_of(f(base + 31 - lane))) << t;
  }
}

TEST_F(KernelWarpOps, BallotAnyAll) {
  constexpr int threads = 64;
  DeviceArray<unsigned> out(threads * 8);
  votes<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < threads; ++t) {
    const unsigned* o = &h[t * 8];
    EXPECT_EQ(o[0], 0x49249249u) << t;
    EXPECT_EQ(o[1], t < 32 ? 0u : 0xffffff00u) << t;
    EXPECT_EQ(o[2], 0u) << t;
    EXPECT_EQ(o[3], 1u) << t;
    EXPECT_EQ(o[4], 0u) << t;
    EXPECT_EQ(o[5], 1u) << t;
    EXPECT_EQ(o[6], 0u) << t;
    EXPECT_EQ(o[7], t < 32 ? 0xfffffffeu : 0xffffffffu) << t;  // thread 0's predicate is 0
  }
}

TEST_F(KernelWarpOps, DisjointMasksInTheHalvesOfAWarp) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads);
  split_warp<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) {
    const int base = t / 32 * 32;
    EXPECT_EQ(h[t], t % 32 < 16 ? (base + 3) * 2 + 1 : (base + 20) * 2 + 1) << t;
  }
}

TEST_F(KernelWarpOps, SyncwarpOrdersSharedMemory) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads * 3);
  syncwarp_exchange<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t)
    for (int r = 0; r < 3; ++r) {
      const int base = t / 32 * 32, src = base + (t % 32 + r + 1) % 32;
      EXPECT_EQ(h[t * 3 + r], src * 5 + r) << t << " round " << r;
    }
}

TEST_F(KernelWarpOps, ActivemaskInPartialLastWarp) {
  constexpr int threads = 40;
  DeviceArray<unsigned> out(threads * 5);
  partial_warp<<<2, threads>>>(out.get());  // both blocks write the same values
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (unsigned t = 0; t < threads; ++t) {
    const unsigned* o = &h[t * 5];
    const unsigned mask = t < 32 ? 0xffffffffu : 0xffu;
    EXPECT_EQ(o[0], mask) << t;
    EXPECT_EQ(o[1], mask) << t;
    EXPECT_EQ(o[2], 1u) << t;
    EXPECT_EQ(o[3], t / 32 * 32) << t;
    EXPECT_EQ(o[4], t ^ 1) << t;
  }
}

TEST_F(KernelWarpOps, BallotIgnoresExitedLanes) {
  constexpr int threads = 64;
  DeviceArray<unsigned> out(threads, 0xff);
  ballot_after_exit<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(h[t], t % 32 < 16 ? 0x0000ffffu : 0xffffffffu) << t;
}

TEST_F(KernelWarpOps, VotesWithExitedLanesInTheMask) {
  constexpr int threads = 64;
  DeviceArray<unsigned> out(threads * 3, 0xff);
  votes_after_exit<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < threads; ++t) {
    if (t % 32 >= 16) continue;
    EXPECT_EQ(h[t * 3 + 0], 1u) << t;
    EXPECT_EQ(h[t * 3 + 1], 1u) << t;
    EXPECT_EQ(h[t * 3 + 2], 0u) << t;
  }
}

// On a GPU lanes that have returned are not active: after lanes 16..31 return __activemask() is
// 0x0000ffff (measured on the H200).
TEST_F(KernelWarpOps, ActivemaskExcludesExitedLanes) {
  constexpr int threads = 64;
  DeviceArray<unsigned> out(threads, 0xff);
  activemask_after_exit<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(h[t], t % 32 < 16 ? 0x0000ffffu : 0xffffffffu) << t;
}

// __activemask() in a divergent branch, used as the mask of a shuffle: on the H200 the lanes of
// the branch get 0x0000ffff and the shuffle returns lane 0's value.
TEST_F(KernelWarpOps, ActivemaskInDivergentBranch) {
  constexpr int threads = 64;
  DeviceArray<unsigned> masks(threads, 0xff);
  DeviceArray<int> shuffled(threads, 0xff);
  activemask_divergent<<<1, threads>>>(masks.get(), shuffled.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> m = masks.read();
  std::vector<int> s = shuffled.read();
  for (int t = 0; t < threads; ++t) {
    if (t % 32 >= 16) continue;
    EXPECT_EQ(m[t], 0x0000ffffu) << t;
    EXPECT_EQ(s[t], t / 32 * 32) << t;
  }
}

TEST_F(KernelWarpOps, ShuffleReductionOverManyBlocks) {
  constexpr int n = 1 << 20, blocks = 120, threads = 512;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i % 1000;
  DeviceArray<int> d_in(in);
  DeviceArray<long long> out(blocks);
  warp_reduce<<<blocks, threads>>>(d_in.get(), out.get(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<long long> h = out.read();
  long long total = 0, want = 0;
  for (int b = 0; b < blocks; ++b) {
    long long block_want = 0;
    for (int i = b * threads; i < n; i += blocks * threads)
      for (int t = 0; t < threads && i + t < n; ++t) block_want += in[i + t];
    EXPECT_EQ(h[b], block_want) << b;
    total += h[b];
  }
  for (int i = 0; i < n; ++i) want += in[i];
  EXPECT_EQ(total, want);
}

// Warp operations run with the kernel's alignment check left on when optimised: a misaligned
// load after them, in the same block, is still the GPU's error (716).
TEST_F(KernelWarpOps, AMisalignedLoadAfterWarpOperationsIsStillError716) {
  if (!minicuda::testing::kAlignmentChecks) GTEST_SKIP() << "no alignment checks in this build";
  DeviceArray<char> bytes(16, 1);
  DeviceArray<int> out(32);
  warp_ops_then_misaligned_load<<<1, 32>>>(bytes.get(), out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
}

}  // namespace
}  // namespace minicuda::kernels_test
