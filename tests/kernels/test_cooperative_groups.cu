// cooperative_groups.h on the simulated SM: thread_block, static and dynamic tiles (ranks, meta
// groups, shuffles, votes, match), coalesced groups in divergent branches, labeled and binary
// partitions, cg::reduce and the scans, memcpy_async + wait.
#include <cuda_runtime.h>

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace cg = cooperative_groups;

// --- kernels --------------------------------------------------------------------------------

// A 256-thread block cut into tiles of 128 and of 64 through block_tile_memory: ranks, meta
// groups and cg::reduce over whole warps (a sum of ints, a maximum of doubles).
__global__ void multi_warp_tiles(const int* in, int* out, double* maxima) {
  __shared__ cg::block_tile_memory<256> scratch;
  cg::thread_block b = cg::this_thread_block(scratch);
  cg::thread_block_tile<128> half = cg::tiled_partition<128>(b);
  const unsigned r = b.thread_rank();
  int* o = out + r * 5;
  o[0] = static_cast<int>(half.thread_rank());
  o[1] = static_cast<int>(half.meta_group_rank() * 10 + half.meta_group_size());
  o[2] = static_cast<int>(half.size());
  o[3] = cg::reduce(half, in[r], cg::plus<int>());
  cg::thread_block_tile<64> quarter = cg::tiled_partition<64>(b);
  maxima[r] = cg::reduce(quarter, static_cast<double>(in[r]) / 4, cg::greater<double>());
  quarter.sync();
  o[4] = static_cast<int>(quarter.meta_group_rank());
}

// A tile of more than 32 threads of a block made without block_tile_memory stops the kernel.
__global__ void multi_warp_tile_without_memory(int* out) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<64> t = cg::tiled_partition<64>(b);
  out[b.thread_rank()] = static_cast<int>(t.thread_rank());
}

// blockDim (8, 4, 2): the block's queries, and a barrier through shared memory.
__global__ void block_queries(unsigned* out) {
  __shared__ unsigned s[64];
  cg::thread_block b = cg::this_thread_block();
  const unsigned r = b.thread_rank();
  s[r] = r * 3;
  b.sync();
  unsigned* o = out + r * 8;
  o[0] = r;
  o[1] = b.size();
  o[2] = b.num_threads();
  o[3] = b.group_index().x + 10 * b.group_index().y;
  o[4] = b.thread_index().x + 10 * b.thread_index().y + 100 * b.thread_index().z;
  o[5] = b.dim_threads().x * 100 + b.dim_threads().y * 10 + b.dim_threads().z;
  o[6] = s[63 - r];
  o[7] = static_cast<unsigned>(cg::thread_group(b).thread_rank());
}

// Tiles of 8 of a 48-thread block: ranks, meta groups, shuffles, votes, match.
__global__ void static_tiles(int* out) {
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
  const int r = static_cast<int>(t.thread_rank());
  int* o = out + b.thread_rank() * 12;
  o[0] = r;
  o[1] = static_cast<int>(t.size());
  o[2] = static_cast<int>(t.meta_group_rank());
  o[3] = static_cast<int>(t.meta_group_size());
  o[4] = t.shfl(static_cast<int>(b.thread_rank()), 2);
  o[5] = t.shfl_down(r * 10, 1);
  o[6] = t.shfl_up(r * 10, 2);
  o[7] = t.shfl_xor(r, 3);
  o[8] = static_cast<int>(t.ballot(r % 3 == 0));
  o[9] = t.any(r == 5) * 10 + t.all(r < 8);
  o[10] = static_cast<int>(t.match_any(r / 4));
  cg::thread_block_tile<4> quarter = cg::tiled_partition<4>(t);
  o[11] = static_cast<int>(quarter.meta_group_rank() * 100 + quarter.meta_group_size() * 10 + quarter.thread_rank());
  t.sync();
}

// The dynamic form: tiled_partition(block, 16) as a thread_group.
__global__ void dynamic_tiles(unsigned* out) {
  cg::thread_group g = cg::tiled_partition(cg::this_thread_block(), 16);
  const unsigned r = static_cast<unsigned>(g.thread_rank());
  out[threadIdx.x * 2] = r;
  out[threadIdx.x * 2 + 1] = static_cast<unsigned>(g.size());
  g.sync();
}

// coalesced_threads() in a branch: the branch's lanes, ranked among themselves.
__global__ void coalesced_branch(int* out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  int* o = out + threadIdx.x * 5;
  o[0] = o[1] = o[2] = o[3] = o[4] = -1;
  if (lane % 3 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    o[0] = static_cast<int>(g.thread_rank());
    o[1] = static_cast<int>(g.size());
    o[2] = g.shfl(lane, 0);          // the first lane of the branch
    o[3] = g.shfl_down(lane, 1);     // the next lane of the branch, own at the end
    o[4] = static_cast<int>(g.ballot(lane >= 15));
  }
}

