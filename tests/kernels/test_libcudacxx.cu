// libcu++'s synchronisation in kernels on the simulated SM: cuda::barrier (phases, tokens, the
// arrive/wait split, arrive_and_drop, completion functions, misuse), cuda::pipeline (a thread's
// own, a block's with and without producer/consumer roles) with cuda::memcpy_async, and
// cuda::atomic / cuda::atomic_ref with scopes.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/std/type_traits>
#include <cuda_runtime.h>

#include <vector>

#include "kernel_test.h"

namespace cg = cooperative_groups;
using minicuda::kernels_test::DeviceArray;
using minicuda::kernels_test::FreshProcess;

static_assert(cuda::std::is_same_v<cuda::std::remove_cv_t<const int>, int>);

// Each thread writes its value, arrives, does independent work, waits, then reads its neighbour's:
// the arrive/wait split. Phase 2 reuses the barrier. out[t] = in[(t+1) % n] + in[(t+2) % n].
__global__ void barrier_split(const int* in, int* out, unsigned long long* phases) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[256];
  const unsigned t = threadIdx.x, n = blockDim.x;
  if (t == 0) init(&bar, n);
  __syncthreads();
  s[t] = in[t];
  auto token = bar.arrive();
  int mine = in[t] * 0;  // work between arrive and wait
  bar.wait(std::move(token));
  mine += s[(t + 1) % n];
  bar.arrive_and_wait();  // phase 2: everyone has read before anyone writes again
  s[t] = in[(t + 1) % n];
  bar.arrive_and_wait();
  out[t] = mine + s[(t + 1) % n];
  if (t == 0) *phases = bar.__phase();
}

class LibCudacxx : public FreshProcess {};

TEST_F(LibCudacxx, BarrierArriveWaitSplitOrdersEachPhase) {
  constexpr int n = 96;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * i;
  DeviceArray<int> din(in), dout(n);
  DeviceArray<unsigned long long> phases(1);
  barrier_split<<<2, n>>>(din.get(), dout.get(), phases.get());  // two blocks: the __shared__ barrier is per block
  const auto out = dout.read();
  for (int t = 0; t < n; ++t) ASSERT_EQ(out[t], in[(t + 1) % n] + in[(t + 2) % n]) << t;
  EXPECT_EQ(phases.read()[0], 3u);
}

// arrive_and_drop: the dropping threads count in this phase but not the next. A completion
// function runs once per phase.
struct CountPhases {
  int* count;
  void operator()() noexcept { ++*count; }
};
__global__ void barrier_drop(int* result) {
  __shared__ int completions;
  __shared__ cuda::barrier<cuda::thread_scope_block, CountPhases> bar;
  if (threadIdx.x == 0) {
    completions = 0;
    init(&bar, blockDim.x, CountPhases{&completions});
  }
  __syncthreads();
  if (threadIdx.x >= 16) {  // half the block leaves after one phase
    bar.arrive_and_drop();
    return;
  }
  bar.arrive_and_wait();
  bar.arrive_and_wait();  // only the 16 remaining threads now
  bar.arrive_and_wait();
  if (threadIdx.x == 0) *result = completions;
}

TEST_F(LibCudacxx, BarrierArriveAndDropShrinksLaterPhases) {
  DeviceArray<int> result(1);
  barrier_drop<<<1, 32>>>(result.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(result.read()[0], 3);
}

// Misuse: more arrivals than expected, and a wait that nobody can end.
__global__ void barrier_over_arrive() {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 4);
  __syncthreads();
  (void)bar.arrive(5);
}
__global__ void barrier_never_completes() {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x + 1);  // one arrival too many expected
  __syncthreads();
  bar.arrive_and_wait();
}

TEST_F(LibCudacxx, BarrierMisuseStopsTheKernelWithLaunchFailure) {
  barrier_over_arrive<<<1, 32>>>();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

TEST_F(LibCudacxx, BarrierWaitThatCannotEndStopsTheKernelWithLaunchFailure) {
  barrier_never_completes<<<1, 32>>>();
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

// memcpy_async with a barrier: a tile copied by each thread (a float4) and by the block as a group.
__global__ void copy_with_barrier(const float4* in, float4* out, float* group_out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float4 tile[64];
  __shared__ float whole[256];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], cuda::aligned_size_t<16>(sizeof(float4)), bar);
  cuda::memcpy_async(block, whole, reinterpret_cast<const float*>(in), sizeof(whole), bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = tile[63 - threadIdx.x];
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) group_out[i] = whole[255 - i];
}

TEST_F(LibCudacxx, MemcpyAsyncWithABarrierIsCompleteAfterTheWait) {
  std::vector<float4> in(64);
  for (int i = 0; i < 64; ++i) in[i] = float4{float(4 * i), float(4 * i + 1), float(4 * i + 2), float(4 * i + 3)};
  DeviceArray<float4> din(in), dout(64);
  DeviceArray<float> group(256);
  copy_with_barrier<<<1, 64>>>(din.get(), dout.get(), group.get());
  const auto out = dout.read();
  for (int i = 0; i < 64; ++i) ASSERT_EQ(out[i].x, float(4 * (63 - i)));
  const auto g = group.read();
  for (int i = 0; i < 256; ++i) ASSERT_EQ(g[i], float(255 - i));
}

__global__ void misaligned_copy(const float* in) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float4 tile[2];
  if (threadIdx.x == 0) init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::memcpy_async(tile, in + 1, cuda::aligned_size_t<16>(16), bar);  // in + 1 is not 16-byte aligned
    bar.arrive_and_wait();
  }
}

