// Virtual memory management, addresses: cuMemAddressReserve / cuMemAddressFree (reservations),
// cuMemMap / cuMemUnmap (mappings), cuMemSetAccess / cuMemGetAccess (their page-table entries).
// See vmm.h for the objects and which kernel calls each step makes.
#include <algorithm>
#include <cstring>

#include "pool.h"
#include "vmm.h"

namespace minicuda::libcuda {

VmmMapping* find_mapping(uint64_t addr, uint64_t* start) {
  auto& mappings = vmm_state().mappings;
  auto it = mappings.upper_bound(addr);
  if (it == mappings.begin()) return nullptr;
  --it;
  if (addr - it->first >= it->second.size) return nullptr;
  *start = it->first;
  return &it->second;
}

namespace {

// The reservation holding [va, va + size) entirely, or null.
VmmReservation* find_reservation(uint64_t va, uint64_t size, uint64_t* start) {
  auto& reservations = vmm_state().reservations;
  auto it = reservations.upper_bound(va);
  if (it == reservations.begin()) return nullptr;
  --it;
  if (va - it->first >= it->second.size || size > it->second.size - (va - it->first)) return nullptr;
  *start = it->first;
  return &it->second;
}

// The mappings that exactly tile [va, va + size): each starts where the one before ends, the
// first at va, the last ending at va + size. Empty when they do not.
std::vector<std::map<uint64_t, VmmMapping>::iterator> tiling(uint64_t va, uint64_t size) {
  std::vector<std::map<uint64_t, VmmMapping>::iterator> out;
  auto& mappings = vmm_state().mappings;
  uint64_t at = va;
  for (auto it = mappings.find(va); it != mappings.end() && at < va + size && it->first == at; ++it) {
    out.push_back(it);
    at += it->second.size;
  }
  if (at != va + size) out.clear();
  return out;
}

// Writes the page-table entries of one mapping for `access` (UVM_MAP_EXTERNAL_ALLOCATION:
// read-only or read-write), or takes them away (PROT_NONE: UVM_UNMAP_EXTERNAL).
NV_STATUS write_access(const CUctx_st& ctx, uint64_t va, VmmMapping& m, CUmemAccess_flags access) {
  const DeviceInfo& dev = *device_info(ctx.device);
  if (!m.uvm_range && access != CU_MEM_ACCESS_FLAGS_PROT_NONE) {
    UVM_CREATE_EXTERNAL_RANGE_PARAMS range{};
    range.base = va;
    range.length = m.size;
    if (NV_STATUS s = uvm_call(ctx.uvm_fd, UVM_CREATE_EXTERNAL_RANGE, &range); s != NV_OK) return s;
    m.uvm_range = true;
  }
  if (m.access != CU_MEM_ACCESS_FLAGS_PROT_NONE) {
    UVM_UNMAP_EXTERNAL_PARAMS unmap{};
    unmap.base = va;
    unmap.length = m.size;
    std::memcpy(unmap.gpuUuid.uuid, dev.uuid.bytes, 16);
    if (NV_STATUS s = uvm_call(ctx.uvm_fd, UVM_UNMAP_EXTERNAL, &unmap); s != NV_OK) return s;
  }
  if (access == CU_MEM_ACCESS_FLAGS_PROT_NONE) return NV_OK;
  static UVM_MAP_EXTERNAL_ALLOCATION_PARAMS map;  // 9 KiB: too big for the stack; guarded by driver_mutex()
  std::memset(&map, 0, sizeof map);
  map.base = va;
  map.length = m.size;
  map.offset = m.offset;
  std::memcpy(map.perGpuAttributes[0].gpuUuid.uuid, dev.uuid.bytes, 16);
  map.perGpuAttributes[0].gpuMappingType =
      access == CU_MEM_ACCESS_FLAGS_PROT_READ ? UvmGpuMappingTypeReadOnly : UvmGpuMappingTypeReadWriteAtomic;
  map.gpuAttributesCount = 1;
  map.rmCtrlFd = driver().ctl_fd;
  map.hClient = driver().hClient;
  map.hMemory = m.alloc->hMemory;
  return uvm_call(ctx.uvm_fd, UVM_MAP_EXTERNAL_ALLOCATION, &map);
}

// Takes one mapping away: its UVM range (and PTEs) first, then its reference on the allocation.
void remove_mapping(std::map<uint64_t, VmmMapping>::iterator it, CUctx_st& ctx) {
  if (it->second.uvm_range) uvm_free_range(ctx.uvm_fd, it->first);
  VmmAllocation* alloc = it->second.alloc;
  vmm_state().mappings.erase(it);
  --alloc->mappings;
  drop_reference(alloc);
}

bool known_access(CUmemAccess_flags f) {
  return f == CU_MEM_ACCESS_FLAGS_PROT_NONE || f == CU_MEM_ACCESS_FLAGS_PROT_READ ||
         f == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

}  // namespace

bool vmm_covers(const CUctx_st& ctx, uint64_t addr, uint64_t n) {
  while (n > 0) {
    uint64_t start = 0;
    VmmMapping* m = find_mapping(addr, &start);
    uint64_t rstart = 0;
    VmmReservation* r = m ? find_reservation(start, m->size, &rstart) : nullptr;
    if (m == nullptr || r == nullptr || r->ctx != &ctx || m->access == CU_MEM_ACCESS_FLAGS_PROT_NONE) return false;
    uint64_t here = std::min(n, start + m->size - addr);
    addr += here;
    n -= here;
  }
  return true;
}

bool vmm_pointer(uint64_t addr, VmmPointer* out) {
  if (!driver().vmm) return false;
  uint64_t start = 0, rstart = 0;
  VmmMapping* m = find_mapping(addr, &start);
  VmmReservation* r = m ? find_reservation(start, m->size, &rstart) : nullptr;
  if (r == nullptr) return false;
  *out = VmmPointer{r->ctx, rstart, r->size, start, m->size, m->access};
  return true;
}

void vmm_context_torn_down(CUctx_st& ctx) {
  if (!driver().vmm) return;
  VmmState& state = vmm_state();
  for (auto r = state.reservations.begin(); r != state.reservations.end();) {
    if (r->second.ctx != &ctx) {
      ++r;
      continue;
    }
    for (auto m = state.mappings.lower_bound(r->first); m != state.mappings.end() && m->first < r->first + r->second.size;)
      remove_mapping(m++, ctx);
    r = state.reservations.erase(r);
  }
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *ptr = the start of size bytes of the current context's GPU VA space, reserved and
// mapped to nothing, aligned to `alignment` (0: the granularity). libcuda's bookkeeping only:
// the pool's VA allocator hands the range out (first fit, so a freed range is reused, as on the
// H200), no system call. `addr` is a hint minicuda does not follow. As measured (vmm_errors.txt
// reserve.*): NULL ptr, size 0 or not a multiple of the granularity, an alignment that is not a
// power of two, flags other than 0: CUDA_ERROR_INVALID_VALUE. No room in the context's 512 GiB
// VA space (the H200 reserved 64 TiB): CUDA_ERROR_OUT_OF_MEMORY.
CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAddressReserve(ptr={}, size={}, alignment={}, addr={:#x}, flags={:#x})",
                     static_cast<void*>(ptr), size, alignment, addr, flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (ptr == nullptr || size == 0 || size % kVmmGranularity != 0 || flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if ((alignment & (alignment - 1)) != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  uint64_t va = ctx->pool->reserve_va(size, std::max<uint64_t>(alignment, kVmmGranularity));
  if (va == 0) return done(scope, CUDA_ERROR_OUT_OF_MEMORY);
  vmm_state().reservations[va] = VmmReservation{size, ctx};
  *ptr = va;
  trace::note(trace::Layer::Libcuda, "vmm: reserve {:#x}..+{:#x} of the VA space, mapped to nothing", va, size);
  if (scope.active()) scope.result("CUDA_SUCCESS, *ptr={:#x}", va);
  return CUDA_SUCCESS;
}

// Contract: gives back the whole reservation [ptr, ptr + size) of cuMemAddressReserve. Anything
// else (a part of one, an unknown range) or a range still mapped: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemAddressFree(ptr={:#x}, size={})", ptr, size);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  VmmState& state = vmm_state();
  auto it = state.reservations.find(ptr);
  if (it == state.reservations.end() || it->second.size != size) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto m = state.mappings.lower_bound(ptr);
  if (m != state.mappings.end() && m->first < ptr + size) return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUctx_st* ctx = it->second.ctx;
  if (ctx->pool != nullptr) ctx->pool->release_va(ptr, size);
  state.reservations.erase(it);
  return done(scope, CUDA_SUCCESS);
}

// Contract: maps [offset, offset + size) of the allocation `handle` at [ptr, ptr + size), which
// must lie in one reservation and overlap no mapping. libcuda's bookkeeping only: no system
// call, and no device may access it until cuMemSetAccess. The mapping holds a reference on the
// allocation. As measured (vmm_errors.txt map.*): flags other than 0, handle 0, a handle naming
// no live allocation (the real libcuda crashes on one), the exact range of an existing mapping:
// CUDA_ERROR_INVALID_VALUE; size, offset or ptr not multiples of the granularity, offset + size
// past the allocation's end, ptr outside a reservation, an overlap with another mapping:
// CUDA_ERROR_NOT_SUPPORTED.
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemMap(ptr={:#x}, size={}, offset={}, handle={:#x}, flags={:#x})", ptr,
                     size, offset, handle, flags);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  VmmAllocation* alloc = find_allocation(handle);
  if (alloc == nullptr || alloc->handles == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  VmmState& state = vmm_state();
  if (auto same = state.mappings.find(ptr); same != state.mappings.end() && same->second.size == size)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (size == 0 || size % kVmmGranularity != 0 || offset % kVmmGranularity != 0 || ptr % kVmmGranularity != 0)
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  if (offset >= alloc->size || size > alloc->size - offset) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  uint64_t rstart = 0;
  if (find_reservation(ptr, size, &rstart) == nullptr) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  auto next = state.mappings.lower_bound(ptr);
  uint64_t holder = 0;
  if ((next != state.mappings.end() && next->first < ptr + size) || find_mapping(ptr, &holder) != nullptr)
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  state.mappings[ptr] = VmmMapping{size, alloc, offset, CU_MEM_ACCESS_FLAGS_PROT_NONE, false};
  ++alloc->mappings;
  trace::note(trace::Layer::Libcuda, "vmm: {:#x}..+{:#x} now shows the allocation at +{:#x}; no access until cuMemSetAccess",
              ptr, size, offset);
  return done(scope, CUDA_SUCCESS);
}

// Contract: unmaps the mappings that exactly tile [ptr, ptr + size) (UVM_FREE of each range
// that cuMemSetAccess made; the H200 unmapped three adjacent mappings in one call),
// dropping their references on the allocations (the last reference frees one). A range that
// starts or ends inside a mapping, or has a gap: CUDA_ERROR_INVALID_VALUE, nothing unmapped.
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemUnmap(ptr={:#x}, size={})", ptr, size);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (size == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  auto pieces = tiling(ptr, size);
  if (pieces.empty()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  uint64_t rstart = 0;
  CUctx_st* ctx = find_reservation(ptr, size, &rstart)->ctx;
  // Work still queued may use the mapping: unmapping waits for it, as cuMemFree does.
  (void)wait_all(*ctx);
  for (auto it : pieces) remove_mapping(it, *ctx);
  return done(scope, CUDA_SUCCESS);
}

// Contract: sets the access of the devices desc[0..count) names to the mappings that exactly
// tile [ptr, ptr + size). The first access of a mapping creates its UVM range
// (UVM_CREATE_EXTERNAL_RANGE); read-only or read-write writes its page-table entries
// (UVM_MAP_EXTERNAL_ALLOCATION), after taking the old ones away (UVM_UNMAP_EXTERNAL), as PROT_NONE
// does. As measured (vmm_errors.txt setaccess.*): count 0, NULL desc, an unknown flag, a location
// that is not a device or names none, a range not tiled by whole mappings (a part of one, a
// gap): CUDA_ERROR_INVALID_VALUE. Another device than the one whose VA space holds the range:
// CUDA_ERROR_NOT_SUPPORTED (minicuda gives each device's contexts a VA space of their own).
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemSetAccess(ptr={:#x}, size={}, desc={}, count={})", ptr, size,
                     static_cast<const void*>(desc), count);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (desc == nullptr || count == 0 || size == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || !known_access(desc[i].flags) ||
        device_info(desc[i].location.id) == nullptr)
      return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  auto pieces = tiling(ptr, size);
  if (pieces.empty()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  uint64_t rstart = 0;
  CUctx_st* ctx = find_reservation(ptr, size, &rstart)->ctx;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].location.id != ctx->device) {
      trace::note(trace::Layer::Libcuda, "vmm: access for device {} to a range of device {}'s VA space is not simulated",
                  desc[i].location.id, ctx->device);
      return done(scope, CUDA_ERROR_NOT_SUPPORTED);
    }
  }
  const CUmemAccess_flags access = desc[count - 1].flags;  // the last entry for the device wins
  // Work queued before may still touch the range under its old rights: the H200 let a memset
  // queued before a change to read-only complete (vmm_errors.txt fault readonly_read: out=77).
  // A range that no piece gives access to yet has no such work, and nothing to wait for (the
  // graph allocator maps memory at a launch while the work of other streams still runs).
  const bool granted_before = std::any_of(pieces.begin(), pieces.end(), [](auto it) {
    return it->second.access != CU_MEM_ACCESS_FLAGS_PROT_NONE;
  });
  if (granted_before) (void)wait_all(*ctx);
  for (auto it : pieces) {
    if (it->second.access == access) continue;
    if (NV_STATUS s = write_access(*ctx, it->first, it->second, access); s != NV_OK) return done(scope, to_cu_result(s));
    it->second.access = access;
  }
  return done(scope, CUDA_SUCCESS);
}

// Contract: *flags = the CUmemAccess_flags that `location` has on the mapping holding ptr
// (PROT_NONE before cuMemSetAccess, and for any other location, the host included). As measured
// (vmm_errors.txt getaccess.*): NULL flags or location: CUDA_ERROR_INVALID_VALUE; a device that
// does not exist: CUDA_ERROR_INVALID_DEVICE; ptr in no mapping: CUDA_ERROR_INVALID_VALUE with
// *flags = 0.
CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemGetAccess(flags={}, location={}, ptr={:#x})", static_cast<void*>(flags),
                     static_cast<const void*>(location), ptr);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (flags == nullptr || location == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (location->type == CU_MEM_LOCATION_TYPE_DEVICE && device_info(location->id) == nullptr)
    return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  uint64_t start = 0;
  VmmMapping* m = find_mapping(ptr, &start);
  if (m == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  uint64_t rstart = 0;
  const CUctx_st* ctx = find_reservation(start, m->size, &rstart)->ctx;
  if (location->type == CU_MEM_LOCATION_TYPE_DEVICE && location->id == ctx->device) *flags = m->access;
  if (scope.active()) scope.result("CUDA_SUCCESS, *flags={}", *flags);
  return CUDA_SUCCESS;
}
