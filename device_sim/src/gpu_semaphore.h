// gpu_semaphore: the memory words through which the GPU and the host synchronise. A release
// writes a payload (and, in the four-word form, the GPU time) to GPU memory; an acquire compares
// the word in memory with a payload and tells whether the waiting channel may go on; a reduction
// updates the word atomically. A cudaEvent is a released semaphore with a timestamp; a stream
// waiting on an event is an acquire.
//
// Layout (class/clc56f.h): the one-word form is the payload alone (4 or 8 bytes); the
// four-word form is 16 bytes, the payload zero-extended to 64 bits at +0 and the timestamp in
// nanoseconds at +8.
//
// Who talks to it: the PBDMA (host SEM_EXECUTE) and the copy engine (LAUNCH_DMA's release).
// Addresses are GPU VAs, checked through GpuMemory; alignment is the caller's to check.
#pragma once

#include <cstdint>
#include <optional>

#include "gpu_memory.h"

namespace minicuda::gpu {

enum class PayloadSize : uint8_t { Bits32, Bits64 };

// Writes payload at va: 4 or 8 bytes, or with a timestamp the 16-byte form. The timestamp is
// stored before the payload, so a host that sees the payload also sees the time. va must be
// aligned to 4 / 8 / 16 bytes (asserted). Returns the MMU fault, if any, with nothing written.
std::optional<MemoryFault> semaphore_release(const GpuMemory& memory, uint64_t va, uint64_t payload,
                                             PayloadSize size,
                                             std::optional<uint64_t> timestamp_ns);

// Reads the semaphore at va and decides whether an acquire of kind operation
// (NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE / ACQ_STRICT_GEQ / ACQ_CIRC_GEQ / ACQ_AND / ACQ_NOR)
// with payload is satisfied. *value gets what memory holds. Returns the MMU fault, if any.
std::optional<MemoryFault> semaphore_acquire(const GpuMemory& memory, uint64_t va,
                                             uint32_t operation, uint64_t payload, PayloadSize size,
                                             bool* satisfied, uint64_t* value);

// Atomically applies reduction (NVC56F_SEM_EXECUTE_REDUCTION_*: IMIN, IMAX, IXOR, IAND, IOR,
// IADD, INC, DEC) with payload to the semaphore at va; is_signed picks the signed compare for
// IMIN/IMAX. INC and DEC wrap like CUDA's atomicInc/atomicDec: INC gives 0 once the value
// reaches payload, DEC gives payload at 0 or above payload. *old gets the value before.
// Returns the MMU fault, if any, with nothing written.
std::optional<MemoryFault> semaphore_reduce(const GpuMemory& memory, uint64_t va,
                                            uint32_t reduction, bool is_signed, uint64_t payload,
                                            PayloadSize size, uint64_t* old);

}  // namespace minicuda::gpu
