// The PTX constructs of NVIDIA's samples (shfl_scan, reduction, warpAggregatedAtomicsCG) that the
// JIT once refused or the executor ran wrongly (or forever), from tests/data/ptx/handwritten/
// nvcc_sample_constructs.ptx, run on the SIMT executor with exact expected values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "minicuda/ptx/ptx.h"
#include "ptx_module.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

const ptx::CompileResult& module() {
  static const ptx::CompileResult r = [] {
    return minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/handwritten/nvcc_sample_constructs.ptx");
  }();
  return r;
}

// Runs kernel `name` (one u64 pointer parameter) on one block of `threads` threads.
void run(const std::string& name, unsigned threads, uint64_t out) {
  const ptx::CompileResult& r = module();
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  for (const ptx::CompiledKernel& k : r.kernels) {
    if (k.name != name) continue;
    SassGrid g;
    g.grid = dim3(1), g.block = dim3(threads);
    g.params.assign((k.param_bytes + 7) / 8 + 1, 0);
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(0), &out, 8);
    ASSERT_FALSE(g.run(*static_cast<const NvSassProgram*>(k.sass.get()), 1).has_value());
    return;
  }
  FAIL() << "no kernel " << name;
}

TEST(PtxSampleConstructs, WarpSzIsThirtyTwo) {
  std::vector<uint32_t> out(96, 0xDEAD);
  run("warp_size", 96, address_of(out));
  for (uint32_t t = 0; t < 96; ++t) EXPECT_EQ(out[t], t % 32 + 100 * (t / 32)) << "thread " << t;
}

TEST(PtxSampleConstructs, BlockScopedRegistersAndReservedSharedMemory) {
  std::vector<uint32_t> out(4 * 80, 0xDEAD);
  run("scoped_registers", 80, address_of(out));
  for (uint32_t t = 0; t < 80; ++t) {
    EXPECT_EQ(out[4 * t], t + 7) << "thread " << t;
    EXPECT_EQ(out[4 * t + 1], t * 3) << "thread " << t;
    EXPECT_EQ(out[4 * t + 2], 3u) << "thread " << t;  // lane 0 of each of the 3 warps added 1
    EXPECT_EQ(out[4 * t + 3], 1024u) << "thread " << t;
  }
}

TEST(PtxSampleConstructs, WarpOperationsReduceOverEachLanesOwnMembermask) {
  std::vector<uint32_t> out(5 * 32, 0xDEAD);
  run("partitioned_warp_ops", 32, address_of(out));
  for (uint32_t lane = 0; lane < 32; ++lane) {
    uint32_t group = 0, max = 0, ballot = 0, count = 0;
    bool all = true;
    for (uint32_t k = 0; k < 32; ++k) {
      if (k % 3 != lane % 3) continue;
      group |= 1u << k;
      max = std::max(max, k * 5 % 17);
      if (k > 10) ballot |= 1u << k;
      all = all && k < 20;
      ++count;
    }
    EXPECT_EQ(out[5 * lane], group) << "lane " << lane;
    EXPECT_EQ(out[5 * lane + 1], max) << "lane " << lane;
    EXPECT_EQ(out[5 * lane + 2], ballot) << "lane " << lane;
    EXPECT_EQ(out[5 * lane + 3], all ? 1u : 0u) << "lane " << lane;
    EXPECT_EQ(out[5 * lane + 4], count) << "lane " << lane;
  }
}

TEST(PtxSampleConstructs, AWarpSpinningOnAnotherWarpsWriteLetsItRun) {
  std::vector<uint32_t> out(64, 0xDEAD);
  run("spin_wait", 64, address_of(out));
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], 42u) << "thread " << t;
}

}  // namespace
