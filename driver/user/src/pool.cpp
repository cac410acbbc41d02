// The device-memory pool (see pool.h for the policy and why it mirrors malloc).
#include "pool.h"

#include <cstring>
#include <iterator>

#include "memcheck.h"
#include "mempool.h"

namespace minicuda::libcuda {

namespace {

std::string size_str(uint64_t bytes) {
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}
}  // namespace

Pool::Pool(CUctx_st& ctx, PoolLayout layout, uint64_t va_base, uint64_t va_size)
    : ctx_(ctx), layout_(layout), va_(va_base, va_size) {}

int Pool::find_run(const Chunk& chunk, uint32_t n) {
  uint32_t run = 0;
  for (uint32_t i = 0; i < kSlotsPerChunk; ++i) {
    run = chunk.used[i] ? 0 : run + 1;
    if (run == n) return static_cast<int>(i + 1 - n);
  }
  return -1;
}

// Gets `size` bytes of VRAM from the kernel and maps them at a fresh VA: the pool's "brk".
CUresult Pool::grow(uint64_t size, bool dedicated, uint64_t guard, uint64_t* va_out) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx_.device);
  if (size + guard < size) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t va = va_.allocate(size + guard).value_or(0);
  if (va == 0) return CUDA_ERROR_OUT_OF_MEMORY;

  NV_MEMORY_ALLOCATION_PARAMS mem = vidmem_request(size, kChunkSize);
  NvHandle hMemory = next_handle();
  NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &hMemory, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem);
  if (s != NV_OK) {
    va_.release(va, size + guard);
    return to_cu_result(s);
  }

  s = uvm_map_memory(ctx_.uvm_fd, va, size, dev.uuid, hMemory);
  if (s != NV_OK) {
    rm_free(d.hClient, dev.hDevice, hMemory);
    va_.release(va, size + guard);
    return to_cu_result(s);
  }
  Chunk chunk;
  chunk.size = size;
  chunk.guard = guard;
  chunk.hMemory = hMemory;
  chunk.dedicated = dedicated;
  chunks_[va] = chunk;
  *va_out = va;
  return CUDA_SUCCESS;
}

void Pool::release_chunk(uint64_t va) {
  Driver& d = driver();
  auto it = chunks_.find(va);
  uvm_free_range(ctx_.uvm_fd, va);
  rm_free(d.hClient, device_info(ctx_.device)->hDevice, it->second.hMemory);
  va_.release(va, it->second.size + it->second.guard);
  chunks_.erase(it);
}

