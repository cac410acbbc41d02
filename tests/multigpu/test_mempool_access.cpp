// Two simulated H200s (MINICUDA_DEVICES=2): one GPU's kernels reaching another GPU's memory pool
// (cudaMemPoolSetAccess maps the pool's pieces into the peer's page table), and copies that name
// another device's memory through UVA.
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

__global__ void copy_scaled(const int* src, int* dst, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i] * factor;
}

__global__ void add_to(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}

namespace minicuda::testing {
namespace {

const bool kTwoGpus = [] {
  setenv("MINICUDA_DEVICES", "2", 1);
  return true;
}();

constexpr int kN = 4096;

// How many of the layer's recorded texts hold `want`.
int count(const trace::Recorder& recorder, trace::Layer layer, const std::string& want) {
  int n = 0;
  for (const std::string& text : recorder.texts(layer)) n += text.find(want) != std::string::npos ? 1 : 0;
  return n;
}
bool has(const trace::Recorder& recorder, trace::Layer layer, const std::string& want) {
  return count(recorder, layer, want) != 0;
}

class PoolAccess : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(kTwoGpus);
    unsetenv("CUDA_VISIBLE_DEVICES");
    process_ = kernel::spawn_process();
    scope_ = std::make_unique<kernel::ProcessScope>(*process_);
    ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool0_, 0), cudaSuccess);
  }
  void TearDown() override { (void)cudaGetLastError(); }

  static cudaMemAccessDesc desc(int device, cudaMemAccessFlags flags) {
    cudaMemAccessDesc d{};
    d.location.type = cudaMemLocationTypeDevice;
    d.location.id = device;
    d.flags = flags;
    return d;
  }
  cudaMemAccessFlags access_of(int device) {
    cudaMemLocation loc{};
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
    auto f = static_cast<cudaMemAccessFlags>(-1);
    EXPECT_EQ(cudaMemPoolGetAccess(&f, pool0_, &loc), cudaSuccess);
    return f;
  }
  cudaError_t set_access(int device, cudaMemAccessFlags flags) {
    cudaMemAccessDesc d = desc(device, flags);
    return cudaMemPoolSetAccess(pool0_, &d, 1);
  }
  // kN ints 1..kN in device 0's default pool, copied there in stream s0 of device 0 (synchronized).
  int* pool_ints(cudaStream_t s0) {
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    int* p = nullptr;
    EXPECT_EQ(cudaMallocAsync(&p, kN * sizeof(int), s0), cudaSuccess);
    std::vector<int> h(kN);
    std::iota(h.begin(), h.end(), 1);
    EXPECT_EQ(cudaMemcpyAsync(p, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice, s0), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
    return p;
  }
  std::vector<int> read(const int* p, int n = kN) {
    std::vector<int> out(n);
    EXPECT_EQ(cudaMemcpy(out.data(), p, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }

  std::unique_ptr<kernel::Process> process_;
  std::unique_ptr<kernel::ProcessScope> scope_;
  cudaMemPool_t pool0_ = nullptr;
};

// The access table: the owner is READWRITE and cannot be changed, another device starts at NONE
// and reads back what was set (a later entry of one call wins); errors change nothing.
TEST_F(PoolAccess, TheTableReadsBackWhatWasSet) {
  EXPECT_EQ(access_of(0), cudaMemAccessFlagsProtReadWrite);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtNone);
  EXPECT_EQ(set_access(1, cudaMemAccessFlagsProtRead), cudaSuccess);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtRead);
  EXPECT_EQ(set_access(1, cudaMemAccessFlagsProtReadWrite), cudaSuccess);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtReadWrite);
  EXPECT_EQ(set_access(1, cudaMemAccessFlagsProtNone), cudaSuccess);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtNone);
  const cudaMemAccessDesc two[] = {desc(1, cudaMemAccessFlagsProtRead), desc(1, cudaMemAccessFlagsProtReadWrite)};
  EXPECT_EQ(cudaMemPoolSetAccess(pool0_, two, 2), cudaSuccess);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtReadWrite);
  // The owner: READ is cudaErrorNotSupported, NONE cudaErrorInvalidDevice (as measured on one H200).
  EXPECT_EQ(set_access(0, cudaMemAccessFlagsProtRead), cudaErrorNotSupported);
  EXPECT_EQ(set_access(0, cudaMemAccessFlagsProtNone), cudaErrorInvalidDevice);
  EXPECT_EQ(set_access(0, cudaMemAccessFlagsProtReadWrite), cudaSuccess);
  EXPECT_EQ(set_access(2, cudaMemAccessFlagsProtReadWrite), cudaErrorInvalidDevice);
  EXPECT_EQ(set_access(1, static_cast<cudaMemAccessFlags>(2)), cudaErrorInvalidValue);
  // One bad entry: nothing of the call applies.
  const cudaMemAccessDesc bad[] = {desc(1, cudaMemAccessFlagsProtNone), desc(7, cudaMemAccessFlagsProtRead)};
  EXPECT_EQ(cudaMemPoolSetAccess(pool0_, bad, 2), cudaErrorInvalidDevice);
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtReadWrite);
  // Device 1's own default pool has its own table.
  cudaMemPool_t pool1 = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&pool1, 1), cudaSuccess);
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  auto f = static_cast<cudaMemAccessFlags>(-1);
  ASSERT_EQ(cudaMemPoolGetAccess(&f, pool1, &loc), cudaSuccess);
  EXPECT_EQ(f, cudaMemAccessFlagsProtNone);
  loc.id = 1;
  ASSERT_EQ(cudaMemPoolGetAccess(&f, pool1, &loc), cudaSuccess);
  EXPECT_EQ(f, cudaMemAccessFlagsProtReadWrite);
  // Pool access is not peer access: neither device has peer access enabled afterwards.
  EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
}

