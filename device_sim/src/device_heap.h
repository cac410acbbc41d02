// device_heap: the device malloc heap's allocator, as the SMs run it for device-side malloc and
// free (C++ kernels through isa::heap_malloc/heap_free in sm_heap.cpp, PTX kernels through the
// HEAP instruction in simt_heap.cpp), and the order that makes its results deterministic.
//
// The heap is device memory that libcuda allocated per context (nv_device_heap.h); every piece
// of the allocator's state lives in it, guarded by the spin lock in its header, so several grids
// (streams) may use one heap at once and an allocation outlives the grid that made it.
//
// The allocator: first fit over an address-ordered free list of boundary-tagged blocks of whole
// 80-byte granules; a block is split when the rest can hold a block of its own, and a freed block
// merges with free neighbours at once. Payloads are 16-byte aligned.
//
// Determinism: within a block, CUDA threads make their heap calls in a fixed order (one host
// thread runs the block: threads in turn, or warps in turn, lanes in ascending order). Across the
// blocks of a grid, HeapTurn makes a block's heap calls wait until every block with a lower
// linear index has finished, so the heap sees the same sequence of calls at every number of host
// threads, and malloc returns the same addresses on every run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "nv_device_heap.h"
#include "sm.h"

namespace minicuda::gpu {

// Formats a fresh heap of `bytes` bytes (at least 128) at `heap`, as libcuda does through the
// copy engine (nv_device_heap_start): the header and one free block spanning the rest.
void heap_format(uint8_t* heap, uint64_t bytes);

// malloc(bytes) on the heap at `heap`: the payload's address, 16-byte aligned, or null when no
// free block is large enough (or the heap is absent). malloc(0) returns a block of its own, as
// on the H200. A block is a whole number of 80-byte granules, header included: the H200's spacing
// of small allocations (malloc(1..64) 80 bytes apart, malloc(100..129) 160). Thread-safe.
void* heap_malloc(uint8_t* heap, uint64_t bytes);

// What heap_free did. The caller makes the last two kernel errors, as the H200 does
// (tests/data/h200/device_heap/out/heap.txt: double_free, free_foreign, free_interior).
enum class HeapFree : uint8_t {
  Freed,      // the block went back to the heap
  Null,       // free(NULL): nothing
  Interior,   // inside the heap but not a block's payload: nothing (the H200 ignores it too)
  NotInUse,   // the payload of a block already freed (a double free): a trap on the H200 (719)
  OutsideHeap,// not in the heap (memory from cudaMalloc, a stack address): an illegal address (700)
};
// free(p) on the heap at `heap`; nothing changes unless the result is Freed. Every result but
// Freed and Null is counted in the header's bad_frees. Thread-safe.
HeapFree heap_free(uint8_t* heap, void* p);
// The kernel error a free's result raises, as the H200 raises it: NotInUse a trap (719),
// OutsideHeap an illegal address (700) at p; the others none (false).
bool heap_free_error(HeapFree result, const void* p, KernelErrorKind* kind, std::string* message);

// The ordering of one grid's heap calls across the host threads that run its blocks (see the
// head of this file). Each host thread publishes, at every claim from the BlockQueue, the first
// block it has yet to finish; a heap call of block b waits until every other host thread's
// published block is above b. Waits only ever go from a higher block to a lower one, and blocks
// are claimed in order, so the wait always ends. Thread-safe.
class HeapTurn {
 public:
  // For the grid whose blocks `queue` hands out to at most `host_threads` host threads.
  HeapTurn(const BlockQueue& queue, unsigned host_threads);
  // Called by BlockQueue::claim on the claiming host thread: before the claim (its first block
  // unknown yet: 0) and after it (`first` = the claim's first block, or kNoBlock when none was left).
  void before_claim();
  void after_claim(uint64_t first);
  // Blocks the calling host thread until block `block` may use the heap; returns at once when
  // the queue has stopped (the grid failed: the order no longer matters).
  void wait(uint64_t block);

  static constexpr uint64_t kNoBlock = ~uint64_t{0};

 private:
  std::atomic<uint64_t>* slot_of_caller();
  const BlockQueue& queue_;
  uint64_t id_;
  unsigned count_;
  std::unique_ptr<std::atomic<uint64_t>[]> slots_;  // per host thread: its first unfinished block
  std::atomic<unsigned> registered_{0};
};

}  // namespace minicuda::gpu
