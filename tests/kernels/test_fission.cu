// Region fission (docs/tools/cu2cxx.md): kernels that cu2cxx splits at their barriers run
// through their block functions, with no fibers, and give the results the fiber version gives
// (each is checked against a host replica of the CUDA semantics; the whole binary runs again
// with MINICUDA_FISSION=0, where the same checks hold for the fibers). Kernels it must not split
// keep fibers. Faults and asserts inside a region name the right block and thread; a barrier
// reached inside a block function is a clean kernel error.
#undef NDEBUG  // device assert must stay in, whatever the build type
#include <cuda_runtime.h>

#include <cassert>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fission_test.h"
#include "kernel_test.h"
#include "minicuda/trace.h"

// --- kernels cu2cxx splits -----------------------------------------------------------------

// The benchmark's split kernels (bench/bench_kernels_regions.cu, compiled into this test too):
// the tree reduction with 9 barriers and the 16 x 16 tiled multiply (two barriers per tile, `sum`
// kept per thread across them).
__global__ void block_sum_tree_regions(const int* in, int* out);
__global__ void matmul_tiled_regions(const float* a, const float* b, float* c, int n);
constexpr int kTile = 16;

// Threads past the end return before the barrier; the others read a neighbour's element.
__global__ void fission_early_return(const int* in, int* out, int n) {
  __shared__ int s[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = -1;
  if (i >= n) return;
  s[threadIdx.x] = in[i];
  __syncthreads();
  const int left = threadIdx.x > 0 ? s[threadIdx.x - 1] : 0;
  out[i] = s[threadIdx.x] * 10 + left;
}

// Each row of a (32, 4) block sums its own 32 elements: the halving regions run only the
// threads below the bound, in every row; `tid` is an int copy of threadIdx.x.
__global__ void fission_row_sums(const int* in, int* out) {
  __shared__ int s[4][32];
  const int tid = threadIdx.x;
  s[threadIdx.y][tid] = in[blockIdx.x * 128 + threadIdx.y * 32 + tid];
  __syncthreads();
  for (int half = 16; half > 0; half /= 2) {
    if (tid <= half - 1) s[threadIdx.y][tid] += s[threadIdx.y][tid + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x * 4 + threadIdx.y] = s[threadIdx.y][0];
}

// `threadIdx.x < unsigned(n)` compares unsigned: n = -1 lets every thread through; the int copy
// does not. (The bound must be found by the condition's own comparison.)
__global__ void fission_negative_bound(int* out, int n) {
  __shared__ int s[64];
  const int tid = threadIdx.x;
  s[tid] = 0;
  __syncthreads();
  if (threadIdx.x < static_cast<unsigned>(n)) s[tid] += 1;
  __syncthreads();
  if (tid < n) s[tid] += 10;
  __syncthreads();
  out[tid] = s[tid];
}

// Thread r leaves in round r; the survivors count themselves each round.
__global__ void fission_return_in_loop(int* out, int rounds) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x == static_cast<unsigned>(r)) return;
    atomicAdd(&count, 1);
    __syncthreads();
    if (threadIdx.x == static_cast<unsigned>(rounds)) out[blockIdx.x * rounds + r] = count;
    __syncthreads();
  }
}

// A loop left only through `return`: in round r thread r leaves (the last thread, which counts
// the rounds, leaves last); the block ends when every thread has left, so the block-level loop
// must stop then too. `r` is kept per thread across the loop body's barrier.
__global__ void fission_return_only_exit(int* rounds_seen) {
  __shared__ int round;
  if (threadIdx.x == 0) round = 0;
  __syncthreads();
  for (;;) {
    const int r = round;
    __syncthreads();  // every thread has read the round
    if (threadIdx.x == blockDim.x - 1) ++round;
    if (static_cast<unsigned>(r) >= threadIdx.x) {
      rounds_seen[threadIdx.x] = r + 1;
      return;
    }
    __syncthreads();
  }
}