// The sample's pattern: device 0 allocates and fills, device 1 (READWRITE, no peer access
// enabled) waits for device 0's event and runs a kernel that reads the pool memory and writes it;
// a piece the pool maps after access was granted is mapped for device 1 too.
TEST_F(PoolAccess, APeerKernelReadsAndWritesThePool) {
  cudaStream_t s0 = nullptr, s1 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking), cudaSuccess);
  int* p = nullptr;
  ASSERT_EQ(cudaMallocAsync(&p, kN * sizeof(int), s0), cudaSuccess);
  std::vector<int> h(kN);
  std::iota(h.begin(), h.end(), 1);
  ASSERT_EQ(cudaMemcpyAsync(p, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice, s0), cudaSuccess);
  cudaEvent_t filled = nullptr;
  ASSERT_EQ(cudaEventCreate(&filled), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(filled, s0), cudaSuccess);

  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  int* out1 = nullptr;
  ASSERT_EQ(cudaMallocAsync(&out1, kN * sizeof(int), s1), cudaSuccess);
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtReadWrite), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s1, filled, 0), cudaSuccess);
  ASSERT_EQ(minicuda::launch<copy_scaled>(dim3(kN / 256), dim3(256), 0, s1, p, out1, kN, 3), cudaSuccess);
  ASSERT_EQ(minicuda::launch<add_to>(dim3(kN / 256), dim3(256), 0, s1, p, kN, 1000), cudaSuccess);
  std::vector<int> got(kN);
  ASSERT_EQ(cudaMemcpyAsync(got.data(), out1, kN * sizeof(int), cudaMemcpyDeviceToHost, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], (i + 1) * 3) << i;
  // Device 1 still current: the D2H copy of device 0's pool memory goes through UVA.
  got = read(p);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], i + 1 + 1000) << i;

  // 40 MiB more: pieces mapped now, after access was granted, are device 1's to write as well.
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  constexpr size_t kBig = 40u << 20;
  int* big = nullptr;
  ASSERT_EQ(cudaMallocAsync(&big, kBig, s0), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(big, 0, kBig, s0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
  cuuint64_t reserved = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool0_, cudaMemPoolAttrReservedMemCurrent, &reserved), cudaSuccess);
  EXPECT_EQ(reserved, 64ull << 20);  // two pieces of 32 MiB
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  const int tail = static_cast<int>(kBig / sizeof(int)) - 256;
  ASSERT_EQ(minicuda::launch<add_to>(dim3(1), dim3(256), 0, s1, big + tail, 256, 42), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  got = read(big + tail - 256, 512);
  for (int i = 0; i < 512; ++i) ASSERT_EQ(got[i], i < 256 ? 0 : 42) << i;

  // Freed in device 1's stream, reused by device 0 once that free is done.
  ASSERT_EQ(cudaFreeAsync(p, s1), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(out1, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int* again = nullptr;
  ASSERT_EQ(cudaMallocAsync(&again, kN * sizeof(int), s0), cudaSuccess);
  EXPECT_EQ(again, p);
  EXPECT_EQ(cudaFreeAsync(again, s0), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(big, s0), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(filled), cudaSuccess);
  // As the sample ends: device 1 current destroys device 0's stream too (a stream knows its context).
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s0), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s0), cudaErrorInvalidResourceHandle);
}

