// The simulated SM (device_sim/src/sm.cpp), tested through real CUDA syntax: barriers and static
// shared memory, __syncthreads_count/and/or, threads that exit while others wait (Volta
// semantics), 2D and 3D blocks (threadIdx and the linear thread order that forms warps), and
// dynamic `extern __shared__` memory sized at launch.
//
// The other files of this test: test_warp_ops.cu (shuffles, votes), test_atomics.cu,
// test_scheduler.cu (occupancy, waves, determinism), test_printf_errors.cu (device printf, kernel
// errors), test_validation.cu (launch configuration checks).
//
// The kernels' expected results were checked against an H200 with CUDA 13.0 (the same kernels
// built with nvcc): early exits and barrier counts, partial warps, exited lanes in vote masks,
// shuffle segments, the atomicInc/Dec/CAS sequences, printf formats, the assert line and the
// error codes. Where the SM differs from that GPU the test is DISABLED_ with the measurement in
// its comment. Occupancy follows nv_occupancy with the 32 registers minicuda charges every kernel
// (nvcc gave the trivial probe kernel 8, which lets 32 one- or two-warp blocks on an SM).
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "kernel_test.h"

// --- kernels --------------------------------------------------------------------------------

// Each round every thread publishes its value in static shared memory and takes its right
// neighbour's (+1): after R rounds thread t holds the start value of thread (t + R) % n, plus R.
__global__ void rotate_rounds(int* out, int rounds) {
  __shared__ int buf[256];
  const int t = threadIdx.x, n = blockDim.x;
  int v = t + 1000 * blockIdx.x;
  for (int r = 0; r < rounds; ++r) {
    buf[t] = v;
    __syncthreads();
    v = buf[(t + 1) % n] + 1;
    __syncthreads();
  }
  out[blockIdx.x * n + t] = v;
}

// Two static shared arrays of different types, exchanged in opposite directions.
__global__ void two_shared_arrays(double* out_d, long long* out_l) {
  __shared__ double ds[128];
  __shared__ long long ls[128];
  const int t = threadIdx.x, n = blockDim.x;
  ds[t] = t * 0.5;
  ls[t] = (1LL << 40) + t;
  __syncthreads();
  out_d[t] = ds[n - 1 - t];
  out_l[t] = ls[(t + 7) % n];
}

// __syncthreads_count/_and/_or: 5 results per thread, and 10 rounds of count with changing
// predicates (every thread of the block must see the same result).
__global__ void barrier_votes(int* out, int* rounds_out) {
  const int t = threadIdx.x, n = blockDim.x;
  int* o = out + (blockIdx.x * n + t) * 5;
  o[0] = __syncthreads_count(t % 3 == 0);
  o[1] = __syncthreads_and(t < 100000);
  o[2] = __syncthreads_and(t != 77);
  o[3] = __syncthreads_or(t == n - 1);
  o[4] = __syncthreads_or(0);
  for (int r = 0; r < 10; ++r) rounds_out[(blockIdx.x * n + t) * 10 + r] = __syncthreads_count(t % (r + 2) == 0);
}

// A quarter of the threads (t % 4 == 3) return before any barrier; the rest exchange values, then
// threads t >= 128 return between two barriers. Exited threads do not block a barrier (Volta) and
// are not counted by __syncthreads_count.
__global__ void early_exit_barriers(int* out) {
  __shared__ int buf[256];
  const int t = threadIdx.x;
  if (t % 4 == 3) return;
  buf[t] = 2 * t;
  __syncthreads();
  const int partner = t % 4 == 2 ? t - 2 : (t ^ 1);  // never a thread that has returned
  const int got = buf[partner];
  const int live1 = __syncthreads_count(1);
  if (t >= 128) return;
  const int live2 = __syncthreads_count(1);
  __syncthreads();
  out[t] = got * 1000000 + live1 * 1000 + live2;
}

