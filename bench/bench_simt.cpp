// The SIMT executor's speed (device_sim/src/simt*.cpp, docs/simt.md): thread-instructions per
// second of hand-assembled SASS on one host thread, against the same computation as a native
// C++ loop in the same run.
//   alu: each thread runs a loop of fma/add/setp/bra (registers only): ALU-bound.
//   memory: vector add, c[i] = a[i] + b[i] over 2^22 floats: two loads and a store per thread.
// The goal (issue 15): >= 50 M thread-instructions/s ALU-bound and >= 10 M memory-bound per host
// core. Each benchmark reports items_per_second = thread-instructions per second of CPU time; the
// SASS kernels run on the benchmark's own thread (SassGrid::run with 0 host threads).
//
// Run the Release build:  build-release/bin/bench_simt  (--benchmark_repetitions=5 for medians)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bench_common.h"
#include "sass_builder.h"

namespace {

using namespace minicuda::gpu;
using namespace minicuda::gpu::testing;

constexpr unsigned kAluThreads = 256 * 64;
constexpr uint32_t kAluIterations = 256;
constexpr unsigned kVectorN = 1u << 22;

// r10 = tid as float; loop kAluIterations times: r10 = r10 * 1.0001 + 0.5 (fma), r11 += 1;
// then out[i] = r10. Instructions per thread: 6 before the loop, 4 per iteration, 5 after.
struct AluKernel {
  SassBuilder b{"alu"};
  const NvSassProgram* program = nullptr;
  static constexpr uint64_t kPerThread = 6 + 4ull * kAluIterations + 5;
  AluKernel() {
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(0), S(NV_SASS_SR_CTAID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(1), S(NV_SASS_SR_NTID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
    b.op(NV_SASS_OP_MAD, NV_SASS_TYPE_S32, {R(3), R(0), R(1), R(2)});
    b.op(NV_SASS_OP_CVT, NV_SASS_TYPE_F32, {R(10), R(3)}).stype = NV_SASS_TYPE_S32;
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(11), I(0)});
    b.label("loop");
    b.op(NV_SASS_OP_FMA, NV_SASS_TYPE_F32, {R(10), R(10), F(1.0001f), F(0.5f)}).rounding = NV_SASS_RND_RN;
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_U32, {R(11), R(11), I(1)});
    b.setp(NV_SASS_CMP_LT, NV_SASS_TYPE_U32, 0, R(11), I(kAluIterations));
    b.bra("loop", 0);
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
    b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_S32, {R(8), R(3), I(4)}).mode = NV_SASS_MUL_WIDE;
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S64, {R(9), R(5), R(8)});
    b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, 9, 0, R(10));
    b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
    b.param_bytes(8);
    program = &b.finish();
  }
};

// c[i] = a[i] + b[i] for i < n: 19 instructions per thread (the vector_add of test_simt.cpp).
struct VectorAddKernel {
  SassBuilder b{"vector_add"};
  const NvSassProgram* program = nullptr;
  static constexpr uint64_t kPerThread = 19;
  VectorAddKernel() {
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(0), S(NV_SASS_SR_CTAID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(1), S(NV_SASS_SR_NTID_X)});
    b.op(NV_SASS_OP_MOV, NV_SASS_TYPE_U32, {R(2), S(NV_SASS_SR_TID_X)});
    b.op(NV_SASS_OP_MAD, NV_SASS_TYPE_S32, {R(3), R(0), R(1), R(2)});
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U32, R(4), -1, 24);
    b.setp(NV_SASS_CMP_GE, NV_SASS_TYPE_S32, 0, R(3), R(4));
    b.bra("end", 0);
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(5), -1, 0);
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(6), -1, 8);
    b.ld(NV_SASS_SPACE_PARAM, NV_SASS_TYPE_U64, R(7), -1, 16);
    b.op(NV_SASS_OP_MUL, NV_SASS_TYPE_S32, {R(8), R(3), I(4)}).mode = NV_SASS_MUL_WIDE;
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S64, {R(9), R(5), R(8)});
    b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, R(10), 9, 0);
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S64, {R(9), R(6), R(8)});
    b.ld(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, R(11), 9, 0);
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_F32, {R(12), R(10), R(11)});
    b.op(NV_SASS_OP_ADD, NV_SASS_TYPE_S64, {R(9), R(7), R(8)});
    b.st(NV_SASS_SPACE_GLOBAL, NV_SASS_TYPE_F32, 9, 0, R(12));
    b.label("end");
    b.op(NV_SASS_OP_EXIT, NV_SASS_TYPE_NONE, {});
    b.param_bytes(28);
    program = &b.finish();
  }
};