// A while loop whose condition is in shared memory: the block's maximum by halving.
__global__ void fission_while_max(int* data) {
  __shared__ int s[64];
  __shared__ unsigned width;
  s[threadIdx.x] = data[blockIdx.x * 64 + threadIdx.x];
  if (threadIdx.x == 0) width = blockDim.x;
  __syncthreads();
  while (width > 1) {
    const unsigned half = width / 2;  // reads shared memory: kept per thread, not recomputed
    if (threadIdx.x < half) s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + half]);
    __syncthreads();
    if (threadIdx.x == 0) width = half;
    __syncthreads();
  }
  if (threadIdx.x == 0) data[blockIdx.x * 64] = s[0];
}

// Locals that live across barriers: an array, a const, several declarators in one declaration
// (a rematerialized pair, then two replicated ints and a replicated pointer).
__global__ void fission_replicated(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x, base = blockIdx.x * 64;
  int acc[3] = {in[base + t], 2 * in[base + t], 0};
  const int first = in[base + t];
  int a = first + 1, b = first - 1, *p = &s[t];
  s[t] = first;
  __syncthreads();
  acc[2] = s[(t + 1) % 64];
  a += acc[2];
  __syncthreads();
  *p = a + b + acc[0] + acc[1] + acc[2];
  __syncthreads();
  out[base + t] = s[(t + 63) % 64] + first;
}