// Thread 0 (the one the SM starts with) returns at once; the last thread of the block returns
// after the first barrier, while the others are waiting at the second.
__global__ void first_and_last_exit(int* out) {
  __shared__ int buf[64];
  const int t = threadIdx.x, n = blockDim.x;
  if (t == 0) return;
  buf[t] = t;
  __syncthreads();
  if (t == n - 1) return;
  const int count = __syncthreads_count(1);
  out[t] = buf[t + 1] * 100 + count;
}

// Records threadIdx, blockIdx and the linear thread index of a 1D/2D/3D block; exchanges values
// through a 3D static shared array (the opposite corner) and within the warp (the warp is formed
// from the linear index: x fastest, then y, then z).
__global__ void block_shape(unsigned* out) {
  __shared__ unsigned tile[1024];
  const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned linear = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  tile[linear] = linear;
  __syncthreads();
  const unsigned ox = blockDim.x - 1 - threadIdx.x, oy = blockDim.y - 1 - threadIdx.y,
                 oz = blockDim.z - 1 - threadIdx.z;
  const unsigned opposite = tile[ox + oy * blockDim.x + oz * blockDim.x * blockDim.y];
  const unsigned active = __activemask();
  const unsigned first_lane_value = __shfl_sync(active, linear, 0);
  // volatile: one 4-byte store each. g++ -O2 merges plain stores into an unaligned 16-byte movups,
  // which the SM's alignment check reports as a misaligned address (see
  // VectorizedStoresOfAlignedIntsAreNotMisaligned).
  volatile unsigned* o = out + (static_cast<size_t>(block) * nthreads + linear) * 10;
  o[0] = threadIdx.x;
  o[1] = threadIdx.y;
  o[2] = threadIdx.z;
  o[3] = blockIdx.x;
  o[4] = blockIdx.y;
  o[5] = blockIdx.z;
  o[6] = linear;
  o[7] = opposite;
  o[8] = first_lane_value;
  o[9] = active;
}

// Dynamic shared memory (extern __shared__, size from the launch): the block's values reversed,
// with a second array placed after the first in the same allocation.
__global__ void dynamic_reverse(const int* in, int* out) {
  extern __shared__ int dyn[];
  const int t = threadIdx.x, n = blockDim.x;
  const int base = blockIdx.x * n;
  dyn[t] = in[base + t];
  dyn[n + t] = -in[base + t];
  __syncthreads();
  out[2 * base + t] = dyn[n - 1 - t];
  out[2 * base + n + t] = dyn[2 * n - 1 - t];
}

// Fills all `words` of the dynamic shared memory, then each thread checks a strided share of it
// from the other end: the whole size given at launch is usable and private to the block.
__global__ void fill_dynamic(unsigned* errors, unsigned words) {
  extern __shared__ unsigned words_area[];
  const unsigned t = threadIdx.x, n = blockDim.x;
  for (unsigned i = t; i < words; i += n) words_area[i] = i * 2654435761u + blockIdx.x;
  __syncthreads();
  unsigned bad = 0;
  for (unsigned i = t; i < words; i += n) {
    const unsigned j = words - 1 - i;
    bad += words_area[j] != j * 2654435761u + blockIdx.x;
  }
  if (bad != 0) atomicAdd(errors, bad);
}

// Static and dynamic shared memory together: they do not overlap.
__global__ void static_and_dynamic(int* out) {
  __shared__ int fixed[32];
  extern __shared__ int dyn[];
  const int t = threadIdx.x;
  fixed[t] = 100 + t;
  dyn[t] = 200 + t;
  __syncthreads();
  out[t] = fixed[31 - t] * 1000 + dyn[31 - t];
}

// Four consecutive, 4-byte-aligned int stores, compiled as a Release build (-O2) compiles them
// whatever the build type: g++'s SLP vectorizer merges them into one unaligned 16-byte store
// (movups) at an address that is 4- but not 16-byte aligned.
__global__ __attribute__((optimize("O2"))) void four_stores(unsigned* out, unsigned a, unsigned b, unsigned c,
                                                             unsigned d) {
  unsigned* o = out + 1 + 5 * threadIdx.x;
  o[0] = a;
  o[1] = b;
  o[2] = c;
  o[3] = d;
}