// labeled_partition by lane % 4 and binary_partition by lane < 10, over a tile of 32.
__global__ void partitions(unsigned* out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  const unsigned lane = warp.thread_rank();
  cg::coalesced_group l = cg::labeled_partition(warp, static_cast<int>(lane % 4));
  cg::coalesced_group bp = cg::binary_partition(warp, lane < 10);
  out[lane * 4] = l.get_mask();
  out[lane * 4 + 1] = l.thread_rank();
  out[lane * 4 + 2] = bp.get_mask();
  out[lane * 4 + 3] = bp.size();
}

__global__ void reduce_and_scan(const int* in, int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int v = in[threadIdx.x];
  int* o = out + threadIdx.x * 8;
  o[0] = cg::reduce(tile, v, cg::plus<int>());
  o[1] = cg::reduce(tile, v, cg::less<int>());
  o[2] = cg::reduce(tile, v, cg::greater<int>());
  o[3] = cg::reduce(tile, v, cg::bit_xor<int>());
  o[4] = cg::inclusive_scan(tile, v);
  o[5] = cg::exclusive_scan(tile, v);
  o[6] = cg::inclusive_scan(tile, v, cg::greater<int>());
  o[7] = -1;
  if (threadIdx.x % 2 == 1) {  // over the odd lanes only
    cg::coalesced_group odd = cg::coalesced_threads();
    o[7] = cg::reduce(odd, v, cg::bit_or<int>());
  }
}

__global__ void memcpy_async_kernel(const int* in, int* out, int n) {
  __shared__ int s[256];
  cg::thread_block b = cg::this_thread_block();
  cg::memcpy_async(b, s, in, sizeof(int) * n);
  cg::wait(b);
  for (int i = static_cast<int>(b.thread_rank()); i < n; i += static_cast<int>(b.size())) out[i] = s[n - 1 - i] * 2;
}

// Without a cooperative launch the grid is not valid and grid.sync() is an error.
__global__ void grid_without_cooperative_launch(int* valid, int* after) {
  cg::grid_group grid = cg::this_grid();
  valid[blockIdx.x] = grid.is_valid();
  grid.sync();
  after[blockIdx.x] = 1;
}

namespace minicuda::kernels_test {
namespace {

class KernelCooperativeGroups : public FreshProcess {};

TEST_F(KernelCooperativeGroups, ThreadBlock) {
  DeviceArray<unsigned> out(64 * 8, 0xff);
  block_queries<<<dim3(2, 3), dim3(8, 4, 2)>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  // The last block (1, 2) wrote last? Every block writes the same slots; check the shape only
  // where blocks agree, and group_index for whichever block wrote.
  for (unsigned r = 0; r < 64; ++r) {
    const unsigned* o = &h[r * 8];
    EXPECT_EQ(o[0], r);
    EXPECT_EQ(o[1], 64u);
    EXPECT_EQ(o[2], 64u);
    EXPECT_LT(o[3] % 10, 2u);
    EXPECT_EQ(o[4], r % 8 + 10 * (r / 8 % 4) + 100 * (r / 32));
    EXPECT_EQ(o[5], 842u);
    EXPECT_EQ(o[6], (63 - r) * 3);
    EXPECT_EQ(o[7], r);
  }
}

TEST_F(KernelCooperativeGroups, StaticTilesOfEight) {
  constexpr int threads = 48;
  DeviceArray<int> out(threads * 12, 0xff);
  static_tiles<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) {
    const int* o = &h[t * 12];
    const int r = t % 8;
    EXPECT_EQ(o[0], r) << t;
    EXPECT_EQ(o[1], 8) << t;
    EXPECT_EQ(o[2], t / 8) << t;
    EXPECT_EQ(o[3], 6) << t;
    EXPECT_EQ(o[4], t / 8 * 8 + 2) << t;
    EXPECT_EQ(o[5], r < 7 ? (r + 1) * 10 : r * 10) << t;
    EXPECT_EQ(o[6], r >= 2 ? (r - 2) * 10 : r * 10) << t;
    EXPECT_EQ(o[7], r ^ 3) << t;
    EXPECT_EQ(o[8], 0b01001001) << t;  // ranks 0, 3, 6
    EXPECT_EQ(o[9], 11) << t;
    EXPECT_EQ(o[10], r < 4 ? 0x0f : 0xf0) << t;
    EXPECT_EQ(o[11], (r / 4) * 100 + 20 + r % 4) << t;
  }
}

TEST_F(KernelCooperativeGroups, DynamicTilesAsThreadGroup) {
  DeviceArray<unsigned> out(64 * 2, 0xff);
  dynamic_tiles<<<1, 64>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(h[t * 2], t % 16) << t;
    EXPECT_EQ(h[t * 2 + 1], 16u) << t;
  }
}

