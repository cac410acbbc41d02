// Two simulated H200s in one process (MINICUDA_DEVICES=2, set by CMake for this executable; the
// tests also set it before the first system call, so a direct run behaves the same):
// enumeration through nvidia.ko's card info and libcuda, CUDA_VISIBLE_DEVICES with its exact
// errors, and work (allocations, copies, kernels) on each device's own GPU.
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "runtime_fixtures.h"

__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

namespace minicuda::testing {
namespace {

// Runs before any test touches the simulated kernel: the module reads MINICUDA_DEVICES at boot.
const bool kTwoGpus = [] {
  setenv("MINICUDA_DEVICES", "2", 1);
  return true;
}();

// A fresh simulated process whose cuInit sees CUDA_VISIBLE_DEVICES = `visible` (null: unset).
class MultiGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kTwoGpus);
    unsetenv("CUDA_VISIBLE_DEVICES");
    (void)cudaGetLastError();
  }
  void TearDown() override {
    unsetenv("CUDA_VISIBLE_DEVICES");
    (void)cudaGetLastError();
  }
  // Starts the process (the fixture's process starts here, so the environment set before counts).
  void start(const char* visible) {
    if (visible) setenv("CUDA_VISIBLE_DEVICES", visible, 1);
    process_ = kernel::spawn_process();
    scope_ = std::make_unique<kernel::ProcessScope>(*process_);
  }
  std::string pci_bus_id(int device) {
    char id[32] = {};
    EXPECT_EQ(cudaDeviceGetPCIBusId(id, sizeof id, device), cudaSuccess);
    return id;
  }
  std::unique_ptr<kernel::Process> process_;
  std::unique_ptr<kernel::ProcessScope> scope_;
};

TEST_F(MultiGpu, BothGpusAreEnumeratedWithDistinctIdentities) {
  start(nullptr);
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_EQ(count, 2);
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  int cu_count = 0;
  ASSERT_EQ(cuDeviceGetCount(&cu_count), CUDA_SUCCESS);
  EXPECT_EQ(cu_count, 2);
  CUdevice dev1 = -1;
  ASSERT_EQ(cuDeviceGet(&dev1, 1), CUDA_SUCCESS);
  EXPECT_EQ(dev1, 1);
  CUdevice bad = -1;
  EXPECT_EQ(cuDeviceGet(&bad, 2), CUDA_ERROR_INVALID_DEVICE);
  cudaDeviceProp p0{}, p1{};
  ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
  EXPECT_STREQ(p0.name, p1.name);
  EXPECT_EQ(p0.multiProcessorCount, p1.multiProcessorCount);
  EXPECT_EQ(p0.totalGlobalMem, p1.totalGlobalMem);
  EXPECT_EQ(p0.pciBusID, 0);  // the measured H200's bus stays the first GPU's
  EXPECT_EQ(p1.pciBusID, 1);
  EXPECT_EQ(p0.pciDeviceID, p1.pciDeviceID);
  EXPECT_NE(std::memcmp(&p0.uuid, &p1.uuid, sizeof p0.uuid), 0);
  EXPECT_EQ(pci_bus_id(0), "0000:00:06.0");
  EXPECT_EQ(pci_bus_id(1), "0000:01:06.0");
  int by_bus = -1;
  ASSERT_EQ(cudaDeviceGetByPCIBusId(&by_bus, "0000:01:06.0"), cudaSuccess);
  EXPECT_EQ(by_bus, 1);
}

TEST_F(MultiGpu, VisibleDevicesEmptyMeansNoDevice) {
  start("");
  int count = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  EXPECT_EQ(cudaErrorNoDevice, 100);
  EXPECT_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
  void* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, 4), cudaErrorNoDevice);
}

TEST_F(MultiGpu, VisibleDevicesReordersAndHides) {
  start("1,0");
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(pci_bus_id(0), "0000:01:06.0");
  EXPECT_EQ(pci_bus_id(1), "0000:00:06.0");
}

