// The stream-ordered allocator's heap (see mempool.h for the reuse rules and why): segments of
// reserved VA, 32 MiB pieces of vidmem mapped into them, blocks carved out of mapped pieces.
#include <algorithm>
#include <iterator>

#include "channel.h"
#include "mempool.h"
#include "pool.h"

namespace minicuda::libcuda {

namespace {

using BlockIt = std::map<uint64_t, PoolBlock>::iterator;

uint64_t round_to(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t piece_of(uint64_t addr) { return addr / kMemPoolPieceBytes * kMemPoolPieceBytes; }

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

// Is [addr, addr+n) backed by mapped pieces of seg?
bool mapped(const PoolSegment& seg, uint64_t addr, uint64_t n) {
  for (uint64_t p = piece_of(addr); p < addr + n; p += kMemPoolPieceBytes)
    if (seg.pieces.count(p) == 0) return false;
  return true;
}

// Merges free neighbours of the same kind around it: plain free blocks, or pending ones freed in
// the same stream (the later fence covers both).
void coalesce(PoolSegment& seg, BlockIt it) {
  auto same_kind = [](const PoolBlock& a, const PoolBlock& b) {
    if (a.live || b.live) return false;
    if (!a.pending && !b.pending) return true;
    return a.pending && b.pending && a.stream == b.stream && a.channel == b.channel;
  };
  auto next = std::next(it);
  if (next != seg.blocks.end() && same_kind(it->second, next->second)) {
    it->second.size += next->second.size;
    it->second.fence = std::max(it->second.fence, next->second.fence);
    seg.blocks.erase(next);
  }
  if (it != seg.blocks.begin()) {
    auto prev = std::prev(it);
    if (same_kind(prev->second, it->second)) {
      prev->second.size += it->second.size;
      prev->second.fence = std::max(prev->second.fence, it->second.fence);
      seg.blocks.erase(it);
    }
  }
}

// Hands out the first `need` bytes of the free block at it; UsedMemCurrent counts what was asked.
uint64_t take(CUmemPoolHandle_st& pool, PoolSegment& seg, BlockIt it, uint64_t need, uint64_t requested) {
  const uint64_t addr = it->first;
  PoolBlock rest = it->second;
  if (rest.size > need) {
    rest.size -= need;
    seg.blocks[addr + need] = rest;
  }
  PoolBlock& b = seg.blocks[addr];
  b = PoolBlock{};
  b.size = need;
  b.live = true;
  b.requested = requested;
  pool.used += requested;
  pool.used_high = std::max(pool.used_high, pool.used);
  return addr;
}

// Maps the missing pieces of [addr, addr+n) in seg: RM_ALLOC of 32 MiB of vidmem, then the UVM
// range and mapping, as the context's pool grows (pool.cpp). Out of VRAM: CUDA_ERROR_OUT_OF_MEMORY.
CUresult map_pieces(CUctx_st& ctx, CUmemPoolHandle_st& pool, PoolSegment& seg, uint64_t addr, uint64_t n) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  for (uint64_t p = piece_of(addr); p < addr + n; p += kMemPoolPieceBytes) {
    if (seg.pieces.count(p) != 0) continue;
    NV_MEMORY_ALLOCATION_PARAMS mem = vidmem_request(kMemPoolPieceBytes, Pool::kChunkSize);
    NvHandle hMemory = next_handle();
    NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &hMemory, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem);
    if (s != NV_OK) return to_cu_result(s);
    s = uvm_map_memory(ctx.uvm_fd, p, kMemPoolPieceBytes, dev.uuid, hMemory);
    if (s != NV_OK) {
      rm_free(d.hClient, dev.hDevice, hMemory);
      return to_cu_result(s);
    }
    seg.pieces[p] = hMemory;
    pool.reserved += kMemPoolPieceBytes;
    if (CUresult r = mempool_map_for_peers(pool, p, hMemory); r != CUDA_SUCCESS) {
      pool.reserved -= kMemPoolPieceBytes;
      seg.pieces.erase(p);
      uvm_free_range(ctx.uvm_fd, p);
      rm_free(d.hClient, dev.hDevice, hMemory);
      return r;
    }
    pool.reserved_high = std::max(pool.reserved_high, pool.reserved);
  }
  return CUDA_SUCCESS;
}

void unmap_piece(CUmemPoolHandle_st& pool, PoolSegment& seg, uint64_t p) {
  Driver& d = driver();
  uvm_free_range(pool.ctx->uvm_fd, p);
  rm_free(d.hClient, device_info(pool.ctx->device)->hDevice, seg.pieces.at(p));
  seg.pieces.erase(p);
  pool.reserved -= kMemPoolPieceBytes;
}

// The pieces [addr, addr+n) would add to the pool.
uint64_t missing_bytes(const PoolSegment& seg, uint64_t addr, uint64_t n) {
  uint64_t bytes = 0;
  for (uint64_t p = piece_of(addr); p < addr + n; p += kMemPoolPieceBytes)
    if (seg.pieces.count(p) == 0) bytes += kMemPoolPieceBytes;
  return bytes;
}

bool within_max_size(const CUmemPoolHandle_st& pool, uint64_t more) {
  if (pool.props.maxSize == 0) return true;
  return pool.reserved + more <= round_to(pool.props.maxSize, kMemPoolPieceBytes);
}

// Grows the pool for `need` bytes: the lowest free range of a segment, mapping what it lacks, or a
// new segment of VA. *seg_out and *it_out: where to take the block.
CUresult grow(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t need, PoolSegment** seg_out, BlockIt* it_out) {
  for (auto& [va, seg] : pool.segments) {
    for (auto it = seg.blocks.begin(); it != seg.blocks.end(); ++it) {
      if (it->second.live || it->second.pending || it->second.size < need) continue;
      uint64_t more = missing_bytes(seg, it->first, need);
      if (!within_max_size(pool, more)) return CUDA_ERROR_OUT_OF_MEMORY;
      trace::note(trace::Layer::Libcuda, "mempool: no cached block fits {} B: map {} MiB more at {:#x}", need, more >> 20,
                  piece_of(it->first) + (mapped(seg, it->first, 1) ? kMemPoolPieceBytes : 0));
      if (CUresult r = map_pieces(ctx, pool, seg, it->first, need); r != CUDA_SUCCESS) return r;
      *seg_out = &seg;
      *it_out = it;
      return CUDA_SUCCESS;
    }
  }
  const uint64_t size = std::max(kMemPoolSegmentBytes, round_to(need, kMemPoolPieceBytes));
  if (size < need || !within_max_size(pool, round_to(need, kMemPoolPieceBytes))) return CUDA_ERROR_OUT_OF_MEMORY;
  const uint64_t va = ctx.pool->reserve_va(size, kMemPoolPieceBytes);  // pieces are mapped on their own boundaries
  if (va == 0) return CUDA_ERROR_OUT_OF_MEMORY;
  trace::note(trace::Layer::Libcuda, "mempool: no cached block fits {} B: reserve {} GiB of VA at {:#x}, map {} MiB", need,
              size >> 30, va, round_to(need, kMemPoolPieceBytes) >> 20);
  pool.ctx = &ctx;
  PoolSegment& seg = pool.segments[va];
  seg.size = size;
  seg.blocks[va] = PoolBlock{size};
  if (CUresult r = map_pieces(ctx, pool, seg, va, need); r != CUDA_SUCCESS) {
    pool.segments.erase(va);
    ctx.pool->release_va(va, size);
    return r;
  }
  *seg_out = &seg;
  *it_out = seg.blocks.begin();
  return CUDA_SUCCESS;
}

}  // namespace

