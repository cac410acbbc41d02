// nvcc's PTX of tests/data/ptx/src/recursion_params_grid.cu on the SIMT executor: recursive
// device functions (each call's registers in a frame of the thread's call stack, bounded by the
// stack size), a struct parameter addressed through its address (mov of a parameter's name), and
// a cooperative grid's sync through the grid workspace cooperative groups read from %envreg1/2.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "minicuda/ptx/ptx.h"
#include "nv_kernel_code.h"
#include "ptx_module.h"
#include "sass_builder.h"

namespace ptx = minicuda::ptx;
using minicuda::gpu::KernelErrorKind;
using minicuda::gpu::testing::address_of;
using minicuda::gpu::testing::SassGrid;

namespace {

const ptx::CompileResult& module() {
  static const ptx::CompileResult r = [] {
    return minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/recursion_params_grid.ptx");
  }();
  return r;
}

const ptx::CompiledKernel& kernel(const std::string& name) {
  static const ptx::CompiledKernel none{};
  for (const ptx::CompiledKernel& k : module().kernels)
    if (k.name == name) return k;
  ADD_FAILURE() << "no kernel " << name << ": " << module().error_log;
  return none;
}

// The parameter block of `k` with raw bytes `values[i]` at parameter i.
std::vector<uint64_t> params(const ptx::CompiledKernel& k, const std::vector<std::vector<uint8_t>>& values) {
  std::vector<uint64_t> block((k.param_bytes + 7) / 8 + 1, 0);
  for (size_t i = 0; i < values.size() && i < k.param_offsets.size(); ++i)
    std::memcpy(reinterpret_cast<char*>(block.data()) + k.param_offsets[i], values[i].data(), values[i].size());
  return block;
}
template <class T>
std::vector<uint8_t> bytes(T v) {
  std::vector<uint8_t> b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

const NvSassProgram& program(const ptx::CompiledKernel& k) { return *static_cast<const NvSassProgram*>(k.sass.get()); }

uint32_t descend(uint32_t depth, uint32_t limit) { return depth >= limit ? depth : descend(depth + 1, limit) * 3 + depth; }

class PtxCallsAndParams : public ::testing::TestWithParam<unsigned> {};

TEST_P(PtxCallsAndParams, RecursiveCallsKeepEachActivationsRegisters) {
  ASSERT_EQ(module().status, ptx::Status::Ok) << module().error_log;
  const ptx::CompiledKernel& k = kernel("recursion");
  std::vector<uint64_t> fact(64, 0);
  std::vector<int32_t> fib(64, -1);
  SassGrid g;
  g.grid = dim3(2), g.block = dim3(32);
  g.params = params(k, {bytes(address_of(fact)), bytes(address_of(fib))});
  auto error = g.run(program(k), GetParam());
  ASSERT_FALSE(error.has_value()) << error->error.message;
  for (unsigned t = 0; t < 64; ++t) {
    uint64_t f = 1;
    for (unsigned i = 2; i <= t % 21; ++i) f *= i;
    int32_t a = 0, b = 1;
    for (unsigned i = 0; i < t % 20; ++i) b += a, a = b - a;
    EXPECT_EQ(fact[t], f) << t;
    EXPECT_EQ(fib[t], a) << t;
  }
}

TEST_P(PtxCallsAndParams, RecursionWithinTheStackSizeRunsAndPastItOverflows) {
  const ptx::CompiledKernel& k = kernel("deep");
  std::vector<uint32_t> out(32, 0);
  SassGrid g;
  g.block = dim3(32);
  // Each recursive frame takes 16 bytes: 1024 bytes hold 64 frames.
  g.params = params(k, {bytes(address_of(out)), bytes(uint32_t{60})});
  auto error = g.run(program(k), GetParam());
  ASSERT_FALSE(error.has_value()) << error->error.message;
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(out[t], descend(0, 60)) << t;

  g.params = params(k, {bytes(address_of(out)), bytes(uint32_t{100})});
  error = g.run(program(k), GetParam());
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->error.kind, KernelErrorKind::StackOverflow);
  EXPECT_NE(error->error.message.find("cudaLimitStackSize"), std::string::npos) << error->error.message;

  g.stack_bytes = 4096;  // cudaDeviceSetLimit(cudaLimitStackSize, 4096)
  error = g.run(program(k), GetParam());
  ASSERT_FALSE(error.has_value()) << error->error.message;
  for (unsigned t = 0; t < 32; ++t) EXPECT_EQ(out[t], descend(0, 100)) << t;
}

TEST_P(PtxCallsAndParams, AStructParameterIsReadThroughItsAddress) {
  const ptx::CompiledKernel& k = kernel("param_table");
  std::vector<uint8_t> table(160);
  for (int i = 0; i < 40; ++i) {
    const int32_t v = i * i - 7;
    std::memcpy(table.data() + 4 * i, &v, 4);
  }
  std::vector<int32_t> out(64, 0);
  SassGrid g;
  g.block = dim3(64);
  g.params = params(k, {table, bytes(address_of(out))});
  auto error = g.run(program(k), GetParam());
  ASSERT_FALSE(error.has_value()) << error->error.message;
  for (int t = 0; t < 64; ++t) {
    int32_t sum = 0;
    for (int i = 0; i <= t % 40; ++i) sum += i * i - 7;
    EXPECT_EQ(out[t], sum) << t;
  }
}

INSTANTIATE_TEST_SUITE_P(HostThreads, PtxCallsAndParams, ::testing::Values(1u, 3u));

// grid.sync() of cooperative groups: 3 blocks, one host thread each (as a cooperative launch
// runs them), the workspace's barrier at 0.
TEST(PtxCooperativeGrid, GridSyncWorksThroughTheDriversWorkspace) {
  const ptx::CompiledKernel& k = kernel("grid_sum");
  NvMinicudaGridWorkspace workspace{};
  workspace.size = sizeof workspace;
  std::vector<int32_t> counter(1, 0), out(3 * 64, -1);
  SassGrid g;
  g.grid = dim3(3), g.block = dim3(64);
  g.grid_workspace = reinterpret_cast<uint64_t>(&workspace);
  g.params = params(k, {bytes(address_of(counter)), bytes(address_of(out))});
  auto error = g.run(program(k), 3);
  ASSERT_FALSE(error.has_value()) << error->error.message;
  for (unsigned t = 0; t < 3 * 64; ++t) EXPECT_EQ(out[t], 1 + 2 + 3) << t;
  EXPECT_EQ(counter[0], 1006);
}

// Without a workspace (a launch that is not cooperative) grid.sync() is invalid: the kernel traps.
TEST(PtxCooperativeGrid, GridSyncWithoutAWorkspaceTraps) {
  const ptx::CompiledKernel& k = kernel("grid_sum");
  std::vector<int32_t> counter(1, 0), out(64, -1);
  SassGrid g;
  g.grid = dim3(1), g.block = dim3(64);
  g.params = params(k, {bytes(address_of(counter)), bytes(address_of(out))});
  auto error = g.run(program(k), 1);
  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->error.kind == KernelErrorKind::Trap || error->error.kind == KernelErrorKind::IllegalAddress)
      << error->error.message;
}

}  // namespace

