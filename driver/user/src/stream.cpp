// Streams and events (cuStream*, cuEvent*).
//
// A stream maps onto a channel of the context's pool (channels.cpp), so streams run
// independently on the GPU and overlap; the NULL stream's rule and cuStreamWaitEvent are
// semaphore acquires between channels. A stream remembers its channel and the fence of its last
// work, so cuStreamSynchronize waits for that work alone.
//
// An event is what the real driver makes of one: a semaphore release with a GPU timestamp,
// queued after the stream's earlier work (wait-for-idle). cuEventElapsedTime subtracts two of
// those timestamps - the simulated GPU's clock, not the host's. Creating, recording and
// querying make no system call.
#include <algorithm>
#include <optional>

#include "channel.h"
#include "mempool.h"
#include "host_clock.h"
#include "libcuda.h"
#include "prebuilt.h"

namespace minicuda::libcuda {

namespace {

// A live event of ctx, or nullptr.
CUevent_st* find_event(CUctx_st& ctx, CUevent hEvent) {
  return ctx.events.count(hEvent) ? hEvent : nullptr;
}

// A live event of any active context of this process (cuStreamWaitEvent may name another
// context's or device's event), or nullptr.
CUevent_st* find_any_event(CUevent hEvent) {
  Driver& d = driver();
  for (CUcontext c : d.primary)
    if (c->active && c->events.count(hEvent) != 0) return hEvent;
  for (CUcontext c : d.created)
    if (c->active && c->events.count(hEvent) != 0) return hEvent;
  return nullptr;
}

}  // namespace

CUresult resolve_stream(CUctx_st& ctx, CUstream hStream, CUstream_st** out, DefaultStream mode) {
  if (hStream == nullptr && mode == DefaultStream::PerThread) hStream = CU_STREAM_PER_THREAD;
  if (hStream == nullptr || hStream == CU_STREAM_LEGACY) {
    *out = nullptr;
    return CUDA_SUCCESS;
  }
  if (hStream == CU_STREAM_PER_THREAD) {
    // A blocking stream of this thread's own: ordered with the legacy stream (both ways), not
    // with other streams - CUDA's per-thread default stream.
    CUstream_st*& mine = ctx.per_thread_streams[std::this_thread::get_id()];
    if (mine == nullptr) {
      auto* s = new CUstream_st;
      s->ctx = &ctx;
      if (CUresult r = assign_channel(ctx, *s); r != CUDA_SUCCESS) {
        delete s;
        ctx.per_thread_streams.erase(std::this_thread::get_id());
        return r;
      }
      trace::note(trace::Layer::Libcuda, "per-thread default stream of this thread: made now");
      ctx.streams.insert(s);
      mine = s;
    }
    *out = mine;
    return CUDA_SUCCESS;
  }
  if (!ctx.streams.count(hStream)) return CUDA_ERROR_INVALID_HANDLE;
  *out = hStream;
  return CUDA_SUCCESS;
}

void free_streams_and_events(CUctx_st& ctx) {
  for (CUstream_st* s : ctx.streams) delete s;
  for (CUevent_st* e : ctx.events) delete e;
  ctx.streams.clear();
  ctx.events.clear();
  ctx.per_thread_streams.clear();
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

namespace {

// The H200's stream priorities (docs/data/h200_streams_probe.txt): 0 (least) to -5 (greatest).
constexpr int kLeastPriority = 0, kGreatestPriority = -5;

CUresult create_stream(CUctx_st& ctx, CUstream* phStream, unsigned flags, int priority) {
  if (phStream == nullptr || (flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)) != 0) return CUDA_ERROR_INVALID_VALUE;
  auto* s = new CUstream_st;
  s->ctx = &ctx;
  s->flags = flags;
  s->priority = std::clamp(priority, kGreatestPriority, kLeastPriority);  // clamped, as CUDA does
  if (CUresult r = assign_channel(ctx, *s); r != CUDA_SUCCESS) {
    delete s;
    return r;
  }
  ctx.streams.insert(s);
  *phStream = s;
  return CUDA_SUCCESS;
}

}  // namespace

// Contract: *phStream = a new stream of the current context. Flags other than CU_STREAM_DEFAULT
// and CU_STREAM_NON_BLOCKING, or phStream NULL: CUDA_ERROR_INVALID_VALUE.
CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamCreate(phStream={}, Flags={})", static_cast<void*>(phStream), Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, create_stream(*ctx, phStream, Flags, kLeastPriority));
}

