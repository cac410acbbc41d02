// The stream-ordered allocator (runtime/src/mempool.cpp over driver/user/src/mempool*.cpp): the
// default attributes, the chunk the pool asks the kernel for and the allocations it serves from
// its cache with no system call, reuse by stream order and events, the release threshold and
// cudaMemPoolTrimTo. Values are the H200's (tests/data/h200/mempool/probe_mempool.txt, keys
// named in the comments); the error codes are in test_mempool_errors.cpp.
#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "runtime_fixtures.h"

namespace minicuda::testing {
namespace {

constexpr unsigned long long kMiB = 1ull << 20;

class MemPool : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_EQ(cudaStreamCreateWithFlags(&a_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b_, cudaStreamNonBlocking), cudaSuccess);
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location = {cudaMemLocationTypeDevice, 0};
    ASSERT_EQ(cudaMemPoolCreate(&pool_, &props), cudaSuccess);
  }
  void TearDown() override {
    release_gate();
    (void)cudaDeviceSynchronize();
    FreshProcess::TearDown();
  }
  unsigned long long attr(cudaMemPoolAttr a, cudaMemPool_t pool = nullptr) {
    unsigned long long v = 0;
    EXPECT_EQ(cudaMemPoolGetAttribute(pool ? pool : pool_, a, &v), cudaSuccess);
    return v;
  }
  void set_flag(cudaMemPoolAttr a, int v) { ASSERT_EQ(cudaMemPoolSetAttribute(pool_, a, &v), cudaSuccess); }
  void set_threshold(unsigned long long v) {
    ASSERT_EQ(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &v), cudaSuccess);
  }
  void* alloc(size_t n, cudaStream_t s) {
    void* p = nullptr;
    EXPECT_EQ(cudaMallocFromPoolAsync(&p, n, pool_, s), cudaSuccess);
    return p;
  }
  // Holds stream s at a host function until release_gate(): work queued on s after it, and a
  // free there, stay pending on the GPU as behind a long kernel on the H200.
  void hold(cudaStream_t s) {
    gate_.store(false);
    ASSERT_EQ(cudaLaunchHostFunc(
                  s, [](void* g) { while (!static_cast<std::atomic<bool>*>(g)->load()) std::this_thread::yield(); }, &gate_),
              cudaSuccess);
  }
  void release_gate() { gate_.store(true); }

  cudaStream_t a_ = nullptr, b_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  std::atomic<bool> gate_{true};
};

size_t kernel_calls(const trace::Recorder& recorder) {
  size_t n = 0;
  for (const trace::Event& e : recorder.events())
    if (e.layer == trace::Layer::Kernel && e.kind == trace::Kind::Call) ++n;
  return n;
}

TEST_F(MemPool, DefaultPoolAttributes) {
  // default_attr.*: every reuse rule on, release threshold 0, nothing reserved yet.
  cudaMemPool_t def = nullptr, cur = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetMemPool(&cur, 0), cudaSuccess);
  EXPECT_EQ(def, cur);  // default.current_is_default = 1
  EXPECT_NE(def, pool_);
  for (cudaMemPoolAttr a : {cudaMemPoolReuseFollowEventDependencies, cudaMemPoolReuseAllowOpportunistic,
                            cudaMemPoolReuseAllowInternalDependencies}) {
    int v = -1;
    EXPECT_EQ(cudaMemPoolGetAttribute(def, a, &v), cudaSuccess);
    EXPECT_EQ(v, 1) << a;
  }
  for (cudaMemPoolAttr a : {cudaMemPoolAttrReleaseThreshold, cudaMemPoolAttrReservedMemCurrent,
                            cudaMemPoolAttrReservedMemHigh, cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrUsedMemHigh})
    EXPECT_EQ(attr(a, def), 0u) << a;
  int supported = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0), cudaSuccess);
  EXPECT_EQ(supported, 1);  // devattr.MemoryPoolsSupported
}

