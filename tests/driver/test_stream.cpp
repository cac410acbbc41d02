// Streams and events (driver/user/src/stream.cpp) and the *Async copies: handles and their errors,
// ordering within and across streams, what waits and what does not, events as timestamped
// semaphore releases, and no system call for any of it.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

constexpr size_t kMiB = 1 << 20;

class StreamTest : public Ready {
 protected:
  CUdeviceptr alloc(size_t n) {
    CUdeviceptr d = 0;
    EXPECT_EQ(cuMemAlloc_v2(&d, n), CUDA_SUCCESS);
    return d;
  }
  void* pinned(size_t n) {
    void* p = nullptr;
    EXPECT_EQ(cuMemHostAlloc(&p, n, 0), CUDA_SUCCESS);
    return p;
  }
};

TEST_F(StreamTest, HandlesAndTheirErrors) {
  CUstream s = nullptr;
  EXPECT_EQ(cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamCreate(&s, 0x10), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);  // nothing queued
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  for (CUstream null_stream : {static_cast<CUstream>(nullptr), CU_STREAM_LEGACY, CU_STREAM_PER_THREAD}) {
    EXPECT_EQ(cuStreamSynchronize(null_stream), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamQuery(null_stream), CUDA_SUCCESS);
  }
  EXPECT_EQ(cuStreamDestroy_v2(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);  // never dereferenced: looked up
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
  CUdeviceptr d = alloc(256);
  EXPECT_EQ(cuMemsetD8Async(d, 1, 256, s), CUDA_ERROR_INVALID_HANDLE);

  CUevent e = nullptr;
  EXPECT_EQ(cuEventCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuEventCreate(&e, 0x8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);  // must not time
  EXPECT_EQ(cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(cuEventCreate(&e, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(e), CUDA_SUCCESS);        // never recorded
  EXPECT_EQ(cuEventSynchronize(e), CUDA_SUCCESS);  // never recorded
  float ms = 0;
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, e, e), CUDA_ERROR_INVALID_HANDLE);  // never recorded
  ASSERT_EQ(cuEventRecord(e, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuEventSynchronize(e), CUDA_SUCCESS);
  // The driver answers a NULL result pointer with INVALID_HANDLE (probe_bad_input.txt).
  EXPECT_EQ(cuEventElapsedTime_v2(nullptr, e, e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, e, e), CUDA_SUCCESS);
  EXPECT_EQ(ms, 0.0f);
  EXPECT_EQ(cuEventRecord(e, s), CUDA_ERROR_INVALID_HANDLE);  // the destroyed stream
  EXPECT_EQ(cuEventDestroy_v2(e), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventRecord(e, nullptr), CUDA_ERROR_INVALID_HANDLE);

  CUevent untimed = nullptr, timed = nullptr;
  ASSERT_EQ(cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING) | cuEventCreate(&timed, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(untimed, nullptr) | cuEventRecord(timed, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(timed), CUDA_SUCCESS);
  EXPECT_EQ(cuEventElapsedTime_v2(&ms, untimed, timed), CUDA_ERROR_INVALID_HANDLE);
}

// Work on one stream runs in order; async copies between device and pinned memory return
// before the engine has run; the stream's synchronize waits for exactly that.
TEST_F(StreamTest, AsyncCopiesRunInStreamOrder) {
  constexpr size_t n = 8 * kMiB;
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  CUdeviceptr a = alloc(n), b = alloc(n);
  auto* in = static_cast<uint8_t*>(pinned(n));
  auto* out = static_cast<uint8_t*>(pinned(n));
  for (int round = 0; round < 4; ++round) {
    std::memset(in, 0x30 + round, n);
    std::memset(out, 0, n);
    ASSERT_EQ(cuMemcpyHtoDAsync_v2(a, in, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8Async(b, 0x7F, 16, s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoHAsync_v2(out, b, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);
    EXPECT_EQ(out[0], 0x7F);
    EXPECT_EQ(out[15], 0x7F);
    EXPECT_EQ(out[16], 0x30 + round);
    EXPECT_EQ(out[n - 1], 0x30 + round);
  }
  // cuMemcpyAsync infers the direction from the pointers; pageable memory is staged (and waited for).
  std::vector<uint8_t> pageable(4096, 0);
  ASSERT_EQ(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(pageable.data()), a, 4096, s), CUDA_SUCCESS);
  EXPECT_EQ(pageable[4095], 0x33);  // no synchronize needed
  EXPECT_EQ(cuMemcpyHtoDAsync_v2(0, in, 16, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoHAsync_v2(out, a + n - 8, 16, s), CUDA_ERROR_INVALID_VALUE);  // past the end
  EXPECT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

// An async copy from pinned memory does not wait: right after the call the stream can be
// seen busy (a 64 MiB copy takes milliseconds), and its event not yet complete.
TEST_F(StreamTest, AsyncReturnsBeforeTheWorkIsDone) {
  constexpr size_t n = 64 * kMiB;
  CUstream s = nullptr;
  CUevent done_event = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0) | cuEventCreate(&done_event, 0), CUDA_SUCCESS);
  CUdeviceptr d = alloc(n);
  void* host = pinned(n);
  bool seen_busy = false;
  for (int round = 0; round < 5 && !seen_busy; ++round) {
    ASSERT_EQ(cuMemcpyHtoDAsync_v2(d, host, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuEventRecord(done_event, s), CUDA_SUCCESS);
    CUresult q = cuStreamQuery(s);
    CUresult e = cuEventQuery(done_event);
    EXPECT_TRUE(q == CUDA_SUCCESS || q == CUDA_ERROR_NOT_READY);
    seen_busy = q == CUDA_ERROR_NOT_READY && e == CUDA_ERROR_NOT_READY;
    ASSERT_EQ(cuEventSynchronize(done_event), CUDA_SUCCESS);
    EXPECT_EQ(cuEventQuery(done_event), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);
  }
  EXPECT_TRUE(seen_busy);
}

// Events measure GPU time: two records around a copy are as far apart as the simulated copy
// engine took; records in submission order have non-decreasing timestamps.
TEST_F(StreamTest, ElapsedTimeIsGpuTimeBetweenRecords) {
  constexpr size_t n = 16 * kMiB;
  CUstream s = nullptr;
  CUevent start = nullptr, stop = nullptr, later = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&start, 0) | cuEventCreate(&stop, 0) | cuEventCreate(&later, 0), CUDA_SUCCESS);
  CUdeviceptr a = alloc(n), b = alloc(n);
  ASSERT_EQ(cuEventRecord(start, s), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, n, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(stop, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(later, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(later), CUDA_SUCCESS);
  float copy_ms = -1, back_ms = 0, rest_ms = -1;
  ASSERT_EQ(cuEventElapsedTime_v2(&copy_ms, start, stop), CUDA_SUCCESS);
  ASSERT_EQ(cuEventElapsedTime_v2(&back_ms, stop, start), CUDA_SUCCESS);
  ASSERT_EQ(cuEventElapsedTime_v2(&rest_ms, stop, later), CUDA_SUCCESS);
  EXPECT_GT(copy_ms, 0.0f);  // the copy engine's simulated time for 16 MiB
  EXPECT_EQ(back_ms, -copy_ms);
  EXPECT_GE(rest_ms, 0.0f);
  // A pending record: not ready, then ready.
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, n, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(stop, s), CUDA_SUCCESS);
  CUresult r = cuEventElapsedTime_v2(&copy_ms, start, stop);
  EXPECT_TRUE(r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(cuEventElapsedTime_v2(&copy_ms, start, stop), CUDA_SUCCESS);
}

// One stream waits for an event of another: the copy queued after the wait sees the first
// stream's work (trivially, on one channel; the test pins the result, not the mechanism).
TEST_F(StreamTest, WaitEventOrdersAcrossStreams) {
  constexpr size_t n = 16 * kMiB;
  CUstream producer = nullptr, consumer = nullptr;
  CUevent ready = nullptr;
  ASSERT_EQ(cuStreamCreate(&producer, CU_STREAM_NON_BLOCKING) | cuStreamCreate(&consumer, CU_STREAM_NON_BLOCKING),
            CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&ready, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamWaitEvent(consumer, ready, 0), CUDA_SUCCESS);  // never recorded: nothing to wait for
  CUdeviceptr a = alloc(n), b = alloc(n);
  auto* out = static_cast<uint8_t*>(pinned(n));
  ASSERT_EQ(cuMemsetD8Async(a, 0x5D, n, producer), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(ready, producer), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(consumer, ready, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, n, consumer), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync_v2(out, b, n, consumer), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(consumer), CUDA_SUCCESS);
  EXPECT_EQ(out[0], 0x5D);
  EXPECT_EQ(out[n - 1], 0x5D);
  EXPECT_EQ(cuStreamWaitEvent(consumer, ready, 0xff), CUDA_ERROR_INVALID_VALUE);  // drv.streamWaitEvent.bad_flags
  // CU_EVENT_WAIT_EXTERNAL outside a capture (probe_api_families.txt drv.streamWaitEvent.external).
  EXPECT_EQ(cuStreamWaitEvent(consumer, ready, CU_EVENT_WAIT_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cuStreamWaitEvent(consumer, nullptr, 0), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuStreamDestroy_v2(producer), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamWaitEvent(producer, ready, 0), CUDA_ERROR_INVALID_HANDLE);
}

// cuMemFreeHost waits for queued work that may still use the pages: the context stays healthy.
TEST_F(StreamTest, FreeHostWaitsForAQueuedAsyncCopy) {
  constexpr size_t n = 32 * kMiB;
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  CUdeviceptr d = alloc(n);
  for (int round = 0; round < 3; ++round) {
    void* host = pinned(n);
    ASSERT_EQ(cuMemsetD8Async(d, 1, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoHAsync_v2(host, d, n, s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemFreeHost(host), CUDA_SUCCESS);
    EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);  // no fault: the free waited
  }
}

TEST_F(StreamTest, NoSystemCalls) {
  CUdeviceptr d = alloc(4096);
  void* host = pinned(4096);
  // The first stream makes its pool channel: RM objects, so ioctls (the real first cuStreamCreate
  // makes some too). Everything after is memory only.
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  trace::Recorder rec;
  CUevent e = nullptr;
  ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoDAsync_v2(d, host, 4096, s) | cuEventRecord(e, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(e) | cuStreamSynchronize(s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(e) | cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(syscalls(rec), 0u) << rec.tree();
}

// The H200 holds 100000 live events in one context, and each records and times
// (tests/data/h200/events/probe_events.txt). Here the first 254 use the context channel's
// semaphore page and the rest pages of their own: 10000 events reach the third page.
TEST_F(StreamTest, TenThousandLiveEventsRecordAndTime) {
  constexpr int kEvents = 10000;
  std::vector<CUevent> events(kEvents);
  for (CUevent& e : events) ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  CUstream s = nullptr;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  CUdeviceptr a = alloc(kMiB), b = alloc(kMiB);
  for (int i = 0; i < kEvents; ++i) {
    if (i % 1000 == 0) {
      ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, kMiB, s), CUDA_SUCCESS);
    }
    ASSERT_EQ(cuEventRecord(events[i], i % 2 == 1 ? s : nullptr), CUDA_SUCCESS);
  }
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  int complete = 0;
  for (CUevent e : events) complete += cuEventQuery(e) == CUDA_SUCCESS;
  EXPECT_EQ(complete, kEvents);
  // Each event has a semaphore of its own: the records follow one another (the streams are
  // ordered with the legacy one, and each record is stamped 1.4 us of host time after the last),
  // so every event's time is later than the one before, across the pages too. Except after a
  // copy, which the GPU finishes after the host has stamped the next two records: the second
  // (legacy) waits for the first, and host methods take no time.
  int wrong = 0;
  double total = 0;
  for (int i = 0; i + 1 < kEvents; ++i) {
    float ms = -1;
    ASSERT_EQ(cuEventElapsedTime_v2(&ms, events[i], events[i + 1]), CUDA_SUCCESS);
    wrong += i % 1000 == 1 ? ms != 0.0f : !(ms > 0.0f);
    total += ms;
  }
  EXPECT_EQ(wrong, 0);
  float ms = -1;
  ASSERT_EQ(cuEventElapsedTime_v2(&ms, events[0], events[kEvents - 1]), CUDA_SUCCESS);
  EXPECT_NEAR(ms, total, 1e-3 * total);
  // A destroyed event's semaphore goes to the next event made.
  ASSERT_EQ(cuEventDestroy_v2(events[7]), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&events[7], 0), CUDA_SUCCESS);
  EXPECT_EQ(cuEventRecord(events[7], nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuEventSynchronize(events[7]), CUDA_SUCCESS);
  for (CUevent e : events) ASSERT_EQ(cuEventDestroy_v2(e), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(a) | cuMemFree_v2(b), CUDA_SUCCESS);
}

// An event destroyed while its record is still queued keeps its semaphore until the GPU has
// passed the record: the next event made must not take it, or the late record would write its
// time over the new event's.
TEST_F(StreamTest, ADestroyedEventsQueuedRecordDoesNotTimeTheNextEvent) {
  constexpr size_t n = 64 * kMiB;
  CUstream slow = nullptr, fast = nullptr;
  ASSERT_EQ(cuStreamCreate(&slow, CU_STREAM_NON_BLOCKING) | cuStreamCreate(&fast, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr a = alloc(n), b = alloc(n);
  CUevent late = nullptr, first = nullptr, second = nullptr;
  ASSERT_EQ(cuEventCreate(&late, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoDAsync_v2(b, a, n, slow), CUDA_SUCCESS);  // the record waits behind 64 MiB
  ASSERT_EQ(cuEventRecord(late, slow), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(late), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&first, 0) | cuEventCreate(&second, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(first, fast), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(second, fast), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  float ms = -1;
  ASSERT_EQ(cuEventElapsedTime_v2(&ms, first, second), CUDA_SUCCESS);
  EXPECT_GT(ms, 0.0f);     // the second record, 1.4 us of host time later
  EXPECT_LT(ms, 0.01f);    // and not the copy's time after the first
  // Once the GPU has passed it, the slot is taken again: a new event times as any.
  CUevent third = nullptr;
  ASSERT_EQ(cuEventCreate(&third, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(third, fast), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(third), CUDA_SUCCESS);
  ASSERT_EQ(cuEventElapsedTime_v2(&ms, second, third), CUDA_SUCCESS);
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(cuEventDestroy_v2(first) | cuEventDestroy_v2(second) | cuEventDestroy_v2(third), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy_v2(slow) | cuStreamDestroy_v2(fast), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(a) | cuMemFree_v2(b), CUDA_SUCCESS);
}

// The _ptsz twins (what cuda.h maps the plain names to under CUDA_API_PER_THREAD_DEFAULT_STREAM),
// called by name: hStream 0 is this thread's per-thread stream, which is not ordered behind
// another blocking stream, held here by a host function; the trace names the twins.
void CUDA_CB hold_until(void* release) {
  while (!static_cast<std::atomic<bool>*>(release)->load()) std::this_thread::yield();
}

TEST_F(StreamTest, PtszCallsTakeStreamZeroAsThePerThreadStream) {
  CUdeviceptr d = alloc(kMiB);
  void* h = pinned(kMiB);
  std::memset(h, 0x5a, kMiB);
  CUstream held = nullptr;
  ASSERT_EQ(cuStreamCreate(&held, CU_STREAM_DEFAULT), CUDA_SUCCESS);
  std::atomic<bool> release{false};
  ASSERT_EQ(cuLaunchHostFunc(held, hold_until, &release), CUDA_SUCCESS);
  trace::Recorder recorder;
  ASSERT_EQ(cuMemcpyHtoDAsync_v2_ptsz(d, h, kMiB, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize_ptsz(nullptr), CUDA_SUCCESS);  // returns: the held stream is not in its way
  EXPECT_FALSE(release.load());
  EXPECT_EQ(cuStreamQuery(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);  // plain: the legacy stream sees the held one
  release = true;
  EXPECT_EQ(cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  std::vector<unsigned char> back(kMiB);
  ASSERT_EQ(cuMemcpyDtoH_v2(back.data(), d, kMiB), CUDA_SUCCESS);
  EXPECT_EQ(back[0], 0x5a);
  EXPECT_EQ(back[kMiB - 1], 0x5a);
  const std::vector<std::string> calls = recorder.texts(trace::Layer::Libcuda);
  auto saw = [&](const std::string& prefix) {
    return std::any_of(calls.begin(), calls.end(), [&](const std::string& t) { return t.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(saw("cuMemcpyHtoDAsync_v2_ptsz(dstDevice="));
  EXPECT_TRUE(saw("cuStreamSynchronize_ptsz(hStream="));
  EXPECT_TRUE(saw("cuStreamQuery(hStream="));
  EXPECT_EQ(cuStreamDestroy_v2(held), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