// A 12-byte struct kept per thread and copied whole (its copies are laid out 16-byte aligned,
// so g++'s 8-byte moves of them stay aligned under the SM's alignment check).
__global__ void fission_replicated_struct(const float* in, float* out) {
  __shared__ float s[64];
  float3 v = make_float3(in[threadIdx.x], 2.0f * in[threadIdx.x], 3.0f);
  s[threadIdx.x] = v.x;
  __syncthreads();
  const float3 w = v;
  v = make_float3(w.z, w.y, s[63 - threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = v.x + v.y + v.z;
}

// A 3-D block (8, 4, 2): each thread reads the element mirrored through the block's centre.
__global__ void fission_mirror_3d(const int* in, int* out) {
  __shared__ int tile[2][4][8];
  const unsigned linear = threadIdx.x + 8 * (threadIdx.y + 4 * threadIdx.z);
  tile[threadIdx.z][threadIdx.y][threadIdx.x] = in[blockIdx.x * 64 + linear];
  __syncthreads();
  out[blockIdx.x * 64 + linear] = tile[1 - threadIdx.z][3 - threadIdx.y][7 - threadIdx.x] * 1000 + static_cast<int>(linear);
}

// Dynamic shared memory: each block rotates its slice by `shift`.
__global__ void fission_dynamic_rotate(int* data, int shift) {
  extern __shared__ int buf[];
  const unsigned n = blockDim.x;
  buf[threadIdx.x] = data[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * n + threadIdx.x] = buf[(threadIdx.x + shift) % n];
}

// Each thread copies a value read through a pointer into a local before a barrier; one thread
// then overwrites the pointee between barriers, and every thread uses its local after them. The
// locals must keep the value read first (a C-style cast before the `*`, a macro that
// dereferences): computing them again in a later region would read 42.
#define FISSION_FIRST_WORD (*flag)
__global__ void fission_pointee_changes(int* flag, int* out) {
  const int v = (int)*flag;
  const int w = FISSION_FIRST_WORD;
  __syncthreads();
  if (threadIdx.x == 0) flag[0] = 42;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v * 1000 + w;
}

// Even blocks reverse their slice through shared memory, odd ones rotate it by `shift` rounds
// of one step each: an if/else around barriers whose condition is the same in the whole block,
// one branch holding a loop around barriers.
__global__ void fission_uniform_if(const int* in, int* out, int shift) {
  __shared__ int s[64];
  const int base = blockIdx.x * 64;
  s[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  if (blockIdx.x % 2 == 0) {
    const int mine = s[63 - threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = mine;
  } else {
    for (int r = 0; r < shift; ++r) {
      const int next = s[(threadIdx.x + 1) % 64];
      __syncthreads();
      s[threadIdx.x] = next;
      __syncthreads();
    }
    out[base + threadIdx.x] = s[threadIdx.x];
  }
}

// One thread of one block writes through a null pointer after the barrier.
__global__ void fission_fault(int* data, int bad_block, int bad_thread) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int* target = (blockIdx.x == static_cast<unsigned>(bad_block) && threadIdx.x == static_cast<unsigned>(bad_thread)) ? nullptr : data;
  target[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

__global__ void fission_assert(const int* in) {
  __shared__ int s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  assert(s[31 - threadIdx.x] != 7);
}

// A barrier-free device function that reads threadIdx (the region sets the global one).
__device__ int plus_lane(int v) { return v * 100 + static_cast<int>(threadIdx.x); }
__global__ void fission_calls_plain(int* data) {
  __shared__ int s[32];
  s[threadIdx.x] = plus_lane(data[blockIdx.x * 32 + threadIdx.x]);
  __syncthreads();
  data[blockIdx.x * 32 + threadIdx.x] = s[31 - threadIdx.x];
}

// --- a barrier in a function the kernel calls (inlined into the block function) ----------------

__device__ void add_after_barrier(int* s, int v) {
  __syncthreads();
  s[threadIdx.x] += v;
}
__global__ void fission_calls_barrier(int* data) {
  __shared__ int s[32];
  s[threadIdx.x] = data[threadIdx.x];
  add_after_barrier(s, 1);
  __syncthreads();
  data[threadIdx.x] = s[31 - threadIdx.x];
}

// --- a block function that reaches a barrier (what a translator bug would emit) -----------------

template <int N>
__global__ void hidden_barrier(int* out) {
  out[threadIdx.x] = N;
  __syncthreads();
}
static bool hidden_barrier_regions(int* out) {
  out[0] = 1;
  __syncthreads();
  return true;
}
// A block function that computes something else than its kernel (what a translator bug could
// emit): only MINICUDA_FISSION=check notices.
template <int N>
__global__ void disagreeing_regions(int* out) {
  out[threadIdx.x] = N;
  __syncthreads();
}
static bool disagreeing_regions_block(int* out) {
  out[0] = 2;
  return true;
}
// Registered at start-up, before the launch would register the templates at first use.
static const ::minicuda::detail::ModuleRegistration hidden_barrier_module{
    "test_fission.cu (guard)",
    {MINICUDA_KERNEL_REGIONS(hidden_barrier<1>, hidden_barrier_regions),
     MINICUDA_KERNEL_REGIONS(disagreeing_regions<1>, disagreeing_regions_block)}};

namespace minicuda::kernels_test {
namespace {

class KernelFission : public FreshProcess {};

std::vector<int> iota_mod(size_t n, int mod) {
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i % mod) - mod / 3;
  return v;
}

TEST_F(KernelFission, TreeReductionRunsAsRegions) {
  constexpr int blocks = 40, threads = 256;
  const std::vector<int> host = iota_mod(blocks * threads, 977);
  DeviceArray<int> in(host), out(blocks);
  EXPECT_EQ(mode_of("block_sum_tree_regions", [&] { block_sum_tree_regions<<<blocks, threads>>>(in.get(), out.get()); }),
            split_mode());
  std::vector<int> want(blocks, 0);
  for (int i = 0; i < blocks * threads; ++i) want[i / threads] += host[i];
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, BoundedRegionsInEveryRowOfA2DBlock) {
  constexpr int blocks = 6;
  const std::vector<int> host = iota_mod(blocks * 128, 333);
  DeviceArray<int> in(host), out(blocks * 4);
  EXPECT_EQ(mode_of("fission_row_sums", [&] { fission_row_sums<<<blocks, dim3(32, 4)>>>(in.get(), out.get()); }),
            split_mode());
  std::vector<int> want(blocks * 4, 0);
  for (int i = 0; i < blocks * 128; ++i) want[i / 32] += host[i];
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, ABoundComparesAsTheConditionDoes) {
  DeviceArray<int> out(64);
  EXPECT_EQ(mode_of("fission_negative_bound", [&] { fission_negative_bound<<<1, 64>>>(out.get(), -1); }), split_mode());
  EXPECT_EQ(out.read(), std::vector<int>(64, 1));
  EXPECT_EQ(mode_of("fission_negative_bound", [&] { fission_negative_bound<<<1, 64>>>(out.get(), 20); }), split_mode());
  std::vector<int> want(64, 0);
  for (int t = 0; t < 20; ++t) want[t] = 11;
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, TiledMatmulGivesTheSerialSumsBitForBit) {
  constexpr int n = 48;
  std::vector<float> a(n * n), b(n * n), want(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>(i % 13) * 0.37f - 1.5f, b[i] = static_cast<float>(i % 7) * 1.3f - 2.0f;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      float sum = 0.0f;  // the kernel's order: tile by tile, k ascending
      for (int k = 0; k < n; ++k) sum += a[r * n + k] * b[k * n + c];
      want[r * n + c] = sum;
    }
  DeviceArray<float> da(a), db(b), dc(n * n);
  EXPECT_EQ(mode_of("matmul_tiled_regions", [&] {
              matmul_tiled_regions<<<dim3(n / kTile, n / kTile), dim3(kTile, kTile)>>>(da.get(), db.get(), dc.get(), n);
            }),
            split_mode());
  const std::vector<float> got = dc.read();
  for (int i = 0; i < n * n; ++i) ASSERT_EQ(bits_of(got[i]), bits_of(want[i])) << "element " << i;
}

TEST_F(KernelFission, ThreadsThatReturnBeforeABarrierRunNoLaterRegion) {
  constexpr int n = 300, threads = 128, blocks = (n + threads - 1) / threads;
  const std::vector<int> host = iota_mod(n, 50);
  DeviceArray<int> in(host), out(std::vector<int>(blocks * threads, 7));
  EXPECT_EQ(mode_of("fission_early_return", [&] { fission_early_return<<<blocks, threads>>>(in.get(), out.get(), n); }),
            split_mode());
  const std::vector<int> got = out.read();
  for (int i = 0; i < blocks * threads; ++i) {
    const int want = i >= n ? 7 : host[i] * 10 + (i % threads > 0 ? host[i - 1] : 0);
    ASSERT_EQ(got[i], want) << "element " << i;
  }
}

TEST_F(KernelFission, AReturnInsideALoopAroundBarriers) {
  constexpr int blocks = 3, threads = 40, rounds = 6;
  DeviceArray<int> out(blocks * rounds);
  EXPECT_EQ(mode_of("fission_return_in_loop", [&] { fission_return_in_loop<<<blocks, threads>>>(out.get(), rounds); }),
            split_mode());
  std::vector<int> want(blocks * rounds);
  for (int b = 0; b < blocks; ++b) {
    int count = 0;
    for (int r = 0; r < rounds; ++r) want[b * rounds + r] = count += threads - r - 1;
  }
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, ALoopLeftOnlyThroughReturnEndsWithItsLastThread) {
  DeviceArray<int> seen(48);
  EXPECT_EQ(mode_of("fission_return_only_exit", [&] { fission_return_only_exit<<<1, 48>>>(seen.get()); }), split_mode());
  std::vector<int> want(48);
  for (int t = 0; t < 48; ++t) want[t] = t + 1;
  EXPECT_EQ(seen.read(), want);
}

TEST_F(KernelFission, AWhileLoopOverSharedMemory) {
  constexpr int blocks = 5;
  std::vector<int> host = iota_mod(blocks * 64, 101);
  host[2 * 64 + 17] = 5000;
  DeviceArray<int> data(host);
  EXPECT_EQ(mode_of("fission_while_max", [&] { fission_while_max<<<blocks, 64>>>(data.get()); }), split_mode());
  const std::vector<int> got = data.read();
  for (int b = 0; b < blocks; ++b) {
    int want = host[b * 64];
    for (int t = 1; t < 64; ++t) want = std::max(want, host[b * 64 + t]);
    EXPECT_EQ(got[b * 64], want) << "block " << b;
  }
}

TEST_F(KernelFission, LocalsLiveAcrossBarriers) {
  constexpr int blocks = 4;
  const std::vector<int> host = iota_mod(blocks * 64, 37);
  DeviceArray<int> in(host), out(blocks * 64);
  EXPECT_EQ(mode_of("fission_replicated", [&] { fission_replicated<<<blocks, 64>>>(in.get(), out.get()); }), split_mode());
  std::vector<int> s(blocks * 64), want(blocks * 64);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 64; ++t) {
      const int first = host[b * 64 + t], right = host[b * 64 + (t + 1) % 64];
      s[b * 64 + t] = (first + 1 + right) + (first - 1) + first + 2 * first + right;
    }
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 64; ++t) want[b * 64 + t] = s[b * 64 + (t + 63) % 64] + host[b * 64 + t];
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, ALocalReadThroughAPointerKeepsTheValueEachThreadRead) {
  constexpr int threads = 64;
  DeviceArray<int> flag(std::vector<int>{7}), out(threads);
  EXPECT_EQ(mode_of("fission_pointee_changes", [&] { fission_pointee_changes<<<1, threads>>>(flag.get(), out.get()); }),
            split_mode());
  EXPECT_EQ(out.read(), std::vector<int>(threads, 7007));
  EXPECT_EQ(flag.read(), std::vector<int>{42});
}

TEST_F(KernelFission, AnIfAroundBarriersWithABlockUniformCondition) {
  constexpr int blocks = 6, shift = 5;
  const std::vector<int> host = iota_mod(blocks * 64, 53);
  DeviceArray<int> in(host), out(blocks * 64);
  EXPECT_EQ(mode_of("fission_uniform_if", [&] { fission_uniform_if<<<blocks, 64>>>(in.get(), out.get(), shift); }),
            split_mode());
  std::vector<int> want(blocks * 64);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 64; ++t)
      want[b * 64 + t] = b % 2 == 0 ? host[b * 64 + 63 - t] : host[b * 64 + (t + shift) % 64];
  EXPECT_EQ(out.read(), want);
}

TEST_F(KernelFission, AStructLivesAcrossBarriers) {
  std::vector<float> host(64);
  for (int t = 0; t < 64; ++t) host[t] = static_cast<float>(t) * 0.5f;
  DeviceArray<float> in(host), out(64);
  EXPECT_EQ(mode_of("fission_replicated_struct", [&] { fission_replicated_struct<<<1, 64>>>(in.get(), out.get()); }),
            split_mode());
  const std::vector<float> got = out.read();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], 3.0f + 2.0f * host[t] + host[63 - t]) << t;
}

TEST_F(KernelFission, ThreeDimensionalBlocksKeepThreadIdx) {
  constexpr int blocks = 3;
  const std::vector<int> host = iota_mod(blocks * 64, 64);
  DeviceArray<int> in(host), out(blocks * 64);
  EXPECT_EQ(mode_of("fission_mirror_3d", [&] { fission_mirror_3d<<<blocks, dim3(8, 4, 2)>>>(in.get(), out.get()); }),
            split_mode());
  const std::vector<int> got = out.read();
  for (int b = 0; b < blocks; ++b)
    for (int l = 0; l < 64; ++l) ASSERT_EQ(got[b * 64 + l], host[b * 64 + 63 - l] * 1000 + l) << b << " " << l;
}

TEST_F(KernelFission, DynamicSharedMemory) {
  constexpr int blocks = 6, threads = 96, shift = 5;
  const std::vector<int> host = iota_mod(blocks * threads, 1000);
  DeviceArray<int> data(host);
  EXPECT_EQ(mode_of("fission_dynamic_rotate",
                    [&] { fission_dynamic_rotate<<<blocks, threads, threads * sizeof(int)>>>(data.get(), shift); }),
            split_mode());
  const std::vector<int> got = data.read();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) ASSERT_EQ(got[b * threads + t], host[b * threads + (t + shift) % threads]);
}