TEST_F(MemPool, AskTheKernelForAChunkOnceThenServeFromTheCache) {
  void* p = nullptr;
  {
    trace::Recorder recorder;
    ASSERT_EQ(cudaMallocFromPoolAsync(&p, 1000, pool_, a_), cudaSuccess);
    // The chunk comes down the cudaMalloc chain: RM_ALLOC of vidmem, then the UVM range and map.
    std::vector<std::string> calls = recorder.texts(trace::Layer::Kernel);
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_NE(calls[0].find("NV_ESC_RM_ALLOC"), std::string::npos) << calls[0];
    EXPECT_NE(calls[1].find("UVM_CREATE_EXTERNAL_RANGE"), std::string::npos) << calls[1];
    EXPECT_NE(calls[2].find("UVM_MAP_EXTERNAL_ALLOCATION"), std::string::npos) << calls[2];
  }
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 32 * kMiB);  // gran.512, gran.4096: one 32 MiB piece
  for (int i = 0; i < 8; ++i) {
    trace::Recorder recorder;
    void* q = nullptr;
    ASSERT_EQ(cudaMallocFromPoolAsync(&q, 64 << 10, pool_, b_), cudaSuccess);
    EXPECT_EQ(kernel_calls(recorder), 0u) << i;  // carved out of the chunk: no syscall
    trace::Recorder free_recorder;
    ASSERT_EQ(cudaFreeAsync(q, b_), cudaSuccess);
    EXPECT_EQ(kernel_calls(free_recorder), 0u) << i;
  }
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 32 * kMiB);
}

TEST_F(MemPool, ABlockFreedInAStreamIsReusedThereAtOnce) {
  // reuse.v*.same_stream_same_addr = 1, even while the stream has not reached the free.
  hold(a_);
  void* p = alloc(kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  EXPECT_EQ(alloc(kMiB, a_), p);
}

TEST_F(MemPool, AnotherStreamWaitsForTheFreeOrAnEvent) {
  // reuse.v7: no rule allows it while the free is pending; v3: an event dependency does.
  set_flag(cudaMemPoolReuseAllowOpportunistic, 0);
  set_flag(cudaMemPoolReuseAllowInternalDependencies, 0);
  hold(a_);
  void* p = alloc(kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  void* q = alloc(kMiB, b_);
  EXPECT_NE(q, p);  // reuse.v3.other_stream_pending_same_addr = 0
  ASSERT_EQ(cudaFreeAsync(q, b_), cudaSuccess);

  void* r = alloc(kMiB, a_);
  EXPECT_EQ(r, p);
  ASSERT_EQ(cudaFreeAsync(r, a_), cudaSuccess);
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(done, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(b_, done, 0), cudaSuccess);
  EXPECT_EQ(alloc(kMiB, b_), p);  // reuse.v3.other_stream_event_same_addr = 1
  release_gate();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(done), cudaSuccess);
}

TEST_F(MemPool, EventDependenciesAreNotFollowedWhenTurnedOff) {
  set_flag(cudaMemPoolReuseAllowOpportunistic, 0);
  set_flag(cudaMemPoolReuseAllowInternalDependencies, 0);
  set_flag(cudaMemPoolReuseFollowEventDependencies, 0);
  hold(a_);
  void* p = alloc(kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  cudaEvent_t done = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(done, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(b_, done, 0), cudaSuccess);
  EXPECT_NE(alloc(kMiB, b_), p);  // reuse.v7.other_stream_event_same_addr = 0
  release_gate();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(done), cudaSuccess);
}

TEST_F(MemPool, ACompletedFreeIsReusedOpportunistically) {
  set_threshold(~0ull);
  void* p = alloc(kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  void* q = alloc(kMiB, b_);
  EXPECT_EQ(q, p);  // reuse.v0.other_stream_completed_same_addr = 1
  ASSERT_EQ(cudaFreeAsync(q, b_), cudaSuccess);
}

TEST_F(MemPool, InternalDependencyReusesAPendingFreeBeforeGrowing) {
  // With opportunistic reuse off and the chunk full, the pool makes b wait for a's free rather
  // than ask the kernel for more: no syscall, same address.
  set_flag(cudaMemPoolReuseAllowOpportunistic, 0);
  hold(a_);
  void* p = alloc(32 * kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  trace::Recorder recorder;
  void* q = alloc(32 * kMiB, b_);
  EXPECT_EQ(q, p);
  EXPECT_EQ(kernel_calls(recorder), 0u);
  EXPECT_EQ(cudaStreamQuery(b_), cudaErrorNotReady);  // b now waits for a's work
  release_gate();
  EXPECT_EQ(cudaStreamSynchronize(b_), cudaSuccess);
}

TEST_F(MemPool, ReservedMemoryGrowsIn32MiBPieces) {
  // gran.<size>: ReservedMemCurrent after one allocation in a fresh pool; UsedMemCurrent is the
  // size asked for; after the free and a synchronize (threshold 0) nothing stays.
  const std::pair<size_t, unsigned long long> rows[] = {
      {1, 32 * kMiB},          {4096, 32 * kMiB},          {2 * kMiB + 1, 32 * kMiB},
      {32 * kMiB, 32 * kMiB},  {32 * kMiB + 1, 64 * kMiB}, {33 * kMiB, 64 * kMiB},
      {100 * kMiB, 128 * kMiB}, {1024 * kMiB, 1024 * kMiB}};
  for (const auto& [size, reserved] : rows) {
    void* p = alloc(size, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2 * kMiB), 0u) << size;  // gran.*.align2m = 1
    EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), reserved) << size;
    EXPECT_EQ(attr(cudaMemPoolAttrUsedMemCurrent), size) << size;
    ASSERT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 0u) << size;  // gran.*.after_free_sync
  }
}

