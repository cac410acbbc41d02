// Managed memory's mechanism, end to end: pages start nowhere; the GPU's first touch faults
// (replayable faults, serviced by nvidia-uvm in batches: populate on the GPU, replay), the CPU's
// later read faults and migrates the pages back; CPU writes then a kernel's reads migrate
// host->GPU; a prefetch moves pages so that the kernel after it does not fault; freeing a range
// whose pages are on the GPU releases them. Each test reads the trace nvidia-uvm writes.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "managed_fixtures.h"
#include "runtime_fixtures.h"

namespace {

using minicuda::testing::count_notes;
using minicuda::testing::FreshProcess;
using minicuda::testing::sum_notes;
namespace trace = minicuda::trace;

constexpr int kN = 256 * 1024;  // 1 MiB of ints: 16 blocks of 64 KiB, 256 pages of 4 KiB

__global__ void fill(int* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 3 * i;
}

__global__ void add_from(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

__global__ void count_system(int* counter, int per_thread) {
  for (int k = 0; k < per_thread; ++k) atomicAdd_system(counter, 1);
}

using ManagedMemory = FreshProcess;

// The GPU touches the pages first: replayable faults populate all 256 pages on the GPU (zero
// migrated from the host); the CPU's reads then fault once per 64 KiB block and bring the 16
// blocks back, and read what the kernel wrote.
TEST_F(ManagedMemory, GpuFirstTouchThenCpuReadsTheGpusWrites) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, kN * sizeof(int)), cudaSuccess);
  trace::Recorder recorder;
  fill<<<kN / 256, 256>>>(p, kN);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_GE(count_notes(recorder, "^uvm: fault batch of "), 1);
  EXPECT_EQ(sum_notes(recorder, "^uvm: fault batch .* populate (\\d+) pages on gpu0"), 256);
  EXPECT_EQ(sum_notes(recorder, "^uvm: fault batch .* migrate (\\d+) pages host->gpu0"), 0);
  EXPECT_EQ(count_notes(recorder, "^uvm: cpu .* fault"), 0);
  long long sum = 0;
  bool all = true;
  for (int i = 0; i < kN; ++i) {
    all = all && p[i] == 3 * i;
    sum += p[i];
  }
  EXPECT_TRUE(all);
  EXPECT_EQ(sum, 3LL * kN * (kN - 1) / 2);
  EXPECT_EQ(count_notes(recorder, "^uvm: cpu read fault at 0x[0-9a-f]+: migrate 16 pages gpu0->host"), 16);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
}

// The CPU writes first (populating on the host), a kernel reads: its faults migrate the 16
// blocks host->GPU and it sees the CPU's values.
TEST_F(ManagedMemory, CpuWritesThenKernelReads) {
  int *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMallocManaged(&in, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&out, kN * sizeof(int)), cudaSuccess);
  trace::Recorder recorder;
  for (int i = 0; i < kN; ++i) in[i] = 7 * i;
  EXPECT_EQ(count_notes(recorder, "^uvm: cpu write fault at 0x[0-9a-f]+: populate 16 pages on host"), 16);
  add_from<<<kN / 256, 256>>>(out, in, kN);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(sum_notes(recorder, "^uvm: fault batch .* migrate (\\d+) pages host->gpu0"), 256);  // in
  EXPECT_EQ(sum_notes(recorder, "^uvm: fault batch .* populate (\\d+) pages on gpu0"), 256);      // out
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += out[i] != 7 * i + 1;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(cudaFree(in), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

// A prefetch to the GPU moves the pages in one UVM_MIGRATE: the kernel after it takes no fault.
// A prefetch back to the host: the CPU's reads then take none either.
TEST_F(ManagedMemory, PrefetchMovesPagesSoNothingFaults) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, kN * sizeof(int)), cudaSuccess);
  for (int i = 0; i < kN; ++i) p[i] = i;
  trace::Recorder recorder;
  cudaMemLocation gpu{cudaMemLocationTypeDevice, 0};
  ASSERT_EQ(cudaMemPrefetchAsync(p, kN * sizeof(int), gpu, 0, 0), cudaSuccess);
  EXPECT_EQ(count_notes(recorder, "^uvm: migrate 0x[0-9a-f]+\\.\\.\\+0x100000: populate 0 pages on gpu0, migrate 256 "
                                  "pages host->gpu0"),
            1);
  fill<<<kN / 256, 256>>>(p, kN);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(count_notes(recorder, "^uvm: fault batch"), 0);
  cudaMemLocation host{cudaMemLocationTypeHost, 0};
  ASSERT_EQ(cudaMemPrefetchAsync(p, kN * sizeof(int), host, 0, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += p[i] != 3 * i;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(count_notes(recorder, "^uvm: cpu .* fault"), 0);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

__global__ void spin_until_set(volatile unsigned* latch) {
  while (*latch == 0) {
  }
}

// A prefetch queued behind a kernel that is still running returns without waiting for it (the
// sample UnifiedMemoryPerf releases that kernel only after its prefetches), and the kernel after
// it reads the pages without faulting.
TEST_F(ManagedMemory, PrefetchBehindARunningKernelDoesNotWaitForIt) {
  unsigned* latch = nullptr;
  ASSERT_EQ(cudaMallocHost(&latch, sizeof *latch), cudaSuccess);
  *latch = 0;
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, kN * sizeof(int)), cudaSuccess);
  for (int i = 0; i < kN; ++i) p[i] = i;
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  spin_until_set<<<1, 1, 0, s>>>(latch);
  trace::Recorder recorder;
  ASSERT_EQ(cudaMemPrefetchAsync(p, kN * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, s), cudaSuccess);
  *latch = 1;
  fill<<<kN / 256, 256, 0, s>>>(p, kN);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(count_notes(recorder, "^uvm: fault batch"), 0);
  EXPECT_EQ(p[kN - 1], 3 * (kN - 1));
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(latch), cudaSuccess);
}