// Thread 0 (warp 0) waits for a flag that thread 32 (warp 1) sets, with no barrier between them;
// the wait gives up after `limit` reads. Records whether thread 0 saw the flag.
__global__ void spin_on_other_warp(int* saw, long long limit) {
  __shared__ volatile int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long i = 0;
    while (flag == 0 && i < limit) ++i;
    *saw = flag;
  } else if (threadIdx.x == 32) {
    flag = 1;
  }
}

namespace minicuda::kernels_test {
namespace {

class KernelBarriers : public FreshProcess {};

TEST_F(KernelBarriers, SeveralRoundsThroughStaticShared) {
  constexpr int blocks = 8, threads = 256, rounds = 5;
  DeviceArray<int> out(blocks * threads);
  rotate_rounds<<<blocks, threads>>>(out.get(), rounds);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t)
      ASSERT_EQ(h[b * threads + t], (t + rounds) % threads + 1000 * b + rounds) << "block " << b << " thread " << t;
}

TEST_F(KernelBarriers, BlockSmallerThanSharedArray) {
  constexpr int threads = 100, rounds = 37;
  DeviceArray<int> out(threads);
  rotate_rounds<<<1, threads>>>(out.get(), rounds);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(h[t], (t + rounds) % threads + rounds) << t;
}

TEST_F(KernelBarriers, TwoStaticSharedArraysOfDifferentTypes) {
  constexpr int n = 128;
  DeviceArray<double> d(n);
  DeviceArray<long long> l(n);
  two_shared_arrays<<<1, n>>>(d.get(), l.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<double> hd = d.read();
  std::vector<long long> hl = l.read();
  for (int t = 0; t < n; ++t) {
    EXPECT_EQ(hd[t], (n - 1 - t) * 0.5) << t;
    EXPECT_EQ(hl[t], (1LL << 40) + (t + 7) % n) << t;
  }
}

TEST_F(KernelBarriers, SyncthreadsCountAndOr) {
  constexpr int blocks = 3, threads = 200;
  DeviceArray<int> out(blocks * threads * 5), rounds(blocks * threads * 10);
  barrier_votes<<<blocks, threads>>>(out.get(), rounds.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read(), hr = rounds.read();
  for (int i = 0; i < blocks * threads; ++i) {
    EXPECT_EQ(h[i * 5 + 0], 67) << i;  // t = 0, 3, ..., 198
    EXPECT_EQ(h[i * 5 + 1], 1) << i;
    EXPECT_EQ(h[i * 5 + 2], 0) << i;
    EXPECT_EQ(h[i * 5 + 3], 1) << i;
    EXPECT_EQ(h[i * 5 + 4], 0) << i;
    for (int r = 0; r < 10; ++r) EXPECT_EQ(hr[i * 10 + r], (threads + r + 1) / (r + 2)) << i << " round " << r;
  }
}

TEST_F(KernelBarriers, ExitedThreadsDoNotBlockBarriers) {
  constexpr int threads = 256;
  DeviceArray<int> out(threads, 0xff);  // -1: a thread that wrote nothing
  early_exit_barriers<<<1, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < threads; ++t) {
    if (t % 4 == 3 || t >= 128) {
      EXPECT_EQ(h[t], -1) << t;
      continue;
    }
    const int partner = t % 4 == 2 ? t - 2 : (t ^ 1);
    // live1: 192 of 256 threads remain; live2: those of them below 128 (96).
    EXPECT_EQ(h[t], 2 * partner * 1000000 + 192 * 1000 + 96) << t;
  }
}

TEST_F(KernelBarriers, FirstAndLastThreadsExit) {
  constexpr int threads = 64;
  DeviceArray<int> out(threads, 0xff);
  first_and_last_exit<<<2, threads>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  EXPECT_EQ(h[0], -1);
  EXPECT_EQ(h[threads - 1], -1);
  for (int t = 1; t < threads - 1; ++t) EXPECT_EQ(h[t], (t + 1) * 100 + threads - 2) << t;
}

// SIMULATOR LIMITATION (reported, not fixed here): since Volta, threads of different warps make
// progress independently, so a thread may wait on shared memory for another warp without a
// barrier (the H200 shows thread 0 seeing the flag). The SM runs one CUDA thread at a time and
// switches only at barriers and warp operations, so thread 0 spins until it gives up and never
// sees the flag (without the limit it would hang the host thread).
TEST_F(KernelBarriers, DISABLED_WarpsProgressIndependently) {
  DeviceArray<int> saw(1);
  spin_on_other_warp<<<1, 64>>>(saw.get(), 20000000);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(saw.read()[0], 1);
}

// Was a simulator bug (fixed: vector instructions are exempt from the check, sm.cpp): the SM sets EFLAGS.AC while kernel code runs so that a
// misaligned access faults (sm.h). But g++ (-O2, GCC 12's SLP vectorizer; the RelWithDebInfo
// preset) merges adjacent 4-byte stores that are each correctly aligned into one unaligned
// 16-byte SSE store (movups), and with AC set that instruction raises #AC (SIGBUS BUS_ADRALN)
// unless the address is 16-byte aligned. The launch fails with cudaErrorMisalignedAddress (716)
// ("misaligned address" on the first thread that stores) although every CUDA-level access is
// aligned: on a GPU these are four aligned 4-byte stores. In the RelWithDebInfo build the same
// happens to ordinary kernels (this file's block_shape failed that way until its stores were made
// volatile), and to initialising a local array (`unsigned v[10] = {...}` was stored to the fiber's
// stack with movups at a 4-byte-aligned slot and faulted the same way).
TEST_F(KernelBarriers, VectorizedStoresOfAlignedIntsAreNotMisaligned) {
  constexpr int threads = 32;
  DeviceArray<unsigned> out(5 * threads + 1);
  four_stores<<<1, threads>>>(out.get(), 1, 2, 3, 4);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (int t = 0; t < threads; ++t)
    for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(h[1 + 5 * t + k], k + 1) << t;
}

struct Shape {
  dim3 grid, block;
};

void check_block_shape(const Shape& s) {
  const unsigned nthreads = s.block.x * s.block.y * s.block.z;
  const unsigned nblocks = s.grid.x * s.grid.y * s.grid.z;
  DeviceArray<unsigned> out(static_cast<size_t>(nblocks) * nthreads * 10, 0xff);
  block_shape<<<s.grid, s.block>>>(out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (unsigned bz = 0; bz < s.grid.z; ++bz)
    for (unsigned by = 0; by < s.grid.y; ++by)
      for (unsigned bx = 0; bx < s.grid.x; ++bx)
        for (unsigned z = 0; z < s.block.z; ++z)
          for (unsigned y = 0; y < s.block.y; ++y)
            for (unsigned x = 0; x < s.block.x; ++x) {
              const unsigned block = bx + by * s.grid.x + bz * s.grid.x * s.grid.y;
              const unsigned linear = x + y * s.block.x + z * s.block.x * s.block.y;
              const unsigned* o = &h[(static_cast<size_t>(block) * nthreads + linear) * 10];
              const unsigned opposite = (s.block.x - 1 - x) + (s.block.y - 1 - y) * s.block.x +
                                        (s.block.z - 1 - z) * s.block.x * s.block.y;
              const unsigned warp_base = linear / 32 * 32;
              const unsigned lanes = std::min(32u, nthreads - warp_base);
              const unsigned active = lanes == 32 ? ~0u : (1u << lanes) - 1;
              SCOPED_TRACE(::testing::Message() << "block (" << bx << "," << by << "," << bz << ") thread (" << x
                                                << "," << y << "," << z << ")");
              ASSERT_EQ(o[0], x);
              ASSERT_EQ(o[1], y);
              ASSERT_EQ(o[2], z);
              ASSERT_EQ(o[3], bx);
              ASSERT_EQ(o[4], by);
              ASSERT_EQ(o[5], bz);
              ASSERT_EQ(o[6], linear);
              ASSERT_EQ(o[7], opposite);
              ASSERT_EQ(o[8], warp_base);
              ASSERT_EQ(o[9], active);
            }
}

TEST_F(KernelBarriers, TwoDimensionalBlocks) {
  check_block_shape({dim3(3, 2), dim3(16, 16)});
  check_block_shape({dim3(2), dim3(4, 32)});
}

TEST_F(KernelBarriers, ThreeDimensionalBlocks) {
  check_block_shape({dim3(2, 3, 2), dim3(8, 4, 2)});
  check_block_shape({dim3(1), dim3(2, 2, 64)});
}

TEST_F(KernelBarriers, ThreeDimensionalBlockWithPartialWarp) {
  check_block_shape({dim3(2, 1, 2), dim3(5, 3, 3)});  // 45 threads: the second warp has 13 lanes
}

TEST_F(KernelBarriers, LargestBlock) { check_block_shape({dim3(2), dim3(32, 8, 4)}); }

TEST_F(KernelBarriers, DynamicSharedSizedAtLaunch) {
  constexpr int blocks = 4, threads = 96;
  std::vector<int> in(blocks * threads);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 3 + 1);
  DeviceArray<int> d_in(in), d_out(2 * blocks * threads);
  dynamic_reverse<<<blocks, threads, 2 * threads * sizeof(int)>>>(d_in.get(), d_out.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = d_out.read();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      EXPECT_EQ(h[2 * b * threads + t], in[b * threads + threads - 1 - t]) << b << " " << t;
      EXPECT_EQ(h[2 * b * threads + threads + t], -in[b * threads + threads - 1 - t]) << b << " " << t;
    }
}

TEST_F(KernelBarriers, DynamicSharedDefaultLimitAndOptIn) {
  DeviceArray<unsigned> errors(1);
  // 48 KiB: the default limit, no attribute needed.
  fill_dynamic<<<8, 256, 48 << 10>>>(errors.get(), (48 << 10) / 4);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  // 200 KiB after opting in (sharedMemPerBlockOptin is 232448).
  ASSERT_EQ(cudaFuncSetAttribute(fill_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 << 10), cudaSuccess);
  fill_dynamic<<<8, 1024, 200 << 10>>>(errors.get(), (200 << 10) / 4);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  fill_dynamic<<<3, 64, 227 << 10>>>(errors.get(), (227 << 10) / 4);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(errors.read()[0], 0u);
}

TEST_F(KernelBarriers, StaticAndDynamicSharedDoNotOverlap) {
  DeviceArray<int> out(32);
  static_and_dynamic<<<1, 32, 32 * sizeof(int)>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (int t = 0; t < 32; ++t) EXPECT_EQ(h[t], (100 + 31 - t) * 1000 + 200 + 31 - t) << t;
}

}  // namespace
}  // namespace minicuda::kernels_test

namespace minicuda::kernels_test {
namespace {

// A uint3 is 4-byte aligned and g++ copies it eight bytes at a time: that 8-byte move at a
// 4-byte-aligned address must not count as a misaligned access (it did once: the SM's alignment
// check trapped it and the launch failed with 716).
__device__ __attribute__((noinline)) unsigned sum_of(uint3 v) { return v.x + 10 * v.y + 100 * v.z; }
__global__ __attribute__((optimize("O2"))) void copy_uint3(unsigned* out) {
  uint3 b = blockIdx;
  out[blockIdx.x + gridDim.x * blockIdx.y] = sum_of(b);
}

TEST_F(KernelBarriers, StructCopiesOfBuiltInsAreNotMisaligned) {
  DeviceArray<unsigned> out(6);
  copy_uint3<<<dim3(3, 2), 1>>>(out.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned> h = out.read();
  for (unsigned y = 0; y < 2; ++y)
    for (unsigned x = 0; x < 3; ++x) EXPECT_EQ(h[x + 3 * y], x + 10 * y);
}

}  // namespace
}  // namespace minicuda::kernels_test
