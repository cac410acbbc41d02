// The SIMT executor's counters (device_sim/src/simt_counters.h) for kernels whose counts can be
// worked out by hand: the small kernels of the ladder probe (tests/data/h200/timing/
// probe_ladders.cu, compiled by nvcc to ladders.ptx), which Nsight Compute measured on the H200
// (probe_ladders.txt). Each runs through the JIT and the executor with counting on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cost_model.h"
#include "minicuda/ptx/ptx.h"
#include "simt_counters.h"
#include "sm.h"
#include "ptx_module.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::BlockError;
using minicuda::gpu::BlockQueue;
using minicuda::gpu::GridCounters;
using minicuda::gpu::GridLaunch;
using minicuda::gpu::InstClass;
using minicuda::gpu::KernelCounters;

namespace {

const ptx::CompileResult& ladders() {
  static const ptx::CompileResult r = [] {
    return minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_TIMING_DATA_DIR) + "/ladders.ptx");
  }();
  return r;
}

const ptx::CompiledKernel& kernel(const std::string& name) {
  for (const ptx::CompiledKernel& k : ladders().kernels)
    if (k.name == name) return k;
  ADD_FAILURE() << "no kernel " << name << ": " << ladders().error_log;
  static ptx::CompiledKernel none;
  return none;
}

// Device-style buffers: 128-byte aligned, so sectors and lines fall as on the GPU.
struct Buffer {
  explicit Buffer(size_t floats) : data(static_cast<float*>(std::aligned_alloc(128, (floats * 4 + 127) / 128 * 128))) {
    std::memset(data, 0, floats * 4);
  }
  ~Buffer() { std::free(data); }
  uint64_t address() const { return reinterpret_cast<uint64_t>(data); }
  float* data;
};