TEST_F(KernelCooperativeGroups, CoalescedGroupIsTheBranch) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads * 5, 0xff);
  coalesced_branch<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  // Lanes 0, 3, ..., 30: 11 lanes.
  unsigned ballot = 0;
  for (int l = 0; l < 32; l += 3)
    if (l >= 15) ballot |= 1u << (l / 3);
  for (int t = 0; t < threads; ++t) {
    const int lane = t % 32;
    const int* o = &h[t * 5];
    if (lane % 3 != 0) {
      EXPECT_EQ(o[0], -1) << t;
      continue;
    }
    EXPECT_EQ(o[0], lane / 3) << t;
    EXPECT_EQ(o[1], 11) << t;
    EXPECT_EQ(o[2], 0) << t;
    EXPECT_EQ(o[3], lane + 3 < 32 ? lane + 3 : lane) << t;
    EXPECT_EQ(static_cast<unsigned>(o[4]), ballot) << t;
  }
}

TEST_F(KernelCooperativeGroups, LabeledAndBinaryPartitions) {
  DeviceArray<unsigned> out(32 * 4, 0xff);
  partitions<<<1, 32>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(h[l * 4], 0x11111111u << (l % 4)) << l;
    EXPECT_EQ(h[l * 4 + 1], l / 4) << l;
    EXPECT_EQ(h[l * 4 + 2], l < 10 ? 0x3ffu : ~0x3ffu) << l;
    EXPECT_EQ(h[l * 4 + 3], l < 10 ? 10u : 22u) << l;
  }
}

TEST_F(KernelCooperativeGroups, ReduceAndScans) {
  constexpr int threads = 64;
  std::vector<int> in(threads);
  for (int i = 0; i < threads; ++i) in[i] = (i * 29 % 23) - 7;
  DeviceArray<int> d(in);
  DeviceArray<int> out(threads * 8, 0xff);
  reduce_and_scan<<<1, threads>>>(d.get(), out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) {
    const int base = t / 16 * 16;
    int sum = 0, mn = in[base], mx = in[base], x = 0, inc = 0, exc = 0, run_max = in[base];
    for (int i = base; i < base + 16; ++i) {
      sum += in[i], mn = std::min(mn, in[i]), mx = std::max(mx, in[i]), x ^= in[i];
      if (i <= t) inc += in[i], run_max = std::max(run_max, in[i]);
      if (i < t) exc += in[i];
    }
    const int* o = &h[t * 8];
    EXPECT_EQ(o[0], sum) << t;
    EXPECT_EQ(o[1], mn) << t;
    EXPECT_EQ(o[2], mx) << t;
    EXPECT_EQ(o[3], x) << t;
    EXPECT_EQ(o[4], inc) << t;
    EXPECT_EQ(o[5], exc) << t;
    EXPECT_EQ(o[6], run_max) << t;
    if (t % 2 == 1) {
      int ors = 0;
      for (int i = t / 32 * 32 + 1; i < t / 32 * 32 + 32; i += 2) ors |= in[i];
      EXPECT_EQ(o[7], ors) << t;
    } else {
      EXPECT_EQ(o[7], -1) << t;
    }
  }
}

TEST_F(KernelCooperativeGroups, TilesOfWholeWarpsWithBlockTileMemory) {
  constexpr int threads = 256;
  std::vector<int> in(threads);
  for (int i = 0; i < threads; ++i) in[i] = (i * 37 % 101) - 40;
  DeviceArray<int> d(in);
  DeviceArray<int> out(threads * 5, 0xff);
  DeviceArray<double> maxima(threads, 0);
  multi_warp_tiles<<<1, threads>>>(d.get(), out.get(), maxima.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  std::vector<double> m = maxima.read();
  for (int t = 0; t < threads; ++t) {
    int sum = 0, mx = in[t / 64 * 64];
    for (int i = t / 128 * 128; i < t / 128 * 128 + 128; ++i) sum += in[i];
    for (int i = t / 64 * 64; i < t / 64 * 64 + 64; ++i) mx = std::max(mx, in[i]);
    const int* o = &h[t * 5];
    EXPECT_EQ(o[0], t % 128) << t;
    EXPECT_EQ(o[1], t / 128 * 10 + 2) << t;
    EXPECT_EQ(o[2], 128) << t;
    EXPECT_EQ(o[3], sum) << t;
    EXPECT_EQ(o[4], t / 64) << t;
    EXPECT_EQ(m[t], static_cast<double>(mx) / 4) << t;
  }
}

TEST_F(KernelCooperativeGroups, TileOverAWarpWithoutBlockTileMemoryIsAnError) {
  DeviceArray<int> out(64, 0xff);
  multi_warp_tile_without_memory<<<1, 64>>>(out.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

TEST_F(KernelCooperativeGroups, MemcpyAsyncThenWait) {
  constexpr int n = 200;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * i - 50;
  DeviceArray<int> d(in);
  DeviceArray<int> out(n, 0xff);
  memcpy_async_kernel<<<1, 64>>>(d.get(), out.get(), n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int i = 0; i < n; ++i) EXPECT_EQ(h[i], in[n - 1 - i] * 2) << i;
}

TEST_F(KernelCooperativeGroups, GridSyncWithoutCooperativeLaunchIsAnError) {
  DeviceArray<int> valid(4, 0xff), after(4, 0);
  grid_without_cooperative_launch<<<4, 32>>>(valid.get(), after.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

}  // namespace
}  // namespace minicuda::kernels_test