// Contract: as cuStreamCreate, with a priority clamped into cuCtxGetStreamPriorityRange's range.
// The priority is kept and reported; the simulated GPU has one runlist, so it orders nothing.
CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamCreateWithPriority(phStream={}, flags={}, priority={})",
                     static_cast<void*>(phStream), flags, priority);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  return done(scope, create_stream(*ctx, phStream, flags, priority));
}

namespace {
// cuStreamGetPriority and its _ptsz twin: api names the entry point in the trace, mode what
// hStream 0 means. The same pattern for every stream-ordered call below.
CUresult stream_get_priority(const char* api, DefaultStream mode, CUstream hStream, int* priority) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={}, priority={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(priority));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (priority == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  *priority = s ? s->priority : 0;
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: *priority = the stream's priority (the NULL stream's: 0). priority NULL:
// CUDA_ERROR_INVALID_VALUE; unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  return stream_get_priority("cuStreamGetPriority", DefaultStream::Legacy, hStream, priority);
}
// Contract: as cuStreamGetPriority; hStream 0 is this thread's per-thread stream.
CUresult cuStreamGetPriority_ptsz(CUstream hStream, int* priority) {
  return stream_get_priority("cuStreamGetPriority_ptsz", DefaultStream::PerThread, hStream, priority);
}

namespace {
CUresult stream_get_flags(const char* api, DefaultStream mode, CUstream hStream, unsigned int* flags) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={}, flags={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(flags));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (flags == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  *flags = s ? s->flags : static_cast<unsigned>(CU_STREAM_DEFAULT);
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: *flags = the stream's flags (the NULL stream's: CU_STREAM_DEFAULT). flags NULL:
// CUDA_ERROR_INVALID_VALUE; unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return stream_get_flags("cuStreamGetFlags", DefaultStream::Legacy, hStream, flags);
}
// Contract: as cuStreamGetFlags; hStream 0 is this thread's per-thread stream.
CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int* flags) {
  return stream_get_flags("cuStreamGetFlags_ptsz", DefaultStream::PerThread, hStream, flags);
}

// Contract: the range of stream priorities: *leastPriority = 0, *greatestPriority = -5 (the
// H200's). Either pointer may be NULL (not written).
CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  trace::Scope scope(trace::Layer::Libcuda, "cuCtxGetStreamPriorityRange(leastPriority={}, greatestPriority={})",
                     static_cast<void*>(leastPriority), static_cast<void*>(greatestPriority));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (leastPriority != nullptr) *leastPriority = kLeastPriority;
  if (greatestPriority != nullptr) *greatestPriority = kGreatestPriority;
  return done(scope, CUDA_SUCCESS);
}

// Contract: destroys hStream, a stream of the current context or of another live one (a stream
// knows its context: the runtime destroys a stream of another device whatever device is
// current); work already queued on it still runs. No live stream (the NULL stream included):
// CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamDestroy_v2(CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamDestroy_v2(hStream={})", static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUctx_st* owner = ctx->streams.count(hStream) != 0 ? ctx : nullptr;
  Driver& d = driver();
  for (CUcontext c : d.primary)
    if (owner == nullptr && c->active && c->streams.count(hStream) != 0) owner = c;
  for (CUcontext c : d.created)
    if (owner == nullptr && c->active && c->streams.count(hStream) != 0) owner = c;
  if (owner == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (owner != ctx) trace::note(trace::Layer::Libcuda, "a stream of device {}'s context", owner->device);
  owner->streams.erase(hStream);
  delete hStream;
  return done(scope, CUDA_SUCCESS);
}

namespace {
CUresult stream_synchronize(const char* api, DefaultStream mode, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={})", api, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUresult r = s ? s->channel->wait(s->last_fence) : wait_all(*ctx);
  if (r == CUDA_SUCCESS) mempool_synchronized(*ctx);  // pools release above their threshold
  return done(scope, *ctx, r);
}
}  // namespace

// Contract: waits for the stream's work (the NULL stream: all work of the context, every
// channel's); this thread's host clock moves on to when it completed. An error the work met:
// CUDA_ERROR_ILLEGAL_ADDRESS (sticky). Unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamSynchronize(CUstream hStream) {
  return stream_synchronize("cuStreamSynchronize", DefaultStream::Legacy, hStream);
}
// Contract: as cuStreamSynchronize; hStream 0 is this thread's per-thread stream, whose work
// alone it waits for.
CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  return stream_synchronize("cuStreamSynchronize_ptsz", DefaultStream::PerThread, hStream);
}

