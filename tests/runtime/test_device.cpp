// Devices in the runtime (runtime/src/device.cpp, init.cpp): cudaGetDeviceProperties against
// every prop.* line of probe_extra.txt, cudaSetDevice / cudaGetDevice, cudaDeviceGetAttribute,
// versions (probe.txt setDevice.*, getDevice.*; probe_extra.txt rt.*).
#include <cstdio>
#include <cstring>
#include <sstream>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

using DeviceTest = FreshProcess;

template <typename T>
std::string join(const T* values, int n) {
  std::ostringstream out;
  for (int i = 0; i < n; ++i) out << (i ? " " : "") << values[i];
  return out.str();
}

std::string hex(const char* bytes, int n) {
  std::string s;
  char b[3];
  for (int i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(bytes[i]));
    s += b;
  }
  return s;
}

// Every field of cudaDeviceProp, printed as probe_extra.cu's print_props prints it.
std::map<std::string, std::string> print_props(const cudaDeviceProp& p) {
  std::map<std::string, std::string> m;
#define S(field) m["prop." #field] = std::to_string(p.field)
#define A(field, n) m["prop." #field] = join(p.field, n)
  m["prop.name"] = p.name;
  m["prop.uuid"] = hex(p.uuid.bytes, 16);
  m["prop.luid"] = hex(p.luid, 8);
  S(luidDeviceNodeMask); S(totalGlobalMem); S(sharedMemPerBlock); S(regsPerBlock); S(warpSize); S(memPitch);
  S(maxThreadsPerBlock); A(maxThreadsDim, 3); A(maxGridSize, 3); S(totalConstMem); S(major); S(minor);
  S(textureAlignment); S(texturePitchAlignment); S(multiProcessorCount); S(integrated); S(canMapHostMemory);
  S(maxTexture1D); S(maxTexture1DMipmap); A(maxTexture2D, 2); A(maxTexture2DMipmap, 2); A(maxTexture2DLinear, 3);
  A(maxTexture2DGather, 2); A(maxTexture3D, 3); A(maxTexture3DAlt, 3); S(maxTextureCubemap);
  A(maxTexture1DLayered, 2); A(maxTexture2DLayered, 3); A(maxTextureCubemapLayered, 2); S(maxSurface1D);
  A(maxSurface2D, 2); A(maxSurface3D, 3); A(maxSurface1DLayered, 2); A(maxSurface2DLayered, 3);
  S(maxSurfaceCubemap); A(maxSurfaceCubemapLayered, 2); S(surfaceAlignment); S(concurrentKernels);
  S(ECCEnabled); S(pciBusID); S(pciDeviceID); S(pciDomainID); S(tccDriver); S(asyncEngineCount);
  S(unifiedAddressing); S(memoryBusWidth); S(l2CacheSize); S(persistingL2CacheMaxSize);
  S(maxThreadsPerMultiProcessor); S(streamPrioritiesSupported); S(globalL1CacheSupported);
  S(localL1CacheSupported); S(sharedMemPerMultiprocessor); S(regsPerMultiprocessor); S(managedMemory);
  S(isMultiGpuBoard); S(multiGpuBoardGroupID); S(hostNativeAtomicSupported); S(pageableMemoryAccess);
  S(concurrentManagedAccess); S(computePreemptionSupported); S(canUseHostPointerForRegisteredMem);
  S(cooperativeLaunch); S(sharedMemPerBlockOptin); S(pageableMemoryAccessUsesHostPageTables);
  S(directManagedMemAccessFromHost); S(maxBlocksPerMultiProcessor); S(accessPolicyMaxWindowSize);
  S(reservedSharedMemPerBlock); S(hostRegisterSupported); S(sparseCudaArraySupported);
  S(hostRegisterReadOnlySupported); S(timelineSemaphoreInteropSupported); S(memoryPoolsSupported);
  S(gpuDirectRDMASupported); S(gpuDirectRDMAFlushWritesOptions); S(gpuDirectRDMAWritesOrdering);
  S(memoryPoolSupportedHandleTypes); S(deferredMappingCudaArraySupported); S(ipcEventSupported);
  S(clusterLaunch); S(unifiedFunctionPointers); S(deviceNumaConfig); S(deviceNumaId); S(mpsEnabled);
  S(hostNumaId); S(gpuPciDeviceID); S(gpuPciSubsystemID); S(hostNumaMultinodeIpcSupported);
  A(reserved, 56);
#undef S
#undef A
  return m;
}

