// Graph memory nodes (runtime/src/graph_memory.cpp, docs/graphs.md): addresses fixed at node
// creation, physical memory mapped at launch and reused in stream order, frees inside and outside
// graphs, AutoFreeOnLaunch, trim, the graph memory attributes, capture of cudaMallocAsync and
// cudaFreeAsync, and the error codes of misuse.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime_fixtures.h"

namespace {
__global__ void fill(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value + i;
}
}  // namespace

namespace minicuda::testing {
namespace {

constexpr size_t kMiB = 1u << 20;
constexpr size_t kAlign = 2 * kMiB;   // the granularity of an allocation's address range
constexpr size_t kPiece = 32 * kMiB;  // of physical memory (probe_mempool.txt capture.graphmem_reserved)
constexpr int kN = 256;

class GraphMemory : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    minicuda::detail::ensure_registered<fill>();
    ASSERT_EQ(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaGraphCreate(&g_, 0), cudaSuccess);
  }
  void TearDown() override {
    gate_.store(true);
    (void)cudaDeviceSynchronize();
    FreshProcess::TearDown();
  }
  static cudaMemAllocNodeParams params(size_t bytes) {
    cudaMemAllocNodeParams p{};
    p.bytesize = bytes;
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location = {cudaMemLocationTypeDevice, 0};
    return p;
  }
  // Adds an allocation node after deps; returns its address.
  void* alloc(cudaGraph_t g, cudaGraphNode_t* node, const std::vector<cudaGraphNode_t>& deps, size_t bytes) {
    cudaMemAllocNodeParams p = params(bytes);
    EXPECT_EQ(cudaGraphAddMemAllocNode(node, g, deps.data(), deps.size(), &p), cudaSuccess);
    return p.dptr;
  }
  unsigned long long attr(cudaGraphMemAttributeType a) {
    unsigned long long v = 0;
    EXPECT_EQ(cudaDeviceGetGraphMemAttribute(0, a, &v), cudaSuccess);
    return v;
  }
  // Holds stream s at a host function until gate_ opens: work queued after it stays pending.
  void hold(cudaStream_t s) {
    gate_.store(false);
    ASSERT_EQ(cudaLaunchHostFunc(
                  s, [](void* g) { while (!static_cast<std::atomic<bool>*>(g)->load()) std::this_thread::yield(); }, &gate_),
              cudaSuccess);
  }
  // alloc -> fill kernel -> copy to host -> free: one graph, one allocation.
  void* alloc_fill_copy_free(cudaGraph_t g, int* host, int value) {
    cudaGraphNode_t a, k, c, f;
    void* d = alloc(g, &a, {}, kN * sizeof(int));
    int n = kN;
    void* args[3] = {&d, &n, &value};
    cudaKernelNodeParams kp{reinterpret_cast<void*>(&fill), dim3(kN / 64), dim3(64), 0, args, nullptr};
    EXPECT_EQ(cudaGraphAddKernelNode(&k, g, &a, 1, &kp), cudaSuccess);
    EXPECT_EQ(cudaGraphAddMemcpyNode1D(&c, g, &k, 1, host, d, kN * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaGraphAddMemFreeNode(&f, g, &c, 1, d), cudaSuccess);
    return d;
  }

  cudaStream_t s_ = nullptr;
  cudaGraph_t g_ = nullptr;
  std::atomic<bool> gate_{true};
};

TEST_F(GraphMemory, TheAllocationKeepsItsAddressInEveryLaunch) {
  std::vector<int> host(kN, -1);
  void* d = alloc_fill_copy_free(g_, host.data(), 100);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % kAlign, 0u);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 0u);  // nothing physical before the first launch
  for (int launch = 0; launch < 3; ++launch) {
    ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
    EXPECT_EQ(host[0], 100);
    EXPECT_EQ(host[kN - 1], 100 + kN - 1);
  }
  // The graph memory stays with the executable graph: one chunk used and reserved.
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), kPiece);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), kPiece);
  cudaMemAllocNodeParams got{};
  cudaGraphNode_t nodes[4];
  size_t count = 4;
  ASSERT_EQ(cudaGraphGetNodes(g_, nodes, &count), cudaSuccess);
  ASSERT_EQ(cudaGraphMemAllocNodeGetParams(nodes[0], &got), cudaSuccess);
  EXPECT_EQ(got.dptr, d);
  EXPECT_EQ(got.bytesize, kN * sizeof(int));
  void* freed = nullptr;
  ASSERT_EQ(cudaGraphMemFreeNodeGetParams(nodes[3], &freed), cudaSuccess);
  EXPECT_EQ(freed, d);
  EXPECT_EQ(cudaGraphMemFreeNodeGetParams(nodes[0], &freed), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphMemAllocNodeGetParams(nodes[3], &got), cudaErrorInvalidValue);
  // Destroying the executable graph gives its physical memory back to the graph allocator; a trim
  // gives it to the driver.
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0u);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), kPiece);
  ASSERT_EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 0u);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemHigh), kPiece);
  EXPECT_EQ(cudaGraphDestroy(g_), cudaSuccess);
}

