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

// A stream, an asynchronous copy from pinned memory, two events around it: the copy and the
// events are queued (an event is a timestamped semaphore release), the synchronize waits.
TEST(GoldenCopy, StreamAsyncCopyAndEvents) {
  FreshProcess p;
  void* d = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 65536), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 65536), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);  // its channel: see StreamCreate
  trace::Recorder rec;
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d, pinned, 65536, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  golden::expect_golden("stream_async_copy_events", golden::normalise(rec.tree(), p.windows(d)));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
  cudaFree(d);
}

// cudaStreamWaitEvent between two streams: the waiting stream's channel acquires the fence
// semaphore of the channel the event was recorded on (no system call, no host wait).
TEST(GoldenCopy, StreamWaitEvent) {
  FreshProcess p;
  void* d = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 65536), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 65536), cudaSuccess);
  cudaStream_t s1, s2;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t copied;
  ASSERT_EQ(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpyAsync(d, pinned, 65536, cudaMemcpyHostToDevice, s1), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(copied, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, copied, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d, 65536, cudaMemcpyDeviceToHost, s2), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  golden::expect_golden("stream_wait_event", golden::normalise(rec.tree(), p.windows(d)));
  cudaEventDestroy(copied);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFreeHost(pinned);
  cudaFree(d);
}

// The legacy NULL stream's implicit synchronisation: a copy on the NULL stream waits for the
// blocking stream's queued copy, and the stream's next copy waits for the NULL stream's - each
// an acquire of the other channel's fence.
TEST(GoldenCopy, LegacyStreamImplicitSync) {
  FreshProcess p;
  char* d = nullptr;
  void* pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 131072), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 65536), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  trace::Recorder rec;
  ASSERT_EQ(cudaMemcpyAsync(d, pinned, 65536, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d + 65536, d, 65536, cudaMemcpyDeviceToDevice, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d + 65536, 65536, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(rec.texts(trace::Layer::Kernel).empty()) << rec.tree();
  golden::expect_golden("legacy_stream_implicit_sync", golden::normalise(rec.tree(), p.windows(d)));
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
  cudaFree(d);
}

