// The channels of a context, and how streams map onto them.
//
// The context's own channel (made by build(), context.cpp) carries the NULL stream's work, the
// synchronous copies and the kernels' code records. Created streams map round-robin onto a pool
// of further channels, CUDA_DEVICE_MAX_CONNECTIONS - 1 of them at most (CUDA's default is 8
// connections). So two streams usually have two channels, and the GPU runs their work
// independently: a copy on one overlaps a kernel on the other (docs/timing.md). The real libcuda
// builds its 20 channels when it creates the context (chain_full.txt). minicuda makes a pool
// channel the first time a stream needs that slot, so that a program without streams pays for
// one channel only.
//
// Ordering between channels is done with semaphores, as the GPU does it: a channel acquires
// another channel's fence semaphore (>= the fence of the work it must wait for). The legacy NULL
// stream's rule needs such acquires (order_with_null_stream), and so does cuStreamWaitEvent
// (stream.cpp).
#include <algorithm>

#include "channel.h"
#include "libcuda.h"
#include "prebuilt.h"

namespace minicuda::libcuda {

Channel& channel_of(CUctx_st& ctx, CUstream_st* s) { return s != nullptr ? *s->channel : *ctx.channel; }

CUresult assign_channel(CUctx_st& ctx, CUstream_st& s) {
  const unsigned pool = std::max(1u, driver().max_connections) - 1;
  if (pool == 0) {  // CUDA_DEVICE_MAX_CONNECTIONS=1: every stream shares the context's channel
    s.channel = ctx.channel;
    return CUDA_SUCCESS;
  }
  const unsigned slot = ctx.streams_made++ % pool;
  if (slot < ctx.stream_channels.size()) {
    s.channel = ctx.stream_channels[slot];
    trace::note(trace::Layer::Libcuda, "stream {}: on pool channel {} of the context", static_cast<void*>(&s), slot + 1);
    return CUDA_SUCCESS;
  }
  trace::note(trace::Layer::Libcuda, "stream {}: pool channel {} of the context is made now", static_cast<void*>(&s),
              slot + 1);
  auto* ch = new Channel;
  if (CUresult r = ch->create(ctx, ctx.doorbell); r != CUDA_SUCCESS) {
    ch->destroy(ctx);
    delete ch;
    return r;
  }
  // Bind the engines' classes to their subchannels once: compute on 1, copy on 4.
  ch->method(NV_SUBCHANNEL_COMPUTE, NVC56F_SET_OBJECT, {HOPPER_COMPUTE_A});
  ch->method(NV_SUBCHANNEL_COPY, NVC56F_SET_OBJECT, {HOPPER_DMA_COPY_A});
  if (CUresult r = ch->wait(ch->submit()); r != CUDA_SUCCESS) {
    ch->destroy(ctx);
    delete ch;
    return r;
  }
  ctx.stream_channels.push_back(ch);
  s.channel = ch;
  return CUDA_SUCCESS;
}

void order_with_null_stream(CUctx_st& ctx, CUstream_st* s) {
  if (s != nullptr && (s->flags & CU_STREAM_NON_BLOCKING)) return;
  // Recorded work is ordered when it is launched, with the fences of that time.
  if (prebuilt::recording_for(channel_of(ctx, s)) != nullptr) return;
  if (s != nullptr) {
    // A blocking stream waits for what the NULL stream has queued.
    if (s->channel == ctx.channel) return;  // one channel: in order already
    const uint64_t need = ctx.channel->last_fence();
    uint64_t& has = ctx.waits_for_null[s->channel];
    if (need > has) {
      trace::note(trace::Layer::Libcuda, "legacy stream: the stream's channel waits for the NULL stream's fence {}", need);
      s->channel->acquire(ctx.channel->fence_va(), need);
      has = need;
    }
    return;
  }
  // The NULL stream waits for what every blocking stream has queued.
  for (CUstream_st* other : ctx.streams) {
    if ((other->flags & CU_STREAM_NON_BLOCKING) || other->channel == ctx.channel || other->last_fence == 0) continue;
    uint64_t& has = ctx.null_waits_for[other->channel];
    if (other->last_fence > has) {
      trace::note(trace::Layer::Libcuda, "legacy stream: the NULL stream waits for stream {}'s fence {}",
                  static_cast<void*>(other), other->last_fence);
      ctx.channel->acquire(other->channel->fence_va(), other->last_fence);
      has = other->last_fence;
    }
  }
}

void submitted(CUstream_st* s, uint64_t fence) {
  if (s != nullptr && prebuilt::recording_for(*s->channel) == nullptr) s->last_fence = fence;
}

CUresult wait_all(CUctx_st& ctx) {
  CUresult first = CUDA_SUCCESS;
  for (Channel* ch : ctx.stream_channels) {
    CUresult r = ch->wait(ch->last_fence());
    if (first == CUDA_SUCCESS) first = r;
  }
  CUresult r = ctx.channel->wait(ctx.channel->last_fence());
  return first != CUDA_SUCCESS ? first : r;
}

Channel* faulted_channel(CUctx_st& ctx) {
  if (ctx.channel != nullptr && ctx.channel->faulted()) return ctx.channel;
  for (Channel* ch : ctx.stream_channels)
    if (ch->faulted()) return ch;
  return nullptr;
}

void destroy_stream_channels(CUctx_st& ctx) {
  for (Channel* ch : ctx.stream_channels) {
    ch->destroy(ctx);
    delete ch;
  }
  ctx.stream_channels.clear();
  ctx.streams_made = 0;
  ctx.null_waits_for.clear();
  ctx.waits_for_null.clear();
}

}  // namespace minicuda::libcuda