TEST_F(MultiGpu, VisibleDevicesCanShowTheSecondGpuAlone) {
  start("1");
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(pci_bus_id(0), "0000:01:06.0");
  EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);  // on the physical second GPU
  ASSERT_EQ(cudaMemset(d, 0x5a, 256), cudaSuccess);
  unsigned char h[256] = {};
  ASSERT_EQ(cudaMemcpy(h, d, 256, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[0], 0x5a);
  EXPECT_EQ(h[255], 0x5a);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(MultiGpu, VisibleDevicesStopAtTheFirstInvalidEntry) {
  struct Case {
    const char* visible;
    int count;  // 0: cudaErrorNoDevice
  };
  for (Case c : {Case{"0,2,1", 1}, Case{"1,x,0", 1}, Case{"0,0", 1}, Case{"7", 0}, Case{"-1,0", 0}, Case{"0,1,5", 2}}) {
    SCOPED_TRACE(c.visible);
    start(c.visible);
    int count = -1;
    if (c.count == 0) {
      EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
    } else {
      ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
      EXPECT_EQ(count, c.count);
    }
    scope_.reset();
    process_.reset();
    (void)cudaGetLastError();
  }
}

TEST_F(MultiGpu, SetDeviceSelectsTheContextThatWorkGoesTo) {
  start(nullptr);
  int device = -1;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(cudaSetDevice(2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
  constexpr int n = 4096;
  int* d[2] = {};
  for (int dev = 0; dev < 2; ++dev) {
    ASSERT_EQ(cudaSetDevice(dev), cudaSuccess);
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, dev);
    ASSERT_EQ(cudaMalloc(&d[dev], n * sizeof(int)), cudaSuccess);
    cudaPointerAttributes attr{};
    ASSERT_EQ(cudaPointerGetAttributes(&attr, d[dev]), cudaSuccess);
    EXPECT_EQ(attr.device, dev);
    EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
  }
  EXPECT_NE(d[0], d[1]);
  for (int dev = 0; dev < 2; ++dev) {
    ASSERT_EQ(cudaSetDevice(dev), cudaSuccess);
    std::vector<int> h(n);
    std::iota(h.begin(), h.end(), dev * 1000);
    ASSERT_EQ(cudaMemcpy(d[dev], h.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(minicuda::launch<scale>(dim3(n / 256), dim3(256), 0, s, d[dev], n, dev + 2), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  }
  for (int dev = 0; dev < 2; ++dev) {
    ASSERT_EQ(cudaSetDevice(dev), cudaSuccess);
    std::vector<int> out(n);
    ASSERT_EQ(cudaMemcpy(out.data(), d[dev], n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], (dev * 1000 + i) * (dev + 2)) << dev << " " << i;
    EXPECT_EQ(cudaFree(d[dev]), cudaSuccess);
  }
  // Each GPU's memory is its own: allocating on one leaves the other's free memory alone.
  size_t free0 = 0, free1 = 0, total = 0;
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free1, &total), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  void* big = nullptr;
  ASSERT_EQ(cudaMalloc(&big, 64ull << 20), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free0, &total), cudaSuccess);
  EXPECT_LE(free0 + (64ull << 20), free1);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  size_t free1_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free1_after, &total), cudaSuccess);
  EXPECT_EQ(free1_after, free1);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaFree(big), cudaSuccess);
}

TEST_F(MultiGpu, PeerAccessBetweenTheTwoH200s) {
  start(nullptr);
  int can = -1;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 1, 0), cudaSuccess);
  EXPECT_EQ(can, 1);
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
  EXPECT_EQ(can, 0);
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceCanAccessPeer(nullptr, 0, 1), cudaErrorInvalidValue);

  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  EXPECT_EQ(cudaGetLastError(), cudaErrorPeerAccessNotEnabled);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(2, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(-1, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);  // the current device itself
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
  EXPECT_EQ(static_cast<int>(cudaErrorPeerAccessAlreadyEnabled), 704);
  int device = -1;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(device, 0);  // enabling left the current device alone
  // Access is per direction: device 1 has not enabled device 0.
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  EXPECT_EQ(static_cast<int>(cudaErrorPeerAccessNotEnabled), 705);
  (void)cudaGetLastError();
}