TEST_F(MemPool, SmallBlocksAre512BytesApartAndThePoolGrowsRightAfterItsMemory) {
  // seq.*: each block takes whole 512-byte steps; seq1m.grow_at_*: 1 MiB blocks after 8 KiB of
  // small ones grow the pool by 32 MiB at the 32nd and the 64th; the high-water marks.
  set_threshold(~0ull);
  const size_t small[] = {1, 1, 100, 256, 257, 512, 1000, 4096};
  const long long delta[] = {0, 512, 512, 512, 512, 512, 512, 1024};
  char* prev = nullptr;
  for (int i = 0; i < 8; ++i) {
    char* p = static_cast<char*>(alloc(small[i], nullptr));
    if (prev != nullptr) {
      EXPECT_EQ(p - prev, delta[i]) << i;
    }
    prev = p;
  }
  EXPECT_EQ(attr(cudaMemPoolAttrUsedMemCurrent), 6223u);  // seq.7 used
  std::vector<int> grew;
  unsigned long long r0 = attr(cudaMemPoolAttrReservedMemCurrent);
  for (int i = 0; i < 80; ++i) {
    alloc(kMiB, nullptr);
    unsigned long long r = attr(cudaMemPoolAttrReservedMemCurrent);
    if (r != r0) grew.push_back(i);
    r0 = r;
  }
  EXPECT_EQ(grew, (std::vector<int>{31, 63}));
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemHigh), 96 * kMiB);  // seq.reserved_high
  EXPECT_EQ(attr(cudaMemPoolAttrUsedMemHigh), 83892303u);      // seq.used_high
}

// release.thr<T>: 48 MiB and 4 MiB in one 64 MiB mapping; Reserved after freeing the 48 MiB and a
// synchronize, after freeing the rest and a synchronize, then after TrimTo(40 MiB), (1 MiB), (0).
struct ReleaseRow {
  unsigned long long threshold, after_free_sync, after_all_sync, trim40m, trim1m;
};
class MemPoolRelease : public MemPool, public ::testing::WithParamInterface<ReleaseRow> {};

TEST_P(MemPoolRelease, SynchronizeKeepsTheThresholdAndTrimKeepsWhatItIsAsked) {
  const ReleaseRow row = GetParam();
  set_threshold(row.threshold);
  void* p = alloc(48 * kMiB, nullptr);
  void* q = alloc(4 * kMiB, nullptr);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 64 * kMiB);  // alloc
  ASSERT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 64 * kMiB);  // free: nothing before a synchronize
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), row.after_free_sync);
  ASSERT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), row.after_all_sync);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemHigh), 64 * kMiB);
  ASSERT_EQ(cudaMemPoolTrimTo(pool_, 40 * kMiB), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), row.trim40m);
  ASSERT_EQ(cudaMemPoolTrimTo(pool_, kMiB), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), row.trim1m);
  ASSERT_EQ(cudaMemPoolTrimTo(pool_, 0), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 0u);
}
INSTANTIATE_TEST_SUITE_P(Recorded, MemPoolRelease,
                         ::testing::Values(ReleaseRow{0, 32 * kMiB, 0, 0, 0},
                                           ReleaseRow{kMiB, 32 * kMiB, 0, 0, 0},
                                           ReleaseRow{32 * kMiB, 32 * kMiB, 32 * kMiB, 32 * kMiB, 32 * kMiB},
                                           ReleaseRow{64 * kMiB, 64 * kMiB, 64 * kMiB, 64 * kMiB, 32 * kMiB},
                                           ReleaseRow{~0ull, 64 * kMiB, 64 * kMiB, 64 * kMiB, 32 * kMiB}));