// Runs `name` on `host_threads` threads with counting on and returns the finished counters.
KernelCounters run_counted(const std::string& name, dim3 grid, dim3 block, const std::vector<uint64_t>& values,
                           unsigned host_threads = 1) {
  const ptx::CompiledKernel& k = kernel(name);
  std::vector<uint64_t> params((k.param_bytes + 7) / 8 + 1, 0);
  for (size_t i = 0; i < values.size() && i < k.param_offsets.size(); ++i)
    std::memcpy(reinterpret_cast<char*>(params.data()) + k.param_offsets[i], &values[i], k.param_sizes[i]);
  const auto* program = static_cast<const NvSassProgram*>(k.sass.get());
  GridCounters counters;
  GridLaunch launch;
  launch.kernel_name = nv_sass_name(*program);
  launch.sass = program;
  launch.params = params.data();
  launch.grid = grid;
  launch.block = block;
  launch.counters = &counters;
  BlockQueue queue(grid, 1);
  std::mutex mutex;
  bool failed = false;
  auto worker = [&] {
    if (std::optional<BlockError> e = minicuda::gpu::run_blocks(launch, queue)) {
      std::lock_guard lock(mutex);
      failed = true;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < host_threads; ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(failed) << name;
  return counters.finish(minicuda::gpu::H200Figures::kL2Bytes);
}

uint64_t cls(const KernelCounters& c, InstClass k) { return c.warp_instructions[static_cast<unsigned>(k)]; }

TEST(SimtCounters, ACoalescedWarpLoadIsOneRequestOfFourSectors) {
  Buffer in(32), out(32);
  KernelCounters c = run_counted("hw_load_coalesced", dim3(1), dim3(32), {in.address(), out.address()});
  EXPECT_EQ(c.global_load_requests, 1u);
  EXPECT_EQ(c.global_load_sectors, 4u);  // 32 lanes x 4 bytes = 128 bytes = 4 sectors of one line
  EXPECT_EQ(c.global_store_requests, 1u);
  EXPECT_EQ(c.global_store_sectors, 4u);
  EXPECT_EQ(c.global_wavefronts, 2u);  // one line each
  EXPECT_EQ(c.dram_read_bytes, 128u);
  EXPECT_EQ(c.dram_write_bytes, 128u);
  EXPECT_EQ(c.l1_hit_sectors, 0u);
  EXPECT_EQ(c.thread_instructions, 32 * c.total_warp_instructions());  // no lane idle
  EXPECT_EQ(c.blocks, 1u);
  EXPECT_EQ(c.warps, 1u);
}

TEST(SimtCounters, AStrideTwoLoadTouchesEightSectorsAndStrideThirtyTwoOnePerLane) {
  Buffer in(32 * 32), out(32);
  KernelCounters two = run_counted("hw_load_strided", dim3(1), dim3(32), {in.address(), out.address(), 2});
  EXPECT_EQ(two.global_load_requests, 1u);
  EXPECT_EQ(two.global_load_sectors, 8u);  // 256 bytes spanned, every sector half used
  EXPECT_EQ(two.dram_read_bytes, 8u * 32);
  KernelCounters wide = run_counted("hw_load_strided", dim3(1), dim3(32), {in.address(), out.address(), 32});
  EXPECT_EQ(wide.global_load_requests, 1u);
  EXPECT_EQ(wide.global_load_sectors, 32u);  // 128 bytes apart: a sector (and a line) per lane
  EXPECT_EQ(wide.global_wavefronts, 32u + 1u);
  EXPECT_EQ(wide.global_store_sectors, 4u);
}

TEST(SimtCounters, SharedStrideTwoIsATwoWayConflictAndStrideThirtyTwoAThirtyTwoWay) {
  Buffer out(32);
  KernelCounters one = run_counted("hw_shared_stride", dim3(1), dim3(32), {out.address(), 1});
  EXPECT_EQ(one.shared_requests, 2u);  // the store and the load
  EXPECT_EQ(one.bank_conflicts(), 0u);
  KernelCounters two = run_counted("hw_shared_stride", dim3(1), dim3(32), {out.address(), 2});
  EXPECT_EQ(two.shared_requests, 2u);
  EXPECT_EQ(two.shared_wavefronts, 4u);  // even banks only, two words each
  EXPECT_EQ(two.bank_conflicts(), 2u);
  KernelCounters all = run_counted("hw_shared_stride", dim3(1), dim3(32), {out.address(), 32});
  EXPECT_EQ(all.shared_wavefronts, 64u);  // every lane in bank 0
  EXPECT_EQ(all.bank_conflicts(), 62u);
  EXPECT_EQ(all.barrier_waits, 1u);
  EXPECT_EQ(cls(all, InstClass::Barrier), 1u);
}

TEST(SimtCounters, AHalfDivergentBranchRunsEachLoopWithHalfTheLanes) {
  Buffer out(32);
  // rounds = 64: each half runs its loop unrolled by 4, 16 times, 7 instructions a round.
  KernelCounters c = run_counted("hw_half_divergent", dim3(1), dim3(32), {out.address(), 64});
  const uint64_t warp = c.total_warp_instructions(), idle = 32 * warp - c.thread_instructions;
  // After the divergent `@%p1 bra`, each half runs alone: 7 instructions that set its loop up,
  // 16 rounds of 7, and 2 that test the remainder; the upper half also its `bra.uni`. Each of
  // those warp-instructions leaves 16 lanes idle.
  const uint64_t half_lane_instructions = 2 * (7 + 16 * 7 + 2) + 1;
  EXPECT_EQ(idle, 16 * half_lane_instructions);
  EXPECT_NEAR(static_cast<double>(c.thread_instructions) / (32.0 * warp), 0.5, 0.05);
  EXPECT_EQ(cls(c, InstClass::Fma), 2u * 64 / 4 * 4);  // 64 FMAs per half, one warp-instruction each
}

TEST(SimtCounters, AStridedStoreWritesPartSectorsAndAnIntegerRemainderCountsAsItsSequence) {
  const int n = 64;
  Buffer in(n * n), out(n * n);
  KernelCounters naive = run_counted("transpose_naive", dim3(2, 2), dim3(32, 8), {in.address(), out.address(), n});
  EXPECT_EQ(naive.global_store_requests, 4u * 32);  // 4 blocks x 8 warps x 4 rows
  EXPECT_EQ(naive.global_store_sectors, 4u * 32 * 32);  // a column: 32 sectors, 4 bytes of each
  EXPECT_EQ(naive.global_partial_store_sectors, naive.global_store_sectors);
  KernelCounters copy = run_counted("transpose_copy", dim3(2, 2), dim3(32, 8), {in.address(), out.address(), n});
  EXPECT_EQ(copy.global_store_sectors, 4u * 32 * 4);
  EXPECT_EQ(copy.global_partial_store_sectors, 0u);
  // reduce_divergent's `t % (2 * s)` runs 8 times per warp; reduce_sequential has no rem.
  Buffer data(256), partial(1);
  KernelCounters div = run_counted("reduce_divergent", dim3(1), dim3(256), {data.address(), partial.address(), 256});
  EXPECT_GE(cls(div, InstClass::IntFp32), 8u * 8 * minicuda::gpu::kIntDivideInstructions);
}

TEST(SimtCounters, ReuseWithinABlockHitsTheL1AndTheCountsDoNotDependOnHostThreads) {
  const int n = 64;
  Buffer a(n * n), b(n * n), c(n * n);
  const std::vector<uint64_t> args = {a.address(), b.address(), c.address(), n};
  KernelCounters one = run_counted("matmul_naive", dim3(4, 4), dim3(16, 16), args, 1);
  KernelCounters three = run_counted("matmul_naive", dim3(4, 4), dim3(16, 16), args, 3);
  EXPECT_EQ(std::memcmp(&one, &three, sizeof one), 0);
  EXPECT_GT(one.l1_hit_sectors, one.global_load_sectors / 2);  // 8 warps share each row of B
  EXPECT_EQ(one.dram_read_bytes, 2u * n * n * 4);  // A and B once each from DRAM
  EXPECT_EQ(one.dram_write_bytes, 1u * n * n * 4);
}

}  // namespace
