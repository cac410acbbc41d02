// Private to libcuda: the device memory a context owns itself.
//
// Before a program allocates anything, building a context makes the real libcuda allocate video
// memory for its own use. The largest object by far, and the last one made, is local memory: the
// backing store of every resident thread's stack and spills. Like a cudaMalloc chunk it is an
// NV01_MEMORY_LOCAL_USER object mapped into the context's VA space through UVM
// (RM_ALLOC, then UVM_CREATE_EXTERNAL_RANGE and UVM_MAP_EXTERNAL_ALLOCATION), and it sits at the
// bottom of the VA space, so the program's first allocation lands right above it. A kernel that
// reads or writes below its first allocation therefore touches real memory and does not fault,
// as on the H200 (tests/data/h200/va/probe_va_layout.txt: every read from 64 MiB below the first
// allocation up to it succeeds; cuda-samples' simpleAttributes reads data[INT_MIN % n]).
// Nothing of it is a user allocation: cuMemGetAddressRange and the pointer attributes do not
// know it (CUDA_ERROR_NOT_FOUND, as measured).
//
// Its size follows the device: local memory for every thread it can hold (context_reserve.h).
// The driver's other, smaller buffers (a 70 MiB one among them) are not modelled.
//
// In memcheck mode (memcheck.h) the reserve moves to the top of the VA space and the bottom stays
// unmapped, so that such an access faults and is reported, as compute-sanitizer reports it.
#pragma once

#include <cstdint>

#include "context_reserve.h"
#include "libcuda.h"
#include "pool.h"

namespace minicuda::libcuda {

// The reserve of a context on dev (with the default stack).
ContextReserve context_reserve(const DeviceInfo& dev);

// Where the reserve sits in ctx's VA space [ctx.va_base, ctx.va_base + ctx.va_size): at its
// bottom (Packed), or at its top with the bottom left unmapped (Memcheck).
uint64_t context_reserve_va(const CUctx_st& ctx, PoolLayout layout);
// The part of ctx's VA space the pool hands out: everything but the reserve (and, in memcheck
// mode, the unmapped bottom).
void pool_va_range(const CUctx_st& ctx, PoolLayout layout, uint64_t* base, uint64_t* size);

// Allocates the reserve as one VRAM object and maps it at context_reserve_va() (ctx's VA space is
// registered with UVM already). On failure, what was made is freed again and the RM status's
// CUresult returned (CUDA_ERROR_OUT_OF_MEMORY when VRAM is short).
CUresult map_context_memory(CUctx_st& ctx, PoolLayout layout);
// Unmaps and frees the reserve (context teardown). Does nothing when it was never made.
void unmap_context_memory(CUctx_st& ctx);

}  // namespace minicuda::libcuda
