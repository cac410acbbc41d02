// gpu_memory: the engines' port to memory, checked page by page against the MMU (see
// gpu_memory.h). The page walk is the Mmu's translate(); the data moves through the UVA
// address itself, which the MMU has made host-accessible for every mapped page.
#include "gpu_memory.h"

#include <atomic>
#include <cassert>
#include <cstring>
#include <limits>

namespace minicuda::gpu {

std::optional<MemoryFault> GpuMemory::check(uint64_t va, uint64_t length, Access access) const {
  if (length == 0) return std::nullopt;
  if (length - 1 > std::numeric_limits<uint64_t>::max() - va)
    return MemoryFault{va, access, FaultKind::MmuUnmapped};
  uint64_t last = va + (length - 1);
  uint64_t page_va = va;
  while (true) {
    std::optional<Pte> pte = mmu_.translate(page_va);
    if (!pte) return MemoryFault{page_va, access, FaultKind::MmuUnmapped};
    if (access == Access::Write && !pte->writable)
      return MemoryFault{page_va, access, FaultKind::MmuReadOnly};
    // Pages are naturally aligned (the Mmu refuses anything else), so the next one starts at
    // the next multiple of this page's size.
    uint64_t page_start = page_va & ~(pte->page_size - 1);
    if (last - page_start < pte->page_size) return std::nullopt;  // this page holds the end
    page_va = page_start + pte->page_size;
  }
}

std::optional<MemoryFault> GpuMemory::read(uint64_t va, void* dst, uint64_t length) const {
  if (auto fault = check(va, length, Access::Read)) return fault;
  if (length != 0) std::memcpy(dst, reinterpret_cast<const void*>(va), length);
  return std::nullopt;
}

std::optional<MemoryFault> GpuMemory::write(uint64_t va, const void* src, uint64_t length) const {
  if (auto fault = check(va, length, Access::Write)) return fault;
  if (length != 0) std::memcpy(reinterpret_cast<void*>(va), src, length);
  return std::nullopt;
}

std::optional<MemoryFault> GpuMemory::load32(uint64_t va, uint32_t* value) const {
  assert(va % 4 == 0 && "unaligned 32-bit GPU load");
  if (auto fault = check(va, 4, Access::Read)) return fault;
  *value =
      std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(va)).load(std::memory_order_acquire);
  return std::nullopt;
}

std::optional<MemoryFault> GpuMemory::load64(uint64_t va, uint64_t* value) const {
  assert(va % 8 == 0 && "unaligned 64-bit GPU load");
  if (auto fault = check(va, 8, Access::Read)) return fault;
  *value =
      std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(va)).load(std::memory_order_acquire);
  return std::nullopt;
}

std::optional<MemoryFault> GpuMemory::store32(uint64_t va, uint32_t value) const {
  assert(va % 4 == 0 && "unaligned 32-bit GPU store");
  if (auto fault = check(va, 4, Access::Write)) return fault;
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(va))
      .store(value, std::memory_order_release);
  return std::nullopt;
}

std::optional<MemoryFault> GpuMemory::store64(uint64_t va, uint64_t value) const {
  assert(va % 8 == 0 && "unaligned 64-bit GPU store");
  if (auto fault = check(va, 8, Access::Write)) return fault;
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(va))
      .store(value, std::memory_order_release);
  return std::nullopt;
}

}  // namespace minicuda::gpu