// cudaDeviceGetP2PAttribute / cuDeviceGetP2PAttribute: the two H200s are linked both ways (rank
// 0, access, native atomics, array access); a device with itself or a bad ordinal is
// cudaErrorInvalidDevice, an unknown attribute or a NULL value cudaErrorInvalidValue.
TEST_F(MultiGpu, P2PAttributesOfTheTwoH200s) {
  start(nullptr);
  EXPECT_EQ(static_cast<int>(cudaDevP2PAttrPerformanceRank), 1);
  EXPECT_EQ(static_cast<int>(cudaDevP2PAttrCudaArrayAccessSupported), 4);
  struct Row {
    cudaDeviceP2PAttr attr;
    int value;
  };
  const Row rows[] = {{cudaDevP2PAttrPerformanceRank, 0},
                      {cudaDevP2PAttrAccessSupported, 1},
                      {cudaDevP2PAttrNativeAtomicSupported, 1},
                      {cudaDevP2PAttrCudaArrayAccessSupported, 1},
                      {cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 0}};
  for (const Row& row : rows) {
    for (auto [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
      int v = -7;
      ASSERT_EQ(cudaDeviceGetP2PAttribute(&v, row.attr, src, dst), cudaSuccess) << row.attr;
      EXPECT_EQ(v, row.value) << row.attr << " " << src << "->" << dst;
      int cu = -7;
      ASSERT_EQ(cuDeviceGetP2PAttribute(&cu, static_cast<CUdevice_P2PAttribute>(row.attr), src, dst), CUDA_SUCCESS);
      EXPECT_EQ(cu, row.value);
    }
  }
  int v = -7;
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, 1, 1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 2), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, -1, 0), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(nullptr, cudaDevP2PAttrAccessSupported, 0, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetP2PAttribute(&v, static_cast<cudaDeviceP2PAttr>(9), 0, 1), cudaErrorInvalidValue);
  EXPECT_EQ(v, -7);  // untouched by every failure
  EXPECT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 5), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetP2PAttribute(nullptr, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MultiGpu, PeerCopiesMoveTheBytesBetweenDevices) {
  start(nullptr);
  constexpr int n = 100000;
  std::vector<int> h(n);
  std::iota(h.begin(), h.end(), 7);
  int* d0 = nullptr;
  int* d1 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d0, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d0, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d1, n * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d1, 0, n * sizeof(int)), cudaSuccess);

  // cudaMemcpyPeer from device 0 to device 1 (issued while device 1 is current).
  ASSERT_EQ(cudaMemcpyPeer(d1, 1, d0, 0, n * sizeof(int)), cudaSuccess);
  std::vector<int> out(n);
  ASSERT_EQ(cudaMemcpy(out.data(), d1, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(out, h);

  // A kernel on device 1 changes its copy; UVA cudaMemcpyDefault brings it back to device 0.
  ASSERT_EQ(minicuda::launch<scale>(dim3((n + 255) / 256), dim3(256), 0, nullptr, d1, n, 3), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d0, d1, n * sizeof(int), cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(out.data(), d0, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], (i + 7) * 3) << i;

  // cudaMemcpyPeerAsync on a stream of the destination device: device 1's first 1000 ints
  // (still (i + 7) * 3) over a cleared device-0 buffer.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d0, 0, n * sizeof(int), s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyPeerAsync(d0, 0, d1, 1, 1000 * sizeof(int), s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(out.data(), d0, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], i < 1000 ? (i + 7) * 3 : 0) << i;

  // Errors: a bad ordinal, a pointer that is not the named device's memory.
  EXPECT_EQ(cudaMemcpyPeer(d1, 2, d0, 0, 16), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemcpyPeer(d1, 0, d0, 0, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpyPeer(h.data(), 1, d0, 0, 16), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaFree(d0), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaFree(d1), cudaSuccess);
}

TEST_F(MultiGpu, NvidiaTraceNamesTheGpuOfEachAllocation) {
  start(nullptr);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaFree(nullptr), cudaSuccess);  // device 1's context is built outside the recording
  trace::Recorder recorder;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 8ull << 20), cudaSuccess);  // more than a pool chunk: RM allocates vidmem
  bool named = false;
  for (const std::string& text : recorder.texts(trace::Layer::Nvidia)) {
    if (text.rfind("gpu1: vidmem: ", 0) == 0) named = true;
    EXPECT_EQ(text.rfind("gpu0: ", 0), std::string::npos) << text;
  }
  EXPECT_TRUE(named) << recorder.tree();
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

// The second GPU's default pool: its segment of VA starts on a piece boundary (the pool maps
// 32 MiB pieces on their own boundaries) whatever the context's VA allocator gave out before.
TEST_F(MultiGpu, StreamOrderedAllocationOnTheSecondGpu) {
  start(nullptr);
  constexpr int n = 4096;
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  void* odd = nullptr;  // leaves the context's VA allocator off a 32 MiB boundary
  ASSERT_EQ(cudaMalloc(&odd, 2ull << 20), cudaSuccess);
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  int* d1 = nullptr;
  ASSERT_EQ(cudaMallocAsync(&d1, n * sizeof(int), s1), cudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d1) % (32u << 20), 0u);
  std::vector<int> h(n);
  std::iota(h.begin(), h.end(), 1);
  ASSERT_EQ(cudaMemcpyAsync(d1, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s1), cudaSuccess);
  ASSERT_EQ(minicuda::launch<scale>(dim3(n / 256), dim3(256), 0, s1, d1, n, 5), cudaSuccess);
  std::vector<int> out(n);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), d1, n * sizeof(int), cudaMemcpyDeviceToHost, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], (i + 1) * 5) << i;
  EXPECT_EQ(cudaFreeAsync(d1, s1), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaFree(odd), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
