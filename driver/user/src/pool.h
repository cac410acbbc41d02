// Private to libcuda: the device-memory pool of a context (the libc-heap analogy).
//
// Like malloc on top of brk, cuMemAlloc_v2 gets device memory from the kernel in big pieces and
// carves small requests out of them with no system call:
//   - a request of up to 1 MiB takes ceil(size / 512) consecutive 512-byte slots of a 2 MiB chunk,
//     first fit (so every pointer is 512-byte aligned, more than the 256 CUDA promises, and
//     sizes 1..512 all cost one slot, as measured on an H200: probe.txt malloc.size_*);
//   - when no chunk has a long enough free run, the pool grows by one chunk: RM_ALLOC of
//     NV01_MEMORY_LOCAL_USER (2 MiB of VRAM), UVM_CREATE_EXTERNAL_RANGE for a 2 MiB-aligned VA,
//     UVM_MAP_EXTERNAL_ALLOCATION to write the GPU page table;
//   - a request over 1 MiB gets a chunk of its own, rounded up to 2 MiB (like a big malloc getting
//     its own mmap): measured, 1 MiB still shared a chunk, 1.5 MiB and 2 MiB did not, and 3 MiB
//     cost 4 MiB (tests/data/h200/probe_extra.txt, drv.pool.*);
//   - freeing a small allocation clears its slots and nothing else: its bytes stay mapped while
//     the chunk holds other allocations, so a kernel that still uses them gets no fault, as on
//     the H200 (tests/data/h200/probe_semantics.txt freed.256_*, freed.4096_*);
//   - when a chunk has no allocation left, it goes back to the kernel (UVM_FREE + RM_FREE), as
//     the measured cudaFree of the last 256 KiB block did (chain_full.txt); a dedicated chunk
//     goes back at its cudaFree, so a kernel's later access faults (freed.2097152_*: 700).
// In memcheck mode (PoolLayout::Memcheck, MINICUDA_MEMCHECK=1) every request gets a chunk of its
// own followed by 2 MiB of VA that is never mapped, and ends at the chunk's end (memcheck.h).
#pragma once

#include <bitset>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "libcuda.h"
#include "minicuda/range_allocator.h"

namespace minicuda::libcuda {

// How the pool lays allocations out: as the real libcuda does, or for memcheck mode.
enum class PoolLayout {
  Packed,    // 512-byte slots of shared 2 MiB chunks; dedicated chunks above 1 MiB
  Memcheck,  // a chunk of its own per allocation, ending at the chunk's end, then an unmapped guard
};

class Pool {
 public:
  static constexpr uint64_t kChunkSize = 2ull << 20;
  static constexpr uint64_t kSlotSize = 512;
  static constexpr uint32_t kSlotsPerChunk = kChunkSize / kSlotSize;
  static constexpr uint64_t kDedicatedAbove = 1ull << 20;  // larger requests get their own chunk

  // Hands out [va_base, va_base + va_size) of ctx's VA space (context_memory.h keeps the rest).
  Pool(CUctx_st& ctx, PoolLayout layout, uint64_t va_base, uint64_t va_size);

  PoolLayout layout() const { return layout_; }
  // cuMemAlloc_v2's work. CUDA_ERROR_OUT_OF_MEMORY when the VA space or VRAM is exhausted.
  CUresult alloc(uint64_t bytes, CUdeviceptr* out);
  // cuMemFree_v2's work. CUDA_ERROR_INVALID_VALUE unless ptr starts a live allocation.
  CUresult free(CUdeviceptr ptr);
  // The allocation containing addr (interior pointers too): its start and requested size, and the
  // chunk behind it (CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR / _SIZE).
  bool find(uint64_t addr, uint64_t* start, uint64_t* size, uint64_t* chunk_va, uint64_t* chunk_size) const;
  // The live allocation whose range is nearest to addr (containing it, or the closest below or
  // above): its start and requested size. False when there is none.
  bool nearest(uint64_t addr, uint64_t* start, uint64_t* size) const;
  // Every live allocation, by start address: (start, requested size) (for gdb's mc-mem).
  std::vector<std::pair<uint64_t, uint64_t>> allocations() const {
    std::vector<std::pair<uint64_t, uint64_t>> all;
    for (const auto& [start, a] : allocs_) all.emplace_back(start, a.size);
    return all;
  }
  // Returns every chunk to the kernel (context teardown), the memory pools' pieces first.
  void release_all();
  // GPU VA for the stream-ordered allocator's pools (mempool.h) and cuMemAddressReserve (vmm.h),
  // which map their own memory in it: `size` bytes (a multiple of 2 MiB) reserved, aligned to
  // `alignment` (a power of two, at least 2 MiB), or 0 when none is left.
  uint64_t reserve_va(uint64_t size, uint64_t alignment = kChunkSize) { return va_.allocate(size, alignment).value_or(0); }
  void release_va(uint64_t va, uint64_t size) { va_.release(va, size); }
  uint64_t chunk_count() const { return chunks_.size(); }

 private:
  struct Chunk {
    uint64_t size = 0;      // 2 MiB, or more for a dedicated chunk
    uint64_t guard = 0;     // unmapped VA reserved after it (memcheck mode), else 0
    NvHandle hMemory = 0;
    bool dedicated = false;
    std::bitset<kSlotsPerChunk> used;
    uint32_t used_slots = 0;
  };
  struct Allocation {
    uint64_t size = 0;       // what the caller asked for
    uint64_t chunk_va = 0;
    uint32_t first_slot = 0, slots = 0;
  };

  // Maps `size` bytes of fresh VRAM at a VA with `guard` more bytes of reserved, unmapped VA after it.
  CUresult grow(uint64_t size, bool dedicated, uint64_t guard, uint64_t* va);
  CUresult alloc_memcheck(uint64_t bytes, CUdeviceptr* out);
  void release_chunk(uint64_t va);
  // First free run of n slots in a chunk, or -1.
  static int find_run(const Chunk& chunk, uint32_t n);

  CUctx_st& ctx_;
  PoolLayout layout_;
  RangeAllocator va_;  // the context's GPU VA range, handed out in 2 MiB multiples, first fit
  std::map<uint64_t, Chunk> chunks_;       // by GPU VA
  std::map<uint64_t, Allocation> allocs_;  // by start address
};

// The NV01_MEMORY_LOCAL_USER request libcuda makes for device memory: video memory in 2 MiB
// huge pages, force-aligned, mapped later through UVM (cudaMalloc's chunks, memory pools' pieces).
NV_MEMORY_ALLOCATION_PARAMS vidmem_request(uint64_t size, uint64_t alignment);

}  // namespace minicuda::libcuda