void BM_SimtAlu(benchmark::State& state) {
  static AluKernel kernel;
  std::vector<float> out(kAluThreads);
  SassGrid g;
  g.grid = dim3(kAluThreads / 256), g.block = dim3(256);
  g.params = {address_of(out)};
  for (auto _ : state) {
    if (g.run(*kernel.program, 0)) state.SkipWithError("the kernel failed");
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kAluThreads * AluKernel::kPerThread));
}
BENCHMARK(BM_SimtAlu)->Unit(benchmark::kMillisecond);

// The same loop as a native C++ loop over the threads (one host core, as above); items are the
// SASS kernel's thread-instructions, so the two rates compare directly.
void BM_NativeAlu(benchmark::State& state) {
  std::vector<float> out(kAluThreads);
  for (auto _ : state) {
    for (unsigned i = 0; i < kAluThreads; ++i) {
      float x = static_cast<float>(i);
      for (uint32_t k = 0; k < kAluIterations; ++k) {
        x = __builtin_fmaf(x, 1.0001f, 0.5f);
        benchmark::DoNotOptimize(k);
      }
      out[i] = x;
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kAluThreads * AluKernel::kPerThread));
}
BENCHMARK(BM_NativeAlu)->Unit(benchmark::kMillisecond);

void BM_SimtVectorAdd(benchmark::State& state) {
  static VectorAddKernel kernel;
  std::vector<float> a(kVectorN, 1.0f), b(kVectorN, 2.0f), c(kVectorN);
  SassGrid g;
  g.grid = dim3(kVectorN / 256), g.block = dim3(256);
  g.params = {address_of(a), address_of(b), address_of(c), kVectorN};
  for (auto _ : state) {
    if (g.run(*kernel.program, 0)) state.SkipWithError("the kernel failed");
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kVectorN * VectorAddKernel::kPerThread));
}
BENCHMARK(BM_SimtVectorAdd)->Unit(benchmark::kMillisecond);

void BM_NativeVectorAdd(benchmark::State& state) {
  std::vector<float> a(kVectorN, 1.0f), b(kVectorN, 2.0f), c(kVectorN);
  for (auto _ : state) {
    for (unsigned i = 0; i < kVectorN; ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kVectorN * VectorAddKernel::kPerThread));
}
BENCHMARK(BM_NativeVectorAdd)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (!bench::trace_is_off("bench_simt")) return 1;
  bench::Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  // Thread-instructions per second of CPU time of the benchmark's thread (the machine may be
  // shared: CPU time is the work's own cost), in millions.
  auto rate = [&](const char* name) { return recorder.median_counter(name, "items_per_second") / 1e6; };
  const double simt_alu = rate("BM_SimtAlu"), native_alu = rate("BM_NativeAlu");
  const double simt_mem = rate("BM_SimtVectorAdd"), native_mem = rate("BM_NativeVectorAdd");
  std::printf("\nSIMT executor, one host thread (M thread-instructions/s):\n");
  std::printf("  ALU-bound:    %8.1f  (native C++ loop: %8.1f, %.1fx slower)\n", simt_alu, native_alu,
              simt_alu > 0 ? native_alu / simt_alu : 0.0);
  std::printf("  memory-bound: %8.1f  (native C++ loop: %8.1f, %.1fx slower)\n", simt_mem, native_mem,
              simt_mem > 0 ? native_mem / simt_mem : 0.0);
  benchmark::Shutdown();
  return 0;
}
