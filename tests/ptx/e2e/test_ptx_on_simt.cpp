// End to end: nvcc's PTX for the corpus kernels (tests/data/ptx/corpus), compiled by the JIT
// (minicuda::ptx) and run by the SMs' SIMT executor (device_sim/src/simt*.cpp) through the
// executor's test runner (tests/device_sim/sass_builder.h), give the results the host computes.
// Each kernel runs on 1 and on 3 host threads.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
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

ptx::CompiledKernel compile_corpus(const std::string& name) {
  ptx::CompileResult r = minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/" + name + ".ptx");
  EXPECT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels.size(), 1u);
  return r.kernels.empty() ? ptx::CompiledKernel{} : r.kernels[0];
}

// The parameter block of `k` (cbank 0) with `values` at the kernel's parameter offsets.
std::vector<uint64_t> params(const ptx::CompiledKernel& k, const std::vector<uint64_t>& values) {
  std::vector<uint64_t> block((k.param_bytes + 7) / 8 + 1, 0);
  for (size_t i = 0; i < values.size() && i < k.param_offsets.size(); ++i)
    std::memcpy(reinterpret_cast<char*>(block.data()) + k.param_offsets[i], &values[i], k.param_sizes[i]);
  return block;
}

const NvSassProgram& program(const std::shared_ptr<const void>& sass) { return *static_cast<const NvSassProgram*>(sass.get()); }

class PtxOnSimt : public ::testing::TestWithParam<unsigned> {};