// Device 1's stream waits for an event of device 0 recorded behind slow work (a host function
// holding device 0's stream, then a kernel on the pool): device 1's kernel sees that work done.
TEST_F(PoolAccess, AStreamWaitsForAnotherDevicesEvent) {
  cudaStream_t s0 = nullptr, s1 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s0), cudaSuccess);
  int* p = pool_ints(s0);
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtRead), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(
                s0, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }, nullptr),
            cudaSuccess);
  ASSERT_EQ(minicuda::launch<add_to>(dim3(kN / 256), dim3(256), 0, s0, p, kN, 100), cudaSuccess);
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(done, s0), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
  int* out1 = nullptr;
  ASSERT_EQ(cudaMalloc(&out1, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s1, done, 0), cudaSuccess);
  ASSERT_EQ(minicuda::launch<copy_scaled>(dim3(kN / 256), dim3(256), 0, s1, p, out1, kN, 1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  std::vector<int> got = read(out1);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], i + 1 + 100) << i;
  EXPECT_EQ(cudaEventDestroy(done), cudaSuccess);
}

// READ: device 1's kernels read the pool through read-only Peer PTEs.
TEST_F(PoolAccess, ReadAccessMapsReadOnly) {
  cudaStream_t s0 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s0), cudaSuccess);
  int* p = pool_ints(s0);
  trace::Recorder recorder;
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtRead), cudaSuccess);
  EXPECT_TRUE(has(recorder, trace::Layer::Gpu, "16 PTEs (2 MiB), read-only")) << recorder.tree();
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  int* out1 = nullptr;
  ASSERT_EQ(cudaMalloc(&out1, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(minicuda::launch<copy_scaled>(dim3(kN / 256), dim3(256), 0, nullptr, p, out1, kN, -2), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> got = read(out1);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], -2 * (i + 1)) << i;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(p, s0), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
}

// NONE takes device 1's PTEs of every piece away (UVM_UNMAP_EXTERNAL for gpu1); the owner's stay.
// A piece given back with access granted takes the peer's PTEs along.
TEST_F(PoolAccess, NoneTakesThePeersPtesAway) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, 0};
  ASSERT_EQ(cudaMemPoolCreate(&pool0_, &props), cudaSuccess);
  cudaStream_t s0 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s0), cudaSuccess);
  int* p = nullptr;
  ASSERT_EQ(cudaMallocFromPoolAsync(&p, 40u << 20, pool0_, s0), cudaSuccess);  // two pieces
  ASSERT_EQ(cudaMemsetAsync(p, 0, kN * sizeof(int), s0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtReadWrite), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(minicuda::launch<add_to>(dim3(kN / 256), dim3(256), 0, nullptr, p, kN, 5), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  {
    trace::Recorder recorder;
    ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtNone), cudaSuccess);
    EXPECT_TRUE(has(recorder, trace::Layer::Libcuda,
                    "device 1's access READWRITE -> NONE: 2 pieces of 32 MiB unmapped from gpu1's page table"))
        << recorder.tree();
    EXPECT_EQ(count(recorder, trace::Layer::Uvm, "UVM_UNMAP_EXTERNAL("), 2) << recorder.tree();
  }
  EXPECT_EQ(access_of(1), cudaMemAccessFlagsProtNone);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  std::vector<int> got = read(p);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], 5) << i;
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtReadWrite), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(p, s0), cudaSuccess);
  trace::Recorder recorder;
  ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);  // the release threshold is 0: both pieces go
  EXPECT_EQ(count(recorder, trace::Layer::Gpu, "mmu: unmap"), 4) << recorder.tree();  // 2 pieces x 2 GPUs
  EXPECT_EQ(cudaMemPoolDestroy(pool0_), cudaSuccess);
}