CUresult mempool_allocate(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t bytes, CUstream_st* s, uint64_t* out) {
  const uint64_t need = round_to(bytes, kMemPoolBlockAlign);
  if (need < bytes || need > (1ull << 48)) return CUDA_ERROR_OUT_OF_MEMORY;
  // 1. A mapped free block this stream may use as it is.
  for (auto& [va, seg] : pool.segments) {
    for (auto it = seg.blocks.begin(); it != seg.blocks.end(); ++it) {
      const PoolBlock& b = it->second;
      if (b.live || b.size < need || !mapped(seg, it->first, need)) continue;
      const char* why = reusable_now(pool, b, s);
      if (why == nullptr) continue;
      *out = take(pool, seg, it, need, bytes);
      trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} from the pool's cache ({}), no syscall", need, *out, why);
      return CUDA_SUCCESS;
    }
  }
  // 2. A block freed in another stream, reached by making this stream wait for that free.
  if (pool.allow_internal_dependencies) {
    for (auto& [va, seg] : pool.segments) {
      for (auto it = seg.blocks.begin(); it != seg.blocks.end(); ++it) {
        PoolBlock& b = it->second;
        if (b.live || !b.pending || b.size < need) continue;
        Channel& ch = channel_of(ctx, s);
        if (b.device != ctx.device) {
          // Another GPU's channel: its semaphore is not in this GPU's page table.
          trace::note(trace::Layer::Libcuda, "mempool: reuse {:#x}, freed in a stream of device {}: the host waits for fence {}",
                      it->first, b.device, b.fence);
          if (CUresult r = b.channel->wait(b.fence); r != CUDA_SUCCESS) return r;
        } else if (b.channel != &ch) {
          trace::note(trace::Layer::Libcuda,
                      "mempool: reuse {:#x}, freed in another stream: this stream's channel waits for fence {} first",
                      it->first, b.fence);
          ch.acquire(b.channel->fence_va(), b.fence);
          submitted(s, ch.submit());
        }
        *out = take(pool, seg, it, need, bytes);
        trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} from the pool's cache, no syscall", need, *out);
        return CUDA_SUCCESS;
      }
    }
  }
  // 3. More pieces from the kernel.
  PoolSegment* seg = nullptr;
  BlockIt it;
  if (CUresult r = grow(ctx, pool, need, &seg, &it); r != CUDA_SUCCESS) return r;
  *out = take(pool, *seg, it, need, bytes);
  return CUDA_SUCCESS;
}