TEST_P(PtxOnSimt, VectorAdd) {
  ptx::CompiledKernel k = compile_corpus("vector_add");
  const int n = 1000;
  std::vector<float> a(1024), b(1024), c(1024, -1.0f);
  for (int i = 0; i < 1024; ++i) a[i] = static_cast<float>(i), b[i] = 0.25f * static_cast<float>(i);
  SassGrid g;
  g.grid = dim3(4), g.block = dim3(256);
  g.params = params(k, {address_of(a), address_of(b), address_of(c), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 1.25f * static_cast<float>(i)) << i;
  for (int i = n; i < 1024; ++i) ASSERT_EQ(c[i], -1.0f) << i;
}

TEST_P(PtxOnSimt, TiledMatmulOfANonMultipleOfTheTile) {
  ptx::CompiledKernel k = compile_corpus("matmul_tiled");
  const int n = 40;
  std::vector<float> A(n * n), B(n * n), C(n * n, 0);
  for (int i = 0; i < n * n; ++i) A[i] = static_cast<float>(i % 7 - 3), B[i] = static_cast<float>(i % 5 - 2);
  SassGrid g;
  g.grid = dim3(3, 3), g.block = dim3(16, 16);
  g.params = params(k, {address_of(A), address_of(B), address_of(C), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      float acc = 0;
      for (int t = 0; t < n; ++t) acc += A[r * n + t] * B[t * n + c];
      ASSERT_EQ(C[r * n + c], acc) << r << "," << c;
    }
}

TEST_P(PtxOnSimt, ReductionWithSharedTreeShufflesAndAtomics) {
  ptx::CompiledKernel k = compile_corpus("reduction");
  const int n = 5000;
  std::vector<int32_t> in(n), out(1, 0);
  int64_t sum = 0;
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50, sum += in[i];
  SassGrid g;
  g.block = dim3(256), g.grid = dim3((n + 511) / 512);
  g.dynamic_shared = 256 * 4;
  g.params = params(k, {address_of(in), address_of(out), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  EXPECT_EQ(out[0], sum);
}

TEST_P(PtxOnSimt, InclusiveScanOfOneBlock) {
  ptx::CompiledKernel k = compile_corpus("scan");
  const int n = 256;  // one thread per element: the kernel indexes its 2n-float buffer by thread
  std::vector<float> in(n), out(n, 0);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 9);
  SassGrid g;
  g.block = dim3(n);
  g.dynamic_shared = 2 * n * 4;
  g.params = params(k, {address_of(in), address_of(out), static_cast<uint64_t>(n)});
  std::optional<minicuda::gpu::BlockError> e = g.run(program(k.sass), GetParam());
  ASSERT_FALSE(e.has_value()) << e->error.message;
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += in[i];
    ASSERT_EQ(out[i], acc) << i;
  }
}

TEST_P(PtxOnSimt, HistogramWithSharedAndGlobalAtomics) {
  ptx::CompiledKernel k = compile_corpus("histogram");
  const int n = 10000;
  std::vector<uint8_t> data(n);
  std::vector<uint32_t> bins(256, 0), expect(256, 0);
  for (int i = 0; i < n; ++i) data[i] = static_cast<uint8_t>((i * 131 + i / 7) & 0xFF), ++expect[data[i]];
  SassGrid g;
  g.grid = dim3(8), g.block = dim3(128);
  g.params = params(k, {address_of(data), address_of(bins), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  EXPECT_EQ(bins, expect);
}

TEST_P(PtxOnSimt, TransposeThroughAPaddedTile) {
  ptx::CompiledKernel k = compile_corpus("transpose");
  const int rows = 50, cols = 70;
  std::vector<float> in(rows * cols), out(rows * cols, -1);
  for (int i = 0; i < rows * cols; ++i) in[i] = static_cast<float>(i);
  SassGrid g;
  g.grid = dim3((cols + 31) / 32, (rows + 31) / 32), g.block = dim3(32, 8);
  g.params = params(k, {address_of(in), address_of(out), static_cast<uint64_t>(rows), static_cast<uint64_t>(cols)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << r << "," << c;
}

uint32_t bit_reverse(uint32_t x) {
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
}

int collatz_steps(uint32_t x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

TEST_P(PtxOnSimt, DivergentBranchesACallAndWarpVotes) {
  ptx::CompiledKernel k = compile_corpus("divergence");
  const int blocks = 2, threads = 64, total = blocks * threads;
  std::vector<int32_t> out(total, 0);
  std::vector<uint32_t> ballots(total / 32, 0);
  std::vector<int64_t> clocks(total, 0);
  SassGrid g;
  g.grid = dim3(blocks), g.block = dim3(threads);
  g.params = params(k, {address_of(out), address_of(ballots), address_of(clocks)});
  ASSERT_FALSE(g.run(program(k.sass), GetParam()).has_value());
  std::vector<int32_t> v(total);
  for (int i = 0; i < total; ++i) {
    uint32_t tid = static_cast<uint32_t>(i % threads), u = static_cast<uint32_t>(i);
    if (tid % 2 == 0) v[i] = collatz_steps(u + 1);
    else if (tid % 6 == 1) v[i] = -1;
    else if (tid % 6 == 3) v[i] = i * i;
    else v[i] = static_cast<int32_t>(std::popcount(u) + std::countl_zero(u) + bit_reverse(u));
  }
  for (int w = 0; w < total / 32; ++w) {
    uint32_t ballot = 0;
    for (int l = 0; l < 32; ++l) ballot |= (v[w * 32 + l] > 10 ? 1u : 0u) << l;
    EXPECT_EQ(ballots[w], ballot) << "warp " << w;
  }
  for (int i = 0; i < total; ++i) {
    // Every warp has a lane with v = -1 (tid % 6 == 1), so __any_sync adds 1 everywhere.
    int32_t expect = v[i] + 1 + static_cast<int32_t>(std::sqrt(static_cast<float>(i))) +
                     static_cast<int32_t>(1.0f / std::sqrt(static_cast<float>(i) + 1.0f));
    ASSERT_EQ(out[i], expect) << i;
  }
}

TEST_P(PtxOnSimt, ModuleVariablesThroughBoundSymbols) {
  ptx::CompileResult r = minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/math_mix.ptx");
  ASSERT_EQ(r.status, ptx::Status::Ok);
  const ptx::CompiledKernel& k = r.kernels.at(0);
  // Place each module variable in host memory (the UVA window's stand-in) with its initializer.
  std::vector<std::vector<uint64_t>> storage;
  std::vector<uint64_t> addresses;
  for (const std::string& name : k.symbols) {
    for (const auto& g : r.globals) {
      if (g.name != name) continue;
      storage.emplace_back((g.size + 7) / 8, 0);
      std::memcpy(storage.back().data(), g.initializer.data(), g.initializer.size());
      addresses.push_back(address_of(storage.back()));
    }
  }
  ASSERT_EQ(addresses.size(), k.symbols.size());
  std::shared_ptr<const void> bound = ptx::bind_symbols(k, addresses);
  ASSERT_NE(bound, nullptr);
  const int n = 100;
  std::vector<double> x(n);
  std::vector<float> y(n, 0);
  std::vector<int32_t> q(n, 0);
  for (int i = 0; i < n; ++i) x[i] = 0.5 * i - 20.0;
  SassGrid g;
  g.grid = dim3(2), g.block = dim3(64);
  g.params = params(k, {address_of(x), address_of(y), address_of(q), static_cast<uint64_t>(n)});
  ASSERT_FALSE(g.run(program(bound), GetParam()).has_value());
  for (int i = 0; i < n; ++i) {
    double d = x[i];
    int32_t expect = (i / 3) % 5 + std::abs(i - n / 2) + static_cast<int32_t>(std::sqrt(d * d)) +
                     static_cast<int32_t>(d / 3.0) + std::min(i, 10) + std::max(i, 20);
    ASSERT_EQ(q[i], expect) << i;
  }
  // __device__ int counter = 7, then atomicMax(&counter, i) for every i < n.
  for (size_t s = 0; s < k.symbols.size(); ++s) {
    if (k.symbols[s] != "counter") continue;
    EXPECT_EQ(static_cast<int32_t>(storage[s][0] & 0xFFFFFFFFu), n - 1);
  }
}

// printf and assert: the format string and the argument buffer reach vprintf, and a failed
// assert stops the grid with the message a C++ kernel's assert gives.
std::shared_ptr<const void> bound_printf_assert(ptx::CompiledKernel& k, std::vector<std::vector<uint64_t>>& storage) {
  ptx::CompileResult r = minicuda::gpu::testing::compile_ptx_file(std::string(MINICUDA_PTX_DATA_DIR) + "/corpus/printf_assert.ptx");
  EXPECT_EQ(r.status, ptx::Status::Ok);
  k = r.kernels.at(0);
  std::vector<uint64_t> addresses;
  for (const std::string& name : k.symbols) {
    for (const auto& g : r.globals) {
      if (g.name != name) continue;
      storage.emplace_back((g.size + 7) / 8, 0);
      std::memcpy(storage.back().data(), g.initializer.data(), g.initializer.size());
      addresses.push_back(address_of(storage.back()));
    }
  }
  return ptx::bind_symbols(k, addresses);
}

TEST_P(PtxOnSimt, PrintfWritesTheFormattedLine) {
  ptx::CompiledKernel k;
  std::vector<std::vector<uint64_t>> storage;
  std::shared_ptr<const void> bound = bound_printf_assert(k, storage);
  ASSERT_NE(bound, nullptr);
  std::vector<int32_t> v = {42, 1, 2, 3};
  SassGrid g;
  g.block = dim3(4);
  g.printf_fifo.assign(4096, 0);
  g.params = params(k, {address_of(v), 4});
  std::optional<minicuda::gpu::BlockError> e = g.run(program(bound), GetParam());
  ASSERT_FALSE(e.has_value()) << e->error.message;
  EXPECT_EQ(g.printed(), "v[0]=42 n=4\n");
}

TEST_P(PtxOnSimt, AFailedAssertStopsTheGridWithItsMessage) {
  ptx::CompiledKernel k;
  std::vector<std::vector<uint64_t>> storage;
  std::shared_ptr<const void> bound = bound_printf_assert(k, storage);
  ASSERT_NE(bound, nullptr);
  std::vector<int32_t> v = {0, 1, -2, 3};
  SassGrid g;
  g.block = dim3(4);
  g.printf_fifo.assign(4096, 0);
  g.params = params(k, {address_of(v), 4});
  std::optional<minicuda::gpu::BlockError> e = g.run(program(bound), GetParam());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->error.kind, minicuda::gpu::KernelErrorKind::Assert);
  EXPECT_NE(e->error.message.find("thread: [2,0,0] Assertion `v[i] >= 0` failed."), std::string::npos) << e->error.message;
}

INSTANTIATE_TEST_SUITE_P(HostThreads, PtxOnSimt, ::testing::Values(1u, 3u));

}  // namespace