TEST_F(GraphMemory, TheFirstLaunchAsksTheDriverAndTheSecondReusesTheMapping) {
  std::vector<int> host(kN);
  alloc_fill_copy_free(g_, host.data(), 1);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  auto creates = [&] {
    trace::Recorder recorder;
    EXPECT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
    size_t n = 0;
    for (const std::string& t : recorder.texts(trace::Layer::Libcuda))
      if (t.rfind("cuMemCreate(", 0) == 0 || t.rfind("cuMemMap(", 0) == 0) ++n;
    return n;
  };
  EXPECT_EQ(creates(), 2u);  // cuMemCreate and cuMemMap
  EXPECT_EQ(creates(), 0u);  // still mapped: no driver call
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphMemory, GraphsInOneStreamShareThePhysicalMemoryButNotTheAddress) {
  std::vector<int> h1(kN), h2(kN);
  cudaGraph_t g2 = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g2, 0), cudaSuccess);
  void* d1 = alloc_fill_copy_free(g_, h1.data(), 10);
  void* d2 = alloc_fill_copy_free(g2, h2.data(), 20);
  EXPECT_NE(d1, d2);
  cudaGraphExec_t e1 = nullptr, e2 = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e1, g_, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&e2, g2, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e1, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e2, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e1, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(h1[5], 15);
  EXPECT_EQ(h2[5], 25);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), kPiece);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemHigh), kPiece);
  ASSERT_EQ(cudaGraphExecDestroy(e1), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(e2), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g2), cudaSuccess);
}

TEST_F(GraphMemory, AGraphInAnotherStreamThatMayRunAtTheSameTimeGetsItsOwnPhysicalMemory) {
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t g2 = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g2, 0), cudaSuccess);
  cudaGraphNode_t a1, f1, a2, f2;
  void* d1 = alloc(g_, &a1, {}, kMiB);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&f1, g_, &a1, 1, d1), cudaSuccess);
  void* d2 = alloc(g2, &a2, {}, kMiB);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&f2, g2, &a2, 1, d2), cudaSuccess);
  cudaGraphExec_t e1 = nullptr, e2 = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e1, g_, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&e2, g2, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e1, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  // e1 again behind a host function: its free is still pending when e2 asks for memory in another
  // stream. Mapping new memory waits for the device (cuMemSetAccess does), so the gate opens
  // from another thread a while after the choice was made.
  hold(s_);
  ASSERT_EQ(cudaGraphLaunch(e1, s_), cudaSuccess);
  std::thread opener([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    gate_.store(true);
  });
  ASSERT_EQ(cudaGraphLaunch(e2, other), cudaSuccess);
  opener.join();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 2 * kPiece);
  // Once both are done, a third launch in either stream takes memory that is there.
  ASSERT_EQ(cudaGraphLaunch(e2, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 2 * kPiece);
  ASSERT_EQ(cudaGraphExecDestroy(e1), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(e2), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g2), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(other), cudaSuccess);
}

