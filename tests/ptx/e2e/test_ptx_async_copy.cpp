// cp.async, cp.async.bulk and mbarrier (tests/data/ptx/handwritten/async_copy.ptx) compiled by the
// JIT and run on the SIMT executor with exact expected values, on 1 and 3 host threads; and the
// load-time refusal of the forms the executor does not implement.
#include <gtest/gtest.h>

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
    return minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/handwritten/async_copy.ptx");
  }();
  return r;
}

// Runs kernel `name` (parameters: in, out) on one block of `threads` threads.
void run(const std::string& name, unsigned threads, uint64_t in, uint64_t out, unsigned host_threads) {
  const ptx::CompileResult& r = module();
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  for (const ptx::CompiledKernel& k : r.kernels) {
    if (k.name != name) continue;
    SassGrid g;
    g.grid = dim3(1), g.block = dim3(threads);
    g.params.assign((k.param_bytes + 7) / 8 + 1, 0);
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(0), &in, 8);
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(1), &out, 8);
    auto error = g.run(*static_cast<const NvSassProgram*>(k.sass.get()), host_threads);
    ASSERT_FALSE(error.has_value()) << error->error.message;
    return;
  }
  FAIL() << "no kernel " << name;
}

class PtxAsyncCopy : public ::testing::TestWithParam<unsigned> {};

TEST_P(PtxAsyncCopy, CpAsyncFillsTheTileAndZeroFillsPastTheSourceSize) {
  const unsigned n = 48;
  std::vector<uint32_t> in(4 * n), out(8 * n, 0xDEADBEEF);
  for (unsigned i = 0; i < 4 * n; ++i) in[i] = 0x10000u * i + 0x8001u + i;
  run("cp_async_tile", n, address_of(in), address_of(out), GetParam());
  for (unsigned t = 0; t < n; ++t) {
    const unsigned s = (t + 5) % n;
    for (unsigned w = 0; w < 4; ++w) EXPECT_EQ(out[8 * t + w], in[4 * s + w]) << "thread " << t << " word " << w;
    EXPECT_EQ(out[8 * t + 4], in[4 * s + 3] & 0xFFFFu) << "thread " << t;  // 2 of 4 bytes copied
  }
}

TEST_P(PtxAsyncCopy, MbarrierPhasesWithABulkCopysTransactionBytes) {
  std::vector<uint32_t> in(64), out(128, 0xDEADBEEF);
  for (unsigned i = 0; i < 64; ++i) in[i] = i * 7 + 3;
  run("mbarrier_phases", 64, address_of(in), address_of(out), GetParam());
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(out[t], t * 7 + 3) << "thread " << t;
    EXPECT_EQ(out[64 + t], 1u) << "thread " << t;
  }
}

TEST_P(PtxAsyncCopy, CpAsyncArrivesOnTheMbarrierWithNoinc) {
  std::vector<uint32_t> in(64), out(64, 0xDEADBEEF);
  for (unsigned i = 0; i < 64; ++i) in[i] = 0xA0000000u + i;
  run("cp_async_arrive", 32, address_of(in), address_of(out), GetParam());
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(out[2 * t], in[2 * (t ^ 1)]) << "thread " << t;
    EXPECT_EQ(out[2 * t + 1], in[2 * (t ^ 1) + 1]) << "thread " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(HostThreads, PtxAsyncCopy, ::testing::Values(1u, 3u));

// A misaligned cp.async source is the GPU's misaligned-address error, naming the instruction.
TEST(PtxAsyncCopyErrors, MisalignedSourceIsAMisalignedAddress) {
  const unsigned n = 32;
  std::vector<uint32_t> in(4 * n + 4), out(8 * n);
  const ptx::CompileResult& r = module();
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  for (const ptx::CompiledKernel& k : r.kernels) {
    if (k.name != "cp_async_tile") continue;
    SassGrid g;
    g.grid = dim3(1), g.block = dim3(n);
    g.params.assign((k.param_bytes + 7) / 8 + 1, 0);
    const uint64_t bad = address_of(in) + 4, o = address_of(out);
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(0), &bad, 8);
    std::memcpy(reinterpret_cast<char*>(g.params.data()) + k.param_offsets.at(1), &o, 8);
    auto error = g.run(*static_cast<const NvSassProgram*>(k.sass.get()), 1);
    ASSERT_TRUE(error.has_value());
    EXPECT_EQ(error->error.kind, minicuda::gpu::KernelErrorKind::MisalignedAddress) << error->error.message;
  }
}

// The forms of the family the executor does not implement are refused at load, by name.
TEST(PtxAsyncCopyErrors, UnimplementedFormsAreRefusedByName) {
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                           ".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.shared .align 8 .b64 bar;\nld.param.u64 %rd1, [p];\n"
                           "mov.u32 %r1, bar;\n";
  const std::string forms[] = {
      "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 16;\n",
      "mbarrier.pending_count.b64 %r2, %rd2;\n",
  };
  for (const std::string& form : forms) {
    ptx::CompileResult r = ptx::compile(head + form + "ret;\n}\n", {});
    EXPECT_EQ(r.status, ptx::Status::NotSupported) << form << r.error_log;
    EXPECT_NE(r.error_log.find("not supported by minicuda's JIT"), std::string::npos) << r.error_log;
  }
}

}  // namespace
