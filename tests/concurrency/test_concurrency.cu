// Many host threads using the stack at once, as a multi-threaded application does: each of 16
// threads allocates and frees, copies both ways (pageable and pinned), launches kernels with and
// without barriers, records and waits for events and runs host functions, on a stream of its
// own, on a stream all threads share and on the legacy and per-thread default streams. Every
// result is checked against the host; nothing may deadlock. The suite also runs this binary
// under ThreadSanitizer (the tsan preset, docs/reliability.md).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

namespace {

using minicuda::testing::FreshProcess;
namespace kernel = minicuda::kernel;

// p[i] = p[i] * 3 + add over n ints.
__global__ void scale_add(int* p, int add, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * 3 + add;
}

// out[block] = the sum of the block's 128 elements (a shared-memory tree: barriers).
__global__ void block_sums(const int* in, int* out) {
  __shared__ int partial[128];
  partial[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  for (int s = 64; s > 0; s /= 2) {
    if (static_cast<int>(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// A warp sum by shuffles, then a block sum across warps (a barrier): warp operations keep this
// kernel on fibers (cu2cxx splits only barrier kernels without them, docs/tools/cu2cxx.md), so
// the fiber switches run on many host threads at once.
__global__ void warp_then_block_sum(const int* in, int* out) {
  __shared__ int per_warp[4];
  int v = in[blockIdx.x * 128 + threadIdx.x];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = per_warp[0] + per_warp[1] + per_warp[2] + per_warp[3];
}

void CUDART_CB count_call(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

constexpr int kThreads = 16;
constexpr int kRounds = 12;
constexpr int kN = 4096;  // ints per buffer: 32 blocks of 128

// What one thread does in one round, on `stream`; false (and why, in *why) when anything failed.
bool one_round(int t, int round, cudaStream_t stream, int* pinned, std::atomic<int>& host_calls, std::string* why) {
  const int seed = t * 1000 + round;
  std::vector<int> host(kN), back(kN);
  for (int i = 0; i < kN; ++i) host[i] = seed + i;
  int *d = nullptr, *sums = nullptr;
  cudaEvent_t done;
  auto fail = [&](const char* what, cudaError_t e) {
    *why = std::string(what) + ": " + cudaGetErrorName(e);
    return false;
  };
  if (cudaError_t e = cudaMalloc(&d, kN * sizeof(int)); e != cudaSuccess) return fail("cudaMalloc", e);
  if (cudaError_t e = cudaMalloc(&sums, 32 * sizeof(int)); e != cudaSuccess) return fail("cudaMalloc sums", e);
  if (cudaError_t e = cudaEventCreate(&done); e != cudaSuccess) return fail("cudaEventCreate", e);
  // Pageable in (staged), kernels, pinned out (asynchronous), a host function, an event.
  if (cudaError_t e = cudaMemcpyAsync(d, host.data(), kN * sizeof(int), cudaMemcpyHostToDevice, stream); e != cudaSuccess)
    return fail("cudaMemcpyAsync H2D", e);
  scale_add<<<kN / 256, 256, 0, stream>>>(d, t, kN);
  block_sums<<<32, 128, 0, stream>>>(d, sums);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return fail("launch", e);
  if (cudaError_t e = cudaMemcpyAsync(pinned, d, kN * sizeof(int), cudaMemcpyDeviceToHost, stream); e != cudaSuccess)
    return fail("cudaMemcpyAsync D2H", e);
  if (cudaError_t e = cudaLaunchHostFunc(stream, count_call, &host_calls); e != cudaSuccess) return fail("host func", e);
  if (cudaError_t e = cudaEventRecord(done, stream); e != cudaSuccess) return fail("cudaEventRecord", e);
  if (cudaError_t e = cudaEventSynchronize(done); e != cudaSuccess) return fail("cudaEventSynchronize", e);
  int block_sum[32];
  if (cudaError_t e = cudaMemcpy(block_sum, sums, sizeof block_sum, cudaMemcpyDeviceToHost); e != cudaSuccess)
    return fail("cudaMemcpy sums", e);
  bool right = true;
  for (int i = 0; i < kN; ++i) right &= pinned[i] == host[i] * 3 + t;
  for (int b = 0; b < 32; ++b) {
    int expect = 0;
    for (int i = 0; i < 128; ++i) expect += host[b * 128 + i] * 3 + t;
    right &= block_sum[b] == expect;
  }
  cudaEventDestroy(done);
  cudaFree(d);
  cudaFree(sums);
  if (!right) *why = "wrong results";
  return right;
}

using Concurrency = FreshProcess;

TEST_F(Concurrency, SixteenThreadsMixingCallsOnPrivateSharedAndDefaultStreams) {
  cudaStream_t shared;
  ASSERT_EQ(cudaStreamCreate(&shared), cudaSuccess);
  std::atomic<int> host_calls{0}, failures{0};
  std::vector<std::string> first_failure(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kernel::ProcessScope same_process(*process_);  // a thread of the test's simulated process
      cudaStream_t own;
      int* pinned = nullptr;
      if (cudaStreamCreateWithFlags(&own, t % 2 ? cudaStreamNonBlocking : cudaStreamDefault) != cudaSuccess ||
          cudaMallocHost(&pinned, kN * sizeof(int)) != cudaSuccess) {
        failures++;
        return;
      }
      for (int round = 0; round < kRounds; ++round) {
        // Own stream, the shared one, the legacy NULL stream, the per-thread default stream.
        const cudaStream_t streams[] = {own, shared, nullptr, cudaStreamPerThread};
        std::string why;
        if (!one_round(t, round, streams[(t + round) % 4], pinned, host_calls, &why)) {
          if (failures++ == 0 || first_failure[t].empty()) first_failure[t] = why;
        }
      }
      cudaFreeHost(pinned);
      cudaStreamDestroy(own);
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(first_failure[t], "") << "thread " << t;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(host_calls.load(), kThreads * kRounds);
  EXPECT_EQ(cudaStreamDestroy(shared), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
}

// Kernels that run as fibers (warp operations and a barrier), launched from 8 host threads at
// once: each thread's sums are right.
TEST_F(Concurrency, EightThreadsLaunchingFiberKernels) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      kernel::ProcessScope same_process(*process_);
      std::vector<int> host(kN);
      for (int i = 0; i < kN; ++i) host[i] = (i * 7 + t) % 100;
      int *d = nullptr, *sums = nullptr;
      cudaStream_t s;
      if (cudaMalloc(&d, kN * sizeof(int)) != cudaSuccess || cudaMalloc(&sums, 32 * sizeof(int)) != cudaSuccess ||
          cudaStreamCreate(&s) != cudaSuccess) {
        failures++;
        return;
      }
      for (int round = 0; round < 4; ++round) {
        int got[32];
        cudaMemcpyAsync(d, host.data(), kN * sizeof(int), cudaMemcpyHostToDevice, s);
        warp_then_block_sum<<<32, 128, 0, s>>>(d, sums);
        if (cudaMemcpyAsync(got, sums, sizeof got, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess) {
          failures++;
          continue;
        }
        for (int b = 0; b < 32; ++b) {
          int expect = 0;
          for (int i = 0; i < 128; ++i) expect += host[b * 128 + i];
          if (got[b] != expect) failures++;
        }
      }
      cudaStreamDestroy(s);
      cudaFree(d);
      cudaFree(sums);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Allocation and free from many threads at once, in sizes that share pool chunks and sizes
// that get chunks of their own: no two live allocations overlap, and all memory comes back.
TEST_F(Concurrency, SixteenThreadsAllocatingAndFreeing) {
  size_t free_before = 0, total = 0;
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kernel::ProcessScope same_process(*process_);
      std::vector<std::pair<unsigned char*, size_t>> mine;
      for (int i = 0; i < 40; ++i) {
        const size_t size = (i % 5 == 4) ? (3u << 20) : (256u << (i % 6));
        unsigned char* p = nullptr;
        if (cudaMalloc(&p, size) != cudaSuccess) {
          failures++;
          continue;
        }
        // A pattern of this thread's: another thread's allocation overlapping would change it.
        if (cudaMemset(p, t + 1, size) != cudaSuccess) failures++;
        mine.emplace_back(p, size);
        if (i % 3 == 2) {
          auto [q, n] = mine.front();
          unsigned char first = 0, last = 0;
          if (cudaMemcpy(&first, q, 1, cudaMemcpyDeviceToHost) != cudaSuccess ||
              cudaMemcpy(&last, q + n - 1, 1, cudaMemcpyDeviceToHost) != cudaSuccess || first != t + 1 || last != t + 1)
            failures++;
          if (cudaFree(q) != cudaSuccess) failures++;
          mine.erase(mine.begin());
        }
      }
      for (auto [q, n] : mine) {
        if (cudaFree(q) != cudaSuccess) failures++;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  size_t free_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  EXPECT_EQ(free_after, free_before);
}

}  // namespace
