// The stream-ordered allocator's heap (see mempool.h for the reuse rules and why).
#include <algorithm>
#include <iterator>

#include "channel.h"
#include "mempool.h"
#include "pool.h"

namespace minicuda::libcuda {

namespace {

uint64_t round_to(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string mib(uint64_t bytes) {
  if (bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} B", bytes);
}

const char* stream_name(CUstream_st* s) { return s == nullptr ? "the NULL stream" : "its stream"; }

// May a free block serve an allocation in stream s without new work? Names the rule that allows it.
const char* reusable_now(const CUmemPoolHandle_st& pool, const PoolBlock& b, CUstream_st* s) {
  if (!b.pending) return "free";
  if (b.stream == s) return "freed earlier in this stream";
  if (pool.follow_event_dependencies && mempool_waited_fence(s, b.channel) >= b.fence)
    return "freed in another stream, which this stream waited for through an event";
  if (pool.allow_opportunistic && b.channel->reached(b.fence)) return "freed in another stream, free already done on the GPU";
  return nullptr;
}

// Merges b with its free neighbours of the same kind: two plain free blocks, or two pending ones
// freed in the same stream (the later fence covers both).
void coalesce(PoolChunk& chunk, std::map<uint64_t, PoolBlock>::iterator it) {
  auto same_kind = [](const PoolBlock& a, const PoolBlock& b) {
    if (a.live || b.live) return false;
    if (!a.pending && !b.pending) return true;
    return a.pending && b.pending && a.stream == b.stream && a.channel == b.channel;
  };
  auto next = std::next(it);
  if (next != chunk.blocks.end() && same_kind(it->second, next->second)) {
    it->second.size += next->second.size;
    it->second.fence = std::max(it->second.fence, next->second.fence);
    chunk.blocks.erase(next);
  }
  if (it != chunk.blocks.begin()) {
    auto prev = std::prev(it);
    if (same_kind(prev->second, it->second)) {
      prev->second.size += it->second.size;
      prev->second.fence = std::max(prev->second.fence, it->second.fence);
      chunk.blocks.erase(it);
    }
  }
}

// Hands out the first `need` bytes of the free block at it.
uint64_t take(CUmemPoolHandle_st& pool, PoolChunk& chunk, std::map<uint64_t, PoolBlock>::iterator it, uint64_t need,
              uint64_t requested) {
  uint64_t addr = it->first;
  PoolBlock rest = it->second;
  if (rest.size > need) {
    rest.size -= need;
    chunk.blocks[addr + need] = rest;
  }
  PoolBlock& b = chunk.blocks[addr];
  b = PoolBlock{};
  b.size = need;
  b.live = true;
  b.requested = requested;
  pool.used += need;
  pool.used_high = std::max(pool.used_high, pool.used);
  return addr;
}

// Gets a chunk of `size` bytes from the context's pool: RM_ALLOC and the UVM mapping (pool.cpp).
CUresult grow(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t size, uint64_t* va) {
  if (pool.props.maxSize != 0 && pool.reserved + size > pool.props.maxSize) {
    trace::note(trace::Layer::Libcuda, "mempool: a {} chunk would pass the pool's maxSize {}", mib(size),
                pool.props.maxSize);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  trace::note(trace::Layer::Libcuda, "mempool: no free block fits: ask the kernel for a {} chunk", mib(size));
  CUdeviceptr chunk_va = 0;
  if (CUresult r = ctx.pool->alloc(size, &chunk_va); r != CUDA_SUCCESS) return r;
  *va = chunk_va;
  if (pool.ctx != &ctx || pool.epoch != ctx.epoch) {
    pool.ctx = &ctx;
    pool.epoch = ctx.epoch;
  }
  PoolChunk& chunk = pool.chunks[*va];
  chunk.size = size;
  chunk.blocks[*va] = PoolBlock{size};
  pool.reserved += size;
  pool.reserved_high = std::max(pool.reserved_high, pool.reserved);
  return CUDA_SUCCESS;
}

}  // namespace

void mempool_forget_if_reset(CUmemPoolHandle_st& pool) {
  if (pool.ctx == nullptr || (pool.ctx->active && pool.ctx->epoch == pool.epoch)) return;
  pool.chunks.clear();
  pool.reserved = pool.used = 0;
  pool.ctx = nullptr;
}

CUresult mempool_allocate(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t bytes, CUstream_st* s, uint64_t* out) {
  mempool_forget_if_reset(pool);
  const uint64_t need = round_to(bytes, kMemPoolBlockAlign);
  if (need < bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  // 1. A free block this stream may use as it is.
  for (auto& [va, chunk] : pool.chunks) {
    for (auto it = chunk.blocks.begin(); it != chunk.blocks.end(); ++it) {
      const PoolBlock& b = it->second;
      if (b.live || b.size < need) continue;
      const char* why = reusable_now(pool, b, s);
      if (why == nullptr) continue;
      *out = take(pool, chunk, it, need, bytes);
      trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} from the pool's cache ({}), no syscall", need, *out, why);
      return CUDA_SUCCESS;
    }
  }
  // 2. A block freed in another stream, reached by making this stream wait for that free.
  if (pool.allow_internal_dependencies) {
    for (auto& [va, chunk] : pool.chunks) {
      for (auto it = chunk.blocks.begin(); it != chunk.blocks.end(); ++it) {
        PoolBlock& b = it->second;
        if (b.live || !b.pending || b.size < need) continue;
        Channel& ch = channel_of(ctx, s);
        if (b.channel != &ch) {
          trace::note(trace::Layer::Libcuda,
                      "mempool: reuse {:#x}, freed in another stream: this stream's channel waits for fence {} first",
                      it->first, b.fence);
          ch.acquire(b.channel->fence_va(), b.fence);
          submitted(s, ch.submit());
        }
        *out = take(pool, chunk, it, need, bytes);
        trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} from the pool's cache, no syscall", need, *out);
        return CUDA_SUCCESS;
      }
    }
  }
  // 3. A new chunk from the kernel.
  uint64_t size = need <= kMemPoolChunkBytes ? kMemPoolChunkBytes : round_to(need, kMemPoolLargeRound);
  if (size < need) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t va = 0;
  if (CUresult r = grow(ctx, pool, size, &va); r != CUDA_SUCCESS) return r;
  PoolChunk& chunk = pool.chunks[va];
  *out = take(pool, chunk, chunk.blocks.begin(), need, bytes);
  return CUDA_SUCCESS;
}

CUresult mempool_free(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t dptr, CUstream_st* s) {
  auto chunk_it = pool.chunks.upper_bound(dptr);
  if (chunk_it == pool.chunks.begin()) return CUDA_ERROR_INVALID_VALUE;
  --chunk_it;
  PoolChunk& chunk = chunk_it->second;
  auto it = chunk.blocks.find(dptr);
  if (it == chunk.blocks.end() || !it->second.live) return CUDA_ERROR_INVALID_VALUE;
  PoolBlock& b = it->second;
  Channel& ch = channel_of(ctx, s);
  pool.used -= b.size;
  b.live = false;
  b.requested = 0;
  b.pending = true;
  b.stream = s;
  b.channel = &ch;
  b.fence = ch.last_fence();
  trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} back to the pool's cache after fence {} of {}, no syscall",
              b.size, dptr, b.fence, stream_name(s));
  coalesce(chunk, it);
  return CUDA_SUCCESS;
}

