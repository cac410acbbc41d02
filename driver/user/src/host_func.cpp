// Host functions: cuLaunchHostFunc and cuStreamAddCallback.
//
// A host function is work of a stream that the CPU does. libcuda queues it for a thread of its
// own (one per context, made at the first host function) and makes the stream's later work wait
// for it on the GPU: an acquire of the channel's host-function semaphore (>= the function's
// number) goes into the pushbuffer right away. The thread waits until the GPU has done the
// stream's earlier work (the fence submitted before the acquire), runs the function, then
// releases the semaphore from the CPU - the PBDMA, which retries channels waiting at an acquire,
// goes on. No system call on either side. Measured on an H200 (docs/data/h200_streams_probe.txt):
// the function sees the earlier work's results, a stream waiting behind it answers
// cuStreamQuery with CUDA_ERROR_NOT_READY, and a NULL fn/callback or callback flags other than
// 0 are CUDA_ERROR_INVALID_VALUE.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <thread>

#include "channel.h"
#include "host_clock.h"
#include "libcuda.h"
#include "prebuilt.h"

namespace minicuda::libcuda {

namespace {
thread_local bool t_in_host_function = false;
}  // namespace

bool in_host_function() { return t_in_host_function; }

class HostFunctions {
 public:
  struct Job {
    Channel* channel = nullptr;  // the stream's
    uint64_t after = 0;       // the fence of the stream's earlier work on it
    uint64_t number = 0;      // released on the host-function semaphore when done
    CUhostFn fn = nullptr;    // cuLaunchHostFunc, or
    CUstreamCallback callback = nullptr;  // cuStreamAddCallback
    CUstream stream = nullptr;
    void* data = nullptr;
  };

  HostFunctions() : thread_([this] { loop(); }) {}
  ~HostFunctions() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  // The number the next function's acquire waits for.
  uint64_t next_number() { return ++numbered_; }
  void queue(Job job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(job);
    }
    wake_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping, and every queued function has run
        job = jobs_.front();
        jobs_.pop_front();
      }
      auto sleep = std::chrono::microseconds(1);
      Channel& channel = *job.channel;
      while (!channel.reached_or_faulted(job.after)) {
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, std::chrono::microseconds(200));
      }
      const CUresult status = channel.faulted() ? channel.fault_result() : CUDA_SUCCESS;
      // This thread waited for the stream's earlier work: its host clock is at least then.
      if (status == CUDA_SUCCESS) host_clock::reach(channel.fence_time(job.after));
      t_in_host_function = true;
      if (job.callback != nullptr) {
        job.callback(job.stream, status, job.data);  // told of an error
      } else if (status == CUDA_SUCCESS) {
        job.fn(job.data);  // not called after one
      }
      t_in_host_function = false;
      channel.release_host(job.number);
    }
  }

  uint64_t numbered_ = 0;  // guarded by the driver lock (only cu* calls number functions)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::thread thread_;  // last: it starts running at construction
};

void stop_host_functions(CUctx_st& ctx) {
  delete ctx.host_functions;  // runs what is queued first
  ctx.host_functions = nullptr;
}

namespace {

// Queues job on hStream (mode: what hStream 0 means): the acquire that holds the stream's later
// work, then the function.
CUresult queue_host_work(trace::Scope& scope, CUstream hStream, DefaultStream mode, HostFunctions::Job job) {
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  Channel& ch = channel_of(*ctx, s);
  if (CUresult r = prebuilt::refuse_if_recording(ch, "a host function"); r != CUDA_SUCCESS) return done(scope, r);
  if (ctx->host_functions == nullptr) ctx->host_functions = new HostFunctions;
  order_with_null_stream(*ctx, s);
  job.channel = &ch;
  job.after = ch.submit();  // the stream's earlier work, and the NULL stream's rule's acquires
  job.number = ctx->host_functions->next_number();
  trace::note(trace::Layer::Libcuda,
              "host function {}: runs on libcuda's host-function thread after fence {}; the stream's later work "
              "waits on the GPU (semaphore acquire >= {})",
              job.number, job.after, job.number);
  ch.acquire_host(job.number);
  submitted(s, ch.submit());
  ctx->host_functions->queue(job);
  return done(scope, CUDA_SUCCESS);
}

// cuLaunchHostFunc and its _ptsz twin (api: the entry point's name in the trace).
CUresult launch_host_func(const char* api, DefaultStream mode, CUstream hStream, CUhostFn fn, void* userData) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={}, fn={}, userData={})", api, static_cast<void*>(hStream),
                     reinterpret_cast<void*>(fn), userData);
  if (fn == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  HostFunctions::Job job;
  job.fn = fn;
  job.data = userData;
  return queue_host_work(scope, hStream, mode, job);
}

// cuStreamAddCallback and its _ptsz twin. The callback is told the handle it was given (0 stays 0).
CUresult add_callback(const char* api, DefaultStream mode, CUstream hStream, CUstreamCallback callback, void* userData,
                      unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={}, callback={}, userData={}, flags={})", api,
                     static_cast<void*>(hStream), reinterpret_cast<void*>(callback), userData, flags);
  if (callback == nullptr || flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  HostFunctions::Job job;
  job.callback = callback;
  job.stream = hStream;
  job.data = userData;
  return queue_host_work(scope, hStream, mode, job);
}

}  // namespace

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: queues fn(userData) on hStream (see the top of this file). fn NULL:
// CUDA_ERROR_INVALID_VALUE; unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  return launch_host_func("cuLaunchHostFunc", DefaultStream::Legacy, hStream, fn, userData);
}
// Contract: as cuLaunchHostFunc; hStream 0 is this thread's per-thread stream.
CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void* userData) {
  return launch_host_func("cuLaunchHostFunc_ptsz", DefaultStream::PerThread, hStream, fn, userData);
}

// Contract: queues callback(hStream, status, userData) on hStream; status is the context's error
// if the GPU faulted first. callback NULL or flags != 0: CUDA_ERROR_INVALID_VALUE; unknown
// stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags) {
  return add_callback("cuStreamAddCallback", DefaultStream::Legacy, hStream, callback, userData, flags);
}
// Contract: as cuStreamAddCallback; hStream 0 is this thread's per-thread stream.
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags) {
  return add_callback("cuStreamAddCallback_ptsz", DefaultStream::PerThread, hStream, callback, userData, flags);
}
