// Private to libcuda: the device memory a context owns itself.
//
// Before a program allocates anything, building a context makes the real libcuda allocate video
// memory for its own use: the device-side malloc heap, the printf FIFO, local memory (the
// threads' stacks) and buffers of its own. Each is an NV01_MEMORY_LOCAL_USER object mapped into
// the context's VA space through UVM, exactly as a cudaMalloc chunk is (RM_ALLOC, then
// UVM_CREATE_EXTERNAL_RANGE and UVM_MAP_EXTERNAL_ALLOCATION), and they sit at the bottom of the
// VA space, so the program's first allocation lands right above them. A kernel that reads or
// writes below its first allocation therefore touches real memory and does not fault, as on the
// H200 (tests/data/h200/va/probe_va_layout.txt: every read from 64 MiB below the first
// allocation up to it succeeds; cuda-samples' simpleAttributes reads data[INT_MIN % n]; the
// buffer there is 414 MiB).
// Nothing of it is a user allocation: cuMemGetAddressRange and the pointer attributes do not
// know it (CUDA_ERROR_NOT_FOUND, as measured).
//
// In memcheck mode (memcheck.h) the reserve moves to the top of the VA space and the bottom stays
// unmapped, so that such an access faults and is reported, as compute-sanitizer reports it.
#pragma once

#include <cstdint>

#include "libcuda.h"
#include "pool.h"

namespace minicuda::libcuda {

// One buffer of the reserve: what the real driver uses it for, and its size.
struct ContextBuffer {
  const char* purpose;
  uint64_t bytes;  // a multiple of 2 MiB (the chunk size)
};

// The reserve, in VA order from its base: the buffer the H200's libcuda maps right below a fresh
// context's first allocation, the last and largest video-memory object of context creation,
// 0x19e00000 bytes (tests/data/h200/vmm/out/vmm_trace.txt: UVM_CREATE_EXTERNAL_RANGE of
// 0x7fdac8000000 + 0x19e00000 ends at the first cudaMalloc's 0x7fdae1e00000). Its size fits the
// threads' local memory (stacks) of a full GPU. The driver's other buffers (among them a 70 MiB
// one just above the first 2 MiB chunk) are not modelled.
inline constexpr ContextBuffer kContextBuffers[] = {
    {"local memory (the threads' stacks)", 0x19e00000},
};

constexpr uint64_t context_reserve_bytes() {
  uint64_t total = 0;
  for (const ContextBuffer& b : kContextBuffers) total += b.bytes;
  return total;
}
inline constexpr uint64_t kContextReserveBytes = context_reserve_bytes();
static_assert(kContextReserveBytes % Pool::kChunkSize == 0, "the reserve is whole 2 MiB chunks");

// Where the reserve sits in ctx's VA space [ctx.va_base, ctx.va_base + ctx.va_size): at its
// bottom (Packed), or at its top with the bottom left unmapped (Memcheck).
uint64_t context_reserve_va(const CUctx_st& ctx, PoolLayout layout);
// The part of ctx's VA space the pool hands out: everything but the reserve (and, in memcheck
// mode, the unmapped bottom).
void pool_va_range(const CUctx_st& ctx, PoolLayout layout, uint64_t* base, uint64_t* size);

// Allocates and maps every buffer of kContextBuffers at context_reserve_va() (ctx's VA space is
// registered with UVM already). On failure, what was made is freed again and the RM status's
// CUresult returned (CUDA_ERROR_OUT_OF_MEMORY when VRAM is short).
CUresult map_context_memory(CUctx_st& ctx, PoolLayout layout);
// Unmaps and frees the reserve (context teardown). Does nothing when it was never made.
void unmap_context_memory(CUctx_st& ctx);

}  // namespace minicuda::libcuda