namespace {
CUresult stream_query(const char* api, DefaultStream mode, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={})", api, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  if (Channel* faulted = faulted_channel(*ctx)) return done(scope, *ctx, faulted->fault_result());
  if (s != nullptr) return done(scope, *ctx, s->channel->query(s->last_fence) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
  bool idle = ctx->channel->reached(ctx->channel->last_fence());
  for (Channel* ch : ctx->stream_channels) idle = idle && ch->reached(ch->last_fence());
  if (!idle) return done(scope, *ctx, CUDA_ERROR_NOT_READY);  // the host saw nothing finish: its clock stays
  // All of it finished, and the host saw that: its clock moves on as after cuCtxSynchronize.
  (void)ctx->channel->query(ctx->channel->last_fence());
  for (Channel* ch : ctx->stream_channels) (void)ch->query(ch->last_fence());
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: CUDA_SUCCESS if the stream's work has all finished, CUDA_ERROR_NOT_READY if not;
// never waits. Finding it finished moves this thread's host clock to its completion time, as a
// wait would; NOT_READY leaves the clock. Unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamQuery(CUstream hStream) { return stream_query("cuStreamQuery", DefaultStream::Legacy, hStream); }
// Contract: as cuStreamQuery; hStream 0 is this thread's per-thread stream.
CUresult cuStreamQuery_ptsz(CUstream hStream) {
  return stream_query("cuStreamQuery_ptsz", DefaultStream::PerThread, hStream);
}

namespace {
CUresult stream_wait_event(const char* api, DefaultStream mode, CUstream hStream, CUevent hEvent, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hStream={}, hEvent={}, Flags={})", api, static_cast<void*>(hStream),
                     static_cast<void*>(hEvent), Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  CUevent_st* e = find_any_event(hEvent);
  if (!e) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  // CU_EVENT_WAIT_EXTERNAL names a wait node of a graph being captured; minicuda captures
  // nothing, so it is always outside a capture: CUDA_ERROR_ILLEGAL_STATE (measured).
  if (Flags > CU_EVENT_WAIT_EXTERNAL) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (Flags == CU_EVENT_WAIT_EXTERNAL) return done(scope, CUDA_ERROR_ILLEGAL_STATE);
  Channel& ch = channel_of(*ctx, s);
  if (CUresult r = prebuilt::refuse_if_recording(ch, "an event wait"); r != CUDA_SUCCESS) return done(scope, r);
  if (e->fence == 0 || e->channel == &ch) {
    trace::note(trace::Layer::Libcuda, "stream wait: nothing to do ({})",
                e->fence == 0 ? "the event was never recorded" : "the record is on the same channel, ahead of it");
    return done(scope, CUDA_SUCCESS);
  }
  if (e->ctx->device != ctx->device) {
    // The recording channel's semaphore is mapped in its own GPU's page table only.
    trace::note(trace::Layer::Libcuda, "stream wait: an event of device {}: the host waits for its fence >= {}",
                e->ctx->device, e->fence);
    if (CUresult r = e->channel->wait(e->fence); r != CUDA_SUCCESS) return done(scope, *e->ctx, r);
    mempool_stream_waited(s, e->channel, e->fence);
    return done(scope, CUDA_SUCCESS);
  }
  trace::note(trace::Layer::Libcuda, "stream wait: semaphore acquire of the recording channel's fence >= {}", e->fence);
  ch.acquire(e->channel->fence_va(), e->fence);
  submitted(s, ch.submit());
  mempool_stream_waited(s, e->channel, e->fence);  // a dependency the pools' reuse may follow
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: work queued on hStream after this call starts after hEvent's last record has
// completed: the stream's channel acquires the fence semaphore of the record's channel (on one
// channel the order holds already). The event may be another context's; one of another device
// is waited for by the host (its semaphore is not in this GPU's page table), so the work after
// is ordered after it. Unknown stream or event: CUDA_ERROR_INVALID_HANDLE; Flags
// other than 0: CUDA_ERROR_INVALID_VALUE. An event never recorded: nothing to wait for.
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return stream_wait_event("cuStreamWaitEvent", DefaultStream::Legacy, hStream, hEvent, Flags);
}
// Contract: as cuStreamWaitEvent; hStream 0 is this thread's per-thread stream.
CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return stream_wait_event("cuStreamWaitEvent_ptsz", DefaultStream::PerThread, hStream, hEvent, Flags);
}

// Contract: *phEvent = a new event of the current context. Flags: a mask of CU_EVENT_DEFAULT,
// _BLOCKING_SYNC, _DISABLE_TIMING (anything else, or phEvent NULL: CUDA_ERROR_INVALID_VALUE;
// _INTERPROCESS without _DISABLE_TIMING: CUDA_ERROR_INVALID_VALUE; with it: CUDA_ERROR_NOT_SUPPORTED). No system
// memory for its semaphore: CUDA_ERROR_OUT_OF_MEMORY.
CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuEventCreate(phEvent={}, Flags={})", static_cast<void*>(phEvent), Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  constexpr unsigned kKnown = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (phEvent == nullptr || (Flags & ~kKnown) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  // An interprocess event must not time (CUDA: INTERPROCESS needs DISABLE_TIMING).
  if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)) {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  if (Flags & CU_EVENT_INTERPROCESS) {
    trace::note(trace::Layer::Libcuda, "cuEventCreate: CU_EVENT_INTERPROCESS is not supported by minicuda");
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  }
  uint32_t slot = 0;
  if (CUresult r = ctx->event_semaphores.take(*ctx, &slot); r != CUDA_SUCCESS) return done(scope, r);
  auto* e = new CUevent_st{ctx, Flags, slot, 0};
  ctx->events.insert(e);
  *phEvent = e;
  return done(scope, CUDA_SUCCESS);
}