TEST_F(GraphMemory, AnAllocationAfterTheFreeOfAnotherReusesItsAddress) {
  cudaGraphNode_t a, f, b, c;
  void* da = alloc(g_, &a, {}, kMiB);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&f, g_, &a, 1, da), cudaSuccess);
  void* db = alloc(g_, &b, {f}, kMiB);
  EXPECT_EQ(db, da);
  void* dc = alloc(g_, &c, {}, kMiB);  // may live at the same time as both: another address
  EXPECT_NE(dc, da);
  // The second allocation at that address is the one a free node now names.
  cudaGraphNode_t fb;
  EXPECT_EQ(cudaGraphAddMemFreeNode(&fb, g_, &b, 1, db), cudaSuccess);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);  // c is auto-freed
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphMemory, ARelaunchWithAnUnfreedAllocationNeedsAutoFreeOnLaunch) {
  cudaGraphNode_t a;
  void* d = alloc(g_, &a, {}, 1);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(e, s_), cudaErrorInvalidValue);
  // Freed outside the graph (cudaFree waits for the device): launchable again; a second free is
  // refused.
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(d, s_), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(d, s_), cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  // With AutoFreeOnLaunch, each launch frees what the last one left.
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(cudaGraphInstantiate(&e, g_, cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagDeviceLaunch),
            cudaErrorInvalidValue);
  // The live allocation holds its physical memory through a trim.
  ASSERT_EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), kPiece);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  ASSERT_EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrReservedMemCurrent), 0u);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0u);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphMemory, AGraphWithMemoryNodesHasOneExecutableGraphAndNoClone) {
  cudaGraphNode_t a;
  alloc(g_, &a, {}, 64);
  cudaGraphExec_t e = nullptr, e2 = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
  EXPECT_EQ(cudaGraphInstantiate(&e2, g_, 0), cudaErrorNotSupported);
  cudaGraph_t c = nullptr, parent = nullptr;
  EXPECT_EQ(cudaGraphClone(&c, g_), cudaErrorNotSupported);
  ASSERT_EQ(cudaGraphCreate(&parent, 0), cudaSuccess);
  cudaGraphNode_t child;
  EXPECT_EQ(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g_), cudaErrorNotSupported);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaGraphInstantiate(&e2, g_, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(e2), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(parent), cudaSuccess);
}

TEST_F(GraphMemory, FreeNodesNeedAnAllocationNodesAddressFreedOnce) {
  cudaGraphNode_t a, f, f2;
  void* d = alloc(g_, &a, {}, 1024);
  void* plain = nullptr;
  ASSERT_EQ(cudaMalloc(&plain, 1024), cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, g_, &a, 1, static_cast<char*>(d) + 512), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, g_, &a, 1, plain), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, g_, &a, 1, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&f, g_, &a, 1, d), cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, g_, &f, 1, d), cudaErrorInvalidValue);
  cudaGraph_t other = nullptr;
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, other, nullptr, 0, d), cudaErrorInvalidValue);
  // Freed in another graph first: then not in the owner, nor twice in that graph.
  cudaGraphNode_t b, fo;
  void* db = alloc(g_, &b, {}, 1024);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&fo, other, nullptr, 0, db), cudaSuccess);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, other, &fo, 1, db), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemFreeNode(&f2, g_, &b, 1, db), cudaErrorInvalidValue);
  // Bad allocation parameters.
  cudaMemAllocNodeParams p = params(0);
  EXPECT_EQ(cudaGraphAddMemAllocNode(&a, g_, nullptr, 0, &p), cudaErrorInvalidValue);
  p = params(64);
  p.poolProps.allocType = cudaMemAllocationTypeInvalid;
  EXPECT_EQ(cudaGraphAddMemAllocNode(&a, g_, nullptr, 0, &p), cudaErrorInvalidValue);
  p = params(64);
  p.poolProps.location.id = 7;
  EXPECT_EQ(cudaGraphAddMemAllocNode(&a, g_, nullptr, 0, &p), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemAllocNode(&a, g_, nullptr, 0, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphDestroy(other), cudaSuccess);
  ASSERT_EQ(cudaFree(plain), cudaSuccess);
}

