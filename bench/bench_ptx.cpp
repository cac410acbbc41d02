// The same kernels as nvcc's PTX (libcuda's JIT + the SIMT executor), as C++ kernels on minicuda
// (cu2cxx) and natively (a host loop doing the same work), in one run. The kernels are those of
// the PTX-vs-C++ gate (tests/ptx_vs_cxx: alu.cu's PTX in its ptx/, vector_add's and reduction's
// in the PTX corpus, tests/data/ptx/corpus, from tests/data/ptx/src):
//   alu:        xc_alu, 16,384 threads, each 256 iterations of x = fmaf(x, 1.0001, 0.5): ALU-bound
//   memory:     vector_add over 2^22 floats, <<<16384, 256>>>: memory-bound
//   reduction:  reduce_sum over 2^22 ints, <<<8192, 256>>>: shared tree, shuffles, an atomic a block
// Work is counted in thread-instructions of the PTX path: the SASS instructions the SIMT executor
// executes, each times the lanes active for it. The program counts them itself before measuring:
// it runs itself once with MINICUDA_TRACE=warp (the executor's per-warp-instruction trace, which
// gives each instruction's active mask) on one block of each kernel and sums the masks' lanes; every
// block of the measured grids takes the same path, so the grid's count is blocks x that. The C++ and
// native figures are rates of the same work, so the rates compare as times do.
// The SMs run on one worker thread (MINICUDA_SM_THREADS=1, set before the first CUDA call) and each
// rate is per second of the whole process's CPU time: the figures are per host core even on a
// shared machine.
// Run the Release build: build-release/bin/bench_ptx (--benchmark_repetitions=3 for medians).
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"

void xc_reduce_cxx(unsigned blocks, unsigned threads, const int* in, int* out, int n);
void xc_vector_add_cxx(unsigned blocks, unsigned threads, const float* a, const float* b, float* c, int n);
void xc_alu_cxx(unsigned blocks, unsigned threads, float* out, int iters);

namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kAluBlocks = 64;
constexpr int kAluIters = 256;
constexpr int kVectorN = 1 << 22;
constexpr int kReduceN = 1 << 22;
constexpr unsigned kVectorBlocks = kVectorN / kThreads;
constexpr unsigned kReduceBlocks = kReduceN / (2 * kThreads);

// The kernel `entry` of DIR/NAME.ptx, loaded into the primary context.
CUfunction load_ptx(const char* dir, const char* name, const char* entry) {
  std::ifstream f(std::string(dir) + "/" + name + ".ptx");
  std::stringstream ss;
  ss << f.rdbuf();
  CUmodule m = nullptr;
  CUfunction fn = nullptr;
  if (cudaFree(nullptr) != cudaSuccess || cuModuleLoadData(&m, ss.str().c_str()) != CUDA_SUCCESS ||
      cuModuleGetFunction(&fn, m, entry) != CUDA_SUCCESS) {
    std::fprintf(stderr, "bench_ptx: cannot load %s from %s.ptx\n", entry, name);
    std::exit(1);
  }
  return fn;
}

struct Kernels {
  CUfunction alu = load_ptx(MINICUDA_XCHECK_PTX_DIR, "alu", "xc_alu");
  CUfunction vector_add = load_ptx(MINICUDA_XCHECK_CORPUS_DIR, "vector_add", "vector_add");
  CUfunction reduce = load_ptx(MINICUDA_XCHECK_CORPUS_DIR, "reduction", "reduce_sum");
};
Kernels& kernels() {
  static Kernels k;
  return k;
}

template <class T>
T* device_array(size_t n, T value) {
  std::vector<T> host(n, value);
  T* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess ||
      cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
    std::exit(1);
  return p;
}

bool launch(CUfunction fn, unsigned blocks, unsigned shared, void** args) {
  return cuLaunchKernel(fn, blocks, 1, 1, kThreads, 1, 1, shared, nullptr, args, nullptr) == CUDA_SUCCESS &&
         cuCtxSynchronize() == CUDA_SUCCESS;
}