TEST_F(MemPool, TrimKeepsLivePiecesAndEverySynchronizeIsAReleasePoint) {
  // trim_live.*, release_points.*
  set_threshold(~0ull);
  void* p = alloc(8 * kMiB, nullptr);
  void* q = alloc(40 * kMiB, nullptr);
  ASSERT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 64 * kMiB);  // trim_live.before
  ASSERT_EQ(cudaMemPoolTrimTo(pool_, 0), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 32 * kMiB);  // trim_live.after
  EXPECT_EQ(attr(cudaMemPoolAttrUsedMemCurrent), 8 * kMiB);       // trim_live.used
  set_threshold(0);
  q = alloc(40 * kMiB, nullptr);
  ASSERT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess);
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 32 * kMiB);  // after_event_sync
  q = alloc(40 * kMiB, nullptr);
  ASSERT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 64 * kMiB);  // after_free_nosync
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 32 * kMiB);  // after_device_sync
  ASSERT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrReservedMemCurrent), 0u);  // all_free
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
}

TEST_F(MemPool, ASmallerRequestReusesTheStartOfABiggerFreedBlock) {
  void* x = alloc(4 * kMiB, a_);
  ASSERT_EQ(cudaFreeAsync(x, a_), cudaSuccess);
  EXPECT_EQ(alloc(kMiB, a_), x);  // reuse.smaller_after_bigger_same_addr = 1
}

TEST_F(MemPool, CudaMallocAsyncDuringCaptureMakesAnAllocationNode) {
  // capture.node0.type = 10: the H200 records a mem-alloc node (test_graphs_memory.cpp runs one).
  ASSERT_EQ(cudaStreamBeginCapture(a_, cudaStreamCaptureModeGlobal), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMallocAsync(&p, kMiB, a_), cudaSuccess);
  EXPECT_NE(p, nullptr);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(a_, &g), cudaSuccess);
  cudaGraphNode_t node = nullptr;
  size_t n = 1;
  ASSERT_EQ(cudaGraphGetNodes(g, &node, &n), cudaSuccess);
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  ASSERT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeMemAlloc);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
}

TEST_F(MemPool, PoolCallsDuringAGlobalCaptureInvalidateIt) {
  // pool_calls_in_capture.*, malloc_in_capture_legacy.*: 900, then the end answers 901.
  ASSERT_EQ(cudaStreamBeginCapture(a_, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaMemPoolTrimTo(pool_, 0), cudaErrorStreamCaptureUnsupported);
  void* p = nullptr;
  EXPECT_EQ(cudaMallocAsync(&p, 1024, nullptr), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(a_, &g), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
}

TEST_F(MemPool, KernelsUseAsyncMemoryAndDefaultPoolServesMallocAsync) {
  void* p = nullptr;
  ASSERT_EQ(cudaMallocAsync(&p, 4096, a_), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(p, 0x5a, 4096, a_), cudaSuccess);
  unsigned char host[4096] = {};
  ASSERT_EQ(cudaMemcpyAsync(host, p, sizeof host, cudaMemcpyDeviceToHost, a_), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(p, a_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(a_), cudaSuccess);
  EXPECT_EQ(host[0], 0x5a);
  EXPECT_EQ(host[4095], 0x5a);
  cudaMemPool_t def = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&def, 0), cudaSuccess);
  EXPECT_EQ(attr(cudaMemPoolAttrUsedMemHigh, def), 4096u);
  cudaPointerAttributes pa{};
  void* q = nullptr;
  ASSERT_EQ(cudaMallocAsync(&q, 1000, nullptr), cudaSuccess);
  ASSERT_EQ(cudaPointerGetAttributes(&pa, q), cudaSuccess);  // ptrattr.async.*
  EXPECT_EQ(pa.type, cudaMemoryTypeDevice);
  EXPECT_EQ(pa.device, 0);
  CUmemoryPool owner = nullptr;  // ptrattr.async.mempool_is_default = 1
  EXPECT_EQ(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, reinterpret_cast<CUdeviceptr>(q)),
            CUDA_SUCCESS);
  EXPECT_EQ(owner, def);
  EXPECT_EQ(cudaFreeAsync(q, nullptr), cudaSuccess);
}

}  // namespace
}  // namespace minicuda::testing
