// cuDevice*: what libcuda reports about a GPU. Everything here answers from what cuInit read
// through RM controls (name, memory sizes, SM count and version, bus, PCI ids) plus what the
// compute capability fixes (the per-SM and per-block limits of cc 9.0, real-stack.md §4.2).
// No system call is made.
#include <cstdio>
#include <cstring>

#include "libcuda.h"

namespace minicuda::libcuda {

DeviceInfo* device_info(CUdevice dev) {
  Driver& d = driver();
  if (dev < 0 || static_cast<size_t>(dev) >= d.devices.size()) return nullptr;
  return &d.devices[static_cast<size_t>(dev)];
}

// Contract: the value of one attribute of a cc 9.x device, as an H200 reports it (values not read
// from the GPU are the architecture's, measured on an H200: shared/reference/h200-cuda13/probe.txt
// and tests/data/h200/). Returns false for an attribute id CUDA does not define.
bool device_attribute(const DeviceInfo& dev, CUdevice_attribute attribute, int* value) {
  const int smem_per_sm = 233472, reserved_smem = 1024;
  int v;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = dev.sm_count; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = 0; break;  // CU_COMPUTEMODE_DEFAULT
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: v = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS: v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: v = 512; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = dev.pci_bus; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = dev.pci_device; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = 3201000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = dev.memory_bus_width; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = dev.l2_cache_bytes; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = dev.max_warps_per_sm * 32; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = dev.copy_engines; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS: v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE: v = 8192; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: v = dev.pci_domain; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS: v = 2046; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH: v = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS: v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS: v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH:
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS: v = 2046; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH: v = 268435456; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH: v = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT: v = 65000; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH: v = 2097120; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = dev.major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = dev.minor; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH: v = 32768; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = smem_per_sm; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: v = 2; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = smem_per_sm - reserved_smem; break;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: v = dev.l2_cache_bytes / 8 * 5; break;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: v = 134217728; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: v = reserved_smem; break;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING: v = 100; break;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: v = 9; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT: v = 4; break;
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: v = -1; break;
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MPS_ENABLED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
    case CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID: v = (dev.pci_device_id << 16) | 0x10de; break;
    case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID: v = static_cast<int>(0x18BF10DEu); break;  // measured
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED: v = 0; break;
    default: return false;
  }
  *value = v;
  return true;
}

}  // namespace minicuda::libcuda

using namespace minicuda;
using namespace minicuda::libcuda;

// Contract: *device = the device with this ordinal. NULL device: CUDA_ERROR_INVALID_VALUE;
// before cuInit: CUDA_ERROR_NOT_INITIALIZED; no such ordinal: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGet(device={}, ordinal={})", static_cast<void*>(device), ordinal);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (device == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (!device_info(ordinal)) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return done(scope, CUDA_SUCCESS);
}

// Contract: *count = the number of GPUs. NULL: CUDA_ERROR_INVALID_VALUE; before cuInit:
// CUDA_ERROR_NOT_INITIALIZED.
CUresult cuDeviceGetCount(int* count) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetCount(count={})", static_cast<void*>(count));
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (count == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *count = static_cast<int>(driver().devices.size());
  return done(scope, CUDA_SUCCESS);
}

// Contract: copies the device's name ("NVIDIA H200"), truncated to len - 1 characters and
// NUL-terminated, into name. NULL name or len <= 0: CUDA_ERROR_INVALID_VALUE; bad device:
// CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetName(name={}, len={}, dev={})", static_cast<void*>(name), len, dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  DeviceInfo* info = device_info(dev);
  if (!info) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (name == nullptr || len <= 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  size_t n = std::min(info->name.size(), static_cast<size_t>(len) - 1);
  std::memcpy(name, info->name.data(), n);
  name[n] = '\0';
  return done(scope, CUDA_SUCCESS);
}

// Contract: *bytes = the device memory CUDA may use (totalGlobalMem). NULL:
// CUDA_ERROR_INVALID_VALUE; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceTotalMem_v2(bytes={}, dev={})", static_cast<void*>(bytes), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  DeviceInfo* info = device_info(dev);
  if (!info) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (bytes == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *bytes = info->total_mem;
  if (scope.active()) scope.result("CUDA_SUCCESS, *bytes={}", *bytes);
  return CUDA_SUCCESS;
}

