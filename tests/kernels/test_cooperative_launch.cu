// Cooperative launches: cudaLaunchCooperativeKernel (through cuLaunchCooperativeKernel) runs every block of
// the grid at once, so grid_group::sync is a real grid-wide barrier (a multi-phase algorithm over
// 2 * SMs blocks); a grid larger than the SMs hold together is refused with 720;
// cudaLaunchKernelEx with cudaLaunchAttributeCooperative, and the attributes it refuses.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <cstdint>
#include <vector>

#include "kernel_test.h"

namespace cg = cooperative_groups;

// Phase 1: every block writes its partial sums; grid.sync(); phase 2: block 0 adds them up;
// grid.sync(); phase 3: every thread reads the total. Each phase reads what other blocks wrote
// in the phase before, so a barrier that let a block through early gives a wrong total.
__global__ void multi_phase_sum(const int* in, int n, long long* partial, long long* total, long long* seen,
                                int* valid) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ long long s[128];
  long long mine = 0;
  for (long long i = grid.thread_rank(); i < n; i += static_cast<long long>(grid.size())) mine += in[i];
  s[block.thread_rank()] = mine;
  block.sync();
  if (block.thread_rank() == 0) {
    long long b = 0;
    for (unsigned i = 0; i < block.size(); ++i) b += s[i];
    partial[blockIdx.x] = b;
  }
  grid.sync();
  if (grid.block_rank() == 0 && block.thread_rank() == 0) {
    long long t = 0;
    for (unsigned long long i = 0; i < grid.num_blocks(); ++i) t += partial[i];
    *total = t;
  }
  grid.sync();
  seen[grid.thread_rank()] = *total;
  if (block.thread_rank() == 0) valid[blockIdx.x] = grid.is_valid();
}

// Ten barriers in a row, each round's counter read by every block after it.
__global__ void many_rounds(int* counters, int* errors) {
  cg::grid_group grid = cg::this_grid();
  for (int round = 0; round < 10; ++round) {
    if (threadIdx.x == 0) atomicAdd(&counters[round], 1);
    grid.sync();
    if (threadIdx.x == 0 && counters[round] != static_cast<int>(gridDim.x)) atomicAdd(errors, 1);
  }
}

// Block `bad` writes through a null pointer before the grid barrier; the others wait there.
__global__ void fault_before_grid_sync(int* out, int bad) {
  cg::grid_group grid = cg::this_grid();
  if (static_cast<int>(blockIdx.x) == bad && threadIdx.x == 0) *static_cast<volatile int*>(nullptr) = 1;
  grid.sync();
  out[blockIdx.x] = 1;
}

// Every thread adds its block's rank to a block sum, the grid meets at grid.sync(), and every
// block then reads the sum of all blocks' counts (each block of 1024 threads adds 1024).
__global__ void full_grid_count(unsigned long long* count, unsigned long long* seen) {
  cg::grid_group grid = cg::this_grid();
  atomicAdd(count, 1ull);
  grid.sync();
  if (threadIdx.x == 0) seen[blockIdx.x] = *count;
}

namespace minicuda::kernels_test {
namespace {

class KernelCooperativeLaunch : public FreshProcess {};

int sm_count() {
  int sms = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  return sms;
}

TEST_F(KernelCooperativeLaunch, DeviceReportsCooperativeLaunch) {
  int v = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, 0), cudaSuccess);
  EXPECT_EQ(v, 1);
}