TEST_F(LibCudacxx, MemcpyAsyncBreakingItsAlignmentPromiseStopsTheKernel) {
  DeviceArray<float> in(16);
  misaligned_copy<<<1, 32>>>(in.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
}

// A thread's own pipeline, double-buffered as globalToShmemAsyncCopy does: sums of a stream.
__global__ void thread_pipeline(const int* in, int batches, int* out) {
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  int buf[2];
  int sum = 0;
  pipe.producer_acquire();
  cuda::memcpy_async(&buf[0], &in[threadIdx.x], cuda::aligned_size_t<4>(sizeof(int)), pipe);
  pipe.producer_commit();
  for (int b = 0; b < batches; ++b) {
    if (b + 1 < batches) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[(b + 1) % 2], &in[(b + 1) * blockDim.x + threadIdx.x], sizeof(int), pipe);
      pipe.producer_commit();
    }
    cuda::pipeline_consumer_wait_prior<1>(pipe);
    pipe.consumer_wait();
    sum += buf[b % 2];
    pipe.consumer_release();
  }
  out[threadIdx.x] = sum;
}

TEST_F(LibCudacxx, ThreadScopePipelineCarriesEveryBatch) {
  constexpr int threads = 32, batches = 5;
  std::vector<int> in(threads * batches);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i);
  DeviceArray<int> din(in), dout(threads);
  thread_pipeline<<<1, threads>>>(din.get(), batches, dout.get());
  const auto out = dout.read();
  for (int t = 0; t < threads; ++t) {
    int want = 0;
    for (int b = 0; b < batches; ++b) want += b * threads + t;
    ASSERT_EQ(out[t], want);
  }
}

// A block-scope pipeline with roles, as globalToShmemAsyncCopy's shared-state kernel: warp 1
// produces batches of 32 values into 2 stages, warp 0 consumes them. Producers run ahead of the
// consumers only as far as the stages allow, so every batch is read before it is overwritten.
template <int Stages>
__global__ void roles_pipeline(const int* in, int batches, int* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;
  __shared__ int stage[Stages][32];
  auto block = cg::this_thread_block();
  const bool producer = threadIdx.x >= 32;
  auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  const unsigned lane = threadIdx.x % 32;
  int sum = 0;
  for (int b = 0; b < batches; ++b) {
    if (producer) {
      pipe.producer_acquire();
      cuda::memcpy_async(&stage[b % Stages][lane], &in[b * 32 + lane], sizeof(int), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      sum += stage[b % Stages][(lane + 1) % 32];  // a value another thread copied
      pipe.consumer_release();
    }
  }
  if (!producer) out[lane] = sum;
}

TEST_F(LibCudacxx, BlockPipelineWithRolesKeepsStagesInOrder) {
  constexpr int batches = 9;
  std::vector<int> in(32 * batches);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 101);
  DeviceArray<int> din(in), dout(32), dout1(32);
  roles_pipeline<2><<<3, 64>>>(din.get(), batches, dout.get());
  roles_pipeline<1><<<1, 64>>>(din.get(), batches, dout1.get());
  const auto out = dout.read(), out1 = dout1.read();
  for (int l = 0; l < 32; ++l) {
    int want = 0;
    for (int b = 0; b < batches; ++b) want += in[b * 32 + (l + 1) % 32];
    ASSERT_EQ(out[l], want) << l;
    ASSERT_EQ(out1[l], want) << l;
  }
}

// Every thread both produces and consumes (make_pipeline without a role), copying as a group.
__global__ void unified_pipeline(const float* in, int batches, float* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  __shared__ float stage[2][128];
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  float sum = 0;
  for (int b = 0; b < batches; ++b) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, stage[b % 2], in + b * 128, sizeof(float) * 128, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    sum += stage[b % 2][127 - threadIdx.x];
    pipe.consumer_release();
  }
  out[threadIdx.x] = sum;
}

TEST_F(LibCudacxx, BlockPipelineOfAGroupCopySharesEveryBatch) {
  constexpr int batches = 4;
  std::vector<float> in(128 * batches);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  DeviceArray<float> din(in), dout(128);
  unified_pipeline<<<1, 128>>>(din.get(), batches, dout.get());
  const auto out = dout.read();
  for (int t = 0; t < 128; ++t) {
    float want = 0;
    for (int b = 0; b < batches; ++b) want += float(b * 128 + 127 - t);
    ASSERT_EQ(out[t], want);
  }
}

// cuda::atomic in device memory and cuda::atomic_ref on plain ints, of several scopes, across
// blocks: counts, minimum and maximum.
__global__ void atomics(cuda::atomic<int, cuda::thread_scope_device>* counter, int* plain_min, int* plain_max) {
  const int v = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  counter->fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device>(*plain_min).fetch_min(v - 100);
  cuda::atomic_ref<int, cuda::thread_scope_system>(*plain_max).fetch_max(v * 3);
  __shared__ int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(block_count);
  ref.fetch_add(2);
  __syncthreads();
  if (threadIdx.x == 0 && ref.load() != 2 * static_cast<int>(blockDim.x)) __trap();
}

TEST_F(LibCudacxx, ScopedAtomicsCountAndTakeExtremesAcrossBlocks) {
  DeviceArray<cuda::atomic<int, cuda::thread_scope_device>> counter(1);
  DeviceArray<int> lo(std::vector<int>{1000}), hi(std::vector<int>{-1000});
  atomics<<<4, 64>>>(counter.get(), lo.get(), hi.get());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  int count = 0;
  ASSERT_EQ(cudaMemcpy(&count, counter.get(), sizeof count, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(count, 256);
  EXPECT_EQ(lo.read()[0], -100);
  EXPECT_EQ(hi.read()[0], 255 * 3);
}
