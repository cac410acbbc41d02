// gpu_memory: the engines' port to memory, checked page by page against the MMU (see
// gpu_memory.h). The page walk is the Mmu's translate(); the data moves through the UVA
// address itself, which the MMU has made host-accessible for every mapped page.
#include "gpu_memory.h"

#include <atomic>
#include <cassert>
#include <cstring>
#include <limits>

namespace minicuda::gpu {

namespace {

// One thread's verified ranges: runs of pages check() found mapped, for the page table's epoch
// they were found in (Mmu::epoch: every map and unmap starts a new one, unique among Mmus), so an
// entry never outlives the pages it vouches for. A check inside a run needs no translate() at
// all: the printf FIFO and the device heap a launch checks are 16 pages and more, the pushbuffer
// and the launch ring are read a few words at a time from the same pages.
struct VerifiedRun {
  const Mmu* mmu = nullptr;
  uint64_t epoch = 0;
  uint64_t start = 0, end = 0;  // [start, end): whole pages, contiguous, every one mapped
  bool writable = false;        // every page of it writable
};
constexpr int kVerifiedRuns = 8;
struct VerifiedRuns {
  VerifiedRun runs[kVerifiedRuns];
  unsigned next = 0;  // the slot the next new run takes
  unsigned hit = 0;   // the run that answered last: looked at first
};
constinit thread_local VerifiedRuns t_verified;

bool covers(const VerifiedRun& r, const Mmu& mmu, uint64_t epoch, uint64_t va, uint64_t last, bool write) {
  return r.mmu == &mmu && r.epoch == epoch && va >= r.start && last < r.end && (r.writable || !write);
}

bool verified(const Mmu& mmu, uint64_t epoch, uint64_t va, uint64_t last, bool write) {
  VerifiedRuns& v = t_verified;
  if (covers(v.runs[v.hit], mmu, epoch, va, last, write)) return true;
  for (unsigned i = 0; i < kVerifiedRuns; ++i) {
    if (covers(v.runs[i], mmu, epoch, va, last, write)) {
      v.hit = i;
      return true;
    }
  }
  return false;
}

// Keeps [start, end), found mapped in epoch: grown onto a run it continues (a ring read page
// after page stays one run), else in the next slot, round robin.
void remember(const Mmu& mmu, uint64_t epoch, uint64_t start, uint64_t end, bool writable) {
  for (VerifiedRun& r : t_verified.runs) {
    if (r.mmu != &mmu || r.epoch != epoch || r.writable != writable) continue;
    if (r.end == start) return void(r.end = end);
    if (r.start == end) return void(r.start = start);
  }
  t_verified.runs[t_verified.next++ % kVerifiedRuns] = VerifiedRun{&mmu, epoch, start, end, writable};
}

}  // namespace

std::optional<MemoryFault> GpuMemory::check(uint64_t va, uint64_t length, Access access) const {
  if (length == 0) return std::nullopt;
  if (length - 1 > std::numeric_limits<uint64_t>::max() - va)
    return MemoryFault{va, access, FaultKind::MmuUnmapped};
  uint64_t last = va + (length - 1);
  // Read before any translate(): had a map or unmap come between, the run is stale at once.
  const uint64_t epoch = mmu_.epoch();
  if (verified(mmu_, epoch, va, last, access == Access::Write)) return std::nullopt;
  return check_pages(va, last, access, epoch);
}

// The plain path: every page of [va, last] translated in turn; a range found mapped is remembered.
std::optional<MemoryFault> GpuMemory::check_pages(uint64_t va, uint64_t last, Access access, uint64_t epoch) const {
  uint64_t page_va = va;
  uint64_t run_start = 0;
  bool writable = true;
  while (true) {
    std::optional<Pte> pte = mmu_.translate(page_va);
    if (!pte) return MemoryFault{page_va, access, FaultKind::MmuUnmapped};
    if (access == Access::Write && !pte->writable)
      return MemoryFault{page_va, access, FaultKind::MmuReadOnly};
    // Pages are naturally aligned (the Mmu refuses anything else), so the next one starts at
    // the next multiple of this page's size.
    uint64_t page_start = page_va & ~(pte->page_size - 1);
    if (page_va == va) run_start = page_start;
    writable = writable && pte->writable;
    if (last - page_start < pte->page_size) {  // this page holds the end
      // A run that ends at the top of the address space is not kept (its end would wrap).
      if (page_start + pte->page_size != 0) remember(mmu_, epoch, run_start, page_start + pte->page_size, writable);
      return std::nullopt;
    }
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