TEST_F(GraphMemory, AnAllocationFreedByAnotherGraphsLaunch) {
  cudaGraphNode_t a, f;
  void* d = alloc(g_, &a, {}, 4096);
  cudaGraph_t freer = nullptr;
  ASSERT_EQ(cudaGraphCreate(&freer, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemFreeNode(&f, freer, nullptr, 0, d), cudaSuccess);
  cudaGraphExec_t ea = nullptr, ef = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&ea, g_, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&ef, freer, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(ef, s_), cudaErrorInvalidValue);  // nothing allocated yet
  ASSERT_EQ(cudaGraphLaunch(ea, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(ef, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(ea, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(ef, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(ea), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(ef), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(freer), cudaSuccess);
}

TEST_F(GraphMemory, CapturedMallocAsyncAndFreeAsyncBecomeMemoryNodes) {
  // probe_mempool.txt capture.node0.type = 10: the H200 records an allocation node.
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal), cudaSuccess);
  void* d = nullptr;
  ASSERT_EQ(cudaMallocAsync(&d, kN * sizeof(int), s_), cudaSuccess);
  ASSERT_NE(d, nullptr);
  int n = kN, value = 7;
  void* args[3] = {&d, &n, &value};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<void*>(&fill), dim3(kN / 64), dim3(64), args, 0, s_), cudaSuccess);
  std::vector<int> host(kN);
  ASSERT_EQ(cudaMemcpyAsync(host.data(), d, kN * sizeof(int), cudaMemcpyDeviceToHost, s_), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(d, s_), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(d, s_), cudaErrorInvalidValue);  // freed once in its graph
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s_, &g), cudaSuccess);
  cudaGraphNode_t nodes[4];
  size_t count = 4;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &count), cudaSuccess);
  ASSERT_EQ(count, 4u);
  cudaGraphNodeType t0, t3;
  ASSERT_EQ(cudaGraphNodeGetType(nodes[0], &t0), cudaSuccess);
  ASSERT_EQ(cudaGraphNodeGetType(nodes[3], &t3), cudaSuccess);
  EXPECT_EQ(t0, cudaGraphNodeTypeMemAlloc);
  EXPECT_EQ(t3, cudaGraphNodeTypeMemFree);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);  // the executable graph keeps the address
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(host[3], 10);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphMemory, TheAttributesAndTheirErrors) {
  unsigned long long zero = 0, one = 1, v = 0;
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero), cudaSuccess);
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetGraphMemAttribute(0, static_cast<cudaGraphMemAttributeType>(9), &v), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetGraphMemAttribute(5, cudaGraphMemAttrUsedMemCurrent, &v), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGraphMemTrim(5), cudaErrorInvalidDevice);
  // A high watermark reset takes the current value.
  cudaGraphNode_t a;
  alloc(g_, &a, {}, 40 * kMiB);  // two pieces
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemHigh), 2 * kPiece);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);  // the allocation is still live
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 2 * kPiece);
  cudaMemAllocNodeParams p{};
  ASSERT_EQ(cudaGraphMemAllocNodeGetParams(a, &p), cudaSuccess);
  EXPECT_EQ(cudaFree(p.dptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceGraphMemTrim(0), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemCurrent), 0u);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemHigh), 2 * kPiece);
  EXPECT_EQ(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero), cudaSuccess);
  EXPECT_EQ(attr(cudaGraphMemAttrUsedMemHigh), 0u);
}

}  // namespace
}  // namespace minicuda::testing