TEST_F(KernelFission, AFaultInARegionNamesItsBlockAndThread) {
  constexpr int blocks = 8;
  DeviceArray<int> data(blocks * 64);
  trace::Recorder recorder;
  ::testing::internal::CaptureStderr();
  fission_fault<<<blocks, 64>>>(data.get(), 5, 37);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(mode_in(recorder, "fission_fault"), split_mode());
  EXPECT_NE(err.find("block (5,0,0) thread (37,0,0)"), std::string::npos) << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelFission, AnAssertInARegionNamesTheKernelAndThread) {
  std::vector<int> host(32, 1);
  host[31 - 12] = 7;  // thread 12 reads it
  DeviceArray<int> in(host);
  trace::Recorder recorder;
  ::testing::internal::CaptureStderr();
  fission_assert<<<1, 32>>>(in.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorAssert);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(mode_in(recorder, "fission_assert"), split_mode());
  EXPECT_NE(err.find(": void fission_assert(const int*): block: [0,0,0], thread: [12,0,0] Assertion"), std::string::npos)
      << err;
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST_F(KernelFission, ACallToABarrierFreeFunctionIsSplit) {
  constexpr int blocks = 3;
  const std::vector<int> host = iota_mod(blocks * 32, 90);
  DeviceArray<int> data(host);
  EXPECT_EQ(mode_of("fission_calls_plain", [&] { fission_calls_plain<<<blocks, 32>>>(data.get()); }), split_mode());
  const std::vector<int> got = data.read();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 32; ++t) ASSERT_EQ(got[b * 32 + t], host[b * 32 + 31 - t] * 100 + (31 - t));
}

