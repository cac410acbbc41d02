// Streams on channels of their own (driver/user/src/channels.cpp): their work overlaps in the GPU's
// simulated time (docs/timing.md), the legacy NULL stream's implicit ordering and
// cudaStreamWaitEvent hold across channels (semaphore acquires), non-blocking streams are
// exempt from the NULL stream's rule, and the simulated times are the same on every run.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using StreamChannelTest = FreshProcess;

constexpr size_t kBytes = 8 << 20;

struct Buffers {
  Buffers() {
    EXPECT_EQ(cudaMalloc(&d1, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d2, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMallocHost(&h1, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMallocHost(&h2, kBytes), cudaSuccess);
    for (size_t i = 0; i < kBytes; ++i) h1[i] = static_cast<unsigned char>(i * 7 + 1);
  }
  ~Buffers() {
    cudaFree(d1);
    cudaFree(d2);
    cudaFreeHost(h1);
    cudaFreeHost(h2);
  }
  unsigned char *d1 = nullptr, *d2 = nullptr, *h1 = nullptr, *h2 = nullptr;
};

// Simulated ms between two events recorded on the NULL stream around an H2D copy on s1 and a
// D2H copy on s2 (each stream waits for the first event and the second waits for both: the
// legacy stream's rule).
float copies_both_ways(Buffers& b, cudaStream_t s1, cudaStream_t s2) {
  cudaEvent_t start, stop;
  EXPECT_EQ(cudaEventCreate(&start), cudaSuccess);
  EXPECT_EQ(cudaEventCreate(&stop), cudaSuccess);
  EXPECT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(b.d1, b.h1, kBytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(b.h2, b.d2, kBytes, cudaMemcpyDeviceToHost, s2), cudaSuccess);
  EXPECT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

// Two new streams, buffers, the copies both ways: the simulated ms.
float fresh_streams_copies_both_ways() {
  Buffers b;
  cudaStream_t s1, s2;
  EXPECT_EQ(cudaStreamCreate(&s1), cudaSuccess);
  EXPECT_EQ(cudaStreamCreate(&s2), cudaSuccess);
  const float ms = copies_both_ways(b, s1, s2);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  return ms;
}

TEST_F(StreamChannelTest, CopiesOnTwoStreamsOverlapInSimulatedTime) {
  const float overlapped = fresh_streams_copies_both_ways();
  Buffers b;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  const float serial = copies_both_ways(b, s, s);  // one stream: one after the other
  cudaStreamDestroy(s);
  // 8 MiB at 55 GB/s is 152.5 us each way (docs/timing.md).
  EXPECT_GT(overlapped, 0.150f);
  EXPECT_LT(overlapped, 0.170f);
  EXPECT_GT(serial, 0.305f);
  EXPECT_LT(serial, 0.330f);
  // The same work gives the same times, however fast the host ran it.
  EXPECT_EQ(fresh_streams_copies_both_ways(), overlapped);
}

TEST_F(StreamChannelTest, NullStreamWaitsForBlockingStreamsAndTheyForIt) {
  Buffers b;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  // The NULL stream's device-to-device copy must wait for s's copy into d1.
  ASSERT_EQ(cudaMemcpyAsync(b.d1, b.h1, kBytes, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b.d2, b.d1, kBytes, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
  // And s's copy back must wait for the NULL stream's.
  ASSERT_EQ(cudaMemcpyAsync(b.h2, b.d2, kBytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(std::memcmp(b.h1, b.h2, kBytes), 0);
  cudaStreamDestroy(s);
}

TEST_F(StreamChannelTest, StreamWaitEventOrdersAcrossChannels) {
  Buffers b;
  cudaStream_t s1, s2;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t copied, start, stop;
  ASSERT_EQ(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, s2), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b.d1, b.h1, kBytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(copied, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, copied, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b.d2, b.d1, kBytes, cudaMemcpyDeviceToDevice, s2), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b.h2, b.d2, kBytes, cudaMemcpyDeviceToHost, s2), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, s2), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  EXPECT_EQ(std::memcmp(b.h1, b.h2, kBytes), 0);
  float ms = 0;
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GT(ms, 0.30f);  // s2's copies came after s1's: three copies one after another
  cudaEventDestroy(copied);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

std::atomic<int> g_gate{0};
void CUDART_CB hold(void*) {
  while (g_gate.load() == 0) {
  }
}

TEST_F(StreamChannelTest, NonBlockingStreamsIgnoreTheNullStream) {
  Buffers b;
  cudaStream_t blocking, free_running;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&free_running, cudaStreamNonBlocking), cudaSuccess);
  g_gate = 0;
  ASSERT_EQ(cudaLaunchHostFunc(nullptr, hold, nullptr), cudaSuccess);  // the NULL stream is held
  ASSERT_EQ(cudaMemsetAsync(b.d1, 1, 4096, blocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(b.d2, 2, 4096, free_running), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(free_running), cudaSuccess);  // not held: it finishes
  EXPECT_EQ(cudaStreamQuery(blocking), cudaErrorNotReady);      // held behind the NULL stream
  g_gate = 1;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(blocking), cudaSuccess);
  cudaStreamDestroy(blocking);
  cudaStreamDestroy(free_running);
}

TEST_F(StreamChannelTest, ManyStreamsShareThePool) {
  Buffers b;
  std::vector<cudaStream_t> streams(20);
  for (cudaStream_t& s : streams) ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  for (size_t i = 0; i < streams.size(); ++i)
    ASSERT_EQ(cudaMemcpyAsync(b.d1 + i * 4096, b.h1 + i * 4096, 4096, cudaMemcpyHostToDevice, streams[i]), cudaSuccess);
  for (size_t i = 0; i < streams.size(); ++i)
    ASSERT_EQ(cudaMemcpyAsync(b.h2 + i * 4096, b.d1 + i * 4096, 4096, cudaMemcpyDeviceToHost, streams[i]), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(std::memcmp(b.h1, b.h2, 20 * 4096), 0);
  for (cudaStream_t s : streams) ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

void CUDART_CB count_call(void* counter) { static_cast<std::atomic<int>*>(counter)->fetch_add(1); }

// Several host threads, each with streams of its own, copy through the GPU at once: each one's
// data comes back right, and every host function runs once.
TEST_F(StreamChannelTest, HostThreadsUseStreamsConcurrently) {
  constexpr int kThreads = 4, kRounds = 25;
  constexpr size_t kSlice = 256 << 10;
  Buffers b;
  std::atomic<int> calls{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kernel::ProcessScope same_process(*process_);  // a thread of the test's simulated process
      cudaStream_t up, down;
      if (cudaStreamCreate(&up) != cudaSuccess || cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking) != cudaSuccess) {
        failures++;
        return;
      }
      cudaEvent_t uploaded;
      cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming);
      unsigned char* in = b.h1 + t * kSlice;
      unsigned char* out = b.h2 + t * kSlice;
      for (int round = 0; round < kRounds; ++round) {
        std::memset(in, (t * 31 + round) & 0xFF, kSlice);
        bool ok = cudaMemcpyAsync(b.d1 + t * kSlice, in, kSlice, cudaMemcpyHostToDevice, up) == cudaSuccess &&
                  cudaEventRecord(uploaded, up) == cudaSuccess && cudaStreamWaitEvent(down, uploaded, 0) == cudaSuccess &&
                  cudaMemcpyAsync(b.d2 + t * kSlice, b.d1 + t * kSlice, kSlice, cudaMemcpyDeviceToDevice, down) == cudaSuccess &&
                  cudaMemcpyAsync(out, b.d2 + t * kSlice, kSlice, cudaMemcpyDeviceToHost, down) == cudaSuccess &&
                  cudaLaunchHostFunc(down, count_call, &calls) == cudaSuccess && cudaStreamSynchronize(down) == cudaSuccess;
        if (!ok || std::memcmp(in, out, kSlice) != 0) failures++;
      }
      cudaEventDestroy(uploaded);
      cudaStreamDestroy(up);
      cudaStreamDestroy(down);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(calls.load(), kThreads * kRounds);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// cudaStreamPerThread: each host thread has its own, independent of the others', but ordered
// with the legacy NULL stream both ways (CUDA's per-thread default stream).
TEST_F(StreamChannelTest, PerThreadStreamsAreOrderedOnlyWithTheLegacyStream) {
  Buffers b;
  g_gate = 0;
  std::thread other([&] {
    kernel::ProcessScope same_process(*process_);
    EXPECT_EQ(cudaLaunchHostFunc(cudaStreamPerThread, hold, nullptr), cudaSuccess);  // holds its stream
  });
  other.join();
  // This thread's per-thread stream is another stream: it runs while the other one is held.
  ASSERT_EQ(cudaMemsetAsync(b.d1, 1, 4096, cudaStreamPerThread), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  // Legacy work waits for every per-thread stream, and later per-thread work waits for it.
  ASSERT_EQ(cudaMemsetAsync(b.d2, 2, 4096, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(b.d1, 3, 4096, cudaStreamPerThread), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(cudaStreamPerThread), cudaErrorNotReady);
  unsigned flags = 99;
  EXPECT_EQ(cudaStreamGetFlags(cudaStreamPerThread, &flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_NE(cudaStreamDestroy(cudaStreamPerThread), cudaSuccess);  // not the program's to destroy
  cudaGetLastError();
  g_gate = 1;
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  unsigned char h = 0;
  ASSERT_EQ(cudaMemcpy(&h, b.d1, 1, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h, 3);
}

}  // namespace
}  // namespace minicuda::testing
