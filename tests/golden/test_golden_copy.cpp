// Golden traces of copies after set-up: cudaMemcpy host-to-device from pageable memory (through
// the pinned staging buffer) and from pinned memory (straight to the copy engine), and the
// copy back. The point students check: methods, a GPFIFO entry, GPPut and the doorbell, and not
// a single system call (chain_full.txt shows the same for the real stack). Also cudaMemset and
// cudaDeviceSynchronize.
#include <cuda_runtime.h>

#include <vector>

#include "golden.h"
#include "minicuda/kernel.h"
#include "minicuda/trace.h"

namespace trace = minicuda::trace;

using golden::FreshProcess;

TEST(GoldenCopy, CudaMemcpyFromPageableMemory) {
  FreshProcess p;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 65536), cudaSuccess);
  std::vector<int> host(16384, 7), back(16384, 0);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpy(d, host.data(), 65536, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), d, 65536, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[16383], 7);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  golden::expect_golden("cudamemcpy_pageable", golden::normalise(rec.tree(), p.windows(d)));
  cudaFree(d);
}

TEST(GoldenCopy, CudaMemcpyFromPinnedMemory) {
  FreshProcess p;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 65536), cudaSuccess);
  int* pinned = nullptr;
  ASSERT_EQ(cudaHostAlloc(&pinned, 65536, cudaHostAllocDefault), cudaSuccess);
  for (int i = 0; i < 16384; ++i) pinned[i] = i;
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpy(d, pinned, 65536, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  EXPECT_EQ(static_cast<int*>(d)[16383], 16383);
  golden::expect_golden("cudamemcpy_pinned", golden::normalise(rec.tree(), p.windows(d)));
  cudaFreeHost(pinned);
  cudaFree(d);
}

// cudaMemset returns once the work is queued; cudaDeviceSynchronize waits for the channel's
// last semaphore release. Neither makes a system call.
TEST(GoldenCopy, CudaMemsetThenDeviceSynchronize) {
  FreshProcess p;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 65536), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemset(d, 0x5a, 65536), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(static_cast<unsigned char*>(d)[65535], 0x5a);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  golden::expect_golden("cudamemset_synchronize", golden::normalise(rec.tree(), p.windows(d)));
  cudaFree(d);
}

// The first stream of a context: libcuda makes the pool channel it maps onto (channel group,
// context share, memory, GPFIFO channel, compute and copy objects, work-submit token: ioctls),
// then binds the engines with SET_OBJECT through the new channel. The second stream gets the
// next pool channel; a stream created once the pool is full shares one (no system call).
TEST(GoldenCopy, StreamCreate) {
  FreshProcess p;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
  trace::Recorder rec;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  golden::expect_golden("stream_create", golden::normalise(rec.tree(), p.windows(d)));
  cudaStreamDestroy(s);
  cudaFree(d);
}

// What the stream goldens start from: a fresh process with 128 KiB of device memory, 64 KiB of
// pinned memory and two streams (blocking unless `flags` says otherwise), made before recording
// (a stream's first use makes its channel: see StreamCreate).
struct StreamSetup {
  explicit StreamSetup(unsigned flags = cudaStreamDefault) {
    EXPECT_EQ(cudaMalloc(&d, 131072), cudaSuccess);
    EXPECT_EQ(cudaMallocHost(&pinned, 65536), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s1, flags), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s2, flags), cudaSuccess);
  }
  ~StreamSetup() {
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFreeHost(pinned);
    cudaFree(d);
  }
  // The recorded calls, normalised, compared with the golden file `name`; none was a syscall.
  void expect(const trace::Recorder& rec, const char* name) {
    EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
    golden::expect_golden(name, golden::normalise(rec.tree(), p.windows(d)));
  }
  FreshProcess p;
  char* d = nullptr;
  void* pinned = nullptr;
  cudaStream_t s1 = nullptr, s2 = nullptr;
};

// A stream, an asynchronous copy from pinned memory, two events around it: the copy and the
// events are queued (an event is a timestamped semaphore release), the synchronize waits.
TEST(GoldenCopy, StreamAsyncCopyAndEvents) {
  StreamSetup t;
  trace::Recorder rec;
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, t.s1), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(t.d, t.pinned, 65536, cudaMemcpyHostToDevice, t.s1), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, t.s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(t.s1), cudaSuccess);
  t.expect(rec, "stream_async_copy_events");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// cudaStreamWaitEvent between two streams: the waiting stream's channel acquires the fence
// semaphore of the channel the event was recorded on (no system call, no host wait).
TEST(GoldenCopy, StreamWaitEvent) {
  StreamSetup t(cudaStreamNonBlocking);
  cudaEvent_t copied;
  ASSERT_EQ(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpyAsync(t.d, t.pinned, 65536, cudaMemcpyHostToDevice, t.s1), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(copied, t.s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(t.s2, copied, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(t.pinned, t.d, 65536, cudaMemcpyDeviceToHost, t.s2), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(t.s2), cudaSuccess);
  t.expect(rec, "stream_wait_event");
  cudaEventDestroy(copied);
}

// The legacy NULL stream's implicit synchronisation: a copy on the NULL stream waits for the
// blocking stream's queued copy, and the stream's next copy waits for the NULL stream's - each
// an acquire of the other channel's fence.
TEST(GoldenCopy, LegacyStreamImplicitSync) {
  StreamSetup t;
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpyAsync(t.d, t.pinned, 65536, cudaMemcpyHostToDevice, t.s1), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(t.d + 65536, t.d, 65536, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(t.pinned, t.d + 65536, 65536, cudaMemcpyDeviceToHost, t.s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(t.s1), cudaSuccess);
  t.expect(rec, "legacy_stream_implicit_sync");
}

