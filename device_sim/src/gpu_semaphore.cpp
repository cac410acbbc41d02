// gpu_semaphore: release, acquire and reduction on semaphore words in GPU memory (see
// gpu_semaphore.h).
#include "gpu_semaphore.h"

#include <atomic>
#include <cassert>

#include "class/clc86f.h"

namespace minicuda::gpu {

namespace {

uint64_t width_mask(PayloadSize size) {
  return size == PayloadSize::Bits32 ? 0xFFFF'FFFFull : ~0ull;
}

uint64_t payload_bytes(PayloadSize size) { return size == PayloadSize::Bits32 ? 4 : 8; }

// The reduction of old with payload, in the payload's width.
uint64_t reduce(uint32_t reduction, bool is_signed, uint64_t old, uint64_t payload,
                PayloadSize size) {
  const uint64_t mask = width_mask(size);
  old &= mask;
  payload &= mask;
  // Signed compare in the payload's width: flip the sign bit and compare unsigned.
  const uint64_t sign = size == PayloadSize::Bits32 ? 0x8000'0000ull : 0x8000'0000'0000'0000ull;
  auto less = [&](uint64_t a, uint64_t b) { return is_signed ? (a ^ sign) < (b ^ sign) : a < b; };
  switch (reduction) {
    case NVC56F_SEM_EXECUTE_REDUCTION_IMIN: return less(payload, old) ? payload : old;
    case NVC56F_SEM_EXECUTE_REDUCTION_IMAX: return less(old, payload) ? payload : old;
    case NVC56F_SEM_EXECUTE_REDUCTION_IXOR: return old ^ payload;
    case NVC56F_SEM_EXECUTE_REDUCTION_IAND: return old & payload;
    case NVC56F_SEM_EXECUTE_REDUCTION_IOR: return old | payload;
    case NVC56F_SEM_EXECUTE_REDUCTION_IADD: return (old + payload) & mask;
    case NVC56F_SEM_EXECUTE_REDUCTION_INC: return old >= payload ? 0 : old + 1;
    case NVC56F_SEM_EXECUTE_REDUCTION_DEC: return (old == 0 || old > payload) ? payload : old - 1;
    default: return old;  // the field is 4 bits; 8..15 are not reductions (the caller rejects them)
  }
}

template <typename T>
uint64_t reduce_in_place(uint64_t va, uint32_t reduction, bool is_signed, uint64_t payload,
                         PayloadSize size) {
  std::atomic_ref<T> word(*reinterpret_cast<T*>(va));
  T old = word.load(std::memory_order_acquire);
  while (!word.compare_exchange_weak(
      old, static_cast<T>(reduce(reduction, is_signed, old, payload, size)),
      std::memory_order_acq_rel)) {
  }
  return old;
}

}  // namespace

std::optional<MemoryFault> semaphore_release(const GpuMemory& memory, uint64_t va, uint64_t payload,
                                             PayloadSize size,
                                             std::optional<uint64_t> timestamp_ns) {
  if (!timestamp_ns) {
    if (size == PayloadSize::Bits32) return memory.store32(va, static_cast<uint32_t>(payload));
    return memory.store64(va, payload);
  }
  assert(va % NV_SEMAPHORE_FOUR_WORD_SIZE == 0 && "four-word semaphore must be 16-byte aligned");
  if (auto fault = memory.check(va, NV_SEMAPHORE_FOUR_WORD_SIZE, Access::Write)) return fault;
  memory.store64(va + NV_SEMAPHORE_TIMESTAMP_OFFSET, *timestamp_ns);
  memory.store64(va, payload & width_mask(size));
  return std::nullopt;
}

std::optional<MemoryFault> semaphore_acquire(const GpuMemory& memory, uint64_t va,
                                             uint32_t operation, uint64_t payload, PayloadSize size,
                                             bool* satisfied, uint64_t* value) {
  uint64_t current = 0;
  if (size == PayloadSize::Bits32) {
    uint32_t word = 0;
    if (auto fault = memory.load32(va, &word)) return fault;
    current = word;
  } else {
    if (auto fault = memory.load64(va, &current)) return fault;
  }
  const uint64_t mask = width_mask(size);
  payload &= mask;
  *value = current;
  switch (operation) {
    case NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE: *satisfied = current == payload; break;
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ: *satisfied = current >= payload; break;
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ: {
      // "Circular": the values are sequence numbers that may wrap; current is at or past
      // payload if the difference, read as signed in the payload's width, is not negative.
      uint64_t difference = (current - payload) & mask;
      uint64_t sign = size == PayloadSize::Bits32 ? 0x8000'0000ull : 0x8000'0000'0000'0000ull;
      *satisfied = (difference & sign) == 0;
      break;
    }
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND: *satisfied = (current & payload) != 0; break;
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR:
      *satisfied = (~(current | payload) & mask) != 0;
      break;
    default:
      assert(false && "semaphore_acquire called with a non-acquire operation");
      *satisfied = true;
  }
  return std::nullopt;
}

std::optional<MemoryFault> semaphore_reduce(const GpuMemory& memory, uint64_t va,
                                            uint32_t reduction, bool is_signed, uint64_t payload,
                                            PayloadSize size, uint64_t* old) {
  assert(va % payload_bytes(size) == 0 && "unaligned semaphore reduction");
  if (auto fault = memory.check(va, payload_bytes(size), Access::Write)) return fault;
  if (size == PayloadSize::Bits32)
    *old = reduce_in_place<uint32_t>(va, reduction, is_signed, payload, size);
  else
    *old = reduce_in_place<uint64_t>(va, reduction, is_signed, payload, size);
  return std::nullopt;
}

}  // namespace minicuda::gpu