// Contract: destroys hEvent, an event of the current context or of another live one, as
// cuStreamDestroy (a pending record still completes). Unknown: CUDA_ERROR_INVALID_HANDLE.
CUresult cuEventDestroy_v2(CUevent hEvent) {
  trace::Scope scope(trace::Layer::Libcuda, "cuEventDestroy_v2(hEvent={})", static_cast<void*>(hEvent));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (!find_event(*ctx, hEvent) && !find_any_event(hEvent)) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  hEvent->ctx->events.erase(hEvent);
  hEvent->ctx->event_semaphores.give_back(hEvent->slot, hEvent->channel, hEvent->fence);
  delete hEvent;
  return done(scope, CUDA_SUCCESS);
}

namespace {
CUresult event_record(const char* api, DefaultStream mode, CUevent hEvent, CUstream hStream,
                      std::optional<unsigned> flags = std::nullopt) {
  trace::Scope scope(trace::Layer::Libcuda, "{}(hEvent={}, hStream={}{})", api, static_cast<void*>(hEvent),
                     static_cast<void*>(hStream), flags ? fmt::format(", flags={}", *flags) : std::string());
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  CUevent_st* e = find_event(*ctx, hEvent);
  if (!e) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (CUresult r = resolve_stream(*ctx, hStream, &s, mode); r != CUDA_SUCCESS) return done(scope, r);
  // CU_EVENT_RECORD_EXTERNAL, like CU_EVENT_WAIT_EXTERNAL, is for a stream being captured.
  if (flags && *flags > CU_EVENT_RECORD_EXTERNAL) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (flags && *flags == CU_EVENT_RECORD_EXTERNAL) return done(scope, CUDA_ERROR_ILLEGAL_STATE);
  Channel& ch = channel_of(*ctx, s);
  if (CUresult r = prebuilt::refuse_if_recording(ch, "an event record"); r != CUDA_SUCCESS) return done(scope, r);
  trace::note(trace::Layer::Libcuda,
              "event: semaphore release with the GPU's timestamp, after all earlier work (slot {})", e->slot);
  host_clock::spend(host_clock::kEventRecordNs);
  order_with_null_stream(*ctx, s);
  ch.release_timestamped(ctx->event_semaphores.va(*ctx, e->slot), ch.last_fence() + 1);
  e->fence = ch.submit();
  e->channel = &ch;
  submitted(s, e->fence);
  return done(scope, CUDA_SUCCESS);
}
}  // namespace

// Contract: queues the event on hStream: a timestamped semaphore release after the stream's
// earlier work; costs this thread 1.4 us of simulated host time. Unknown event or stream:
// CUDA_ERROR_INVALID_HANDLE.
CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  return event_record("cuEventRecord", DefaultStream::Legacy, hEvent, hStream);
}
// Contract: as cuEventRecord; hStream 0 is this thread's per-thread stream.
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) {
  return event_record("cuEventRecord_ptsz", DefaultStream::PerThread, hEvent, hStream);
}