// Memcheck mode: a chunk of its own, then an unmapped guard; the allocation ends at the chunk's
// end, so its first byte past the end is the guard's first byte (memcheck.h).
CUresult Pool::alloc_memcheck(uint64_t bytes, CUdeviceptr* out) {
  uint64_t size = round_up(bytes, kChunkSize);
  if (size < bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  uint64_t va = 0;
  if (CUresult r = grow(size, /*dedicated=*/true, memcheck::kGuardSize, &va); r != CUDA_SUCCESS) return r;
  uint64_t start = memcheck::place(va, size, bytes);
  allocs_[start] = Allocation{bytes, va, 0, 0};
  trace::note(trace::Layer::Libcuda, "memcheck: {} bytes at {:#x} (chunk {:#x}+{}, guard {:#x}+{}), aligned to {}", bytes,
              start, va, size_str(size), va + size, size_str(memcheck::kGuardSize), memcheck::promised_alignment(bytes));
  *out = start;
  return CUDA_SUCCESS;
}

CUresult Pool::alloc(uint64_t bytes, CUdeviceptr* out) {
  if (layout_ == PoolLayout::Memcheck) return alloc_memcheck(bytes, out);
  if (bytes > kDedicatedAbove) {
    uint64_t size = round_up(bytes, kChunkSize);
    if (size < bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    trace::note(trace::Layer::Libcuda, "pool: {} > 1 MiB: a 2 MiB-aligned chunk of its own ({})", size_str(bytes),
                size_str(size));
    uint64_t va = 0;
    if (CUresult r = grow(size, /*dedicated=*/true, /*guard=*/0, &va); r != CUDA_SUCCESS) return r;
    allocs_[va] = Allocation{bytes, va, 0, 0};
    *out = va;
    return CUDA_SUCCESS;
  }
  uint32_t slots = static_cast<uint32_t>(round_up(bytes, kSlotSize) / kSlotSize);
  for (auto& [va, chunk] : chunks_) {
    if (chunk.dedicated) continue;
    int first = find_run(chunk, slots);
    if (first < 0) continue;
    for (uint32_t i = 0; i < slots; ++i) chunk.used.set(static_cast<size_t>(first) + i);
    chunk.used_slots += slots;
    uint64_t addr = va + static_cast<uint64_t>(first) * kSlotSize;
    allocs_[addr] = Allocation{bytes, va, static_cast<uint32_t>(first), slots};
    trace::note(trace::Layer::Libcuda, "pool: {} slot{} of 512 B at chunk {:#x}+{:#x}, no syscall", slots,
                slots == 1 ? "" : "s", va, static_cast<uint64_t>(first) * kSlotSize);
    *out = addr;
    return CUDA_SUCCESS;
  }
  trace::note(trace::Layer::Libcuda, "pool: no free run of {} slot{}: grow by one 2 MiB chunk", slots, slots == 1 ? "" : "s");
  uint64_t va = 0;
  if (CUresult r = grow(kChunkSize, /*dedicated=*/false, /*guard=*/0, &va); r != CUDA_SUCCESS) return r;
  Chunk& chunk = chunks_[va];
  for (uint32_t i = 0; i < slots; ++i) chunk.used.set(i);
  chunk.used_slots = slots;
  allocs_[va] = Allocation{bytes, va, 0, slots};
  *out = va;
  return CUDA_SUCCESS;
}

CUresult Pool::free(CUdeviceptr ptr) {
  auto it = allocs_.find(ptr);
  if (it == allocs_.end()) return CUDA_ERROR_INVALID_VALUE;
  Allocation a = it->second;
  allocs_.erase(it);
  Chunk& chunk = chunks_.at(a.chunk_va);
  if (chunk.dedicated) {
    trace::note(trace::Layer::Libcuda, "pool: free the dedicated {} chunk", size_str(chunk.size));
    release_chunk(a.chunk_va);
    return CUDA_SUCCESS;
  }
  for (uint32_t i = 0; i < a.slots; ++i) chunk.used.reset(a.first_slot + i);
  chunk.used_slots -= a.slots;
  if (chunk.used_slots == 0) {
    trace::note(trace::Layer::Libcuda, "pool: chunk {:#x} is empty: give it back to the kernel", a.chunk_va);
    release_chunk(a.chunk_va);
  } else {
    trace::note(trace::Layer::Libcuda, "pool: {} slot{} back to chunk {:#x}, no syscall", a.slots,
                a.slots == 1 ? "" : "s", a.chunk_va);
  }
  return CUDA_SUCCESS;
}

bool Pool::find(uint64_t addr, uint64_t* start, uint64_t* size, uint64_t* chunk_va, uint64_t* chunk_size) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return mempool_find(ctx_, addr, start, size, chunk_va, chunk_size);
  --it;
  if (addr >= it->first + it->second.size) return mempool_find(ctx_, addr, start, size, chunk_va, chunk_size);
  *start = it->first;
  *size = it->second.size;
  *chunk_va = it->second.chunk_va;
  *chunk_size = chunks_.at(it->second.chunk_va).size;
  return true;
}

void Pool::release_all() {
  mempool_context_torn_down(ctx_);
  while (!chunks_.empty()) release_chunk(chunks_.begin()->first);
  allocs_.clear();
}

bool Pool::nearest(uint64_t addr, uint64_t* start, uint64_t* size) const {
  if (allocs_.empty()) return false;
  auto distance = [addr](uint64_t begin, uint64_t bytes) -> uint64_t {
    if (addr < begin) return begin - addr;
    return addr < begin + bytes ? 0 : addr - (begin + bytes) + 1;
  };
  auto above = allocs_.lower_bound(addr);
  auto best = above;
  if (above == allocs_.end() || (above != allocs_.begin() &&
                                 distance(std::prev(above)->first, std::prev(above)->second.size) <=
                                     distance(above->first, above->second.size))) {
    best = std::prev(above);
  }
  *start = best->first;
  *size = best->second.size;
  return true;
}

NV_MEMORY_ALLOCATION_PARAMS vidmem_request(uint64_t size, uint64_t alignment) {
  NV_MEMORY_ALLOCATION_PARAMS mem{};
  mem.type = NVOS32_TYPE_IMAGE;
  mem.flags = NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE | NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED;
  mem.attr = nv_field_num(NVOS32_ATTR_LOCATION_SHIFT, NVOS32_ATTR_LOCATION_MASK, NVOS32_ATTR_LOCATION_VIDMEM) |
             nv_field_num(NVOS32_ATTR_PAGE_SIZE_SHIFT, NVOS32_ATTR_PAGE_SIZE_MASK, NVOS32_ATTR_PAGE_SIZE_HUGE);
  mem.attr2 = nv_field_num(NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT, NVOS32_ATTR2_PAGE_SIZE_HUGE_MASK,
                           NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB);
  mem.size = size;
  mem.alignment = alignment;
  return mem;
}

}  // namespace minicuda::libcuda
