// Benchmarks of kernels run by the simulated SM, each against a native baseline in the same run.
// The kernels are plain C++ launched with the typed API (minicuda::launch<kernel>), but for the
// region versions of the barrier kernels, which come from a .cu file (bench_kernels_regions.cu); every
// minicuda figure is the wall time of the launch and its cudaDeviceSynchronize, with the data
// already in device memory.
//   vector_add over 2^24 ints, <<<65536, 256>>> (loop mode: the SM calls the kernel once per
//     thread on one fiber) vs a serial loop over host arrays of the same size
//     - breakdowns: the same grid of an empty kernel (the SM's per-thread cost alone), and the
//       native loop over the device buffers themselves (the memory's own cost)
//   a per-block sum of 2^20 ints, <<<4096, 256>>>:
//     - a shared-memory tree reduction with 9 __syncthreads, split into regions by cu2cxx
//       (bench_kernels_regions.cu: the SM runs each block through its block function, one loop
//       over the threads per region, no fibers)
//     - the same tree in this file, not translated (fiber mode: each thread gets a fiber at the
//       first barrier, and every barrier switches to every thread and back)
//     - the same computation without barriers: thread 0 of each block sums the block's 256
//       elements serially while the other 255 threads return at once (same grid, same loads,
//       same 255 additions per block; loop mode)
//     - the same with one thread per block, <<<4096, 1>>>, and a native serial loop
//     - breakdown: a kernel that only waits at k barriers, k = 0, 1, 3, 9, on the same grid
//   a per-block count of the odd ones among the same ints, on the same grid:
//     - one __syncthreads_count, split into regions by cu2cxx (bench_kernels_regions.cu), and the
//       same kernel here with fibers
//     - the same count without a barrier, by thread 0 alone
//   C = A B for 256 x 256 floats, <<<(16, 16), (16, 16)>>>:
//     - tiled through shared memory, 2 barriers per tile (16 tiles): split into regions
//       (bench_kernels_regions.cu), and the same kernel here with fibers
//     - the same products without shared memory or barriers, summed in the same order (so the
//       three results are identical, bit for bit; loop mode)
//   an empty kernel <<<1, 1>>> + cudaDeviceSynchronize (the launch round trip), 100 empty
//     launches + one synchronize (the launch alone), a 1-byte cudaMemset + synchronize (the
//     round trip of a copy-engine submission) vs an empty call
//   breakdown: EFLAGS.AC on and off (two popf), what the SM's alignment check costs where it
//     changes (per warp operation; barriers and blocks in loop mode leave it on)
// Each benchmark also reports cpu_all_threads, the CPU time of every thread of the process per
// iteration (bench_common.h ProcessCpu): on a busy host the wall time of work spread over the SM
// worker threads says little, their CPU time stays near the work's own cost.
// The SM's worker-thread count is read once per process (MINICUDA_SM_THREADS, default: the
// host's hardware threads); run the program again with MINICUDA_SM_THREADS=1 for one worker.
// Run the Release build: build-release/bin/bench_kernels. The summary at the end prints the ratios.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "bench_switch_floor.h"

// --- the kernels ----------------------------------------------------------------------------

__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void empty_kernel() {}

// The classic shared-memory tree: 1 barrier after the loads, then one per halving (8 for 256).
__global__ void block_sum_tree(const int* in, int* out) {
  __shared__ int partial[256];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// The same sums through warp shuffles: each warp adds its 32 values in 5 __shfl_down_sync steps,
// lane 0 keeps the warp's sum, and after one barrier thread 0 adds the 8 warps' sums.
__global__ void block_sum_shuffle(const int* in, int* out) {
  __shared__ int warp_sums[8];
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int w = 0; w < 8; ++w) sum += warp_sums[w];
    out[blockIdx.x] = sum;
  }
}

// The same sums without a barrier: thread 0 adds the block's elements, the others return.
__global__ void block_sum_thread0(const int* in, int* out) {
  if (threadIdx.x != 0) return;
  const int* p = in + blockIdx.x * blockDim.x;
  int sum = 0;
  for (unsigned t = 0; t < blockDim.x; ++t) sum += p[t];
  out[blockIdx.x] = sum;
}

