// Virtual memory management, sharing: cuMemExportToShareableHandle and
// cuMemImportFromShareableHandle for CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR (vmm.h). The fd is
// a file of the (simulated) process: an open of /dev/nvidiactl that nvidia.ko binds the
// allocation's RM object to, as on the H200 (vmm_trace.txt: "fd=36 -> /dev/nvidiactl").
// The H200's libcuda uses the plural form of RM's export (NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD
// after NV_ESC_ATTACH_GPUS_TO_FD on the new fd; GET_EXPORT_OBJECT_INFO, IMPORT_OBJECTS_FROM_FD and
// NV0041_CTRL_CMD_GET_SURFACE_INFO to import); minicuda uses the singular pair for one object and
// remembers the exported size itself (VmmState::exports), so it shares within one process only.
#include "vmm.h"

namespace minicuda::libcuda {
namespace {

constexpr unsigned kHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_WIN32 |
                                  CU_MEM_HANDLE_TYPE_WIN32_KMT | CU_MEM_HANDLE_TYPE_FABRIC;

bool one_known_type(CUmemAllocationHandleType type) {
  const unsigned t = static_cast<unsigned>(type);
  return t != 0 && (t & (t - 1)) == 0 && (t & kHandleTypes) != 0;
}

}  // namespace
}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *(int*)shareableHandle = a new file descriptor naming the allocation: libcuda opens
// /dev/nvidiactl and binds the allocation's RM object to it
// (NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD). The fd keeps the memory alive until it is closed.
// NULL shareableHandle, flags other than 0, a handle naming no live allocation, a type that is
// not one handle type, a type the allocation was not created for (requestedHandleTypes):
// CUDA_ERROR_INVALID_VALUE; a type other than POSIX_FILE_DESCRIPTOR that it was created for:
// CUDA_ERROR_NOT_SUPPORTED.
CUresult cuMemExportToShareableHandle(void* shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType, unsigned long long flags) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemExportToShareableHandle(shareableHandle={}, handle={:#x}, handleType={}, flags={:#x})",
                     shareableHandle, handle, static_cast<int>(handleType), flags);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (shareableHandle == nullptr || flags != 0 || !one_known_type(handleType)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  VmmAllocation* alloc = find_allocation(handle);
  if (alloc == nullptr || alloc->handles == 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if ((static_cast<unsigned>(alloc->prop.requestedHandleTypes) & static_cast<unsigned>(handleType)) == 0)
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return done(scope, CUDA_ERROR_NOT_SUPPORTED);
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(alloc->device);
  int fd = kernel::sys_open("/dev/nvidiactl", kernel::kORdWr | kernel::kOCloexec);
  if (fd < 0) return done(scope, CUDA_ERROR_OPERATING_SYSTEM);
  NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS p{};
  p.object.type = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM;
  p.object.data.rmObject.hDevice = dev.hDevice;
  p.object.data.rmObject.hParent = dev.hDevice;
  p.object.data.rmObject.hObject = alloc->hMemory;
  p.fd = fd;
  NV_STATUS s = rm_control(d.hClient, d.hClient, NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, &p, sizeof p);
  if (s != NV_OK) {
    kernel::sys_close(fd);
    return done(scope, to_cu_result(s));
  }
  vmm_state().exports[fd] = VmmExport{alloc->device, alloc->size, alloc->prop};
  *static_cast<int*>(shareableHandle) = fd;
  if (scope.active()) scope.result("CUDA_SUCCESS, fd={}", fd);
  return CUDA_SUCCESS;
}

// Contract: *handle = a new allocation handle for the memory an export fd names (osHandle: the
// fd, cast to void*): nvidia.ko dups the bound RM object into the process's client
// (NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD). It has the exported allocation's size, its
// own reference, and properties that say only where it lives (type PINNED, the device: no
// handle types, no compression, as measured); the fd stays open. As measured (vmm_errors.txt
// import.*): a negative fd: CUDA_ERROR_UNKNOWN; NULL handle, an fd that names no exported
// allocation (stdin): CUDA_ERROR_INVALID_VALUE. A type other than POSIX_FILE_DESCRIPTOR (the real
// libcuda crashed on FABRIC): CUDA_ERROR_INVALID_VALUE.
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle* handle, void* osHandle,
                                        CUmemAllocationHandleType shHandleType) {
  trace::Scope scope(trace::Layer::Libcuda, "cuMemImportFromShareableHandle(handle={}, osHandle={}, shHandleType={})",
                     static_cast<void*>(handle), osHandle, static_cast<int>(shHandleType));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (handle == nullptr || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return done(scope, CUDA_ERROR_INVALID_VALUE);
  const int fd = static_cast<int>(reinterpret_cast<intptr_t>(osHandle));
  if (fd < 0) return done(scope, CUDA_ERROR_UNKNOWN);  // measured: import(fd -1) = 999
  auto known = vmm_state().exports.find(fd);
  if (known == vmm_state().exports.end()) return done(scope, CUDA_ERROR_INVALID_VALUE);
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(known->second.device);
  NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS p{};
  p.fd = fd;
  p.object.type = NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM;
  p.object.data.rmObject.hDevice = dev.hDevice;
  p.object.data.rmObject.hParent = dev.hDevice;
  p.object.data.rmObject.hObject = next_handle();
  NV_STATUS s = rm_control(d.hClient, d.hClient, NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, &p, sizeof p);
  if (s != NV_OK) {
    // The fd was closed (and its number maybe reused): it names no export any more.
    vmm_state().exports.erase(known);
    return done(scope, s == NV_ERR_INVALID_ARGUMENT ? CUDA_ERROR_INVALID_VALUE : to_cu_result(s));
  }
  auto* alloc = new VmmAllocation;
  alloc->device = known->second.device;
  alloc->size = known->second.size;
  // The importer learns the memory, not how it was made (measured: "imported props" read back
  // handleTypes 0 and compression 0 for an exportable allocation).
  alloc->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  alloc->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  alloc->prop.location.id = known->second.device;
  alloc->hMemory = p.object.data.rmObject.hObject;
  alloc->handles = 1;
  vmm_state().allocations.insert(alloc);
  *handle = reinterpret_cast<uintptr_t>(alloc);
  if (scope.active()) scope.result("CUDA_SUCCESS, *handle={:#x}", *handle);
  return CUDA_SUCCESS;
}
