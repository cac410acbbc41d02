// Registering the program's own host memory (cuMemHostRegister): the pages under the range are
// described to nvidia.ko as an NV01_MEMORY_SYSTEM_OS_DESCRIPTOR (NV_ESC_RM_ALLOC_MEMORY on
// /dev/nvidia0, which pins them) and mapped into the GPU's address space at the same address by
// nvidia-uvm - the mechanism of cuMemHostAlloc (memory.cpp) without the mmap. The range is then
// "pinned" for copies (copy.cpp) and pointer queries. Flags and errors are the H200's
// (tests/data/h200/probe_api_families.txt rt.hostRegister.*, drv.memHost*).
#include "libcuda.h"
#include "pool.h"

namespace minicuda::libcuda {
namespace {

constexpr unsigned kRegisterFlags = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                    CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;

// The pinned range (cuMemHostAlloc's or a registration) containing addr, or end().
std::map<uint64_t, CUctx_st::HostAlloc>::iterator pinned_range(CUctx_st& ctx, uint64_t addr) {
  auto it = ctx.host_allocs.upper_bound(addr);
  if (it == ctx.host_allocs.begin()) return ctx.host_allocs.end();
  --it;
  return addr < it->first + it->second.size ? it : ctx.host_allocs.end();
}

// Does [pages, pages+bytes) share a page with a pinned range of ctx?
bool overlaps_pinned(const CUctx_st& ctx, uint64_t pages, uint64_t bytes) {
  for (const auto& [addr, alloc] : ctx.host_allocs) {
    uint64_t start = alloc.registered ? alloc.pages : addr;
    uint64_t size = alloc.registered ? alloc.page_bytes : alloc.size;
    if (start < pages + bytes && pages < start + size) return true;
  }
  return false;
}

bool is_device_memory(CUctx_st& ctx, uint64_t addr) {
  uint64_t start = 0, size = 0, chunk = 0, chunk_size = 0;
  return ctx.pool->find(addr, &start, &size, &chunk, &chunk_size) ||
         (addr >= ctx.va_base && addr < ctx.va_base + ctx.va_size);
}

}  // namespace
}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: page-locks the bytesize bytes at p (any alignment: the whole pages under them are
// pinned) and maps them for the GPU at the same address. Flags: a mask of
// CU_MEMHOSTREGISTER_{PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY}; the mapping exists whatever the
// flags (UVA). Errors: NULL p, bytesize 0, unknown flags: CUDA_ERROR_INVALID_VALUE; IOMEMORY
// (there is no memory-mapped I/O to register): CUDA_ERROR_INVALID_VALUE; device memory or memory
// of cuMemHostAlloc: CUDA_ERROR_INVALID_VALUE; pages a registration already covers:
// CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED; pages the simulated process does not own (the
// kernel refuses the OS descriptor): CUDA_ERROR_INVALID_VALUE.
CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemHostRegister_v2(p={}, bytesize={}, Flags={:#x})", p, bytesize, Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  const auto addr = reinterpret_cast<uint64_t>(p);
  if (p == nullptr || bytesize == 0 || (Flags & ~kRegisterFlags) != 0 || (Flags & CU_MEMHOSTREGISTER_IOMEMORY) != 0)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (bytesize > UINT64_MAX - addr - kernel::kPageSize) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (is_device_memory(*ctx, addr)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto inside = pinned_range(*ctx, addr);
  if (inside != ctx->host_allocs.end() && !inside->second.registered) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const uint64_t pages = addr & ~(kernel::kPageSize - 1);
  const uint64_t page_bytes = ((addr + bytesize + kernel::kPageSize - 1) & ~(kernel::kPageSize - 1)) - pages;
  if (overlaps_pinned(*ctx, pages, page_bytes)) return done(scope, CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);

  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx->device);
  NvHandle hMemory = next_handle();
  NV_STATUS s = rm_alloc_os_descriptor(d.hClient, dev.hDevice, hMemory, reinterpret_cast<void*>(pages), page_bytes);
  if (s != NV_OK) {
    trace::note(trace::Layer::Libcuda, "host register: nvidia.ko refused the pages ({:#x})", static_cast<unsigned>(s));
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  s = uvm_map_memory(ctx->uvm_fd, pages, page_bytes, dev.uuid, hMemory);
  if (s != NV_OK) {
    rm_free(d.hClient, dev.hDevice, hMemory);
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  CUctx_st::HostAlloc alloc;
  alloc.size = bytesize;
  alloc.hMemory = hMemory;
  alloc.flags = Flags;
  alloc.registered = true;
  alloc.pages = pages;
  alloc.page_bytes = page_bytes;
  ctx->host_allocs[addr] = alloc;
  return done(scope, CUDA_SUCCESS);
}

// Contract: undoes the registration starting at p: waits for the context's queued work (a copy
// may still use the pages), unmaps them from the GPU and unpins them; the memory stays the
// program's. NULL, device memory, memory of cuMemHostAlloc, or a pointer inside a registration
// but not at its start: CUDA_ERROR_INVALID_VALUE; anything else: CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
// (measured: rt.hostUnregister.*).
CUresult cuMemHostUnregister(void* p) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemHostUnregister(p={})", p);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  const auto addr = reinterpret_cast<uint64_t>(p);
  if (p == nullptr || is_device_memory(*ctx, addr)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto it = pinned_range(*ctx, addr);
  if (it == ctx->host_allocs.end()) return done(scope, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  if (!it->second.registered || it->first != addr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  (void)wait_all(*ctx);
  uvm_free_range(ctx->uvm_fd, it->second.pages);
  rm_free(driver().hClient, device_info(ctx->device)->hDevice, it->second.hMemory);
  ctx->host_allocs.erase(it);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pdptr = the device address of pinned host memory p (cuMemHostAlloc's or registered,
// interior pointers too): p itself, as the GPU maps the pages at the process's addresses. Flags
// other than 0, NULL pdptr, or p not pinned: CUDA_ERROR_INVALID_VALUE (*pdptr = 0 then).
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemHostGetDevicePointer_v2(pdptr={}, p={}, Flags={})",
                     static_cast<void*>(pdptr), p, Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pdptr == nullptr || Flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pdptr = 0;
  const auto addr = reinterpret_cast<uint64_t>(p);
  if (p == nullptr || pinned_range(*ctx, addr) == ctx->host_allocs.end()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pdptr = addr;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pdptr={:#x}", addr);
  return CUDA_SUCCESS;
}

// Contract: *pFlags = how pinned memory p was made: CU_MEMHOSTALLOC_DEVICEMAP always (it is
// mapped), plus PORTABLE, and WRITECOMBINED for cuMemHostAlloc memory, as requested (measured:
// a default registration 0x2, Mapped|Portable 0x3, cudaMallocHost 0x2). Not pinned, NULL:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuMemHostGetFlags(unsigned int* pFlags, void* p) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemHostGetFlags(pFlags={}, p={})", static_cast<void*>(pFlags), p);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pFlags == nullptr || p == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto it = pinned_range(*ctx, reinterpret_cast<uint64_t>(p));
  if (it == ctx->host_allocs.end()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const unsigned kept = it->second.registered ? CU_MEMHOSTREGISTER_PORTABLE
                                              : CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_WRITECOMBINED;
  *pFlags = CU_MEMHOSTALLOC_DEVICEMAP | (it->second.flags & kept);
  if (scope.active()) scope.result("CUDA_SUCCESS, *pFlags={:#x}", *pFlags);
  return CUDA_SUCCESS;
}
