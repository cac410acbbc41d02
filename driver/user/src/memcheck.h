// Private to libcuda: memcheck mode (MINICUDA_MEMCHECK=1 at cuInit), a look-alike of
// compute-sanitizer's memcheck tool.
//
// The real tool instruments every load and store of a kernel. minicuda uses the MMU instead, the
// way Electric Fence and glibc's MALLOC_PERTURB-style debug heaps use the CPU's page tables:
//   - layout (the pool, pool.cpp): every cuMemAlloc_v2 gets a chunk of its own,
//     round_up(size, 2 MiB) of VRAM, whose VA reservation is followed by 2 MiB that are never
//     mapped (the guard). The pointer is placed so that the allocation ENDS at the chunk's end
//     (place()): the first byte past it is in the guard, so a one-byte overrun faults (700);
//   - call sites: each allocation records a host backtrace (capture_call_site());
//   - reports: a kernel's MMU fault is reported as compute-sanitizer reports an invalid access
//     (report_access_error()), and allocations never freed as leaks, when their context is
//     destroyed (cudaDeviceReset) and at process exit (on_teardown(), the exit report).
// What this costs, and what it cannot see (docs/reliability.md): 2 MiB of VRAM per allocation;
// the 256-byte alignment promise becomes "the largest power of two dividing the size, at most
// 256" (promised_alignment()); an underrun is only caught once it leaves the chunk; the access
// size is not known (the SIGSEGV behind the MMU fault does not say it), so it is not printed.
//
// Every report goes to stderr, each line starting with "=========" as compute-sanitizer's do.
// State (the live allocations and their call sites, the error count) is the process's, guarded
// by the module's own mutex, so that the exit report needs no driver lock.
#pragma once

#include <cstdint>

#include "libcuda.h"
#include "nv_uapi.h"

namespace minicuda::libcuda::memcheck {

// The unmapped VA after each memcheck chunk.
inline constexpr uint64_t kGuardSize = 2ull << 20;
// The most host frames kept per allocation.
inline constexpr int kMaxFrames = 16;

// The address of an allocation of `bytes` (> 0, <= chunk_size) in the chunk [chunk_va,
// chunk_va + chunk_size): chunk end - bytes, so that it ends exactly at the chunk's end. Since the
// chunk's end is 2 MiB-aligned, the start is aligned to the largest power of two dividing bytes.
uint64_t place(uint64_t chunk_va, uint64_t chunk_size, uint64_t bytes);

// The alignment memcheck mode promises for an allocation of `bytes` (> 0): the largest power of
// two dividing it, at most 256. (The normal pool gives 512.) A 1000-byte buffer of doubles stays
// 8-aligned; a 3-byte buffer is only 1-aligned.
uint64_t promised_alignment(uint64_t bytes);

// Where an allocation was made: the raw return addresses of the host stack (glibc backtrace())
// and the return address of the API entry point that captured it, which marks where the
// program's own frames start. Resolved to names and lines only when a report needs them.
struct CallSite {
  void* frames[kMaxFrames] = {};
  int count = 0;
  void* entry_return = nullptr;
};

// Records the calling thread's host stack. entry_return: __builtin_return_address(0) of the API
// entry point (cuMemAlloc_v2), i.e. an address in its caller. Never fails (count may be 0).
CallSite capture_call_site(void* entry_return);

// Turns the process's exit report on (once; later calls do nothing): at exit, every allocation
// still live is reported as leaked, then "LEAK SUMMARY" (if any) and "ERROR SUMMARY: E errors".
void enable_exit_report();

// Bookkeeping of the pool's memcheck allocations, per context: made at start (size bytes), freed,
// and all of a context's dropped at its teardown, which reports those never freed as leaks
// (nothing when there are none).
void on_alloc(const CUctx_st& ctx, uint64_t start, uint64_t size, const CallSite& site);
void on_free(const CUctx_st& ctx, uint64_t start);
void on_teardown(const CUctx_st& ctx);

// Prints compute-sanitizer's report of an invalid global access for a kernel's MMU fault: the
// kind of access, the kernel, thread and block, the address, where it lies relative to the
// nearest allocation of ctx's pool, and that allocation's host call site; counts one error.
// False, printing nothing, when the record is not a kernel's MMU fault (a copy engine's, an SM
// exception): the caller then prints its usual line.
bool report_access_error(const CUctx_st& ctx, const NvMinicudaFaultRecord& record);

}  // namespace minicuda::libcuda::memcheck