TEST_F(DeviceTest, EveryPropertyMatchesTheH200) {
  cudaDeviceProp prop;
  std::memset(&prop, 0x5a, sizeof prop);
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);  // rt.getDeviceProperties
  std::map<std::string, std::string> got = print_props(prop);
  size_t compared = 0;
  for (const auto& [key, want] : probe_extra()) {
    if (key.rfind("prop.", 0) != 0) continue;
    ASSERT_TRUE(got.count(key)) << "cudaDeviceProp has no field for " << key;
    ++compared;
    // The simulated GPU has a made-up UUID by design (device_sim/src/properties.cpp).
    if (key == "prop.uuid") {
      EXPECT_EQ(got[key], "6d696e69637564618200000000000001");
      continue;
    }
    EXPECT_EQ(got[key], want) << key;
  }
  EXPECT_EQ(compared, got.size());  // every field was measured
}

TEST_F(DeviceTest, GetDeviceCount) {
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);  // rt.getDeviceCount.null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);           // .getlast
  int n = -7;
  EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 1);
}

TEST_F(DeviceTest, GetDevicePropertiesErrors) {
  EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);  // rt.getDeviceProperties.null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  cudaDeviceProp prop;
  EXPECT_EQ(cudaGetDeviceProperties(&prop, 1), cudaErrorInvalidDevice);  // rt.getDeviceProperties.dev1
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetDeviceProperties(&prop, -1), cudaErrorInvalidDevice);  // .neg1
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
}

TEST_F(DeviceTest, SetDeviceBadOrdinals) {
  EXPECT_EQ(cudaSetDevice(99), cudaErrorInvalidDevice);   // setDevice.99
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);  // setDevice.99.getlast
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);   // setDevice.neg
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);    // rt.setDevice.1
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);  // rt.setDevice.1.getlast
  int dev = -5;
  EXPECT_EQ(cudaGetDevice(&dev), cudaSuccess);  // getDevice
  EXPECT_EQ(dev, 0);                            // getDevice.value: unchanged by the failures
}

TEST_F(DeviceTest, SetAndGetDevice) {
  EXPECT_EQ(cudaGetDevice(nullptr), cudaErrorInvalidValue);  // rt.getDevice.null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  int dev = -5;
  EXPECT_EQ(cudaGetDevice(&dev), cudaSuccess);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(DeviceTest, DeviceGetAttribute) {
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrMaxThreadsPerBlock, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);  // rt.deviceGetAttribute.null
  int v = -7;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0), cudaSuccess);
  EXPECT_EQ(v, 1024);  // rt.deviceGetAttribute.maxThreadsPerBlock.v
  v = -7;
  EXPECT_EQ(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(0), 0), cudaErrorInvalidValue);
  EXPECT_EQ(v, -7);  // rt.deviceGetAttribute.attr0
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(9999), 0), cudaErrorInvalidValue);
  EXPECT_EQ(v, -7);  // rt.deviceGetAttribute.attr9999
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 3), cudaErrorInvalidDevice);
  EXPECT_EQ(v, -7);  // rt.deviceGetAttribute.dev3
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0), cudaSuccess);
  EXPECT_EQ(v, 32);
}

TEST_F(DeviceTest, Versions) {
  int v = -7;
  EXPECT_EQ(cudaRuntimeGetVersion(&v), cudaSuccess);
  EXPECT_EQ(v, 13000);  // runtimeVersion
  v = -7;
  EXPECT_EQ(cudaDriverGetVersion(&v), cudaSuccess);
  EXPECT_EQ(v, 13000);  // driverVersion
  EXPECT_EQ(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);  // rt.runtimeGetVersion.null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDriverGetVersion(nullptr), cudaErrorInvalidValue);  // rt.driverGetVersion.null
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace minicuda::testing

namespace minicuda::testing {
namespace {

// cudaInitDevice: a device out of range, and the device flags minicuda does not model.
TEST_F(FreshProcess, InitDeviceRefusesBadDevicesAndFlags) {
  EXPECT_EQ(cudaInitDevice(99, 0, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaInitDevice(-1, 0, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaInitDevice(0, cudaDeviceScheduleSpin, cudaInitDeviceFlagsAreValid), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaInitDevice(0, 0, 0), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