// The call is inlined into the block function (tests/kernels/test_fission_inline.cu has more).
TEST_F(KernelFission, ACallToAFunctionWithABarrierIsInlinedAndSplit) {
  const std::vector<int> host = iota_mod(32, 50);
  DeviceArray<int> data(host);
  EXPECT_EQ(mode_of("fission_calls_barrier", [&] { fission_calls_barrier<<<1, 32>>>(data.get()); }), split_mode());
  const std::vector<int> got = data.read();
  for (int t = 0; t < 32; ++t) ASSERT_EQ(got[t], host[31 - t] + 1);
}

TEST_F(KernelFission, ABarrierInsideABlockFunctionIsAKernelError) {
  DeviceArray<int> out(32);
  ::testing::internal::CaptureStderr();
  hidden_barrier<1><<<1, 32>>>(out.get());
  const cudaError_t err = cudaDeviceSynchronize();
  const std::string text = ::testing::internal::GetCapturedStderr();
  if (split_mode() == "fibers") {  // the block function is ignored: the kernel itself runs
    EXPECT_EQ(err, cudaSuccess);
    EXPECT_EQ(out.read(), std::vector<int>(32, 1));
    return;
  }
  EXPECT_EQ(err, cudaErrorLaunchFailure);
  if (split_mode() == "both") {  // the check compares the errors too: here only the regions raise one
    EXPECT_NE(text.find("region fission changed the result of kernel hidden_barrier<1>: the fibers ended with no "
                        "error, the regions with error"),
              std::string::npos)
        << text;
  } else {
    EXPECT_NE(text.find("__syncthreads reached while kernel hidden_barrier<1> ran as regions"), std::string::npos)
        << text;
  }
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

// Under MINICUDA_FISSION=check the GPU runs a split kernel with fibers and as regions, and a
// block function that leaves other bytes than its kernel is a launch failure naming the first
// byte that differs; otherwise whichever way runs decides what the grid leaves.
TEST_F(KernelFission, TheCheckCatchesABlockFunctionThatDisagreesWithItsKernel) {
  DeviceArray<int> out(32);
  ::testing::internal::CaptureStderr();
  disagreeing_regions<1><<<1, 32>>>(out.get());
  const cudaError_t err = cudaDeviceSynchronize();
  const std::string text = ::testing::internal::GetCapturedStderr();
  if (split_mode() == "fibers") {
    EXPECT_EQ(err, cudaSuccess);
    EXPECT_EQ(out.read(), std::vector<int>(32, 1));
  } else if (split_mode() == "regions") {
    EXPECT_EQ(err, cudaSuccess);
    std::vector<int> want(32, 0);
    want[0] = 2;
    EXPECT_EQ(out.read(), want);
  } else {
    EXPECT_EQ(err, cudaErrorLaunchFailure);
    EXPECT_NE(text.find("region fission changed the result of kernel disagreeing_regions<1>: the byte at " +
                        fmt::format("{:#x}", reinterpret_cast<uintptr_t>(out.get())) +
                        " is 0x02 after the regions and 0x01 after the fibers (it was 0x00)"),
              std::string::npos)
        << text;
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  }
}

}  // namespace
}  // namespace minicuda::kernels_test