// System-scope atomics on one managed counter from four host threads and a kernel at once: no
// increment is lost, whichever processor the page is on when.
TEST_F(ManagedMemory, SystemAtomicsFromHostThreadsAndAKernel) {
  int* counter = nullptr;
  ASSERT_EQ(cudaMallocManaged(&counter, sizeof(int)), cudaSuccess);
  *counter = 0;
  count_system<<<8, 64>>>(counter, 10);  // 5120 increments
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([counter] {
      for (int k = 0; k < 1000; ++k) __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(*counter, 5120 + 4000);
  EXPECT_EQ(cudaFree(counter), cudaSuccess);
}

// The same on mapped pinned memory (cudaHostAllocMapped): the GPU reaches the host's pages.
TEST_F(ManagedMemory, SystemAtomicsOnMappedHostMemory) {
  int* counter = nullptr;
  ASSERT_EQ(cudaHostAlloc(&counter, sizeof(int), cudaHostAllocMapped), cudaSuccess);
  *counter = 0;
  int* on_device = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void**>(&on_device), counter, 0), cudaSuccess);
  count_system<<<4, 32>>>(on_device, 25);  // 3200 increments
  std::thread host([counter] {
    for (int k = 0; k < 3000; ++k) __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
  });
  host.join();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(*counter, 3200 + 3000);
  EXPECT_EQ(cudaFreeHost(counter), cudaSuccess);
}

// Freeing a range whose pages are on the GPU releases them there (UVM_FREE); the pointer is then
// unknown to cudaFree and to the pointer attributes.
TEST_F(ManagedMemory, FreeWhilePagesAreOnTheGpu) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, kN * sizeof(int)), cudaSuccess);
  fill<<<kN / 256, 256>>>(p, kN);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(count_notes(recorder, "^uvm: free managed range 0x[0-9a-f]+\\.\\.\\+0x100000: 256 pages on gpu0 and 0 on host "
                                  "released"),
            1);
  EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue);
  cudaPointerAttributes a{};
  ASSERT_EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
}

// cudaMemcpy to and from managed memory: the CPU side of the copy touches the pages as the CPU
// does, so a page on the GPU migrates back first.
TEST_F(ManagedMemory, MemcpyToAndFromManaged) {
  int* p = nullptr;
  ASSERT_EQ(cudaMallocManaged(&p, kN * sizeof(int)), cudaSuccess);
  fill<<<kN / 256, 256>>>(p, kN);
  std::vector<int> host(kN, -1);
  ASSERT_EQ(cudaMemcpy(host.data(), p, kN * sizeof(int), cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(host[12345], 3 * 12345);
  EXPECT_EQ(host[kN - 1], 3 * (kN - 1));
  for (int i = 0; i < kN; ++i) host[i] = -i;
  ASSERT_EQ(cudaMemcpy(p, host.data(), kN * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(p[777], -777);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

}  // namespace
