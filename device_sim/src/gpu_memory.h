// gpu_memory: the engines' port to memory. Every byte an engine reads or writes (GPFIFO ring,
// pushbuffer, USERD, semaphores, copy source and destination) is addressed by GPU virtual
// address and goes through here: the MMU is walked for every page of the range first (a page
// without a PTE, or a read-only page written, is an MMU fault), and only then are the bytes
// touched, through the same address in the host (UVA: mapped VAs are host-accessible).
//
// Who talks to it: the PBDMA (pbdma.cpp), the copy engine (copy_engine.cpp) and the semaphore
// helpers (gpu_semaphore.cpp). It only reads the Mmu's page table.
#pragma once

#include <cstdint>
#include <optional>

#include "minicuda/device.h"

namespace minicuda::gpu {

// An access the MMU refused: the first faulting address of the range.
struct MemoryFault {
  uint64_t va;
  Access access;
  FaultKind kind;  // MmuUnmapped or MmuReadOnly
};

class GpuMemory {
 public:
  explicit GpuMemory(const Mmu& mmu) : mmu_(mmu) {}

  // Walks the page table over [va, va+length) for access. Returns the fault of the first page
  // that has no PTE (or is read-only, for a write), nullopt if the whole range may be accessed.
  // A range that wraps around the address space faults at its first byte; length 0 never faults.
  // A range inside one this thread found mapped since the page table last changed (Mmu::epoch)
  // is answered without a walk: the same answer (test_gpu_memory.cpp compares the two).
  std::optional<MemoryFault> check(uint64_t va, uint64_t length, Access access) const;
  // The walk itself, page by page over [va, last] (the plain path check() shortcuts), for the
  // page table of epoch: a range found mapped is remembered for check().
  std::optional<MemoryFault> check_pages(uint64_t va, uint64_t last, Access access, uint64_t epoch) const;

  // check(), then copy. On a fault nothing is copied.
  std::optional<MemoryFault> read(uint64_t va, void* dst, uint64_t length) const;
  std::optional<MemoryFault> write(uint64_t va, const void* src, uint64_t length) const;

  // Naturally aligned 32/64-bit loads and stores (acquire/release: these are how the GPU and
  // the host hand work and completion to each other: GPPut, GPGet, semaphores). va must be
  // aligned to the size (asserted: callers check alignment first).
  std::optional<MemoryFault> load32(uint64_t va, uint32_t* value) const;
  std::optional<MemoryFault> load64(uint64_t va, uint64_t* value) const;
  std::optional<MemoryFault> store32(uint64_t va, uint32_t value) const;
  std::optional<MemoryFault> store64(uint64_t va, uint64_t value) const;

 private:
  const Mmu& mmu_;
};

}  // namespace minicuda::gpu