TEST_F(KernelCooperativeLaunch, GridSyncIsAGridWideBarrier) {
  const int blocks = 2 * sm_count(), threads = 64, n = 100000;
  std::vector<int> in(n);
  long long want = 0;
  for (int i = 0; i < n; ++i) want += in[i] = i % 1000 - 300;
  DeviceArray<int> d_in(in);
  DeviceArray<long long> partial(blocks), total(1), seen(static_cast<size_t>(blocks) * threads);
  DeviceArray<int> valid(blocks);
  const int* in_ptr = d_in.get();
  int count = n;
  long long *p = partial.get(), *t = total.get(), *s = seen.get();
  int* v = valid.get();
  void* args[] = {&in_ptr, &count, &p, &t, &s, &v};
  ASSERT_EQ(cudaLaunchCooperativeKernel((const void*)multi_phase_sum, dim3(blocks), dim3(threads), args, 0, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (long long x : seen.read()) ASSERT_EQ(x, want);
  for (int x : valid.read()) EXPECT_EQ(x, 1);
}

TEST_F(KernelCooperativeLaunch, ManyRounds) {
  const int blocks = sm_count() + 3;
  DeviceArray<int> counters(10), errors(1);
  int *c = counters.get(), *e = errors.get();
  void* args[] = {&c, &e};
  ASSERT_EQ(cudaLaunchCooperativeKernel(many_rounds, dim3(blocks), dim3(32), args), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int x : counters.read()) EXPECT_EQ(x, blocks);
  EXPECT_EQ(errors.read()[0], 0);
}

TEST_F(KernelCooperativeLaunch, DriverEntryPointChecksItsFunction) {
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // the primary context is current
  void* args[] = {nullptr};
  EXPECT_EQ(cuLaunchCooperativeKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args), CUDA_ERROR_INVALID_HANDLE);
}

// The largest grid a cooperative launch may have: the occupancy of one SM at 1024 threads a
// block times the SMs (2 x 132 = 264 blocks, 270336 threads), every one at grid.sync().
TEST_F(KernelCooperativeLaunch, TheLargestAllowedGridRuns) {
  int per_sm = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full_grid_count, 1024, 0), cudaSuccess);
  EXPECT_EQ(per_sm, 2);
  const int blocks = per_sm * sm_count();
  EXPECT_EQ(blocks, 264);
  DeviceArray<unsigned long long> count(1), seen(blocks);
  unsigned long long *c = count.get(), *s = seen.get();
  void* args[] = {&c, &s};
  ASSERT_EQ(cudaLaunchCooperativeKernel((const void*)full_grid_count, dim3(blocks), dim3(1024), args, 0, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(count.read()[0], 264ull * 1024);
  for (unsigned long long v : seen.read()) EXPECT_EQ(v, 264ull * 1024);
}

TEST_F(KernelCooperativeLaunch, TooLargeGridIsRefused) {
  int per_sm = 0;
  ASSERT_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, many_rounds, 1024, 0), cudaSuccess);
  ASSERT_GT(per_sm, 0);
  DeviceArray<int> counters(10), errors(1);
  int *c = counters.get(), *e = errors.get();
  void* args[] = {&c, &e};
  const int fits = per_sm * sm_count();
  EXPECT_EQ(cudaLaunchCooperativeKernel((const void*)many_rounds, dim3(fits + 1), dim3(1024), args, 0, nullptr),
            cudaErrorCooperativeLaunchTooLarge);
  // The error is returned, not sticky: the context still works.
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaLaunchCooperativeKernel((const void*)many_rounds, dim3(0), dim3(32), args, 0, nullptr),
            cudaErrorInvalidValue);
}

TEST_F(KernelCooperativeLaunch, LaunchKernelExWithCooperativeAttribute) {
  const int blocks = sm_count() * 2;
  DeviceArray<int> counters(10), errors(1);
  cudaLaunchAttribute attr[2] = {};
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  attr[1].id = cudaLaunchAttributeIgnore;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(32);
  config.attrs = attr;
  config.numAttrs = 2;
  ASSERT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int x : counters.read()) EXPECT_EQ(x, blocks);
  EXPECT_EQ(errors.read()[0], 0);
  // Without the attribute the same kernel is not cooperative: its grid.sync() is an error.
  attr[0].val.cooperative = 0;
  ASSERT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

TEST_F(KernelCooperativeLaunch, LaunchKernelExRefusesWhatIsNotModelled) {
  DeviceArray<int> counters(10), errors(1);
  cudaLaunchAttribute attr = {};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(32);
  config.attrs = &attr;
  config.numAttrs = 1;
  attr.id = cudaLaunchAttributeMemSyncDomain;
  EXPECT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaErrorNotSupported);
  attr.id = cudaLaunchAttributePriority;
  attr.val.priority = 1;
  EXPECT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaErrorNotSupported);
  attr.id = static_cast<cudaLaunchAttributeID>(99);
  EXPECT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaErrorInvalidValue);
  void* args[] = {nullptr, nullptr};
  EXPECT_EQ(cudaLaunchKernelExC(nullptr, (const void*)many_rounds, args), cudaErrorInvalidValue);
  // A cluster of one block (clusters: test_clusters.cu): the launch runs, not cooperatively.
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim = {1, 1, 1};
  EXPECT_EQ(cudaLaunchKernelEx(&config, many_rounds, counters.get(), errors.get()), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);  // not cooperative: grid.sync() fails
}

// The blocks waiting at grid.sync() leave it when another block faults: the launch fails with the
// fault (700, naming the faulting block), it does not hang.
TEST_F(KernelCooperativeLaunch, AFaultStopsTheBlocksWaitingAtTheGridBarrier) {
  DeviceArray<int> out(16);
  int* o = out.get();
  int bad = 5;
  void* args[] = {&o, &bad};
  ASSERT_EQ(cudaLaunchCooperativeKernel((const void*)fault_before_grid_sync, dim3(16), dim3(64), args, 0, nullptr),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
}

}  // namespace
}  // namespace minicuda::kernels_test
