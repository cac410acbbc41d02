// Stream capture (runtime/src/graph_capture.cpp, docs/graphs.md): captured work becomes nodes and
// does not run; a captured chain and a fork/join diamond equal their explicit graphs in shape and
// values; the errors of calls a capture forbids, and of captures ended wrongly.
#include <vector>

#include "runtime_fixtures.h"

namespace {
__global__ void cap_add(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}
__global__ void cap_twice(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}
__global__ void cap_sum(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
}  // namespace

namespace minicuda::testing {
namespace {

constexpr int kN = 128;

class CaptureTest : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
  }
  void TearDown() override {
    cudaStreamDestroy(s1), cudaStreamDestroy(s2);
    FreshProcess::TearDown();
  }
  int* alloc(int fill) {
    int* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
    std::vector<int> h(kN, fill);
    EXPECT_EQ(cudaMemcpy(d, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
  }
  static std::vector<int> read_back(const int* d) {
    std::vector<int> h(kN);
    EXPECT_EQ(cudaMemcpy(h.data(), d, kN * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
  static void run(cudaGraph_t g, cudaStream_t s) {
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  }
  cudaStream_t s1 = nullptr, s2 = nullptr;
};

std::vector<cudaGraphNodeType> types_of(cudaGraph_t g) {
  size_t n = 0;
  EXPECT_EQ(cudaGraphGetNodes(g, nullptr, &n), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(n);
  EXPECT_EQ(cudaGraphGetNodes(g, nodes.data(), &n), cudaSuccess);
  std::vector<cudaGraphNodeType> types;
  for (auto* node : nodes) {
    cudaGraphNodeType t{};
    EXPECT_EQ(cudaGraphNodeGetType(node, &t), cudaSuccess);
    types.push_back(t);
  }
  return types;
}

size_t edge_count(cudaGraph_t g) {
  size_t n = 0;
  EXPECT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n), cudaSuccess);
  return n;
}

TEST_F(CaptureTest, ACapturedChainBecomesNodesAndRunsOnlyWhenLaunched) {
  int* d = alloc(7);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureStatus status{};
  ASSERT_EQ(cudaStreamIsCapturing(s1, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  ASSERT_EQ(cudaStreamIsCapturing(s2, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  ASSERT_EQ(cudaMemsetAsync(d, 0, kN * sizeof(int), s1), cudaSuccess);
  ASSERT_EQ(minicuda::launch<cap_add>(dim3(kN / 32), dim3(32), 0, s1, d, kN, 3), cudaSuccess);
  ASSERT_EQ(minicuda::launch<cap_twice>(dim3(kN / 32), dim3(32), 0, s1, d, kN), cudaSuccess);
  unsigned long long id = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 0;
  ASSERT_EQ(cudaStreamGetCaptureInfo(s1, &status, &id, &capturing, &deps, nullptr, &ndeps), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  EXPECT_NE(id, 0u);
  EXPECT_NE(capturing, nullptr);
  ASSERT_EQ(ndeps, 1u);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s1, &g), cudaSuccess);
  EXPECT_EQ(g, capturing);
  for (int v : read_back(d)) ASSERT_EQ(v, 7);  // nothing ran
  EXPECT_EQ(types_of(g), (std::vector<cudaGraphNodeType>{cudaGraphNodeTypeMemset, cudaGraphNodeTypeKernel,
                                                         cudaGraphNodeTypeKernel}));
  EXPECT_EQ(edge_count(g), 2u);
  run(g, s2);
  for (int v : read_back(d)) ASSERT_EQ(v, 6);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaFree(d);
}

TEST_F(CaptureTest, ForkAndJoinThroughEventsCaptureADiamond) {
  int *a = alloc(0), *b = alloc(0), *out = alloc(-1);
  cudaEvent_t fork = nullptr, join = nullptr;
  ASSERT_EQ(cudaEventCreate(&fork), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&join), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(out, 0, kN * sizeof(int), s1), cudaSuccess);  // the root
  ASSERT_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);  // s2 joins the capture
  cudaStreamCaptureStatus status{};
  ASSERT_EQ(cudaStreamIsCapturing(s2, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  ASSERT_EQ(minicuda::launch<cap_add>(dim3(kN / 32), dim3(32), 0, s1, a, kN, 5), cudaSuccess);
  ASSERT_EQ(minicuda::launch<cap_add>(dim3(kN / 32), dim3(32), 0, s2, b, kN, 7), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(join, s2), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);
  ASSERT_EQ(minicuda::launch<cap_sum>(dim3(kN / 32), dim3(32), 0, s1, a, b, out, kN), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s1, &g), cudaSuccess);
  ASSERT_EQ(cudaStreamIsCapturing(s2, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);  // the end released every joined stream
  EXPECT_EQ(types_of(g).size(), 4u);
  EXPECT_EQ(edge_count(g), 4u);
  size_t roots = 0;
  ASSERT_EQ(cudaGraphGetRootNodes(g, nullptr, &roots), cudaSuccess);
  EXPECT_EQ(roots, 1u);
  run(g, s1);
  for (int v : read_back(out)) ASSERT_EQ(v, 12);
  cudaGraphDestroy(g);
  cudaEventDestroy(fork), cudaEventDestroy(join);
  cudaFree(a), cudaFree(b), cudaFree(out);
}

TEST_F(CaptureTest, AForkNotJoinedBackFailsTheEnd) {
  int* d = alloc(0);
  cudaEvent_t fork = nullptr;
  ASSERT_EQ(cudaEventCreate(&fork), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 1, 4, s2), cudaSuccess);
  cudaGraph_t g = reinterpret_cast<cudaGraph_t>(0x1);
  EXPECT_EQ(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);  // not the origin
  EXPECT_EQ(g, nullptr);
  // The capture goes on, invalidated, until its origin ends it (recorded on the H200).
  cudaStreamCaptureStatus status{};
  ASSERT_EQ(cudaStreamIsCapturing(s1, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureInvalidated);

  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(fork, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 1, 4, s2), cudaSuccess);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureUnjoined);
  EXPECT_EQ(g, nullptr);
  ASSERT_EQ(cudaStreamIsCapturing(s2, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  cudaEventDestroy(fork);
  cudaFree(d);
}

TEST_F(CaptureTest, ForbiddenCallsInvalidateAGlobalCapture) {
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 256), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus status{};
  ASSERT_EQ(cudaStreamIsCapturing(s1, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(cudaMemsetAsync(p, 0, 4, s1), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(g, nullptr);
  ASSERT_EQ(cudaStreamIsCapturing(s1, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);

  // Synchronizing the capturing stream, and a synchronous copy.
  int host = 0;
  int* d = alloc(0);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s1), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  // cudaMemcpy runs on the legacy stream, which s1 (blocking) synchronizes with (recorded).
  EXPECT_EQ(cudaMemcpy(&host, d, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureInvalidated);
  cudaFree(d);
}

TEST_F(CaptureTest, RelaxedModesAllowTheUnsafeCalls) {
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed), cudaSuccess);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaSuccess);
  EXPECT_NE(g, nullptr);
  cudaGraphDestroy(g);
  cudaFree(p);

  // The thread's own mode: Relaxed lets it allocate during its global capture.
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeGlobal);  // the previous mode
  EXPECT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeRelaxed);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaSuccess);
  cudaGraphDestroy(g);
  cudaFree(p);
}

TEST_F(CaptureTest, BeginAndEndRefuseBadStreamsAndStates) {
  EXPECT_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamBeginCapture(s1, static_cast<cudaStreamCaptureMode>(9)), cudaErrorInvalidValue);
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorIllegalState);
  ASSERT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  cudaEvent_t outside = nullptr;
  ASSERT_EQ(cudaEventCreate(&outside), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(s1, outside, 0), cudaErrorStreamCaptureIsolation);
  EXPECT_EQ(cudaStreamEndCapture(s1, &g), cudaErrorStreamCaptureInvalidated);
  cudaStreamCaptureMode bad = static_cast<cudaStreamCaptureMode>(7);
  EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(&bad), cudaErrorInvalidValue);
  EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(nullptr), cudaErrorInvalidValue);
  cudaEventDestroy(outside);
}

}  // namespace
}  // namespace minicuda::testing
