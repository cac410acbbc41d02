// The user-mode side of the ioctl ABI: every system call libcuda makes goes through here.
//
// Each function fills the real parameter struct (driver/uapi), makes one sys_ioctl on the right
// node and returns the RM status the kernel wrote back into the struct. A failed ioctl (a
// negative errno: an interrupted call is retried; otherwise the kernel refused it, or libcuda
// itself is broken) is an OS error (rm_ioctl), which the callers' translation turns into
// CUDA_ERROR_OUT_OF_MEMORY (ENOMEM) or CUDA_ERROR_OPERATING_SYSTEM.
#include <cstring>

#include "libcuda.h"
#include "minicuda/syscall.h"
#include "minicuda/trace.h"

namespace minicuda::libcuda {

NV_STATUS rm_ioctl(int fd, unsigned long request, void* params) {
  // The real wrapper retries for as long as it takes; a bound keeps an injected EINTR on every
  // call (MINICUDA_FAULT ioctl:NAME@1+=EINTR) from hanging the program.
  constexpr int kRetries = 64;
  long r = 0;
  int tries = 0;
  do {
    r = kernel::sys_ioctl(fd, request, params);
  } while ((r == -kernel::kEINTR || r == -kernel::kEAGAIN) && ++tries < kRetries);
  if (r >= 0) return NV_OK;
  return r == -kernel::kENOMEM ? NV_ERR_NO_MEMORY : NV_ERR_OPERATING_SYSTEM;
}

namespace {
template <typename T>
NV_STATUS ioctl_status(int fd, uint32_t nr, T* params, NV_STATUS T::*status) {
  NV_STATUS os = rm_ioctl(fd, NV_IOWR(nr, sizeof(T)), params);
  return os != NV_OK ? os : params->*status;
}
}  // namespace

NvHandle next_handle() { return driver().next_handle++; }

NV_STATUS rm_alloc(NvHandle hClient, NvHandle hParent, NvHandle* handle, NvU32 hClass, void* params,
                   NvU32 params_size) {
  NVOS64_PARAMETERS p{};
  p.hRoot = hClient;
  p.hObjectParent = hParent;
  p.hObjectNew = *handle;
  p.hClass = hClass;
  p.pAllocParms = nv_ptr_to_p64(params);
  p.paramsSize = params_size;
  NV_STATUS s = ioctl_status(driver().ctl_fd, NV_ESC_RM_ALLOC, &p, &NVOS64_PARAMETERS::status);
  if (s == NV_OK) *handle = p.hObjectNew;
  return s;
}

NV_STATUS rm_free(NvHandle hClient, NvHandle hParent, NvHandle hObject) {
  NVOS00_PARAMETERS p{};
  p.hRoot = hClient;
  p.hObjectParent = hParent;
  p.hObjectOld = hObject;
  return ioctl_status(driver().ctl_fd, NV_ESC_RM_FREE, &p, &NVOS00_PARAMETERS::status);
}

NV_STATUS rm_control(NvHandle hClient, NvHandle hObject, NvU32 cmd, void* params, NvU32 params_size) {
  NVOS54_PARAMETERS p{};
  p.hClient = hClient;
  p.hObject = hObject;
  p.cmd = cmd;
  p.params = nv_ptr_to_p64(params);
  p.paramsSize = params_size;
  return ioctl_status(driver().ctl_fd, NV_ESC_RM_CONTROL, &p, &NVOS54_PARAMETERS::status);
}

NV_STATUS rm_alloc_os_descriptor(NvHandle hClient, NvHandle hDevice, NvHandle handle, void* address, uint64_t size) {
  nv_ioctl_nvos02_parameters_with_fd p{};
  p.params.hRoot = hClient;
  p.params.hObjectParent = hDevice;
  p.params.hObjectNew = handle;
  p.params.hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  p.params.flags = NVOS02_FLAGS_LIBCUDA_HOST_ALLOC;
  p.params.pMemory = nv_ptr_to_p64(address);
  p.params.limit = size - 1;
  // On the node of the GPU whose device object is the parent (the first GPU's if none is).
  const DeviceInfo* dev = device_of_handle(hDevice);
  const int fd = dev ? dev->gpu_fd : driver().devices.front().gpu_fd;
  p.fd = fd;
  NV_STATUS os = rm_ioctl(fd, NV_IOWR(NV_ESC_RM_ALLOC_MEMORY, sizeof p), &p);
  return os != NV_OK ? os : p.params.status;
}

NV_STATUS uvm_map_memory(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu, NvHandle hMemory) {
  UVM_CREATE_EXTERNAL_RANGE_PARAMS range{};
  range.base = va;
  range.length = size;
  NV_STATUS s = uvm_call(uvm_fd, UVM_CREATE_EXTERNAL_RANGE, &range);
  if (s != NV_OK) return s;
  static UVM_MAP_EXTERNAL_ALLOCATION_PARAMS map;  // 9 KiB: too big for the stack; guarded by driver_mutex()
  std::memset(&map, 0, sizeof map);
  map.base = va;
  map.length = size;
  map.offset = 0;
  std::memcpy(map.perGpuAttributes[0].gpuUuid.uuid, gpu.bytes, sizeof gpu.bytes);
  map.perGpuAttributes[0].gpuMappingType = UvmGpuMappingTypeReadWriteAtomic;
  map.gpuAttributesCount = 1;
  map.rmCtrlFd = driver().ctl_fd;
  map.hClient = driver().hClient;
  map.hMemory = hMemory;
  s = uvm_call(uvm_fd, UVM_MAP_EXTERNAL_ALLOCATION, &map);
  if (s != NV_OK) uvm_free_range(uvm_fd, va);
  return s;
}

NV_STATUS uvm_map_for_gpu(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu, NvHandle hMemory, bool writable) {
  static UVM_MAP_EXTERNAL_ALLOCATION_PARAMS map;  // 9 KiB: too big for the stack; guarded by driver_mutex()
  std::memset(&map, 0, sizeof map);
  map.base = va;
  map.length = size;
  std::memcpy(map.perGpuAttributes[0].gpuUuid.uuid, gpu.bytes, sizeof gpu.bytes);
  map.perGpuAttributes[0].gpuMappingType = writable ? UvmGpuMappingTypeReadWriteAtomic : UvmGpuMappingTypeReadOnly;
  map.gpuAttributesCount = 1;
  map.rmCtrlFd = driver().ctl_fd;
  map.hClient = driver().hClient;
  map.hMemory = hMemory;
  return uvm_call(uvm_fd, UVM_MAP_EXTERNAL_ALLOCATION, &map);
}

NV_STATUS uvm_unmap_for_gpu(int uvm_fd, uint64_t va, uint64_t size, const CUuuid& gpu) {
  UVM_UNMAP_EXTERNAL_PARAMS p{};
  p.base = va;
  p.length = size;
  std::memcpy(p.gpuUuid.uuid, gpu.bytes, sizeof gpu.bytes);
  return uvm_call(uvm_fd, UVM_UNMAP_EXTERNAL, &p);
}

NV_STATUS uvm_free_range(int uvm_fd, uint64_t va) {
  UVM_FREE_PARAMS p{};
  p.base = va;
  return uvm_call(uvm_fd, UVM_FREE, &p);
}

}  // namespace minicuda::libcuda
