// The compute engine's block scheduler (device_sim/src/compute_engine.cpp): occupancy by the
// cuda_occupancy rules on the H200 preset (nv_occupancy, nv_occupancy.h), grids of many waves
// and the largest grids, each block run exactly once, and results that do not depend on how many
// host threads run the SMs (the same tests run again with MINICUDA_SM_THREADS=1 and =4, see
// CMakeLists.txt).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_test.h"

// --- kernels --------------------------------------------------------------------------------

__global__ void occupancy_probe(int* p) {
  if (p != nullptr) p[threadIdx.x] = 0;
}

// Every thread counts itself into its block's slot: a slot of blockDim threads means the block ran
// exactly once, all of it.
__global__ void count_blocks(unsigned* hits, unsigned* blocks_seen) {
  const unsigned long long block =
      blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  atomicAdd(&hits[block], 1u);
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) atomicAdd(blocks_seen, 1u);
}

// One thread per block; checks gridDim as well.
__global__ void count_single(unsigned* hits, unsigned* bad_dims, dim3 want_grid) {
  const unsigned long long block =
      blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  atomicAdd(&hits[block], 1u);
  if (gridDim.x != want_grid.x || gridDim.y != want_grid.y || gridDim.z != want_grid.z || blockDim.x != 1)
    atomicAdd(bad_dims, 1u);
}

// A float tree reduction per block in static shared memory: its result depends only on the order
// of the additions, which the kernel fixes, not on which host thread runs which block.
__global__ void tree_reduce(const float* in, float* partial) {
  __shared__ float s[256];
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// The CUDA sample's "threadFenceReduction": each block writes its partial sum, and the last block
// to finish (found with atomicInc on a ticket) adds the partials in index order. The total is
// deterministic whichever block comes last.
__global__ void last_block_reduce(const float* in, float* partial, unsigned* ticket, float* total) {
  __shared__ float s[256];
  __shared__ bool is_last;
  const unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    is_last = atomicInc(ticket, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && t == 0) {
    float sum = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += reinterpret_cast<volatile float*>(partial)[b];
    *total = sum;
    *ticket = 0;
  }
}

// Odd blocks exchange values through shared memory across a barrier (they run as fibers), even
// blocks never reach one (they run in the SM's loop): on every host thread, blocks of both kinds
// follow one another. Block `fault_block` (if any) writes through a null pointer.
__global__ void mixed_modes(int* out, int fault_block) {
  __shared__ int s[64];
  const unsigned t = threadIdx.x;
  if (static_cast<int>(blockIdx.x) == fault_block && t == 5) *static_cast<volatile int*>(nullptr) = 1;
  if (blockIdx.x % 2 == 1) {
    s[t] = static_cast<int>(blockIdx.x * 1000 + t);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
  } else {
    out[blockIdx.x * blockDim.x + t] = -static_cast<int>(blockIdx.x * 1000 + t);
  }
}

namespace minicuda::kernels_test {
namespace {

class KernelScheduler : public FreshProcess {};

int occupancy(int threads, size_t shared) {
  int blocks = -1;
  EXPECT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, occupancy_probe, threads, shared), cudaSuccess);
  return blocks;
}

TEST_F(KernelScheduler, OccupancyOfTheH200) {
  cudaFuncAttributes attr{};
  ASSERT_EQ(cudaFuncGetAttributes(&attr, occupancy_probe), cudaSuccess);
  EXPECT_EQ(attr.numRegs, 32);  // what every minicuda kernel is charged
  // Threads: 2048 per SM.
  EXPECT_EQ(occupancy(256, 0), 8);
  EXPECT_EQ(occupancy(1024, 0), 2);
  EXPECT_EQ(occupancy(512, 0), 4);
  EXPECT_EQ(occupancy(768, 0), 2);   // 24 warps: 2048 / 768 rounds down
  // Blocks: 32 per SM; one-warp blocks are charged four warps of registers (one per
  // sub-partition): 32 registers -> 16 blocks of 32 or 64 threads.
  EXPECT_EQ(occupancy(32, 0), 16);
  EXPECT_EQ(occupancy(64, 0), 16);
  EXPECT_EQ(occupancy(128, 0), 16);
  EXPECT_EQ(occupancy(1, 0), 16);
  // Shared memory: 233472 B per SM, each block plus the 1 KiB the driver reserves.
  EXPECT_EQ(occupancy(64, 48 << 10), 4);
  EXPECT_EQ(occupancy(64, 16 << 10), 13);  // 233472 / 17408
  // More than 48 KiB once the kernel opts in.
  ASSERT_EQ(cudaFuncSetAttribute(occupancy_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 << 10), cudaSuccess);
  EXPECT_EQ(occupancy(1024, 100 << 10), 2);
  EXPECT_EQ(occupancy(256, 100 << 10), 2);
  ASSERT_EQ(cudaFuncSetAttribute(occupancy_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 << 10), cudaSuccess);
  EXPECT_EQ(occupancy(256, 120 << 10), 1);
  EXPECT_EQ(occupancy(64, 227 << 10), 1);  // 232448 + 1024 = all of the SM's 233472
}

// Was a simulator bug (fixed: the test pins it): measured on the H200 (CUDA 13.0),
// cudaOccupancyMaxActiveBlocksPerMultiprocessor answers 0 blocks (cudaSuccess) for a
// configuration the kernel cannot launch: 100 KiB of dynamic shared memory before the kernel
// opted in with cudaFuncSetAttribute, or 2048 threads per block. cuOccupancyMaxActiveBlocksPer-
// Multiprocessor (driver/user/src/launch.cpp) applies only nv_occupancy's SM limits: 2 and 1.
TEST_F(KernelScheduler, OccupancyIsZeroForALaunchThatCannotRun) {
  EXPECT_EQ(occupancy(64, 100 << 10), 0);
  EXPECT_EQ(occupancy(2048, 0), 0);
}

void run_counted(dim3 grid, dim3 block) {
  const size_t blocks = static_cast<size_t>(grid.x) * grid.y * grid.z;
  const unsigned threads = block.x * block.y * block.z;
  DeviceArray<unsigned> hits(blocks), seen(1);
  count_blocks<<<grid, block>>>(hits.get(), seen.get());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(seen.read()[0], blocks);
  std::vector<unsigned> h = hits.read();
  for (size_t b = 0; b < blocks; ++b) ASSERT_EQ(h[b], threads) << "block " << b;
}

TEST_F(KernelScheduler, ManyWavesRunEveryBlockOnce) {
  // 256 threads: 8 blocks per SM, 132 SMs -> 1056 per wave; 3 waves and a bit.
  run_counted(dim3(3 * 1056 + 17), dim3(256));
  // 1024 threads: 2 per SM -> 264 per wave; 1000 blocks are 4 waves.
  run_counted(dim3(1000), dim3(32, 32));
  // A 3D grid of 3D blocks: 37 x 29 x 3 = 3219 blocks.
  run_counted(dim3(37, 29, 3), dim3(4, 4, 8));
}

TEST_F(KernelScheduler, OneMillionSingleThreadBlocks) {
  constexpr unsigned blocks = 1u << 20;
  DeviceArray<unsigned> hits(blocks), bad(1);
  count_single<<<blocks, 1>>>(hits.get(), bad.get(), dim3(blocks));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(bad.read()[0], 0u);
  std::vector<unsigned> h = hits.read();
  for (unsigned b = 0; b < blocks; ++b) ASSERT_EQ(h[b], 1u) << "block " << b;
}

TEST_F(KernelScheduler, LargestGridYAndZ) {
  for (dim3 grid : {dim3(2, 65535), dim3(1, 1, 65535), dim3(65535, 2)}) {
    const size_t blocks = static_cast<size_t>(grid.x) * grid.y * grid.z;
    DeviceArray<unsigned> hits(blocks), bad(1);
    count_single<<<grid, 1>>>(hits.get(), bad.get(), grid);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(bad.read()[0], 0u);
    std::vector<unsigned> h = hits.read();
    for (size_t b = 0; b < blocks; ++b) ASSERT_EQ(h[b], 1u) << "grid " << grid.x << "x" << grid.y << "x" << grid.z
                                                            << " block " << b;
  }
}

TEST_F(KernelScheduler, BlocksWithAndWithoutBarriersFollowOneAnother) {
  constexpr unsigned blocks = 999, threads = 64;
  DeviceArray<int> out(blocks * threads);
  mixed_modes<<<blocks, threads>>>(out.get(), -1);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> h = out.read();
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      const int want = b % 2 == 1 ? static_cast<int>(b * 1000 + (threads - 1 - t)) : -static_cast<int>(b * 1000 + t);
      ASSERT_EQ(h[b * threads + t], want) << "block " << b << " thread " << t;
    }
}