CUresult mempool_free(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t dptr, CUstream_st* s) {
  auto seg_it = pool.segments.upper_bound(dptr);
  if (seg_it == pool.segments.begin()) return CUDA_ERROR_INVALID_VALUE;
  --seg_it;
  PoolSegment& seg = seg_it->second;
  auto it = seg.blocks.find(dptr);
  if (it == seg.blocks.end() || !it->second.live) return CUDA_ERROR_INVALID_VALUE;
  PoolBlock& b = it->second;
  Channel& ch = channel_of(ctx, s);
  pool.used -= b.requested;
  b.live = false;
  b.requested = 0;
  b.pending = true;
  b.stream = s;
  b.channel = &ch;
  b.device = ctx.device;
  b.fence = ch.last_fence();
  trace::note(trace::Layer::Libcuda, "mempool: {} B at {:#x} back to the pool's cache after fence {} of {}, no syscall",
              b.size, dptr, b.fence, stream_name(s));
  coalesce(seg, it);
  return CUDA_SUCCESS;
}

void mempool_release(CUmemPoolHandle_st& pool, uint64_t keep, ReleaseRule rule, const char* why) {
  for (auto& [va, seg] : pool.segments) {
    for (auto& [addr, b] : seg.blocks)
      if (!b.live && b.pending && b.channel->reached(b.fence)) b.pending = false;
    for (auto it = seg.blocks.begin(); it != seg.blocks.end();) {
      auto next = std::next(it);
      const bool both_free = next != seg.blocks.end() && !it->second.live && !it->second.pending &&
                             !next->second.live && !next->second.pending;
      if (!both_free) {
        it = next;
        continue;
      }
      it->second.size += next->second.size;
      seg.blocks.erase(next);
    }
  }
  // Free pieces go back, the highest first, while the rule allows.
  auto may_release = [&] {
    return rule == ReleaseRule::Threshold ? pool.reserved > keep : pool.reserved >= keep + kMemPoolPieceBytes;
  };
  for (auto seg_it = pool.segments.rbegin(); seg_it != pool.segments.rend() && may_release(); ++seg_it) {
    PoolSegment& seg = seg_it->second;
    for (auto p = seg.pieces.rbegin(); p != seg.pieces.rend() && may_release();) {
      const uint64_t piece = p->first;
      ++p;
      auto b = std::prev(seg.blocks.upper_bound(piece));
      const PoolBlock& block = b->second;
      if (block.live || block.pending || b->first + block.size < piece + kMemPoolPieceBytes) continue;
      trace::note(trace::Layer::Libcuda, "mempool: {}: the pool holds {} B, keeps {}: unmap the free 32 MiB at {:#x}", why,
                  pool.reserved, keep, piece);
      unmap_piece(pool, seg, piece);
      p = std::make_reverse_iterator(seg.pieces.upper_bound(piece));
    }
  }
}

void mempool_release_segments(CUmemPoolHandle_st& pool) {
  for (auto& [va, seg] : pool.segments) {
    while (!seg.pieces.empty()) unmap_piece(pool, seg, seg.pieces.begin()->first);
    pool.ctx->pool->release_va(va, seg.size);
  }
  pool.segments.clear();
}

bool mempool_find(CUctx_st& ctx, uint64_t addr, uint64_t* start, uint64_t* size, uint64_t* map_va, uint64_t* map_size) {
  for (CUmemPoolHandle_st* pool : all_mempools()) {
    if (pool->ctx != &ctx) continue;
    auto seg = pool->segments.upper_bound(addr);
    if (seg == pool->segments.begin()) continue;
    --seg;
    if (addr >= seg->first + seg->second.size) continue;
    auto b = std::prev(seg->second.blocks.upper_bound(addr));
    if (!b->second.live || addr >= b->first + b->second.requested) return false;
    *start = b->first;
    *size = b->second.requested;
    *map_va = b->first;
    *map_size = b->second.size;
    return true;
  }
  return false;
}

void mempool_context_torn_down(CUctx_st& ctx) {
  for (CUmemPoolHandle_st* pool : all_mempools()) {
    if (pool->ctx != &ctx) continue;
    mempool_release_segments(*pool);
    pool->used = 0;
    pool->ctx = nullptr;
  }
}

}  // namespace minicuda::libcuda
