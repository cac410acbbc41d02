// Device and pinned host memory: cuMemAlloc_v2 / cuMemFree_v2 (through the context's pool),
// cuMemGetInfo_v2 (an RM control), cuMemHostAlloc / cuMemFreeHost (pinned pages) and the pointer
// attribute queries, which answer from libcuda's own records (no system call).
#include <cstring>

#include <fmt/format.h>

#include "minicuda/fault.h"
#include "libcuda.h"
#include "channel.h"
#include "memcheck.h"
#include "mempool.h"
#include "pool.h"
#include "vmm.h"

namespace minicuda::libcuda {

namespace {

struct PointerInfo {
  CUcontext ctx = nullptr;
  CUmemorytype type = static_cast<CUmemorytype>(0);
  uint64_t start = 0, size = 0;
  uint64_t mapping_base = 0, mapping_size = 0;  // the pool chunk (or pinned range) behind it
  bool managed = false;                          // cuMemAllocManaged memory
  bool vmm = false;                              // a mapping of cuMemMap (vmm.h)
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;  // its access (vmm only)
};

// What libcuda knows about an address: a device allocation, pinned host memory, or nothing.
bool lookup(uint64_t addr, PointerInfo* out) {
  for (CUcontext ctx : driver().primary) {
    if (!ctx->active) continue;
    if (ctx->pool && ctx->pool->find(addr, &out->start, &out->size, &out->mapping_base, &out->mapping_size)) {
      out->ctx = ctx;
      out->type = CU_MEMORYTYPE_DEVICE;
      return true;
    }
    if (find_managed(*ctx, addr, &out->start, &out->size)) {
      out->ctx = ctx;
      out->type = CU_MEMORYTYPE_DEVICE;  // with IS_MANAGED = 1 and a host pointer: both sides reach it
      out->managed = true;
      out->mapping_base = out->start;
      out->mapping_size = out->size;
      return true;
    }
    if (VmmPointer v; vmm_pointer(addr, &v) && v.ctx == ctx) {
      out->ctx = ctx;
      out->type = CU_MEMORYTYPE_DEVICE;
      out->start = v.reservation;
      out->size = v.reservation_size;
      out->mapping_base = v.mapping;
      out->mapping_size = v.mapping_size;
      out->vmm = true;
      out->access = v.access;
      return true;
    }
    auto it = ctx->host_allocs.upper_bound(addr);
    if (it != ctx->host_allocs.begin()) {
      --it;
      if (addr < it->first + it->second.size) {
        out->ctx = ctx;
        out->type = CU_MEMORYTYPE_HOST;
        out->start = out->mapping_base = it->first;
        out->size = out->mapping_size = it->second.size;
        return true;
      }
    }
  }
  return false;
}

// Writes one attribute for a known pointer. False if the attribute is not supported.
bool write_attribute(const PointerInfo& info, CUpointer_attribute attribute, uint64_t ptr, void* data) {
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *static_cast<CUcontext*>(data) = info.ctx; return true;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<unsigned int*>(data) = info.type; return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = info.ctx ? ptr : 0; return true;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      // Device memory has no host address: the single query writes NULL and fails (measured:
      // drv.ptrAttr.hostPointer.device), the plural one reports NULL.
      *static_cast<void**>(data) = info.type == CU_MEMORYTYPE_HOST || info.managed ? reinterpret_cast<void*>(ptr) : nullptr;
      return info.type != CU_MEMORYTYPE_DEVICE || info.managed;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<int*>(data) = info.managed ? 1 : 0; return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = info.ctx ? info.ctx->device : -2; return true;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *static_cast<unsigned long long*>(data) = info.start; return true;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = info.start; return true;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data) = info.size; return true;
    case CU_POINTER_ATTRIBUTE_MAPPED: *static_cast<int*>(data) = info.ctx ? 1 : 0; return true;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: *static_cast<void**>(data) = reinterpret_cast<void*>(info.mapping_base); return true;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: *static_cast<size_t*>(data) = info.mapping_size; return true;
    // VMM mappings only (vmm.h), as measured: their access, no handle types, no RDMA.
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      *static_cast<unsigned int*>(data) = info.access;
      return info.vmm;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
      *static_cast<unsigned long long*>(data) = 0;
      return info.vmm;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *static_cast<CUmemoryPool*>(data) = mempool_containing(ptr); return true;
    default: return false;
  }
}

uint64_t page_up(uint64_t v) { return (v + kernel::kPageSize - 1) & ~(kernel::kPageSize - 1); }

}  // namespace