// The trace shows the mapping: libcuda's decision, UVM's peer mapping, the GPU's Peer PTEs.
TEST_F(PoolAccess, TheTraceShowsThePeerMapping) {
  cudaStream_t s0 = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&s0), cudaSuccess);
  int* p = pool_ints(s0);
  const auto piece = reinterpret_cast<uint64_t>(p) / (32u << 20) * (32u << 20);
  trace::Recorder recorder;
  ASSERT_EQ(set_access(1, cudaMemAccessFlagsProtRead), cudaSuccess);
  auto has = [&](trace::Layer layer, const std::string& want) { return count(recorder, layer, want) != 0; };
  EXPECT_TRUE(has(trace::Layer::Libcuda, "device 1's access NONE -> READ: 1 piece of 32 MiB mapped into gpu1's page table"))
      << recorder.tree();
  EXPECT_TRUE(has(trace::Layer::Uvm, fmt::format("uvm: peer mapping: gpu1 reaches gpu0's vidmem at {:#x}..+0x2000000, read-only", piece)))
      << recorder.tree();
  EXPECT_TRUE(has(trace::Layer::Gpu, fmt::format("mmu: map {:#x}..+32 MiB -> peer gpu0 VRAM+", piece))) << recorder.tree();
  EXPECT_TRUE(has(trace::Layer::Gpu, "16 PTEs (2 MiB), read-only")) << recorder.tree();
}

// UVA copies: with device 0 current, cudaMemcpy with an explicit kind reaches device 1's pool
// memory and its cudaMalloc memory (the real driver finds the owning context by the pointer).
TEST_F(PoolAccess, CopiesReachTheOtherDevicesMemory) {
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cudaStream_t s1 = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
  int* pool1 = nullptr;
  int* plain1 = nullptr;
  ASSERT_EQ(cudaMallocAsync(&pool1, kN * sizeof(int), s1), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&plain1, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  std::vector<int> h(kN);
  std::iota(h.begin(), h.end(), 100);
  ASSERT_EQ(cudaMemcpy(pool1, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(plain1, pool1, kN * sizeof(int), cudaMemcpyDeviceToDevice), cudaSuccess);
  int* d0 = nullptr;
  ASSERT_EQ(cudaMalloc(&d0, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d0, plain1, kN * sizeof(int), cudaMemcpyDeviceToDevice), cudaSuccess);
  EXPECT_EQ(read(pool1), h);
  EXPECT_EQ(read(plain1), h);
  EXPECT_EQ(read(d0), h);
  // In a stream of device 0: ordered after that stream's work, complete when the call returns.
  cudaStream_t s0 = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s0), cudaSuccess);
  ASSERT_EQ(minicuda::launch<add_to>(dim3(kN / 256), dim3(256), 0, s0, d0, kN, 7), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(plain1, d0, kN * sizeof(int), cudaMemcpyDeviceToDevice, s0), cudaSuccess);
  std::vector<int> got(kN);
  ASSERT_EQ(cudaMemcpyAsync(got.data(), plain1, kN * sizeof(int), cudaMemcpyDeviceToHost, s0), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(got[i], i + 100 + 7) << i;
  // A range that leaves the other device's allocation.
  EXPECT_EQ(cudaMemcpy(plain1 + 1, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(d0), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(pool1, s1), cudaSuccess);
  EXPECT_EQ(cudaFree(plain1), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
