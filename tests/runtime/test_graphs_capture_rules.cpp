// Stream capture rules recorded on the H200 (tests/data/h200/graphs/probe_graphs.txt, and
// docs/graphs.md): the legacy stream's implicit synchronization, calls forbidden in every mode,
// events recorded in a capture, graph launches into a capture, cudaStreamGetCaptureInfo's outputs.
#include "runtime_fixtures.h"

namespace {
__global__ void rule_add(int* data) { data[threadIdx.x] += 1; }
}  // namespace

namespace minicuda::testing {
namespace {

class CaptureRules : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 256), cudaSuccess);
  }
  void TearDown() override {
    cudaFree(d);
    cudaStreamDestroy(blocking), cudaStreamDestroy(nonblocking);
    FreshProcess::TearDown();
  }
  // Ends the capture of s, expecting `code`; the capture is over afterwards.
  void end(cudaStream_t s, cudaError_t code) {
    cudaGraph_t g = nullptr;
    EXPECT_EQ(cudaStreamEndCapture(s, &g), code);
    if (g != nullptr) cudaGraphDestroy(g);
    cudaStreamCaptureStatus st{};
    ASSERT_EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    EXPECT_EQ(st, cudaStreamCaptureStatusNone);
    cudaGetLastError();
  }
  cudaStreamCaptureStatus status(cudaStream_t s) {
    cudaStreamCaptureStatus st{};
    EXPECT_EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    return st;
  }
  cudaStream_t blocking = nullptr, nonblocking = nullptr;
  int* d = nullptr;
};

TEST_F(CaptureRules, TheLegacyStreamInvalidatesABlockingStreamsCaptureInEveryMode) {
  for (auto mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    ASSERT_EQ(cudaStreamBeginCapture(blocking, mode), cudaSuccess);
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusActive;
    EXPECT_EQ(cudaStreamIsCapturing(nullptr, &st), cudaErrorStreamCaptureImplicit);
    EXPECT_EQ(st, cudaStreamCaptureStatusNone);
    EXPECT_EQ(status(blocking), cudaStreamCaptureStatusActive);  // the query alone does not invalidate
    EXPECT_EQ(cudaMemset(d, 0, 4), cudaErrorStreamCaptureImplicit);
    EXPECT_EQ(status(blocking), cudaStreamCaptureStatusInvalidated);
    end(blocking, cudaErrorStreamCaptureInvalidated);
  }
  // A non-blocking stream does not synchronize with the legacy stream: a Relaxed capture goes on.
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(minicuda::launch<rule_add>(dim3(1), dim3(32), 0, nullptr, d), cudaSuccess);
  EXPECT_EQ(status(nonblocking), cudaStreamCaptureStatusActive);
  end(nonblocking, cudaSuccess);
}

TEST_F(CaptureRules, DeviceSynchronizeAndGraphLaunchAreRefusedEvenInRelaxedMode) {
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(status(nonblocking), cudaStreamCaptureStatusInvalidated);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);

  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t n = nullptr;
  ASSERT_EQ(cudaGraphAddEmptyNode(&n, g, nullptr, 0), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(exec, nonblocking), cudaErrorStreamCaptureUnsupported);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

TEST_F(CaptureRules, FreeHostAllocationAndOtherStreamsSyncAreUnsafeOutsideRelaxed) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaErrorStreamCaptureUnsupported);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeGlobal), cudaSuccess);
  void* h = nullptr;
  EXPECT_EQ(cudaMallocHost(&h, 64), cudaErrorStreamCaptureUnsupported);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(blocking), cudaErrorStreamCaptureUnsupported);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(blocking), cudaSuccess);
  end(nonblocking, cudaSuccess);
}

TEST_F(CaptureRules, AnEventRecordedInACaptureCannotBeQueriedUntilRecordedAgain) {
  cudaEvent_t ev = nullptr;
  ASSERT_EQ(cudaEventCreate(&ev), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(ev, nonblocking), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(ev), cudaErrorCapturedEvent);
  EXPECT_EQ(status(nonblocking), cudaStreamCaptureStatusInvalidated);
  end(nonblocking, cudaErrorStreamCaptureInvalidated);

  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeRelaxed), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(ev, nonblocking), cudaSuccess);
  end(nonblocking, cudaSuccess);
  EXPECT_EQ(cudaEventQuery(ev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventSynchronize(ev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamWaitEvent(blocking, ev, 0), cudaErrorInvalidValue);
  ASSERT_EQ(cudaEventRecord(ev, blocking), cudaSuccess);  // recorded outside: usable again
  EXPECT_EQ(cudaEventSynchronize(ev), cudaSuccess);
  cudaEventDestroy(ev);
}

TEST_F(CaptureRules, CaptureInfoGivesTheFrontierWithDefaultEdgesAndNothingOnceInvalidated) {
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(minicuda::launch<rule_add>(dim3(1), dim3(32), 0, nonblocking, d), cudaSuccess);
  ASSERT_EQ(minicuda::launch<rule_add>(dim3(1), dim3(32), 0, nonblocking, d), cudaSuccess);
  cudaStreamCaptureStatus st{};
  unsigned long long id = 0;
  cudaGraph_t g = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  size_t n = 0;
  ASSERT_EQ(cudaStreamGetCaptureInfo(nonblocking, &st, &id, &g, &deps, &edges, &n), cudaSuccess);
  EXPECT_EQ(st, cudaStreamCaptureStatusActive);
  ASSERT_EQ(n, 1u);
  ASSERT_NE(edges, nullptr);
  EXPECT_EQ(edges[0].type, 0);  // cudaGraphDependencyTypeDefault
  EXPECT_EQ(edges[0].from_port, 0);
  cudaGraphNode_t nodes[2];
  size_t count = 2;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &count), cudaSuccess);
  EXPECT_EQ(deps[0], nodes[1]);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorStreamCaptureUnsupported);
  unsigned long long id2 = 12345;
  ASSERT_EQ(cudaStreamGetCaptureInfo(nonblocking, &st, &id2), cudaSuccess);
  EXPECT_EQ(st, cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(id2, 12345u);
  // A NULL pGraph ends the capture too.
  EXPECT_EQ(cudaStreamEndCapture(nonblocking, nullptr), cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(nonblocking, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamEndCapture(nonblocking, nullptr), cudaSuccess);
  EXPECT_EQ(status(nonblocking), cudaStreamCaptureStatusNone);
}

}  // namespace
}  // namespace minicuda::testing