// Contract: cuEventRecord with record flags: CU_EVENT_RECORD_DEFAULT records as cuEventRecord;
// CU_EVENT_RECORD_EXTERNAL outside a stream capture: CUDA_ERROR_ILLEGAL_STATE; other flags:
// CUDA_ERROR_INVALID_VALUE (measured, probe_api_families.txt).
CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return event_record("cuEventRecordWithFlags", DefaultStream::Legacy, hEvent, hStream, flags);
}
// Contract: as cuEventRecordWithFlags; hStream 0 is this thread's per-thread stream.
CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return event_record("cuEventRecordWithFlags_ptsz", DefaultStream::PerThread, hEvent, hStream, flags);
}

// Contract: CUDA_SUCCESS if the event's record has completed (or it was never recorded),
// CUDA_ERROR_NOT_READY if not; completed, this thread's host clock moves to the record's time.
// Unknown: CUDA_ERROR_INVALID_HANDLE.
CUresult cuEventQuery(CUevent hEvent) {
  trace::Scope scope(trace::Layer::Libcuda, "cuEventQuery(hEvent={})", static_cast<void*>(hEvent));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUevent_st* e = find_event(*ctx, hEvent);
  if (!e) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (Channel* faulted = faulted_channel(*ctx)) return done(scope, *ctx, faulted->fault_result());
  return done(scope, *ctx, e->fence == 0 || e->channel->query(e->fence) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

// Contract: waits until the event's record has completed (at once if never recorded); this
// thread's host clock moves on to the record's time.
CUresult cuEventSynchronize(CUevent hEvent) {
  trace::Scope scope(trace::Layer::Libcuda, "cuEventSynchronize(hEvent={})", static_cast<void*>(hEvent));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUevent_st* e = find_event(*ctx, hEvent);
  if (!e) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  // An event made with CU_EVENT_BLOCKING_SYNC, or any event of a context made with
  // CU_CTX_SCHED_BLOCKING_SYNC, is waited for asleep, not spinning.
  const bool blocking = (e->flags & CU_EVENT_BLOCKING_SYNC) != 0 ||
                        (ctx->flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC;
  const Channel::WaitMode mode = blocking ? Channel::WaitMode::Blocking : Channel::WaitMode::Spin;
  CUresult r = e->fence == 0 ? CUDA_SUCCESS : e->channel->wait(e->fence, mode);
  if (r == CUDA_SUCCESS) mempool_synchronized(*ctx);  // pools release above their threshold
  return done(scope, *ctx, r);
}

// Contract: *pMilliseconds = GPU time between the two records (end - start; may be negative).
// pMilliseconds NULL: CUDA_ERROR_INVALID_VALUE. Unknown event, one never recorded, or one made
// with CU_EVENT_DISABLE_TIMING: CUDA_ERROR_INVALID_HANDLE. A record not yet complete:
// CUDA_ERROR_NOT_READY.
CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  trace::Scope scope(trace::Layer::Libcuda, "cuEventElapsedTime_v2(pMilliseconds={}, hStart={}, hEnd={})",
                     static_cast<void*>(pMilliseconds), static_cast<void*>(hStart), static_cast<void*>(hEnd));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  // The driver answers a NULL result pointer with INVALID_HANDLE (the runtime checks it first,
  // with cudaErrorInvalidValue): probe_bad_input.txt, drv.eventElapsedTime.null_ms.
  if (pMilliseconds == nullptr) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  CUevent_st* a = find_event(*ctx, hStart);
  CUevent_st* b = find_event(*ctx, hEnd);
  if (!a || !b || a->fence == 0 || b->fence == 0) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  if (Channel* faulted = faulted_channel(*ctx)) return done(scope, *ctx, faulted->fault_result());
  if (!a->channel->reached(a->fence) || !b->channel->reached(b->fence)) return done(scope, *ctx, CUDA_ERROR_NOT_READY);
  int64_t ns = static_cast<int64_t>(ctx->event_semaphores.timestamp(*ctx, b->slot) -
                                    ctx->event_semaphores.timestamp(*ctx, a->slot));
  *pMilliseconds = static_cast<float>(static_cast<double>(ns) / 1e6);
  return done(scope, CUDA_SUCCESS);
}
