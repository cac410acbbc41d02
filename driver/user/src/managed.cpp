// Managed memory (unified memory): cuMemAllocManaged, its free, cuMemPrefetchAsync_v2,
// cuMemAdvise_v2 and cuStreamAttachMemAsync.
//
// A managed allocation is an mmap() of the context's nvidia-uvm fd: the kernel module makes the
// range managed, with no page resident anywhere. From then on libcuda does nothing for an access:
// the first touch by either processor faults, and nvidia-uvm populates or migrates the page (the
// GPU's faults in batches, then a replay; the CPU's one by one; docs/layers/nvidia_ko.md). What
// libcuda adds is what a program asks for explicitly: a prefetch is UVM_MIGRATE, an advice one of
// the UVM policy ioctls, a free UVM_FREE and munmap().
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "libcuda.h"

namespace minicuda::libcuda {

namespace {

uint64_t page_up(uint64_t v) { return (v + kernel::kPageSize - 1) & ~(kernel::kPageSize - 1); }

// The managed allocation of ctx holding [addr, addr+n), or end().
std::map<uint64_t, CUctx_st::ManagedAlloc>::iterator find_range(CUctx_st& ctx, uint64_t addr, uint64_t n) {
  auto it = ctx.managed.upper_bound(addr);
  if (it == ctx.managed.begin()) return ctx.managed.end();
  --it;
  if (addr - it->first >= it->second.size || n > it->second.size - (addr - it->first)) return ctx.managed.end();
  return it;
}

// The UVM processor a location names: the CPU's all-zero UUID or a GPU's. False (with the error)
// for a location that names no processor.
CUresult processor_uuid(const CUmemLocation& location, NvProcessorUuid* out) {
  std::memset(out, 0, sizeof *out);
  switch (location.type) {
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_DEVICE: {
      const DeviceInfo* dev = device_info(location.id);
      if (dev == nullptr) return CUDA_ERROR_INVALID_DEVICE;
      std::memcpy(out->uuid, dev->uuid.bytes, sizeof out->uuid);
      return CUDA_SUCCESS;
    }
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

std::string location_text(const CUmemLocation& l) {
  switch (l.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return fmt::format("{{DEVICE, {}}}", l.id);
    case CU_MEM_LOCATION_TYPE_HOST: return "{HOST}";
    case CU_MEM_LOCATION_TYPE_HOST_NUMA: return fmt::format("{{HOST_NUMA, {}}}", l.id);
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return "{HOST_NUMA_CURRENT}";
    default: return fmt::format("{{{}, {}}}", static_cast<int>(l.type), l.id);
  }
}

const char* advice_name(CUmem_advise a) {
  switch (a) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: return "CU_MEM_ADVISE_SET_READ_MOSTLY";
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: return "CU_MEM_ADVISE_UNSET_READ_MOSTLY";
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: return "CU_MEM_ADVISE_SET_PREFERRED_LOCATION";
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: return "CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION";
    case CU_MEM_ADVISE_SET_ACCESSED_BY: return "CU_MEM_ADVISE_SET_ACCESSED_BY";
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY: return "CU_MEM_ADVISE_UNSET_ACCESSED_BY";
    default: return "?";
  }
}

}  // namespace

bool is_managed(uint64_t addr, uint64_t n) {
  for (CUcontext ctx : driver().primary) {
    if (ctx->active && find_range(*ctx, addr, n == 0 ? 1 : n) != ctx->managed.end()) return true;
  }
  return false;
}

bool find_managed(CUctx_st& ctx, uint64_t addr, uint64_t* start, uint64_t* size) {
  auto it = find_range(ctx, addr, 1);
  if (it == ctx.managed.end()) return false;
  *start = it->first;
  *size = it->second.size;
  return true;
}

CUresult free_managed(CUctx_st& ctx, uint64_t dptr) {
  auto it = ctx.managed.find(dptr);
  if (it == ctx.managed.end()) return CUDA_ERROR_INVALID_VALUE;
  uvm_free_range(ctx.uvm_fd, dptr);  // the pages go, wherever they are
  kernel::sys_munmap(reinterpret_cast<void*>(dptr), it->second.mapped);
  ctx.managed.erase(it);
  return CUDA_SUCCESS;
}

// Makes every page of the managed part of [addr, addr+n) resident on the host and mapped, by
// reading one byte of each (the CPU's faults do the rest), so that a kernel copy
// (process_vm_readv/writev) into or out of them works.
void touch_for_cpu(uint64_t addr, uint64_t n) {
  if (!is_managed(addr, n)) return;
  for (uint64_t page = addr & ~(kernel::kPageSize - 1); page < addr + n; page += kernel::kPageSize) {
    (void)*reinterpret_cast<volatile const char*>(std::max(page, addr));
  }
}

CUresult managed_copy(CUctx_st& ctx, uint64_t dst, uint64_t src, uint64_t n) {
  if (CUresult r = wait_all(ctx); r != CUDA_SUCCESS) return r;
  trace::note(trace::Layer::Libcuda, "copy: {} B with managed memory, by the CPU after the queued work, {:#x} -> {:#x}", n,
              src, dst);
  touch_for_cpu(src, n);
  touch_for_cpu(dst, n);
  // The other side may be any memory the process names: the kernel's copy refuses a bad one.
  iovec local{reinterpret_cast<void*>(dst), n}, remote{reinterpret_cast<void*>(src), n};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(n)) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult managed_memset(CUctx_st& ctx, uint64_t dst, uint32_t value, uint32_t bytes, uint64_t n) {
  if (CUresult r = wait_all(ctx); r != CUDA_SUCCESS) return r;
  trace::note(trace::Layer::Libcuda, "memset: {} x {} B of managed memory at {:#x}, by the CPU after the queued work", n,
              bytes, dst);
  for (uint64_t i = 0; i < n; ++i) std::memcpy(reinterpret_cast<char*>(dst + i * bytes), &value, bytes);
  return CUDA_SUCCESS;
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *dptr = bytesize bytes of managed memory, page aligned, not cleared (first touch
// reads zeros). flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST; bytesize 0, NULL dptr
// or other flags: CUDA_ERROR_INVALID_VALUE (*dptr untouched). No context: CUDA_ERROR_INVALID_CONTEXT.
// The kernel module refusing the range (no VRAM for it): CUDA_ERROR_OUT_OF_MEMORY.
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAllocManaged(dptr={}, bytesize={}, flags={})",
                     static_cast<void*>(dptr), bytesize,
                     flags == CU_MEM_ATTACH_GLOBAL ? "CU_MEM_ATTACH_GLOBAL"
                     : flags == CU_MEM_ATTACH_HOST ? "CU_MEM_ATTACH_HOST"
                                                   : fmt::format("{:#x}", flags));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (dptr == nullptr || bytesize == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)) {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  const uint64_t mapped = page_up(bytesize);
  if (mapped < bytesize) return done(scope, CUDA_ERROR_OUT_OF_MEMORY);
  // The managed range: an mmap() of the uvm fd (nvidia-uvm's uvm_mmap makes it managed).
  void* p = kernel::sys_mmap(nullptr, mapped, kernel::kProtRead | kernel::kProtWrite, kernel::kMapShared, ctx->uvm_fd, 0);
  if (kernel::mmap_failed(p)) return done(scope, CUDA_ERROR_OUT_OF_MEMORY);
  const auto base = reinterpret_cast<uint64_t>(p);
  ctx->managed[base] = CUctx_st::ManagedAlloc{bytesize, mapped, flags};
  *dptr = base;
  if (scope.active()) scope.result("CUDA_SUCCESS, dptr={:#x}", base);
  return CUDA_SUCCESS;
}

// Contract: migrates the managed pages of [devPtr, devPtr+count) to location before it returns,
// so that the work queued after it in hStream finds them there without faulting (the real call
// returns at once and migrates in stream order). flags must be 0.
// count 0, memory that is not managed, flags, or a location that is neither a device nor the
// host: CUDA_ERROR_INVALID_VALUE; a device ordinal that does not exist: CUDA_ERROR_INVALID_DEVICE;
// a stream that is not one of the context's: CUDA_ERROR_INVALID_HANDLE.
CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
                               CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemPrefetchAsync_v2(devPtr={:#x}, count={}, location={}, flags={}, hStream={})",
                     devPtr, count, location_text(location), flags, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s); r != CUDA_SUCCESS) return done(scope, r);
  if (count == 0 || flags != 0 || find_range(*ctx, devPtr, count) == ctx->managed.end()) {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  UVM_MIGRATE_PARAMS p{};
  if (CUresult r = processor_uuid(location, &p.destinationUuid); r != CUDA_SUCCESS) return done(scope, r);
  // The migration runs now, without waiting for the stream's earlier work: a migration never
  // changes the bytes either processor reads (the block is unmapped while it moves), so starting
  // it early only changes where the pages are when that work runs, never what it computes.
  p.base = devPtr;
  p.length = count;
  return done(scope, to_cu_result(uvm_call(ctx->uvm_fd, UVM_MIGRATE, &p)));
}

// Contract: records advice about the managed pages of [devPtr, devPtr+count) with nvidia-uvm
// (READ_MOSTLY: read duplication; PREFERRED_LOCATION and ACCESSED_BY: the processor location
// names). count 0, memory that is not managed, an unknown advice, or a location that names no
// processor (for the advices that use one): CUDA_ERROR_INVALID_VALUE; a device ordinal that does
// not exist: CUDA_ERROR_INVALID_DEVICE.
CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAdvise_v2(devPtr={:#x}, count={}, advice={}, location={})", devPtr,
                     count, advice_name(advice), location_text(location));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY) {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  if (count == 0 || find_range(*ctx, devPtr, count) == ctx->managed.end()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  UVM_SET_ACCESSED_BY_PARAMS with_processor{};  // the same layout as UVM_SET_PREFERRED_LOCATION's
  with_processor.requestedBase = devPtr;
  with_processor.length = count;
  UVM_UNSET_PREFERRED_LOCATION_PARAMS range_only{};
  range_only.requestedBase = devPtr;
  range_only.length = count;
  const bool uses_location = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION || advice == CU_MEM_ADVISE_SET_ACCESSED_BY ||
                             advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
  if (uses_location) {
    if (CUresult r = processor_uuid(location, &with_processor.accessedByUuid); r != CUDA_SUCCESS) return done(scope, r);
  }
  NV_STATUS s = NV_OK;
  switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: s = uvm_call(ctx->uvm_fd, UVM_ENABLE_READ_DUPLICATION, &range_only); break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: s = uvm_call(ctx->uvm_fd, UVM_DISABLE_READ_DUPLICATION, &range_only); break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: {
      UVM_SET_PREFERRED_LOCATION_PARAMS p{};
      p.requestedBase = devPtr;
      p.length = count;
      p.preferredLocation = with_processor.accessedByUuid;
      s = uvm_call(ctx->uvm_fd, UVM_SET_PREFERRED_LOCATION, &p);
      break;
    }
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION: s = uvm_call(ctx->uvm_fd, UVM_UNSET_PREFERRED_LOCATION, &range_only); break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY: s = uvm_call(ctx->uvm_fd, UVM_SET_ACCESSED_BY, &with_processor); break;
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY: s = uvm_call(ctx->uvm_fd, UVM_UNSET_ACCESSED_BY, &with_processor); break;
  }
  return done(scope, to_cu_result(s));
}

// Contract: associates the managed allocation at dptr with hStream (CU_MEM_ATTACH_SINGLE), with
// the host (CU_MEM_ATTACH_HOST) or with every stream (CU_MEM_ATTACH_GLOBAL). On a device with
// concurrent managed access (the H200) every processor may touch the memory whatever the
// association, so only the association is recorded. length must be 0 or the allocation's size
// and dptr its start; other flags, CU_MEM_ATTACH_SINGLE on the NULL stream, or memory that is not
// managed: CUDA_ERROR_INVALID_VALUE; an unknown stream: CUDA_ERROR_INVALID_HANDLE.
CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuStreamAttachMemAsync(hStream={}, dptr={:#x}, length={}, flags={:#x})",
                     static_cast<void*>(hStream), dptr, length, flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  CUstream_st* s = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &s); r != CUDA_SUCCESS) return done(scope, r);
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE) {
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  if (flags == CU_MEM_ATTACH_SINGLE && s == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto it = ctx->managed.find(dptr);
  if (it == ctx->managed.end() || (length != 0 && length != it->second.size)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  it->second.flags = flags;
  return done(scope, CUDA_SUCCESS);
}