namespace {

// A kernel needing more registers than its limit (one per PTX register, as in programs with calls
// at -O0: 600 here) is charged the limit for occupancy, and 4 bytes of local memory per register
// over it, as ptxas spills them (ptx.h). The limit: 64 by default (a block of 1024 threads), 255 at
// most, CU_JIT_MAX_REGISTERS when given (tests/data/h200/jit_options/).
TEST(PtxRegisterCharge, AKernelOverItsLimitIsChargedTheLimitAndSpills) {
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
                     ".reg .f64 %fd<400>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n";
  for (int i = 0; i < 300; ++i) text += "ld.global.f64 %fd" + std::to_string(i) + ", [%rd1+" + std::to_string(8 * i) + "];\n";
  for (int i = 1; i < 300; ++i) text += "add.f64 %fd0, %fd0, %fd" + std::to_string(i) + ";\n";
  text += "st.global.f64 [%rd1], %fd0;\nret;\n}\n";
  ptx::CompileOptions o;
  o.opt_level = 0;
  ptx::CompileResult r = ptx::compile(text, o);
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const uint32_t needs = 300 * 2 + 2;  // the f64 registers it names, and %rd1
  EXPECT_EQ(r.kernels.at(0).num_regs, 64u);
  EXPECT_NE(r.info_log.find("charged 64"), std::string::npos) << r.info_log;
  o.threads_per_block = 128;  // 65536 / 128 = 512: the architecture's 255 binds
  r = ptx::compile(text, o);
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels.at(0).num_regs, 255u);
  o.threads_per_block = 0;
  o.max_registers = 40;
  r = ptx::compile(text, o);
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels.at(0).num_regs, 40u);
  EXPECT_NE(r.info_log.find("needs " + std::to_string(needs) + " registers; charged 40"), std::string::npos)
      << r.info_log;
  EXPECT_EQ(r.kernels.at(0).local_bytes, ((needs - 40) * 4 + 15) / 16 * 16);
}

}  // namespace
