// Private to libcuda: the stream-ordered allocator's memory pools (cuMemAllocAsync and friends).
//
// A pool is a second heap on top of the kernel's memory objects, as a user-space allocator sits
// on top of mmap. It reserves a range of GPU VA (a segment) and backs it with physical memory in
// 32 MiB pieces, each an RM_ALLOC of vidmem mapped by UVM at its place in the segment (measured on
// an H200: ReservedMemCurrent moves in 32 MiB steps, and an allocation larger than the free mapped
// space extends the mapping right after it). Allocations are carved out of mapped pieces with no
// system call, in 512-byte steps. What makes it "stream-ordered" is what a freed block remembers:
// the stream it was freed in and the fence of that stream's work at the free. The block may be
// handed out again
//   - at once to an allocation in the same stream (stream order already puts it after the free);
//   - to another stream that waited (cuStreamWaitEvent) for an event recorded after the free
//     (REUSE_FOLLOW_EVENT_DEPENDENCIES);
//   - to any stream once the GPU has passed the free's fence (REUSE_ALLOW_OPPORTUNISTIC);
//   - to any stream, before the pool would grow, by making that stream's channel wait for the
//     free's fence (REUSE_ALLOW_INTERNAL_DEPENDENCIES: a semaphore acquire, as cuStreamWaitEvent).
// At a synchronize (stream, event or context) the frees the GPU has passed become plain free
// memory, and pieces that hold nothing go back to the kernel while the pool holds more than its
// release threshold. cuMemPoolTrimTo gives back free pieces as long as at least the bytes it is
// asked to keep stay.
#pragma once

#include <cstdint>
#include <map>
#include <set>

#include "libcuda.h"

namespace minicuda::libcuda {

class Channel;

// One block of a segment: live (handed out) or free; a free block may still be waiting for its
// free's stream to reach the fence below ("pending").
struct PoolBlock {
  uint64_t size = 0;
  bool live = false;
  bool pending = false;             // freed, and not yet known to be passed by the GPU
  CUstream_st* stream = nullptr;    // pending: the stream of the free (null: the legacy stream)
  Channel* channel = nullptr;       // pending: that stream's channel
  CUdevice device = 0;              // pending: that channel's device (a free may be in another device's stream)
  uint64_t fence = 0;               // pending: the channel's fence of the work before the free
  uint64_t requested = 0;           // live: the bytes asked for
};

// A range of GPU VA the pool reserved; pieces of it are mapped to vidmem.
struct PoolSegment {
  uint64_t size = 0;                     // bytes of VA
  std::map<uint64_t, NvHandle> pieces;   // mapped pieces (kMemPoolPieceBytes each) by VA: their RM memory
  std::map<uint64_t, PoolBlock> blocks;  // by address; they tile the whole segment
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
  CUctx_st* ctx = nullptr;  // the context whose VA and vidmem the segments use (null: none yet)
  // cuMemPoolSetAccess: the other devices that may reach the pool's memory, READ or READWRITE
  // (absent: NONE). Every mapped piece is mapped in each of their page tables too (mempool_access.cpp).
  std::map<CUdevice, CUmemAccess_flags> peer_access;
  std::map<uint64_t, minicuda::libcuda::PoolSegment> segments;  // by GPU VA
};

namespace minicuda::libcuda {

// The physical memory a pool maps at a time, and the granularity of its blocks (measured:
// probe_mempool.txt gran.* and seq.*, docs/memory-pools.md); the VA a segment reserves.
inline constexpr uint64_t kMemPoolPieceBytes = 32ull << 20;
inline constexpr uint64_t kMemPoolBlockAlign = 512;
inline constexpr uint64_t kMemPoolSegmentBytes = 8ull << 30;

// A live pool of this process, or null.
CUmemPoolHandle_st* find_mempool(CUmemoryPool pool);
// The pool (of this process) whose live allocation starts at dptr, or null.
CUmemPoolHandle_st* mempool_of_allocation(uint64_t dptr);
// The pool (of this process) with a live allocation holding addr, or null.
CUmemPoolHandle_st* mempool_containing(uint64_t addr);
// Hands out bytes from pool for work in stream s (mempool_alloc.cpp), by the reuse rules above;
// maps more pieces when nothing fits. CUDA_ERROR_OUT_OF_MEMORY when the kernel has no room or the
// pool's maxSize (rounded up to a piece) would be passed.
CUresult mempool_allocate(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t bytes, CUstream_st* s, uint64_t* out);
// Frees the live allocation at dptr in stream s's order. CUDA_ERROR_INVALID_VALUE if dptr does not
// start a live allocation of pool.
CUresult mempool_free(CUctx_st& ctx, CUmemPoolHandle_st& pool, uint64_t dptr, CUstream_st* s);
// How mempool_release decides what to keep.
enum class ReleaseRule {
  Threshold,  // a synchronize: give back free pieces while the pool holds more than keep
  Trim,       // cuMemPoolTrimTo: give back a free piece only if at least keep bytes stay
};
// Turns passed frees into plain free memory, then returns free pieces to the kernel by the rule.
void mempool_release(CUmemPoolHandle_st& pool, uint64_t keep, ReleaseRule rule, const char* why);
// Gives the pool's VA back (pool destruction, nothing mapped any more).
void mempool_release_segments(CUmemPoolHandle_st& pool);
// The live pool allocation of ctx holding addr (Pool::find's answer for pool memory): its start,
// requested size, and the block around it. False if none.
bool mempool_find(CUctx_st& ctx, uint64_t addr, uint64_t* start, uint64_t* size, uint64_t* map_va,
                  uint64_t* map_size);
// Maps a piece of pool just mapped for its owner (its RM memory hMemory) into the page table of
// every device pool.peer_access grants (mempool_access.cpp). A piece's UVM_FREE takes them along.
CUresult mempool_map_for_peers(CUmemPoolHandle_st& pool, uint64_t piece, NvHandle hMemory);
// ctx is being torn down (Pool::release_all): its pools' pieces go back, their blocks are forgotten.
void mempool_context_torn_down(CUctx_st& ctx);

// Hooks of the synchronizing calls and cuStreamWaitEvent (stream.cpp, context.cpp).
// A synchronize of ctx finished: every pool on it releases down to its threshold.
void mempool_synchronized(CUctx_st& ctx);
// Stream s now waits for channel ch's fence (an event dependency the reuse rules may follow).
void mempool_stream_waited(CUstream_st* s, const Channel* ch, uint64_t fence);
// The highest fence of ch that s waited for (0: none).
uint64_t mempool_waited_fence(CUstream_st* s, const Channel* ch);
// Every pool of this process (mempool.cpp); guarded by driver_mutex().
const std::set<CUmemPoolHandle_st*>& all_mempools();

}  // namespace minicuda::libcuda