// A fault in a block that runs in the SM's loop right after blocks that ran as fibers names its
// own block and thread.
TEST_F(KernelScheduler, FaultAfterFiberBlocksNamesItsBlock) {
  constexpr unsigned blocks = 999, threads = 64;
  DeviceArray<int> out(blocks * threads);
  ::testing::internal::CaptureStderr();
  mixed_modes<<<blocks, threads>>>(out.get(), 600);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("block (600,0,0) thread (5,0,0)"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// The host replica of tree_reduce's order of additions.
float host_tree(const float* v, unsigned n) {
  std::vector<float> s(v, v + n);
  for (unsigned stride = n / 2; stride > 0; stride /= 2)
    for (unsigned t = 0; t < stride; ++t) s[t] += s[t + stride];
  return s[0];
}

TEST_F(KernelScheduler, DeterministicReductions) {
  constexpr unsigned blocks = 600, threads = 256, n = blocks * threads;
  std::vector<float> in(n);
  uint32_t x = 12345;
  for (float& f : in) {  // values of very different magnitudes, so that the order matters
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) * ((x & 1) ? 1e-6f : 1.0f) * ((x & 2) ? -1.0f : 1.0f);
  }
  std::vector<float> want_partial(blocks);
  for (unsigned b = 0; b < blocks; ++b) want_partial[b] = host_tree(&in[b * threads], threads);
  float want_total = 0.0f;
  for (float p : want_partial) want_total += p;

  DeviceArray<float> d_in(in), partial(blocks), partial2(blocks), total(1);
  DeviceArray<unsigned> ticket(1);
  for (int run = 0; run < 2; ++run) {
    tree_reduce<<<blocks, threads>>>(d_in.get(), partial.get());
    last_block_reduce<<<blocks, threads>>>(d_in.get(), partial2.get(), ticket.get(), total.get());
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<float> p = partial.read(), p2 = partial2.read();
    for (unsigned b = 0; b < blocks; ++b) {
      ASSERT_EQ(bits_of(p[b]), bits_of(want_partial[b])) << "run " << run << " block " << b;
      ASSERT_EQ(bits_of(p2[b]), bits_of(want_partial[b])) << "run " << run << " block " << b;
    }
    EXPECT_EQ(bits_of(total.read()[0]), bits_of(want_total)) << "run " << run;
    EXPECT_EQ(ticket.read()[0], 0u) << "the last block resets the ticket";
  }
}

}  // namespace
}  // namespace minicuda::kernels_test