// How many of the block's elements are odd: one barrier reduction (block_count_odd_regions in
// bench_kernels_regions.cu is the same kernel, split into regions), and thread 0 alone.
__global__ void block_count_odd(const int* in, int* out) {
  const int odd = __syncthreads_count(in[blockIdx.x * blockDim.x + threadIdx.x] & 1);
  if (threadIdx.x == 0) out[blockIdx.x] = odd;
}
__global__ void block_count_odd_thread0(const int* in, int* out) {
  if (threadIdx.x != 0) return;
  const int* p = in + blockIdx.x * blockDim.x;
  int odd = 0;
  for (unsigned t = 0; t < blockDim.x; ++t) odd += p[t] & 1;
  out[blockIdx.x] = odd;
}

// The same sums with one thread per block (launched <<<blocks, 1>>>).
__global__ void block_sum_one_thread(const int* in, int* out, unsigned per_block) {
  const int* p = in + blockIdx.x * per_block;
  int sum = 0;
  for (unsigned t = 0; t < per_block; ++t) sum += p[t];
  out[blockIdx.x] = sum;
}

// The tiled multiply of bench_kernels_regions.cu, here with fibers (this file is not translated).
constexpr int kTile = 16;
__global__ void matmul_tiled_fibers(const float* a, const float* b, float* c, int n) {
  __shared__ float ta[kTile][kTile];
  __shared__ float tb[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < n / kTile; ++t) {
    ta[threadIdx.y][threadIdx.x] = a[row * n + t * kTile + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * kTile + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// The same products from global memory, in the same order: no shared memory, no barrier.
__global__ void matmul_plain(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

// Defined in bench_kernels_regions.cu, with block functions.
__global__ void block_sum_tree_regions(const int* in, int* out);
__global__ void matmul_tiled_regions(const float* a, const float* b, float* c, int n);
__global__ void block_count_odd_regions(const int* in, int* out);

// Only barriers: every thread waits at k of them.
__global__ void barriers_only(int k) {
  for (int i = 0; i < k; ++i) __syncthreads();
}

namespace {

constexpr int kVectorN = 1 << 24;
constexpr int kVectorBlock = 256;
constexpr int kSumN = 1 << 20;
constexpr int kSumBlock = 256;
constexpr int kSumBlocks = kSumN / kSumBlock;
static_assert(kSumBlocks == bench::kSwitchRingBlocks && kSumBlock == bench::kSwitchRingStacks,
              "the switch floor has the tree's shape");
constexpr int kMatN = 256;

[[gnu::noinline]] void empty_call(int v) { benchmark::DoNotOptimize(v); }

[[gnu::noinline]] void native_vector_add(const int* a, const int* b, int* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

[[gnu::noinline]] void native_block_sums(const int* in, int* out, int blocks, int per_block) {
  for (int b = 0; b < blocks; ++b) {
    int sum = 0;
    for (int t = 0; t < per_block; ++t) sum += in[b * per_block + t];
    out[b] = sum;
  }
}

// Device and host buffers shared by every benchmark (allocated and filled outside the timing).
struct Buffers {
  std::vector<int> a = std::vector<int>(kVectorN), b = std::vector<int>(kVectorN), c = std::vector<int>(kVectorN);
  std::vector<int> in = std::vector<int>(kSumN), sums = std::vector<int>(kSumBlocks);
  std::vector<float> ma = std::vector<float>(kMatN * kMatN), mb = std::vector<float>(kMatN * kMatN);
  int *d_a = nullptr, *d_b = nullptr, *d_c = nullptr, *d_in = nullptr, *d_sums = nullptr;
  float *d_ma = nullptr, *d_mb = nullptr, *d_mc = nullptr;
  Buffers() {
    for (int i = 0; i < kVectorN; ++i) a[i] = i, b[i] = 2 * i;
    for (int i = 0; i < kSumN; ++i) in[i] = i % 1000 - 500;
    for (int i = 0; i < kMatN * kMatN; ++i) ma[i] = static_cast<float>(i % 17) * 0.25f - 2.0f, mb[i] = static_cast<float>(i % 11) * 0.5f - 2.5f;
    constexpr size_t kMatBytes = kMatN * kMatN * sizeof(float);
    bool ok = cudaMalloc(&d_a, kVectorN * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&d_b, kVectorN * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&d_c, kVectorN * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&d_in, kSumN * sizeof(int)) == cudaSuccess &&
              cudaMalloc(&d_sums, kSumBlocks * sizeof(int)) == cudaSuccess &&
              cudaMemcpy(d_a, a.data(), kVectorN * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(d_b, b.data(), kVectorN * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemset(d_c, 0, kVectorN * sizeof(int)) == cudaSuccess &&
              cudaMemcpy(d_in, in.data(), kSumN * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMalloc(&d_ma, kMatBytes) == cudaSuccess && cudaMalloc(&d_mb, kMatBytes) == cudaSuccess &&
              cudaMalloc(&d_mc, kMatBytes) == cudaSuccess &&
              cudaMemcpy(d_ma, ma.data(), kMatBytes, cudaMemcpyHostToDevice) == cudaSuccess &&
              cudaMemcpy(d_mb, mb.data(), kMatBytes, cudaMemcpyHostToDevice) == cudaSuccess;
    if (!ok) {
      std::fprintf(stderr, "bench_kernels: allocation failed\n");
      std::exit(1);
    }
  }
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

// Checks every kernel's result once, before anything is timed.
bool results_are_right() {
  Buffers& b = buffers();
  std::vector<int> got(kVectorN);
  native_vector_add(b.a.data(), b.b.data(), b.c.data(), kVectorN);
  if (minicuda::launch<vector_add>(dim3(kVectorN / kVectorBlock), dim3(kVectorBlock), 0, nullptr, b.d_a, b.d_b,
                                   b.d_c, kVectorN) != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(got.data(), b.d_c, kVectorN * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess || got != b.c) {
    std::fprintf(stderr, "bench_kernels: vector_add gave a wrong result\n");
    return false;
  }
  native_block_sums(b.in.data(), b.sums.data(), kSumBlocks, kSumBlock);
  std::vector<int> odd(kSumBlocks, 0);
  for (int i = 0; i < kSumN; ++i) odd[i / kSumBlock] += b.in[i] & 1;
  auto check = [&](const char* what, cudaError_t launched, const std::vector<int>& want) {
    std::vector<int> sums(kSumBlocks, -1);
    if (launched != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(sums.data(), b.d_sums, kSumBlocks * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess ||
        sums != want) {
      std::fprintf(stderr, "bench_kernels: %s gave a wrong result\n", what);
      return false;
    }
    return cudaMemset(b.d_sums, 0, kSumBlocks * sizeof(int)) == cudaSuccess;
  };
  // The three multiplies sum the same products in the same order: the same bits.
  std::vector<float> plain(kMatN * kMatN), got_c(kMatN * kMatN);
  auto multiply = [&](auto launched, std::vector<float>& into) {
    return launched == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess &&
           cudaMemcpy(into.data(), b.d_mc, into.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess;
  };
  const dim3 mat_grid(kMatN / kTile, kMatN / kTile), mat_block(kTile, kTile);
  if (!multiply(minicuda::launch<matmul_plain>(mat_grid, mat_block, 0, nullptr, b.d_ma, b.d_mb, b.d_mc, kMatN), plain) ||
      !multiply(minicuda::launch<matmul_tiled_regions>(mat_grid, mat_block, 0, nullptr, b.d_ma, b.d_mb, b.d_mc, kMatN),
                got_c) ||
      std::memcmp(plain.data(), got_c.data(), plain.size() * sizeof(float)) != 0 ||
      !multiply(minicuda::launch<matmul_tiled_fibers>(mat_grid, mat_block, 0, nullptr, b.d_ma, b.d_mb, b.d_mc, kMatN),
                got_c) ||
      std::memcmp(plain.data(), got_c.data(), plain.size() * sizeof(float)) != 0) {
    std::fprintf(stderr, "bench_kernels: the tiled multiplies differ from the plain one\n");
    return false;
  }
  const dim3 grid(kSumBlocks), block(kSumBlock);
  return check("block_sum_tree", minicuda::launch<block_sum_tree>(grid, block, 0, nullptr, b.d_in, b.d_sums), b.sums) &&
         check("block_sum_tree_regions",
               minicuda::launch<block_sum_tree_regions>(grid, block, 0, nullptr, b.d_in, b.d_sums), b.sums) &&
         check("block_sum_shuffle", minicuda::launch<block_sum_shuffle>(grid, block, 0, nullptr, b.d_in, b.d_sums),
               b.sums) &&
         check("block_sum_thread0", minicuda::launch<block_sum_thread0>(grid, block, 0, nullptr, b.d_in, b.d_sums),
               b.sums) &&
         check("block_sum_one_thread", minicuda::launch<block_sum_one_thread>(grid, dim3(1), 0, nullptr, b.d_in,
                                                                              b.d_sums, kSumBlock), b.sums) &&
         check("block_count_odd", minicuda::launch<block_count_odd>(grid, block, 0, nullptr, b.d_in, b.d_sums), odd) &&
         check("block_count_odd_regions",
               minicuda::launch<block_count_odd_regions>(grid, block, 0, nullptr, b.d_in, b.d_sums), odd) &&
         check("block_count_odd_thread0",
               minicuda::launch<block_count_odd_thread0>(grid, block, 0, nullptr, b.d_in, b.d_sums), odd);
}

// --- 1. vector_add ------------------------------------------------------------------------------

void vector_bytes(benchmark::State& state) { state.SetBytesProcessed(state.iterations() * kVectorN * 3 * sizeof(int)); }

void BM_NativeVectorAdd(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    native_vector_add(b.a.data(), b.b.data(), b.c.data(), kVectorN);
    benchmark::ClobberMemory();
  }
  vector_bytes(state);
}
BENCHMARK(BM_NativeVectorAdd);

// Breakdown: the native loop over the device buffers (memfd-backed VRAM mapped into the UVA window).
void BM_NativeVectorAdd_DeviceBuffers(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    native_vector_add(b.d_a, b.d_b, b.d_c, kVectorN);
    benchmark::ClobberMemory();
  }
  vector_bytes(state);
}
BENCHMARK(BM_NativeVectorAdd_DeviceBuffers);

void BM_VectorAdd(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    minicuda::launch<vector_add>(dim3(kVectorN / kVectorBlock), dim3(kVectorBlock), 0, nullptr, b.d_a, b.d_b, b.d_c,
                                 kVectorN);
    cudaDeviceSynchronize();
  }
  vector_bytes(state);
}
BENCHMARK(BM_VectorAdd)->UseRealTime()->Unit(benchmark::kMillisecond);

// Breakdown: the same grid (2^24 threads) of a kernel that does nothing.
void BM_EmptyKernel_VectorGrid(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    minicuda::launch<empty_kernel>(dim3(kVectorN / kVectorBlock), dim3(kVectorBlock), 0, nullptr);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_EmptyKernel_VectorGrid)->UseRealTime()->Unit(benchmark::kMillisecond);

// Breakdown: as many blocks (65536) of one thread each: what the SM pays per block.
void BM_EmptyKernel_VectorBlocksOneThread(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    minicuda::launch<empty_kernel>(dim3(kVectorN / kVectorBlock), dim3(1), 0, nullptr);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_EmptyKernel_VectorBlocksOneThread)->UseRealTime()->Unit(benchmark::kMillisecond);

// --- 2. barriers ----------------------------------------------------------------------------------

void BM_NativeBlockSums(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    native_block_sums(b.in.data(), b.sums.data(), kSumBlocks, kSumBlock);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NativeBlockSums)->Unit(benchmark::kMicrosecond);

// A per-block sum kernel on <<<4096, 256>>>.
template <auto Kernel>
void block_sum_benchmark(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    minicuda::launch<Kernel>(dim3(kSumBlocks), dim3(kSumBlock), 0, nullptr, b.d_in, b.d_sums);
    cudaDeviceSynchronize();
  }
}
void BM_BlockSumTree(benchmark::State& state) { block_sum_benchmark<block_sum_tree>(state); }
void BM_BlockSumTreeRegions(benchmark::State& state) { block_sum_benchmark<block_sum_tree_regions>(state); }
void BM_BlockSumThread0(benchmark::State& state) { block_sum_benchmark<block_sum_thread0>(state); }
void BM_BlockSumShuffle(benchmark::State& state) { block_sum_benchmark<block_sum_shuffle>(state); }
BENCHMARK(BM_BlockSumTree)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockSumShuffle)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockSumTreeRegions)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockSumThread0)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_BlockCountOdd(benchmark::State& state) { block_sum_benchmark<block_count_odd>(state); }
void BM_BlockCountOddRegions(benchmark::State& state) { block_sum_benchmark<block_count_odd_regions>(state); }
void BM_BlockCountOddThread0(benchmark::State& state) { block_sum_benchmark<block_count_odd_thread0>(state); }
BENCHMARK(BM_BlockCountOdd)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockCountOddRegions)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockCountOddThread0)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_BlockSumOneThreadPerBlock(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    minicuda::launch<block_sum_one_thread>(dim3(kSumBlocks), dim3(1), 0, nullptr, b.d_in, b.d_sums, kSumBlock);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_BlockSumOneThreadPerBlock)->UseRealTime()->Unit(benchmark::kMillisecond);

// Breakdown: k barriers and nothing else, on the reduction's grid (k = 0 stays in loop mode).
void BM_BarriersOnly(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  const int k = static_cast<int>(state.range(0));
  for (auto _ : state) {
    minicuda::launch<barriers_only>(dim3(kSumBlocks), dim3(kSumBlock), 0, nullptr, k);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_BarriersOnly)->Arg(0)->Arg(1)->Arg(3)->Arg(9)->UseRealTime()->Unit(benchmark::kMillisecond);

// --- 3. tiled matrix multiply -----------------------------------------------------------------------

template <auto Kernel>
void matmul_benchmark(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    minicuda::launch<Kernel>(dim3(kMatN / kTile, kMatN / kTile), dim3(kTile, kTile), 0, nullptr, b.d_ma, b.d_mb, b.d_mc,
                             kMatN);
    cudaDeviceSynchronize();
  }
}
void BM_MatmulPlain(benchmark::State& state) { matmul_benchmark<matmul_plain>(state); }
void BM_MatmulTiledRegions(benchmark::State& state) { matmul_benchmark<matmul_tiled_regions>(state); }
void BM_MatmulTiledFibers(benchmark::State& state) { matmul_benchmark<matmul_tiled_fibers>(state); }
BENCHMARK(BM_MatmulPlain)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulTiledRegions)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatmulTiledFibers)->UseRealTime()->Unit(benchmark::kMillisecond);

// --- 4. the launch round trip ---------------------------------------------------------------------

void BM_EmptyCall(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) empty_call(++i);
}
BENCHMARK(BM_EmptyCall);

#if defined(__x86_64__)
// Breakdown: EFLAGS.AC on and off again (two popf that change it), as the SM's alignment check
// does around the SM's own code (sm_block.h: SmCode, alignment_check): per warp operation, per
// block that turns to fiber mode, per host thread per grid - not per barrier or per block in
// loop mode, which leave it on. The red zone is stepped over as sm_signals.h does.
void BM_AlignmentCheckOnOff(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    asm volatile("sub $128, %%rsp\n\tpushfq\n\torq $0x40000, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
    asm volatile("sub $128, %%rsp\n\tpushfq\n\tandq $-262145, (%%rsp)\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
  }
}
BENCHMARK(BM_AlignmentCheckOnOff);

// The same two pushf/popf pairs leaving EFLAGS as it is.
void BM_PushfPopfUnchanged(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    asm volatile("sub $128, %%rsp\n\tpushfq\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
    asm volatile("sub $128, %%rsp\n\tpushfq\n\tpopfq\n\tadd $128, %%rsp" ::: "memory", "cc");
  }
}
BENCHMARK(BM_PushfPopfUnchanged);
#endif

void BM_EmptyKernelRoundTrip(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    minicuda::launch<empty_kernel>(dim3(1), dim3(1), 0, nullptr);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_EmptyKernelRoundTrip)->UseRealTime();

// 100 launches, then one synchronize: the time per launch when the host does not wait for each.
void BM_EmptyKernelLaunch_Batch100(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  for (auto _ : state) {
    for (int i = 0; i < 100; ++i) minicuda::launch<empty_kernel>(dim3(1), dim3(1), 0, nullptr);
    cudaDeviceSynchronize();
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_EmptyKernelLaunch_Batch100)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_TinyMemsetRoundTrip(benchmark::State& state) {
  bench::ProcessCpu cpu(state);
  Buffers& b = buffers();
  for (auto _ : state) {
    cudaMemset(b.d_sums, 0, 1);
    cudaDeviceSynchronize();
  }
}
BENCHMARK(BM_TinyMemsetRoundTrip)->UseRealTime();

// What compute_engine.cpp does with MINICUDA_SM_THREADS, for the summary.
unsigned sm_threads() {
  if (const char* env = std::getenv("MINICUDA_SM_THREADS"); env != nullptr && *env != '\0') {
    long n = std::strtol(env, nullptr, 10);
    if (n >= 1 && n <= 256) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

int main(int argc, char** argv) {
  if (!bench::trace_is_off("bench_kernels")) return 1;
  if (!results_are_right()) return 1;  // also initialises the runtime and loads the kernels
  benchmark::Initialize(&argc, argv);
  bench::Recorder reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  // With --benchmark_repetitions the summary uses the medians. Times in ns: wall = the benchmark's
  // real time, cpu = the CPU time of every thread of the process (host and simulated device).
  auto wall = [&](const std::string& name) { return reporter.median(name); };
  auto cpu = [&](const std::string& name) { return reporter.median_counter(name, "cpu_all_threads") * 1e9; };
  auto have = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (wall(n) < 0) return false;
    return true;
  };
  auto verdict = [](double ratio, double goal) { return ratio <= goal ? "met" : "missed"; };
  const unsigned workers = sm_threads();
  std::printf("\nSummary (ratios against the native baseline of the same run; SM worker threads: %u%s)\n", workers,
              std::getenv("MINICUDA_SM_THREADS") ? " from MINICUDA_SM_THREADS" : ", the host's hardware threads");
  std::printf("  wall: real time (the goals); cpu: CPU time of all the process's threads (steadier on a busy host)\n");
  if (have({"BM_VectorAdd/real_time", "BM_NativeVectorAdd"})) {
    const std::string sim = "BM_VectorAdd/real_time", native = "BM_NativeVectorAdd";
    std::printf("  vector_add 2^24 ints, launch + sync / native serial loop : wall %6.2fx (%.2f ms vs %.2f ms; goal <= 1.5x: "
                "%s), cpu %6.2fx (%.2f ms vs %.2f ms)\n",
                wall(sim) / wall(native), wall(sim) / 1e6, wall(native) / 1e6, verdict(wall(sim) / wall(native), 1.5),
                cpu(sim) / cpu(native), cpu(sim) / 1e6, cpu(native) / 1e6);
    if (have({"BM_EmptyKernel_VectorGrid/real_time", "BM_EmptyKernel_VectorBlocksOneThread/real_time",
              "BM_NativeVectorAdd_DeviceBuffers"})) {
      constexpr double kBlocks = kVectorN / kVectorBlock;
      double grid = cpu("BM_EmptyKernel_VectorGrid/real_time");
      double blocks = cpu("BM_EmptyKernel_VectorBlocksOneThread/real_time");
      std::printf("    empty kernel on the same grid: wall %.2f ms, cpu %.2f ms = %.2f ns per CUDA thread\n",
                  wall("BM_EmptyKernel_VectorGrid/real_time") / 1e6, grid / 1e6, grid / kVectorN);
      std::printf("    empty kernel, 65536 blocks of 1 thread: cpu %.2f ms -> %.0f ns per block, %.2f ns per further thread\n",
                  blocks / 1e6, blocks / kBlocks, (grid - blocks) / (kVectorN - kBlocks));
      std::printf("    vector_add minus the empty grid (the kernel's own loads, adds, stores): cpu %.2f ms\n",
                  (cpu(sim) - grid) / 1e6);
      std::printf("    native loop over the device buffers: %.2f ms (%.2fx the host arrays)\n",
                  wall("BM_NativeVectorAdd_DeviceBuffers") / 1e6, wall("BM_NativeVectorAdd_DeviceBuffers") / wall(native));
    }
  }
  if (have({"BM_BlockSumTreeRegions/real_time", "BM_BlockSumThread0/real_time"})) {
    const std::string tree = "BM_BlockSumTreeRegions/real_time", t0 = "BM_BlockSumThread0/real_time";
    std::printf("  block sums 2^20 ints, tree with 9 barriers as regions / thread 0 alone : wall %6.2fx (%.2f ms vs %.2f ms; "
                "goal <= 2x: %s), cpu %6.2fx\n",
                wall(tree) / wall(t0), wall(tree) / 1e6, wall(t0) / 1e6, verdict(wall(tree) / wall(t0), 2), cpu(tree) / cpu(t0));
  }
  if (have({"BM_BlockSumTree/real_time", "BM_BlockSumThread0/real_time"})) {
    const std::string tree = "BM_BlockSumTree/real_time", t0 = "BM_BlockSumThread0/real_time";
    std::printf("    the same tree with fibers (not split) / thread 0 alone : wall %6.1fx (%.1f ms), cpu %6.1fx\n",
                wall(tree) / wall(t0), wall(tree) / 1e6, cpu(tree) / cpu(t0));
    if (have({"BM_NativeBlockSums", "BM_BlockSumOneThreadPerBlock/real_time"})) {
      const std::string native = "BM_NativeBlockSums", one = "BM_BlockSumOneThreadPerBlock/real_time";
      std::printf("    native serial loop %.3f ms: tree %.0fx, thread 0 alone %.1fx, one thread per block (%.2f ms) %.1fx (wall)\n",
                  wall(native) / 1e6, wall(tree) / wall(native), wall(t0) / wall(native), wall(one) / 1e6,
                  wall(one) / wall(native));
    }
    if (have({"BM_BarriersOnly/0/real_time", "BM_BarriersOnly/1/real_time", "BM_BarriersOnly/9/real_time"})) {
      double k0 = cpu("BM_BarriersOnly/0/real_time"), k1 = cpu("BM_BarriersOnly/1/real_time"),
             k9 = cpu("BM_BarriersOnly/9/real_time");
      constexpr double kThreads = double{kSumBlocks} * kSumBlock;
      double per_barrier = (k9 - k1) / 8 / kThreads;  // per CUDA thread
      std::printf("    barriers only (cpu): k=0 %.1f ms, k=1 %.1f ms, k=9 %.1f ms -> %.0f ns per thread per barrier, "
                  "%.0f ns per thread to enter fiber mode\n",
                  k0 / 1e6, k1 / 1e6, k9 / 1e6, per_barrier, (k1 - k0) / kThreads - per_barrier);
      std::printf("    9 barriers alone are %.0f%% of the tree's cpu time\n", 100.0 * (k9 - k0) / cpu(tree));
      if (have({"BM_BareSwitchRing/16/real_time", "BM_BareSwitchRing/256/real_time"})) {
        // One host thread switching; the SM's workers could share the switches at best evenly.
        const double small = wall("BM_BareSwitchRing/16/real_time"), large = wall("BM_BareSwitchRing/256/real_time");
        const double ring = std::min(small, large), switches = kThreads * bench::kSwitchRingTurns;
        std::printf("    the floor: a bare stack switch round %d stacks, %.1f ns (16 KiB stacks) / %.1f ns (256 KiB); "
                    "the tree's %.1f M thread-barriers at %.1f ns alone, shared by %u workers: %.1f ms = %.0fx thread 0 "
                    "(the fiber tree's goal: <= 30x)\n",
                    bench::kSwitchRingStacks, small / switches, large / switches, switches / 1e6, ring / switches, workers,
                    ring / workers / 1e6, ring / workers / wall(t0));
      }
      if (have({"BM_AlignmentCheckOnOff", "BM_PushfPopfUnchanged"}))
        std::printf("    EFLAGS.AC on + off (per warp operation; a barrier leaves it on): cpu %.0f ns "
                    "(two pushf/popf that change nothing: %.0f ns)\n",
                    cpu("BM_AlignmentCheckOnOff"), cpu("BM_PushfPopfUnchanged"));
    }
  }
  if (have({"BM_BlockCountOdd/real_time", "BM_BlockCountOddRegions/real_time", "BM_BlockCountOddThread0/real_time"})) {
    const std::string fibers = "BM_BlockCountOdd/real_time", regions = "BM_BlockCountOddRegions/real_time",
                      t0 = "BM_BlockCountOddThread0/real_time";
    std::printf("  block counts of odd ints, one __syncthreads_count as regions / thread 0 alone : wall %6.2fx "
                "(%.2f ms vs %.2f ms; a barrier kernel's goal: <= 30x: %s), cpu %6.2fx\n",
                wall(regions) / wall(t0), wall(regions) / 1e6, wall(t0) / 1e6, verdict(wall(regions) / wall(t0), 30),
                cpu(regions) / cpu(t0));
    std::printf("    the same count with fibers (not split) / thread 0 alone : wall %6.1fx (%.1f ms), cpu %6.1fx\n",
                wall(fibers) / wall(t0), wall(fibers) / 1e6, cpu(fibers) / cpu(t0));
  }
  if (have({"BM_MatmulPlain/real_time", "BM_MatmulTiledRegions/real_time", "BM_MatmulTiledFibers/real_time"})) {
    const std::string plain = "BM_MatmulPlain/real_time", regions = "BM_MatmulTiledRegions/real_time",
                      fibers = "BM_MatmulTiledFibers/real_time";
    std::printf("  matmul 256x256 floats, tiled (2 barriers per tile) as regions / without shared memory : wall %6.2fx "
                "(%.2f ms vs %.2f ms), cpu %6.2fx\n",
                wall(regions) / wall(plain), wall(regions) / 1e6, wall(plain) / 1e6, cpu(regions) / cpu(plain));
    std::printf("    the same tiled multiply with fibers / without shared memory : wall %6.1fx (%.1f ms), cpu %6.1fx\n",
                wall(fibers) / wall(plain), wall(fibers) / 1e6, cpu(fibers) / cpu(plain));
  }
  if (have({"BM_EmptyKernelRoundTrip/real_time", "BM_EmptyCall"})) {
    const std::string rt = "BM_EmptyKernelRoundTrip/real_time";
    std::printf("  empty kernel <<<1,1>>> launch + sync round trip / empty call: %6.0fx  (%.2f us vs %.2f ns)\n",
                wall(rt) / wall("BM_EmptyCall"), wall(rt) / 1e3, wall("BM_EmptyCall"));
    if (have({"BM_TinyMemsetRoundTrip/real_time", "BM_EmptyKernelLaunch_Batch100/real_time"}))
      std::printf("    1-byte memset + sync round trip %.2f us; 100 launches + 1 sync: %.2f us per launch\n",
                  wall("BM_TinyMemsetRoundTrip/real_time") / 1e3, wall("BM_EmptyKernelLaunch_Batch100/real_time") / 100 / 1e3);
  }
  return 0;
}
