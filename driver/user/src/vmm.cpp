// Virtual memory management, the allocations: cuMemGetAllocationGranularity, cuMemCreate,
// cuMemRelease, cuMemGetAllocationPropertiesFromHandle, cuMemRetainAllocationHandle (vmm.h).
#include "vmm.h"

#include <cstring>

#include "pool.h"

namespace minicuda::libcuda {

VmmState& vmm_state() {
  Driver& d = driver();
  if (!d.vmm) d.vmm = std::make_shared<VmmState>();
  return *d.vmm;
}

VmmAllocation* find_allocation(CUmemGenericAllocationHandle handle) {
  auto* alloc = reinterpret_cast<VmmAllocation*>(static_cast<uintptr_t>(handle));
  return vmm_state().allocations.count(alloc) != 0 ? alloc : nullptr;
}

void drop_reference(VmmAllocation* alloc) {
  if (alloc->handles > 0 || alloc->mappings > 0) return;
  trace::note(trace::Layer::Libcuda, "vmm: no handle or mapping refers to the allocation any more: free its memory");
  Driver& d = driver();
  if (const DeviceInfo* dev = device_info(alloc->device)) rm_free(d.hClient, dev->hDevice, alloc->hMemory);
  vmm_state().allocations.erase(alloc);
  delete alloc;
}

namespace {

std::string size_text(uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// cuMemCreate's checks of prop, in the H200's order of answers (vmm_errors.txt create.*): the
// type, Windows handle types and metadata (off Windows), the location, the compression type,
// then fabric handles (not permitted without an NVLink fabric).
CUresult check_prop(const CUmemAllocationProp& prop) {
  if (prop.type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
  constexpr unsigned kWindows = CU_MEM_HANDLE_TYPE_WIN32 | CU_MEM_HANDLE_TYPE_WIN32_KMT;
  constexpr unsigned kKnownTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | kWindows | CU_MEM_HANDLE_TYPE_FABRIC;
  const unsigned types = static_cast<unsigned>(prop.requestedHandleTypes);
  if ((types & kWindows) != 0 || (types & ~kKnownTypes) != 0 || prop.win32HandleMetaData != nullptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop.location.type == CU_MEM_LOCATION_TYPE_DEVICE && device_info(prop.location.id) == nullptr)
    return CUDA_ERROR_INVALID_DEVICE;
  if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE && prop.location.type != CU_MEM_LOCATION_TYPE_HOST)
    return CUDA_ERROR_INVALID_VALUE;
  if (prop.allocFlags.compressionType > CU_MEM_ALLOCATION_COMP_GENERIC) return CUDA_ERROR_INVALID_VALUE;
  if ((types & CU_MEM_HANDLE_TYPE_FABRIC) != 0) return CUDA_ERROR_NOT_PERMITTED;
  return CUDA_SUCCESS;
}

}  // namespace

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *granularity = kVmmGranularity (2 MiB), for either option and any prop (the H200
// does not look at it: tests/data/h200/vmm/out/vmm_errors.txt gran.*). NULL granularity or prop,
// an unknown option: CUDA_ERROR_INVALID_VALUE. No system call.
CUresult cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags option) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemGetAllocationGranularity(granularity={}, prop={}, option={})",
                     static_cast<void*>(granularity), static_cast<const void*>(prop), static_cast<int>(option));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (granularity == nullptr || prop == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  // The H200 answers 2 MiB whatever the rest of prop says (probe_vmm: gran(dev 77), gran(type invalid)).
  *granularity = kVmmGranularity;
  if (scope.active()) scope.result("CUDA_SUCCESS, *granularity={}", kVmmGranularity);
  return CUDA_SUCCESS;
}

// Contract: allocates size bytes of video memory on prop->location's device, with no address:
// one NV01_MEMORY_LOCAL_USER object (RM_ALLOC), in 2 MiB pages, as the H200's libcuda does
// (tests/data/h200/vmm/out/vmm_trace.txt). *handle names it, with one reference; the
// compression type asked for is granted (the H200 reads back CU_MEM_ALLOCATION_COMP_GENERIC).
// As measured (vmm_errors.txt create.*): NULL handle or prop, size 0 or not a multiple of the
// granularity, flags other than 0, a type other than PINNED, Windows handle types or metadata,
// a location that is neither a device nor the host, a compression type above GENERIC:
// CUDA_ERROR_INVALID_VALUE; a device that does not exist: CUDA_ERROR_INVALID_DEVICE; fabric
// handles: CUDA_ERROR_NOT_PERMITTED; no VRAM for it: CUDA_ERROR_OUT_OF_MEMORY. Host memory
// (CU_MEM_LOCATION_TYPE_HOST, which the H200 allows) is not built: CUDA_ERROR_NOT_SUPPORTED.
// Needs a current context (CUDA_ERROR_INVALID_CONTEXT).
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemCreate(handle={}, size={}, prop={}, flags={:#x})",
                     static_cast<void*>(handle), size, static_cast<const void*>(prop), flags);
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (handle == nullptr || prop == nullptr || flags != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (size == 0 || size % kVmmGranularity != 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (CUresult r = check_prop(*prop); r != CUDA_SUCCESS) return done(scope, r);
  if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST) {
    trace::note(trace::Layer::Libcuda, "vmm: cuMemCreate of host memory (CU_MEM_LOCATION_TYPE_HOST) is not built");
    return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  }
  const DeviceInfo& dev = *device_info(prop->location.id);
  Driver& d = driver();
  NV_MEMORY_ALLOCATION_PARAMS mem = vidmem_request(size, kVmmGranularity);
  NvHandle hMemory = next_handle();
  NV_STATUS s = rm_alloc(d.hClient, dev.hDevice, &hMemory, NV01_MEMORY_LOCAL_USER, &mem, sizeof mem);
  if (s != NV_OK) return done(scope, to_cu_result(s));
  auto* alloc = new VmmAllocation;
  alloc->device = prop->location.id;
  alloc->size = size;
  alloc->prop = *prop;
  alloc->hMemory = hMemory;
  alloc->handles = 1;
  vmm_state().allocations.insert(alloc);
  *handle = reinterpret_cast<uintptr_t>(alloc);
  trace::note(trace::Layer::Libcuda, "vmm: {} of video memory, no address yet", size_text(size));
  if (scope.active()) scope.result("CUDA_SUCCESS, *handle={:#x}", *handle);
  return CUDA_SUCCESS;
}

// Contract: drops the reference of one handle (cuMemCreate, cuMemRetainAllocationHandle or
// cuMemImportFromShareableHandle made it). The memory is freed when no handle and no mapping
// refers to it any more: a mapped allocation stays readable until cuMemUnmap. A handle that
// names no live allocation: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemRelease(handle={:#x})", handle);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  VmmAllocation* alloc = find_allocation(handle);
  if (alloc == nullptr || alloc->handles == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  --alloc->handles;
  drop_reference(alloc);
  return done(scope, CUDA_SUCCESS);
}

// Contract: *prop = the properties the allocation was created with. NULL prop, or a handle
// that names no live allocation: CUDA_ERROR_INVALID_VALUE.
CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemGetAllocationPropertiesFromHandle(prop={}, handle={:#x})",
                     static_cast<void*>(prop), handle);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (prop == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  VmmAllocation* alloc = find_allocation(handle);
  if (alloc == nullptr || alloc->handles == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *prop = alloc->prop;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *handle = the allocation mapped at addr (any address inside a mapping), with one
// more reference that cuMemRelease drops. NULL handle, or addr in no mapping (unmapped, or
// memory of cuMemAlloc): CUDA_ERROR_INVALID_VALUE.
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle, void* addr) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemRetainAllocationHandle(handle={}, addr={})",
                     static_cast<void*>(handle), addr);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (handle == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  uint64_t start = 0;
  VmmMapping* mapping = find_mapping(reinterpret_cast<uintptr_t>(addr), &start);
  if (mapping == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  ++mapping->alloc->handles;
  *handle = reinterpret_cast<uintptr_t>(mapping->alloc);
  if (scope.active()) scope.result("CUDA_SUCCESS, *handle={:#x}", *handle);
  return CUDA_SUCCESS;
}