void mempool_release(CUmemPoolHandle_st& pool, uint64_t keep, const char* why) {
  mempool_forget_if_reset(pool);
  for (auto& [va, chunk] : pool.chunks) {
    for (auto it = chunk.blocks.begin(); it != chunk.blocks.end(); ++it) {
      PoolBlock& b = it->second;
      if (!b.live && b.pending && b.channel->reached(b.fence)) b.pending = false;
    }
    for (auto it = chunk.blocks.begin(); it != chunk.blocks.end();) {
      auto next = std::next(it);
      if (next != chunk.blocks.end() && !it->second.live && !it->second.pending && !next->second.live &&
          !next->second.pending) {
        it->second.size += next->second.size;
        chunk.blocks.erase(next);
        continue;
      }
      it = next;
    }
  }
  // Whole free chunks go back, the newest first, while the pool holds more than keep.
  for (auto it = pool.chunks.end(); it != pool.chunks.begin() && pool.reserved > keep;) {
    --it;
    const PoolChunk& chunk = it->second;
    const PoolBlock& only = chunk.blocks.begin()->second;
    if (chunk.blocks.size() != 1 || only.live || only.pending) continue;
    trace::note(trace::Layer::Libcuda, "mempool: {}: holds {} B > {} B: give the {} chunk at {:#x} back to the kernel",
                why, pool.reserved, keep, mib(chunk.size), it->first);
    pool.reserved -= chunk.size;
    (void)pool.ctx->pool->free(it->first);
    it = pool.chunks.erase(it);
  }
}

}  // namespace minicuda::libcuda
