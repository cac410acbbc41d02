// The host timeline (docs/timing.md, driver/user/src/host_clock.h): API calls cost the H200's
// measured host times, work cannot start on the GPU before the host submitted it, a wait moves
// the host's clock on to the completion of what it waited for, and a pageable copy's CPU
// staging counts on the host. Exact values: the clock is simulated, the same on every run.
#include <cstring>
#include <string_view>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using HostTimelineTest = FreshProcess;

constexpr size_t kBytes = 8 << 20;

// The simulated host time that the nth (0: first) recorded cudart call whose text starts with
// `call` took.
uint64_t host_duration(const trace::Recorder& rec, std::string_view call, int nth = 0) {
  for (const trace::Event& e : rec.events()) {
    if (e.layer == trace::Layer::Cudart && e.kind == trace::Kind::Call &&
        std::string_view(e.text).starts_with(call) && nth-- == 0)
      return e.host_end_ns - e.host_ns;
  }
  ADD_FAILURE() << "no " << call << " call recorded";
  return 0;
}

TEST_F(HostTimelineTest, ApiCallsCostTheMeasuredHostTimes) {
  void *d = nullptr, *h = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaEventRecord(e, nullptr), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 4096, nullptr), cudaSuccess);
    EXPECT_EQ(host_duration(rec, "cudaEventRecord"), 1400u);   // host_cudaEventRecord_call 1.388 us
    EXPECT_EQ(host_duration(rec, "cudaMemcpyAsync"), 2300u);   // host_cudaMemcpyAsync_4B_pinned_call 2.257 us
    EXPECT_EQ(host_duration(rec, "cudaMemsetAsync"), 2300u);   // submitted as a copy is
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaEventDestroy(e);
  cudaFreeHost(h);
  cudaFree(d);
}

// How the host learns that s1's copy is done before the second record, if it does.
enum class Wait { None, Synchronize, Query };

// Simulated ns from an event on s2 to a second one on s2, with an 8 MiB copy on s1 in between.
uint64_t record_copy_record(Wait wait) {
  void *d = nullptr, *h = nullptr;
  EXPECT_EQ(cudaMalloc(&d, kBytes), cudaSuccess);
  EXPECT_EQ(cudaMallocHost(&h, kBytes), cudaSuccess);
  cudaStream_t s1, s2;
  EXPECT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  EXPECT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t a, b;
  EXPECT_EQ(cudaEventCreate(&a), cudaSuccess);
  EXPECT_EQ(cudaEventCreate(&b), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the host is past everything the GPU did
  EXPECT_EQ(cudaEventRecord(a, s2), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(d, h, kBytes, cudaMemcpyHostToDevice, s1), cudaSuccess);
  if (wait == Wait::Synchronize) {
    EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  }
  if (wait == Wait::Query) {
    cudaError_t r;
    while ((r = cudaStreamQuery(s1)) == cudaErrorNotReady) {
    }
    EXPECT_EQ(r, cudaSuccess);
  }
  EXPECT_EQ(cudaEventRecord(b, s2), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(b), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFreeHost(h);
  cudaFree(d);
  return static_cast<uint64_t>(static_cast<double>(ms) * 1e6 + 0.5);
}

TEST_F(HostTimelineTest, WorkStartsNoEarlierThanTheHostSubmittedIt) {
  // s2 is idle, so its second record runs when the host gets to it: after the copy's 2.3 us
  // and its own 1.4 us of host time, not 100 ns (a fetch) after the first.
  EXPECT_EQ(record_copy_record(Wait::None), 2300u + 1400u);
}

TEST_F(HostTimelineTest, WorkSubmittedAfterAWaitIsHeldToTheWait) {
  // The host waited for the copy (2.3 us of host time to submit it, then ce0's 2.4 us + 8 MiB
  // at 55 GB/s); the record after the wait is 1.4 us later still, on s2, which the copy never
  // touched. The second run gives the same.
  const uint64_t copy_ns = 2400 + 152520;
  EXPECT_EQ(record_copy_record(Wait::Synchronize), 2300u + copy_ns + 1400u);
  EXPECT_EQ(record_copy_record(Wait::Synchronize), record_copy_record(Wait::Synchronize));
}

// A query that finds the work done has seen it finish: the same as a wait. (How many queries
// found it busy first depends on the host's speed; the times do not.)
TEST_F(HostTimelineTest, AQueryThatFindsTheWorkDoneMovesTheClockAsAWait) {
  EXPECT_EQ(record_copy_record(Wait::Query), 2300u + 2400u + 152520u + 1400u);
}

// What h200_timing.cu measured: events around one 4 KiB pinned copy on an idle stream. The
// host's 2.3 us to submit the copy is inside the interval; the model's total is within 2% of
// the H200's 4.832 us (to the GPU) and 3.696 us (back).
TEST_F(HostTimelineTest, EventTimedSmallCopiesTakeWhatTheH200Took) {
  void *d = nullptr, *h = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  auto timed = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    EXPECT_EQ(cudaEventRecord(start, s), cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(dst, src, 4096, kind, s), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(stop, s), cudaSuccess);
    EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
    float ms = -1;
    EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
    return static_cast<uint64_t>(static_cast<double>(ms) * 1e6 + 0.5);
  };
  // The host's 2.3 us, the copy's fixed cost, 4096 B at 55 B/ns (74 ns), the stop's fetch.
  EXPECT_EQ(timed(d, h, cudaMemcpyHostToDevice), 2300u + 2400u + 74u + 100u);
  EXPECT_EQ(timed(h, d, cudaMemcpyDeviceToHost), 2300u + 1300u + 74u + 100u);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s);
  cudaFreeHost(h);
  cudaFree(d);
}

TEST_F(HostTimelineTest, PageableCopiesCountTheCpuStagingOnTheHost) {
  std::vector<unsigned char> pageable(4 << 20, 7);
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, pageable.size()), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpy(d, pageable.data(), pageable.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(pageable.data(), d, pageable.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  // Two pieces of 2 MiB, each: the CPU's memcpy (2097152 B at 8.55 B/ns), then the copy
  // engine's (ce0: 2.4 us + 2097152 B at 55 B/ns), waited for. Plus the call's 2.3 us.
  EXPECT_EQ(host_duration(rec, "cudaMemcpy(dst="), 2300u + 2 * (245281u + 2400u + 38130u));
  // Back: ce1's piece (1.3 us + 2097152 B at 55 B/ns) first, then the CPU's memcpy out of the
  // staging buffer (2097152 B at 13.13 B/ns).
  EXPECT_EQ(host_duration(rec, "cudaMemcpy(dst=", 1), 2300u + 2 * (1300u + 38130u + 159722u));
  cudaFree(d);
}

}  // namespace
}  // namespace minicuda::testing