CUresult pin_host_memory(CUctx_st& ctx, uint64_t bytes, void** out, CUctx_st::HostAlloc* alloc) {
  uint64_t size = page_up(bytes);
  if (size < bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  void* host = kernel::sys_mmap(nullptr, size, kernel::kProtRead | kernel::kProtWrite,
                                kernel::kMapPrivate | kernel::kMapAnonymous, -1, 0);
  if (kernel::mmap_failed(host)) return CUDA_ERROR_OUT_OF_MEMORY;
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  NvHandle hMemory = next_handle();
  NV_STATUS s = rm_alloc_os_descriptor(d.hClient, dev.hDevice, hMemory, host, size);
  if (s == NV_OK) {
    // UVA: the GPU sees the pages at the address the process sees them.
    s = uvm_map_memory(ctx.uvm_fd, reinterpret_cast<uint64_t>(host), size, dev.uuid, hMemory);
    if (s != NV_OK) rm_free(d.hClient, dev.hDevice, hMemory);
  }
  if (s != NV_OK) {
    kernel::sys_munmap(host, size);
    return s == NV_ERR_GENERIC ? CUDA_ERROR_UNKNOWN : CUDA_ERROR_OUT_OF_MEMORY;
  }
  *out = host;
  *alloc = CUctx_st::HostAlloc{size, hMemory};
  return CUDA_SUCCESS;
}

void unpin_host_memory(CUctx_st& ctx, void* host, const CUctx_st::HostAlloc& alloc) {
  uvm_free_range(ctx.uvm_fd, reinterpret_cast<uint64_t>(host));
  rm_free(driver().hClient, device_info(ctx.device)->hDevice, alloc.hMemory);
  kernel::sys_munmap(host, alloc.size);
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: allocates bytesize bytes of device memory in the current context from its pool
// (pool.h); *dptr = its address, 512-byte aligned, contents undefined. In memcheck mode
// (MINICUDA_MEMCHECK=1, memcheck.h) the allocation ends where its chunk's mapping ends, aligned
// only to the largest power of two dividing bytesize (at most 256), and its host call site is
// recorded. NULL dptr or bytesize 0: CUDA_ERROR_INVALID_VALUE; no current context:
// CUDA_ERROR_INVALID_CONTEXT; no room: CUDA_ERROR_OUT_OF_MEMORY (not sticky).
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAlloc_v2(dptr={}, bytesize={})", static_cast<void*>(dptr), bytesize);
  std::lock_guard lock(driver_mutex());
  if (dptr != nullptr) *dptr = 0;  // a failed allocation leaves 0 behind (measured)
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (dptr == nullptr || bytesize == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (fault::fail_mem_alloc()) {
    trace::note(trace::Layer::Libcuda, "fault injection ({}): out of memory", fault::last_rule());
    return done(scope, CUDA_ERROR_OUT_OF_MEMORY);
  }
  CUdeviceptr p = 0;
  CUresult r = ctx->pool->alloc(bytesize, &p);
  if (r != CUDA_SUCCESS) return done(scope, r);
  if (ctx->pool->layout() == PoolLayout::Memcheck)
    memcheck::on_alloc(*ctx, p, bytesize, memcheck::capture_call_site(__builtin_return_address(0)));
  *dptr = p;
  if (scope.active()) scope.result("CUDA_SUCCESS, *dptr={:#x}", p);
  return CUDA_SUCCESS;
}

// Contract: frees an allocation of cuMemAlloc_v2. 0 does nothing and succeeds, even without a
// context (measured). Otherwise dptr must be the start of a live allocation: unknown, interior or
// already-freed pointers are CUDA_ERROR_INVALID_VALUE and change nothing.
CUresult cuMemFree_v2(CUdeviceptr dptr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemFree_v2(dptr={:#x})", dptr);
  std::lock_guard lock(driver_mutex());
  if (dptr == 0) return done(scope, check_initialized());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  // cudaFree "may perform implicit synchronization": work still queued may use the memory.
  (void)wait_all(*ctx);
  if (ctx->managed.count(dptr) != 0) return done(scope, free_managed(*ctx, dptr));
  // A stream-ordered allocation: its block goes back to its memory pool (mempool.h), now that
  // the work above has finished; the pool's chunk itself is no cuMemAlloc allocation.
  if (CUmemPoolHandle_st* mp = mempool_of_allocation(dptr)) return done(scope, mempool_free(*ctx, *mp, dptr, nullptr));
  CUresult r = ctx->pool->free(dptr);
  if (r == CUDA_SUCCESS && ctx->pool->layout() == PoolLayout::Memcheck) memcheck::on_free(*ctx, dptr);
  return done(scope, r);
}

// Contract: *free = device memory not yet allocated (asks the kernel module: one RM control),
// *total = what cuDeviceTotalMem reports; either pointer may be NULL (measured). No current
// context: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemGetInfo_v2(free={}, total={})", static_cast<void*>(free),
                     static_cast<void*>(total));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  const DeviceInfo& dev = *device_info(ctx->device);
  NV2080_CTRL_FB_GET_INFO_V2_PARAMS p{};
  p.fbInfoListSize = 1;
  p.fbInfoList[0].index = NV2080_CTRL_FB_INFO_INDEX_HEAP_FREE;
  NV_STATUS s = rm_control(driver().hClient, dev.hSubdevice, NV2080_CTRL_CMD_FB_GET_INFO_V2, &p, sizeof p);
  if (s != NV_OK) return done(scope, to_cu_result(s));
  size_t free_bytes = static_cast<size_t>(p.fbInfoList[0].data) << 10;
  if (free) *free = free_bytes;
  if (total) *total = dev.total_mem;
  if (scope.active()) scope.result("CUDA_SUCCESS, free={}, total={}", free_bytes, dev.total_mem);
  return CUDA_SUCCESS;
}

// Contract: allocates bytesize bytes of page-locked host memory the GPU can reach at the same
// address (UVA): anonymous pages from mmap, pinned by an NV01_MEMORY_SYSTEM_OS_DESCRIPTOR
// (NV_ESC_RM_ALLOC_MEMORY on /dev/nvidia0), mapped into the GPU VA space by nvidia-uvm.
// bytesize 0: CUDA_SUCCESS with *pp = NULL (measured). NULL pp: CUDA_ERROR_INVALID_VALUE;
// unknown Flags bits: CUDA_ERROR_INVALID_VALUE with *pp = NULL (measured); no room:
// CUDA_ERROR_OUT_OF_MEMORY; no current context: CUDA_ERROR_INVALID_CONTEXT.
CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemHostAlloc(pp={}, bytesize={}, Flags={:#x})", static_cast<void*>(pp),
                     bytesize, Flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  constexpr unsigned kKnown = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if (pp == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pp = nullptr;  // measured: NULL after a refused request too (drv.memHostAlloc.flags0x80.h)
  if (Flags & ~kKnown) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (bytesize == 0) return done(scope, CUDA_SUCCESS);
  void* host = nullptr;
  CUctx_st::HostAlloc alloc;
  if (CUresult r = pin_host_memory(*ctx, bytesize, &host, &alloc); r != CUDA_SUCCESS) return done(scope, r);
  alloc.flags = Flags;
  ctx->host_allocs[reinterpret_cast<uint64_t>(host)] = alloc;
  *pp = host;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pp={}", host);
  return CUDA_SUCCESS;
}

// Contract: cuMemHostAlloc(pp, bytesize, 0).
CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

// Contract: frees memory of cuMemHostAlloc / cuMemAllocHost: waits for the context's queued work
// (an async copy may still read or write the pages), unmaps it from the GPU, unpins it
// (RM_FREE) and returns the pages (munmap). NULL: nothing, CUDA_SUCCESS (measured). Any other
// pointer: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemFreeHost(void* p) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemFreeHost(p={})", p);
  std::lock_guard lock(driver_mutex());
  if (p == nullptr) return done(scope, check_initialized());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  auto it = ctx->host_allocs.find(reinterpret_cast<uint64_t>(p));
  // Registered memory is the program's own: cuMemHostUnregister gives it back, not this.
  if (it == ctx->host_allocs.end() || it->second.registered) return done(scope, CUDA_ERROR_INVALID_VALUE);
  (void)wait_all(*ctx);  // queued copies may still read or write it
  unpin_host_memory(*ctx, p, it->second);
  ctx->host_allocs.erase(it);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *pbase / *psize = the start and size of the cuMemAlloc allocation containing dptr
// (interior pointers too), or of the cuMemMap mapping with access that holds it; either may be
// NULL and is then not written. An address that is in no
// allocation of the current context: CUDA_ERROR_NOT_FOUND; no current context:
// CUDA_ERROR_INVALID_CONTEXT.
CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemGetAddressRange_v2(pbase={}, psize={}, dptr={:#x})",
                     static_cast<void*>(pbase), static_cast<void*>(psize), dptr);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  uint64_t start = 0, size = 0, chunk = 0, chunk_size = 0;
  VmmPointer v;
  if (!ctx->pool->find(dptr, &start, &size, &chunk, &chunk_size)) {
    // A VMM mapping, once a device may access it (measured: CUDA_ERROR_NOT_FOUND before).
    if (!vmm_pointer(dptr, &v) || v.ctx != ctx || v.access == CU_MEM_ACCESS_FLAGS_PROT_NONE)
      return done(scope, CUDA_ERROR_NOT_FOUND);
    start = v.mapping;
    size = v.mapping_size;
  }
  if (pbase != nullptr) *pbase = start;
  if (psize != nullptr) *psize = size;
  if (scope.active()) scope.result("CUDA_SUCCESS, base={:#x}, size={}", start, size);
  return CUDA_SUCCESS;
}

// Contract: *data = one attribute of the allocation containing ptr (type per
// CUpointer_attribute). NULL data, an address no context knows, or an unsupported attribute:
// CUDA_ERROR_INVALID_VALUE.
CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuPointerGetAttribute(data={}, attribute={}, ptr={:#x})", data,
                     pointer_attribute_name(attribute), ptr);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  PointerInfo info;
  if (data == nullptr || !lookup(ptr, &info)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!write_attribute(info, attribute, ptr, data)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  return done(scope, CUDA_SUCCESS);
}

// Contract: data[i] = attributes[i] of the allocation containing ptr. Unlike the single form, an
// unknown address succeeds with "not CUDA memory" answers (type 0, context NULL, ordinal -2).
// NULL arrays or an unsupported attribute: CUDA_ERROR_INVALID_VALUE.
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                CUdeviceptr ptr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuPointerGetAttributes(numAttributes={}, ptr={:#x})", numAttributes, ptr);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (attributes == nullptr || data == nullptr || numAttributes == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  PointerInfo info;
  lookup(ptr, &info);
  for (unsigned i = 0; i < numAttributes; ++i) {
    if (data[i] == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
    if (attributes[i] == CU_POINTER_ATTRIBUTE_HOST_POINTER && info.type == CU_MEMORYTYPE_DEVICE && !info.managed) {
      *static_cast<void**>(data[i]) = nullptr;
      continue;
    }
    if (!write_attribute(info, attributes[i], ptr, data[i])) return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  return done(scope, CUDA_SUCCESS);
}

// --- for gdb (tools/gdb/minicuda_gdb.py) --------------------------------------------------------
// Called by the debugger in a stopped program, never by minicuda: they read the contexts' pools
// without the driver lock (another stopped thread may hold it) and return text in a buffer that
// stays valid until the next call.
namespace {
std::string& gdb_buffer() {
  static auto* text = new std::string;  // never destroyed: gdb may call during exit
  return *text;
}
std::vector<CUcontext> gdb_contexts() {
  std::vector<CUcontext> all(minicuda::libcuda::driver().primary.begin(), minicuda::libcuda::driver().primary.end());
  all.insert(all.end(), minicuda::libcuda::driver().created.begin(), minicuda::libcuda::driver().created.end());
  return all;
}
}  // namespace

// The live device allocations of every context, one per line ("0x580000000000  1024 B  chunk
// 0x580000000000 (2097152 B)"), under a line naming the context and its device.
extern "C" [[gnu::used]] const char* minicuda_gdb_allocations() {
  std::string& out = gdb_buffer();
  out.clear();
  for (CUcontext ctx : gdb_contexts()) {
    if (ctx == nullptr || ctx->pool == nullptr) continue;
    const auto all = ctx->pool->allocations();
    out += fmt::format("context {} (device {}): {} allocation(s)\n", static_cast<void*>(ctx), ctx->device, all.size());
    for (const auto& [start, size] : all) {
      uint64_t a = 0, s = 0, chunk = 0, chunk_size = 0;
      ctx->pool->find(start, &a, &s, &chunk, &chunk_size);
      out += fmt::format("  {:#x}  {} B  chunk {:#x} ({} B)\n", start, size, chunk, chunk_size);
    }
  }
  if (out.empty()) out = "no context has a memory pool (no cudaMalloc yet)\n";
  return out.c_str();
}

// Where a device pointer points: "+0x10 in the 1024 B allocation at 0x580000000000", or "" when
// no context's pool holds it.
extern "C" [[gnu::used]] const char* minicuda_gdb_pointer(uint64_t address) {
  std::string& out = gdb_buffer();
  out.clear();
  for (CUcontext ctx : gdb_contexts()) {
    uint64_t start = 0, size = 0, chunk = 0, chunk_size = 0;
    if (ctx == nullptr || ctx->pool == nullptr || !ctx->pool->find(address, &start, &size, &chunk, &chunk_size)) continue;
    out = fmt::format("+{:#x} in the {} B allocation at {:#x}", address - start, size, start);
    break;
  }
  return out.c_str();
}
