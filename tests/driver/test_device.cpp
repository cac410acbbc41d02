// cuDevice* (driver/user/src/device.cpp): ordinals, NULLs, name truncation, attribute values against
// the H200 measurements (probe_extra.txt: drv.device*, prop.*).
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "driver_fixtures.h"

namespace minicuda::testing {
namespace {

using DeviceTest = Initialized;

// The idx-th number of a probe value ("1024 1024 64").
long long probe_number(const std::string& key, int idx = 0) {
  auto it = probe_extra().find(key);
  if (it == probe_extra().end()) {
    ADD_FAILURE() << "probe_extra.txt has no " << key;
    return -1;
  }
  std::istringstream in(it->second);
  long long v = 0;
  for (int i = 0; i <= idx; ++i) in >> v;
  return v;
}

TEST_F(DeviceTest, GetCount) {
  EXPECT_EQ(cuDeviceGetCount(nullptr), CUDA_ERROR_INVALID_VALUE);  // drv.deviceGetCount.null
  int n = -7;
  EXPECT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  EXPECT_EQ(n, 1);
}

TEST_F(DeviceTest, GetOrdinals) {
  CUdevice d = -7;
  EXPECT_EQ(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);  // drv.deviceGet.neg1
  EXPECT_EQ(d, -7);
  EXPECT_EQ(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);  // drv.deviceGet.1
  EXPECT_EQ(d, -7);
  EXPECT_EQ(cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);  // drv.deviceGet.null
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_SUCCESS);
  EXPECT_EQ(d, 0);
}

TEST_F(DeviceTest, GetNameErrors) {
  char buf[64];
  std::memset(buf, 'X', sizeof buf);
  // The real driver crashes on len 0 (drv.deviceGetName.len0); minicuda refuses it.
  EXPECT_EQ(cuDeviceGetName(buf, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(buf[0], 'X');
  EXPECT_EQ(cuDeviceGetName(buf, -1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetName(nullptr, 64, 0), CUDA_ERROR_INVALID_VALUE);  // drv.deviceGetName.nullbuf
  EXPECT_EQ(cuDeviceGetName(buf, 64, 5), CUDA_ERROR_INVALID_DEVICE);     // drv.deviceGetName.dev5
  EXPECT_EQ(cuDeviceGetName(buf, 64, -1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(buf[0], 'X');
}

TEST_F(DeviceTest, GetNameTruncatesAndTerminates) {
  char buf[64];
  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(cuDeviceGetName(buf, 5, 0), CUDA_SUCCESS);  // drv.deviceGetName.len5
  const unsigned char len5[8] = {0x4e, 0x56, 0x49, 0x44, 0x00, 0x58, 0x58, 0x58};
  EXPECT_EQ(std::memcmp(buf, len5, sizeof len5), 0);
  EXPECT_STREQ(buf, "NVID");

  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(cuDeviceGetName(buf, 1, 0), CUDA_SUCCESS);  // drv.deviceGetName.len1
  EXPECT_EQ(buf[0], '\0');
  EXPECT_EQ(buf[1], 'X');

  std::memset(buf, 'X', sizeof buf);
  EXPECT_EQ(cuDeviceGetName(buf, 64, 0), CUDA_SUCCESS);  // drv.deviceGetName.len64
  EXPECT_STREQ(buf, "NVIDIA H200");
  EXPECT_EQ(probe_extra().at("prop.name"), "NVIDIA H200");
}

TEST_F(DeviceTest, TotalMem) {
  EXPECT_EQ(cuDeviceTotalMem_v2(nullptr, 0), CUDA_ERROR_INVALID_VALUE);  // drv.deviceTotalMem.null
  size_t bytes = 0;
  EXPECT_EQ(cuDeviceTotalMem_v2(&bytes, 0), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 150109880320u);  // drv.deviceTotalMem.value
  EXPECT_EQ(static_cast<long long>(bytes), probe_number("prop.totalGlobalMem"));
  EXPECT_EQ(cuDeviceTotalMem_v2(&bytes, 1), CUDA_ERROR_INVALID_DEVICE);  // drv.deviceTotalMem.dev1
}

TEST_F(DeviceTest, AttributeErrorsWriteNothing) {
  int v = -7;
  EXPECT_EQ(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(0), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(v, -7);  // drv.deviceGetAttribute.attr0
  EXPECT_EQ(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(9999), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(v, -7);  // drv.deviceGetAttribute.attr9999
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 7), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(v, -7);  // drv.deviceGetAttribute.dev7
  EXPECT_EQ(cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceTest, MeasuredSingleAttributes) {
  int v = -7;
  EXPECT_EQ(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(1), 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024);  // drv.deviceGetAttribute.attr1
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 1980000);
}

// Every attribute behind a cudaDeviceProp field, against probe_extra.txt's prop.* line.
struct AttributeRow {
  CUdevice_attribute attribute;
  const char* key;
  int index;
};
const AttributeRow kPropAttributes[] = {
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "prop.sharedMemPerBlock", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "prop.regsPerBlock", 0},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "prop.warpSize", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_PITCH, "prop.memPitch", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "prop.maxThreadsPerBlock", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "prop.maxThreadsDim", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "prop.maxThreadsDim", 1},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "prop.maxThreadsDim", 2},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "prop.maxGridSize", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "prop.maxGridSize", 1},
    {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "prop.maxGridSize", 2},
    {CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, "prop.totalConstMem", 0},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "prop.major", 0},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "prop.minor", 0},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, "prop.textureAlignment", 0},
    {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, "prop.texturePitchAlignment", 0},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "prop.multiProcessorCount", 0},
    {CU_DEVICE_ATTRIBUTE_INTEGRATED, "prop.integrated", 0},
    {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "prop.canMapHostMemory", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH, "prop.maxTexture1D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH, "prop.maxTexture1DMipmap", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH, "prop.maxTexture2D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT, "prop.maxTexture2D", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH, "prop.maxTexture2DMipmap", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT, "prop.maxTexture2DMipmap", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH, "prop.maxTexture2DLinear", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT, "prop.maxTexture2DLinear", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH, "prop.maxTexture2DLinear", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH, "prop.maxTexture2DGather", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT, "prop.maxTexture2DGather", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, "prop.maxTexture3D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, "prop.maxTexture3D", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, "prop.maxTexture3D", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE, "prop.maxTexture3DAlt", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE, "prop.maxTexture3DAlt", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE, "prop.maxTexture3DAlt", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH, "prop.maxTextureCubemap", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH, "prop.maxTexture1DLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS, "prop.maxTexture1DLayered", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH, "prop.maxTexture2DLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT, "prop.maxTexture2DLayered", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS, "prop.maxTexture2DLayered", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH, "prop.maxTextureCubemapLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS, "prop.maxTextureCubemapLayered", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH, "prop.maxSurface1D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH, "prop.maxSurface2D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT, "prop.maxSurface2D", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH, "prop.maxSurface3D", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT, "prop.maxSurface3D", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH, "prop.maxSurface3D", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH, "prop.maxSurface1DLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS, "prop.maxSurface1DLayered", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH, "prop.maxSurface2DLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT, "prop.maxSurface2DLayered", 1},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS, "prop.maxSurface2DLayered", 2},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH, "prop.maxSurfaceCubemap", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH, "prop.maxSurfaceCubemapLayered", 0},
    {CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS, "prop.maxSurfaceCubemapLayered", 1},
    {CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, "prop.surfaceAlignment", 0},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, "prop.concurrentKernels", 0},
    {CU_DEVICE_ATTRIBUTE_ECC_ENABLED, "prop.ECCEnabled", 0},
    {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "prop.pciBusID", 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "prop.pciDeviceID", 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "prop.pciDomainID", 0},
    {CU_DEVICE_ATTRIBUTE_TCC_DRIVER, "prop.tccDriver", 0},
    {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, "prop.asyncEngineCount", 0},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, "prop.unifiedAddressing", 0},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "prop.memoryBusWidth", 0},
    {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "prop.l2CacheSize", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, "prop.persistingL2CacheMaxSize", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "prop.maxThreadsPerMultiProcessor", 0},
    {CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, "prop.streamPrioritiesSupported", 0},
    {CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, "prop.globalL1CacheSupported", 0},
    {CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, "prop.localL1CacheSupported", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "prop.sharedMemPerMultiprocessor", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "prop.regsPerMultiprocessor", 0},
    {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "prop.managedMemory", 0},
    {CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, "prop.isMultiGpuBoard", 0},
    {CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, "prop.multiGpuBoardGroupID", 0},
    {CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, "prop.hostNativeAtomicSupported", 0},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, "prop.pageableMemoryAccess", 0},
    {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, "prop.concurrentManagedAccess", 0},
    {CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, "prop.computePreemptionSupported", 0},
    {CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, "prop.canUseHostPointerForRegisteredMem", 0},
    {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, "prop.cooperativeLaunch", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "prop.sharedMemPerBlockOptin", 0},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, "prop.pageableMemoryAccessUsesHostPageTables", 0},
    {CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, "prop.directManagedMemAccessFromHost", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "prop.maxBlocksPerMultiProcessor", 0},
    {CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, "prop.accessPolicyMaxWindowSize", 0},
    {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "prop.reservedSharedMemPerBlock", 0},
    {CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, "prop.hostRegisterSupported", 0},
    {CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, "prop.sparseCudaArraySupported", 0},
    {CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED, "prop.hostRegisterReadOnlySupported", 0},
    {CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, "prop.timelineSemaphoreInteropSupported", 0},
    {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, "prop.memoryPoolsSupported", 0},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, "prop.gpuDirectRDMASupported", 0},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, "prop.gpuDirectRDMAFlushWritesOptions", 0},
    {CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, "prop.gpuDirectRDMAWritesOrdering", 0},
    {CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, "prop.memoryPoolSupportedHandleTypes", 0},
    {CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, "prop.deferredMappingCudaArraySupported", 0},
    {CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, "prop.ipcEventSupported", 0},
    {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "prop.clusterLaunch", 0},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS, "prop.unifiedFunctionPointers", 0},
    {CU_DEVICE_ATTRIBUTE_NUMA_CONFIG, "prop.deviceNumaConfig", 0},
    {CU_DEVICE_ATTRIBUTE_NUMA_ID, "prop.deviceNumaId", 0},
    {CU_DEVICE_ATTRIBUTE_MPS_ENABLED, "prop.mpsEnabled", 0},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, "prop.hostNumaId", 0},
    {CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, "prop.gpuPciDeviceID", 0},
    {CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID, "prop.gpuPciSubsystemID", 0},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED, "prop.hostNumaMultinodeIpcSupported", 0},
};

