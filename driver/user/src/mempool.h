// Private to libcuda: the stream-ordered allocator's memory pools (cuMemAllocAsync and friends).
//
// A pool is a second heap on top of the context's device-memory pool (pool.h), as a user-space
// allocator sits on top of mmap: it asks for physical memory in big chunks (kChunkBytes, or a
// request rounded up to 2 MiB when larger) and carves allocations out of them with no system
// call. What makes it "stream-ordered" is what a freed block remembers: the stream it was freed
// in and the channel fence of that stream's work at the free. The block may be handed out again
//   - at once to an allocation in the same stream (stream order already puts it after the free);
//   - to another stream that waited (cuStreamWaitEvent) for an event recorded after the free
//     (REUSE_FOLLOW_EVENT_DEPENDENCIES);
//   - to any stream once the GPU has passed the free's fence (REUSE_ALLOW_OPPORTUNISTIC);
//   - to any stream, before the pool would grow, by making that stream's channel wait for the
//     free's fence (REUSE_ALLOW_INTERNAL_DEPENDENCIES: a semaphore acquire, as cuStreamWaitEvent).
// At a synchronize (stream, event or context) the frees the GPU has passed become plain free
// memory, and whole free chunks go back to the kernel while the pool holds more than its release
// threshold. cuMemPoolTrimTo does the same down to the bytes it is asked to keep.
#pragma once

#include <cstdint>
#include <map>

#include "libcuda.h"

namespace minicuda::libcuda {

class Channel;

// One block of a chunk: live (handed out) or free; a free block may still be waiting for its
// free's stream to reach the fence below ("pending").
struct PoolBlock {
  uint64_t size = 0;
  bool live = false;
  bool pending = false;             // freed, and not yet known to be passed by the GPU
  CUstream_st* stream = nullptr;    // pending: the stream of the free (null: the legacy stream)
  Channel* channel = nullptr;       // pending: that stream's channel
  uint64_t fence = 0;               // pending: the channel's fence of the work before the free
  uint64_t requested = 0;           // live: the bytes asked for
};

// Physical memory the pool got from the context's pool in one piece.
struct PoolChunk {
  uint64_t size = 0;
  std::map<uint64_t, PoolBlock> blocks;  // by address; they tile the chunk
};

}  // namespace minicuda::libcuda

// The struct behind CUmemoryPool (and the runtime's cudaMemPool_t).
struct CUmemPoolHandle_st {
  static constexpr uint32_t kMagic = 0x4D504F4C;  // "MPOL"
  uint32_t magic = kMagic;
  CUdevice device = 0;
  bool is_default = false;
  bool destroyed = false;  // cuMemPoolDestroy'd with allocations still live: kept for them only
  CUmemPoolProps props{};
  int follow_event_dependencies = 1, allow_opportunistic = 1, allow_internal_dependencies = 1;
  uint64_t release_threshold = 0;
  uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  CUctx_st* ctx = nullptr;  // the context whose pool the chunks came from
  uint64_t epoch = 0;       // ... in that build of it; a reset context took them back
  std::map<uint64_t, minicuda::libcuda::PoolChunk> chunks;  // by GPU VA
};

namespace minicuda::libcuda {

// The size of the chunks a pool asks for, and the granularity of its blocks (measured: see
// docs/memory-pools.md and tests/data/h200/mempool/probe_mempool.txt).
inline constexpr uint64_t kMemPoolChunkBytes = 32ull << 20;
inline constexpr uint64_t kMemPoolLargeRound = 2ull << 20;
inline constexpr uint64_t kMemPoolBlockAlign = 512;

// A live pool of this process, or null.
CUmemPoolHandle_st* find_mempool(CUmemoryPool pool);
// The pool (of this process) whose live allocation starts at dptr, or null.
CUmemPoolHandle_st* mempool_of_allocation(uint64_t dptr);
// Hands out bytes from pool for work in stream s (mempool_alloc.cpp), by the reuse rules above;
// grows the pool when nothing fits. CUDA_ERROR_OUT_OF_MEMORY when the kernel has no room or the
// pool's maxSize would be passed.
CUresult mempool_allocate(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t bytes, CUstream_st* s, uint64_t* out);
// Frees the live allocation at dptr in stream s's order. CUDA_ERROR_INVALID_VALUE if dptr does not
// start a live allocation of pool.
CUresult mempool_free(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t dptr, CUstream_st* s);
// Turns passed frees into plain free memory, then returns free chunks to the kernel while the pool
// holds more than keep bytes.
void mempool_release(CUmemPoolHandle_st& pool, uint64_t keep, const char* why);
// Drops the chunks of a pool whose context was reset (the reset took the memory back).
void mempool_forget_if_reset(CUmemPoolHandle_st& pool);

// Hooks of the synchronizing calls and cuStreamWaitEvent (stream.cpp, context.cpp).
// A synchronize of ctx finished: every pool on it releases down to its threshold.
void mempool_synchronized(CUctx_st& ctx);
// Stream s now waits for channel ch's fence (an event dependency the reuse rules may follow).
void mempool_stream_waited(CUstream_st* s, const Channel* ch, uint64_t fence);
// The highest fence of ch that s waited for (0: none).
uint64_t mempool_waited_fence(CUstream_st* s, const Channel* ch);

}  // namespace minicuda::libcuda