// One launch of each PTX kernel: `blocks` blocks over the matching amount of data.
bool run_ptx_alu(unsigned blocks, float* out) {
  CUdeviceptr o = reinterpret_cast<CUdeviceptr>(out);
  int iters = kAluIters;
  void* args[] = {&o, &iters};
  return launch(kernels().alu, blocks, 0, args);
}
bool run_ptx_vector_add(unsigned blocks, const float* a, const float* b, float* c) {
  CUdeviceptr pa = reinterpret_cast<CUdeviceptr>(a), pb = reinterpret_cast<CUdeviceptr>(b),
              pc = reinterpret_cast<CUdeviceptr>(c);
  int n = static_cast<int>(blocks * kThreads);
  void* args[] = {&pa, &pb, &pc, &n};
  return launch(kernels().vector_add, blocks, 0, args);
}
bool run_ptx_reduce(unsigned blocks, const int* in, int* out) {
  CUdeviceptr pi = reinterpret_cast<CUdeviceptr>(in), po = reinterpret_cast<CUdeviceptr>(out);
  int n = static_cast<int>(blocks * 2 * kThreads);
  void* args[] = {&pi, &po, &n};
  return launch(kernels().reduce, blocks, kThreads * sizeof(int), args);
}

// Thread-instructions per block of each kernel, from the warp trace of a child process.
std::map<std::string, uint64_t> g_per_block;

// The child (--count KERNEL): one block of KERNEL, with the warp trace on.
int count_child(const std::string& kernel) {
  float* f = device_array<float>(2 * kThreads, 1.0f);
  int* i = device_array<int>(2 * kThreads, 1);
  bool ok = kernel == "alu"          ? run_ptx_alu(1, f)
            : kernel == "vector_add" ? run_ptx_vector_add(1, f, f, f)
                                     : run_ptx_reduce(1, i, i);
  return ok ? 0 : 1;
}

// Runs the child for `kernel` and sums the active lanes of every traced warp-instruction.
uint64_t count_per_block(const char* self, const std::string& kernel) {
  char path[] = "/tmp/bench_ptx_traceXXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return 0;
  close(fd);
  std::string cmd = std::string("MINICUDA_TRACE=warp MINICUDA_SM_THREADS=1 MINICUDA_TRACE_FILE=") + path + " '" +
                    self + "' --count " + kernel;
  uint64_t lanes = 0;
  if (std::system(cmd.c_str()) == 0) {
    std::ifstream trace(path);
    for (std::string line; std::getline(trace, line);) {
      // "block (0,0,0) warp 0 pc 3 mask 0000000c: mov.u32 ..."; divergence lines have no mask.
      size_t at = line.find(" mask ");
      if (at == std::string::npos || line.size() < at + 15 || line[at + 14] != ':') continue;
      lanes += std::popcount(static_cast<uint32_t>(std::stoul(line.substr(at + 6, 8), nullptr, 16)));
    }
  }
  std::remove(path);
  return lanes;
}

void items(benchmark::State& state, const char* kernel, unsigned blocks) {
  state.counters["thread_instructions"] = static_cast<double>(g_per_block[kernel] * blocks);
}

// --- ALU-bound ------------------------------------------------------------------------------

void BM_Alu_Ptx(benchmark::State& state) {
  static float* out = device_array<float>(kAluBlocks * kThreads, 0.0f);
  bench::ProcessCpu cpu(state);
  for (auto _ : state)
    if (!run_ptx_alu(kAluBlocks, out)) state.SkipWithError("launch failed");
  items(state, "alu", kAluBlocks);
}
void BM_Alu_Cxx(benchmark::State& state) {
  static float* out = device_array<float>(kAluBlocks * kThreads, 0.0f);
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    xc_alu_cxx(kAluBlocks, kThreads, out, kAluIters);
    if (cudaDeviceSynchronize() != cudaSuccess) state.SkipWithError("launch failed");
  }
  items(state, "alu", kAluBlocks);
}
void BM_Alu_Native(benchmark::State& state) {
  std::vector<float> out(kAluBlocks * kThreads);
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    for (unsigned i = 0; i < out.size(); ++i) {
      float x = static_cast<float>(i);
      for (int k = 0; k < kAluIters; ++k) x = __builtin_fmaf(x, 1.0001f, 0.5f);
      out[i] = x;
    }
    benchmark::DoNotOptimize(out.data());
  }
  items(state, "alu", kAluBlocks);
}

// --- memory-bound ---------------------------------------------------------------------------