TEST_F(DeviceTest, EveryPropertyAttributeMatchesTheH200) {
  for (const AttributeRow& row : kPropAttributes) {
    int v = -7;
    ASSERT_EQ(cuDeviceGetAttribute(&v, row.attribute, 0), CUDA_SUCCESS) << row.key;
    long long want = probe_number(row.key, row.index);
    // Unsigned fields (gpuPciDeviceID, ...) are printed as unsigned: compare as 32-bit patterns.
    EXPECT_EQ(static_cast<uint32_t>(v), static_cast<uint32_t>(want)) << row.key << "[" << row.index << "]";
  }
}

TEST_F(DeviceTest, Uuid) {
  CUuuid u{};
  EXPECT_EQ(cuDeviceGetUuid_v2(&u, 0), CUDA_SUCCESS);
  char hex[33] = {};
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", static_cast<unsigned char>(u.bytes[i]));
  // The H200 measured c9da3527-... (drv.deviceGetUuid_v2.hex); the simulated GPU has a fixed,
  // made-up UUID by design ("minicuda", H200, #1: device_sim/src/properties.cpp).
  EXPECT_STREQ(hex, "6d696e69637564618200000000000001");
  EXPECT_EQ(cuDeviceGetUuid_v2(nullptr, 0), CUDA_ERROR_INVALID_VALUE);  // drv.deviceGetUuid_v2.null
  EXPECT_EQ(cuDeviceGetUuid_v2(&u, 1), CUDA_ERROR_INVALID_DEVICE);      // drv.deviceGetUuid_v2.dev1
}

TEST_F(DeviceTest, QueriesAfterInitMakeNoSystemCall) {
  trace::Recorder recorder;
  int v = 0;
  char name[64];
  size_t bytes = 0;
  CUuuid u{};
  CUdevice d = 0;
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetCount(&v), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceTotalMem_v2(&bytes, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuDeviceGetUuid_v2(&u, 0), CUDA_SUCCESS);
  EXPECT_EQ(syscalls(recorder), 0u);
}

}  // namespace
}  // namespace minicuda::testing