// Contract: *pi = the attribute's value. NULL pi or an attribute id CUDA does not define:
// CUDA_ERROR_INVALID_VALUE; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetAttribute(pi={}, attrib={}, dev={})", static_cast<void*>(pi),
                     attribute_name(attrib), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  DeviceInfo* info = device_info(dev);
  if (!info) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  int value = 0;
  if (pi == nullptr || !device_attribute(*info, attrib, &value)) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *pi = value;
  if (scope.active()) scope.result("CUDA_SUCCESS, *pi={}", value);
  return CUDA_SUCCESS;
}

// Contract: *uuid = the GPU's 16-byte UUID (as nvidia-smi prints after "GPU-"). NULL:
// CUDA_ERROR_INVALID_VALUE; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetUuid_v2(uuid={}, dev={})", static_cast<void*>(uuid), dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  DeviceInfo* info = device_info(dev);
  if (!info) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (uuid == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  *uuid = info->uuid;
  return done(scope, CUDA_SUCCESS);
}

// Contract: writes dev's PCI address as "domain:bus:device.function" ("0000:00:06.0" on the
// measured H200, 12 characters and a NUL) into pciBusId. len below 13: as much as fits is
// written, and CUDA_ERROR_INVALID_VALUE (measured: len 5 leaves "0000"). NULL pciBusId or
// len <= 0: CUDA_ERROR_INVALID_VALUE; bad device: CUDA_ERROR_INVALID_DEVICE.
CUresult cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetPCIBusId(pciBusId={}, len={}, dev={})",
                     static_cast<void*>(pciBusId), len, dev);
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  DeviceInfo* info = device_info(dev);
  if (!info) return done(scope, CUDA_ERROR_INVALID_DEVICE);
  if (pciBusId == nullptr || len <= 0) return done(scope, CUDA_ERROR_INVALID_VALUE);
  int needed = std::snprintf(pciBusId, static_cast<size_t>(len), "%04X:%02X:%02X.0", info->pci_domain, info->pci_bus,
                             info->pci_device);
  if (needed >= len) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (scope.active()) scope.result("CUDA_SUCCESS, pciBusId=\"{}\"", pciBusId);
  return CUDA_SUCCESS;
}

// Contract: *dev = the device at a PCI address "[domain:]bus:device[.function]" (hexadecimal, any
// case; measured: "00:06.0" and lower case find the H200). Not of that form, NULL arguments:
// CUDA_ERROR_INVALID_VALUE; no device there: CUDA_ERROR_INVALID_DEVICE, *dev unchanged.
CUresult cuDeviceGetByPCIBusId(CUdevice* dev, const char* pciBusId) {
  trace::Scope scope(trace::Layer::Libcuda, "cuDeviceGetByPCIBusId(dev={}, pciBusId=\"{}\")", static_cast<void*>(dev),
                     pciBusId ? pciBusId : "(null)");
  std::lock_guard lock(driver_mutex());
  if (CUresult r = check_initialized(); r != CUDA_SUCCESS) return done(scope, r);
  if (dev == nullptr || pciBusId == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  int fields = std::sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail);
  if (fields < 3 || fields == 5) {
    domain = 0;
    fields = std::sscanf(pciBusId, "%x:%x.%x%c", &bus, &device, &function, &tail);
    if (fields < 2 || fields == 4) return done(scope, CUDA_ERROR_INVALID_VALUE);
  }
  const std::vector<DeviceInfo>& devices = driver().devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    if (static_cast<unsigned>(d.pci_domain) == domain && static_cast<unsigned>(d.pci_bus) == bus &&
        static_cast<unsigned>(d.pci_device) == device && function == 0) {
      *dev = static_cast<CUdevice>(i);
      if (scope.active()) scope.result("CUDA_SUCCESS, *dev={}", *dev);
      return CUDA_SUCCESS;
    }
  }
  return done(scope, CUDA_ERROR_INVALID_DEVICE);
}