void BM_VectorAdd_Ptx(benchmark::State& state) {
  static float *a = device_array<float>(kVectorN, 1.0f), *b = device_array<float>(kVectorN, 2.0f),
               *c = device_array<float>(kVectorN, 0.0f);
  bench::ProcessCpu cpu(state);
  for (auto _ : state)
    if (!run_ptx_vector_add(kVectorBlocks, a, b, c)) state.SkipWithError("launch failed");
  items(state, "vector_add", kVectorBlocks);
}
void BM_VectorAdd_Cxx(benchmark::State& state) {
  static float *a = device_array<float>(kVectorN, 1.0f), *b = device_array<float>(kVectorN, 2.0f),
               *c = device_array<float>(kVectorN, 0.0f);
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    xc_vector_add_cxx(kVectorBlocks, kThreads, a, b, c, kVectorN);
    if (cudaDeviceSynchronize() != cudaSuccess) state.SkipWithError("launch failed");
  }
  items(state, "vector_add", kVectorBlocks);
}
void BM_VectorAdd_Native(benchmark::State& state) {
  std::vector<float> a(kVectorN, 1.0f), b(kVectorN, 2.0f), c(kVectorN);
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    for (int i = 0; i < kVectorN; ++i) c[i] = a[i] + b[i];
    benchmark::DoNotOptimize(c.data());
  }
  items(state, "vector_add", kVectorBlocks);
}

// --- reduction ------------------------------------------------------------------------------

void BM_Reduce_Ptx(benchmark::State& state) {
  static int *in = device_array<int>(kReduceN, 1), *out = device_array<int>(1, 0);
  bench::ProcessCpu cpu(state);
  for (auto _ : state)
    if (!run_ptx_reduce(kReduceBlocks, in, out)) state.SkipWithError("launch failed");
  items(state, "reduction", kReduceBlocks);
}
void BM_Reduce_Cxx(benchmark::State& state) {
  static int *in = device_array<int>(kReduceN, 1), *out = device_array<int>(1, 0);
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    xc_reduce_cxx(kReduceBlocks, kThreads, in, out, kReduceN);
    if (cudaDeviceSynchronize() != cudaSuccess) state.SkipWithError("launch failed");
  }
  items(state, "reduction", kReduceBlocks);
}
void BM_Reduce_Native(benchmark::State& state) {
  std::vector<int> in(kReduceN, 1);
  int out = 0;
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    int sum = 0;
    for (int i = 0; i < kReduceN; ++i) sum += in[i];
    out += sum;
    benchmark::DoNotOptimize(out);
  }
  items(state, "reduction", kReduceBlocks);
}

BENCHMARK(BM_Alu_Ptx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Alu_Cxx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Alu_Native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorAdd_Ptx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorAdd_Cxx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorAdd_Native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reduce_Ptx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reduce_Cxx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Reduce_Native)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--count") == 0) return count_child(argv[2]);
  setenv("MINICUDA_SM_THREADS", "1", 1);  // before the first CUDA call: one SM worker thread
  // This program's own path (inside std::system, /proc/self/exe would name the shell).
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;
  for (const char* k : {"alu", "vector_add", "reduction"}) {
    g_per_block[k] = count_per_block(self, k);
    if (g_per_block[k] == 0) {
      std::fprintf(stderr, "bench_ptx: counting the thread-instructions of %s failed\n", k);
      return 1;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (!bench::trace_is_off("bench_ptx")) return 1;
  bench::Recorder recorder;
  benchmark::RunSpecifiedBenchmarks(&recorder);
  // M thread-instructions per second of the process's CPU time.
  auto rate = [&](const std::string& name) {
    double cpu = recorder.median_counter(name, "cpu_all_threads");
    double work = recorder.median_counter(name, "thread_instructions");
    return cpu > 0 && work > 0 ? work / cpu / 1e6 : 0.0;
  };
  std::printf("\nThread-instructions of the PTX path per thread: alu %.1f, vector_add %.1f, reduction %.1f\n",
              static_cast<double>(g_per_block["alu"]) / kThreads,
              static_cast<double>(g_per_block["vector_add"]) / kThreads,
              static_cast<double>(g_per_block["reduction"]) / kThreads);
  std::printf("M thread-instructions/s per host core (one SM worker thread, process CPU time):\n");
  std::printf("  %-10s %10s %10s %10s %9s %12s\n", "kernel", "PTX", "C++", "native", "PTX/C++", "PTX/native");
  for (const char* k : {"Alu", "VectorAdd", "Reduce"}) {
    const double ptx = rate(std::string("BM_") + k + "_Ptx"), cxx = rate(std::string("BM_") + k + "_Cxx"),
                 native = rate(std::string("BM_") + k + "_Native");
    std::printf("  %-10s %10.1f %10.1f %10.1f %9.3f %12.4f\n", k, ptx, cxx, native, cxx > 0 ? ptx / cxx : 0.0,
                native > 0 ? ptx / native : 0.0);
  }
  benchmark::Shutdown();
  return 0;
}
