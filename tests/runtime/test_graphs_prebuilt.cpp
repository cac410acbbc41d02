// Prebuilt graph launches (runtime/src/graph_prebuilt.cpp, driver/user/src/prebuilt.cpp,
// docs/graphs.md "What a graph is on the GPU"): an executable graph's kernels, copies and memsets
// are encoded once per channel into device-visible memory and each launch submits them as
// GPFIFO entries. The values must be those of the same work submitted from a stream; the trace
// and the timeline must show the one submission.
#include <string>
#include <string_view>
#include <vector>

#include "runtime_fixtures.h"

namespace {
__global__ void add_to(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}
__global__ void scale(int* data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}
__global__ void store_through(int* p) { *p = 1; }
}  // namespace

namespace minicuda::testing {
namespace {

class PrebuiltGraph : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    minicuda::detail::ensure_registered<add_to>();
    minicuda::detail::ensure_registered<scale>();
    minicuda::detail::ensure_registered<store_through>();
    ASSERT_EQ(cudaStreamCreate(&s_), cudaSuccess);
  }
  void TearDown() override {
    if (exec_ != nullptr) EXPECT_EQ(cudaGraphExecDestroy(exec_), cudaSuccess);
    if (graph_ != nullptr) EXPECT_EQ(cudaGraphDestroy(graph_), cudaSuccess);
    cudaStreamDestroy(s_);
    FreshProcess::TearDown();
  }
  // Captures what record(stream) submits into graph_ and instantiates it into exec_.
  template <class Work>
  void capture(Work record) {
    ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal), cudaSuccess);
    record(s_);
    ASSERT_EQ(cudaStreamEndCapture(s_, &graph_), cudaSuccess);
    ASSERT_EQ(cudaGraphInstantiate(&exec_, graph_, 0), cudaSuccess);
  }
  cudaStream_t s_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

constexpr int kN = 256;

std::vector<int> read_back(const int* d, int n = kN) {
  std::vector<int> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// The libcuda notes of a trace that contain `part`.
size_t notes_with(const trace::Recorder& rec, std::string_view part) {
  size_t n = 0;
  for (const std::string& t : rec.texts(trace::Layer::Libcuda))
    if (t.find(part) != std::string::npos) ++n;
  return n;
}

void host_add(void* counter) { ++*static_cast<int*>(counter); }

// Kernels, memsets, a device-to-device copy, a host function and a copy to pageable memory:
// the work of every kind a launch may prebuild or not, in one stream order.
void mixed_work(cudaStream_t s, int* a, int* b, int* pageable, int* host_calls) {
  int n = kN;
  cudaMemsetAsync(a, 0, kN * sizeof(int), s);
  (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, n, 3);
  (void)minicuda::launch<scale>(dim3(kN / 64), dim3(64), 0, s, a, n, 5);
  cudaMemcpyAsync(b, a, kN * sizeof(int), cudaMemcpyDeviceToDevice, s);
  cudaMemcpyAsync(pageable, b, kN * sizeof(int), cudaMemcpyDeviceToHost, s);  // staged: live
  cudaLaunchHostFunc(s, host_add, host_calls);                                // live
  (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, b, n, 1);
}

TEST_F(PrebuiltGraph, ALaunchGivesWhatTheSameWorkFromAStreamGives) {
  int *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kN * sizeof(int)), cudaSuccess);
  std::vector<int> from_stream(kN), from_graph(kN);
  int stream_calls = 0, graph_calls = 0;
  mixed_work(s_, a, b, from_stream.data(), &stream_calls);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  const std::vector<int> stream_b = read_back(b);
  capture([&](cudaStream_t s) { mixed_work(s, a, b, from_graph.data(), &graph_calls); });
  for (int launch = 0; launch < 3; ++launch) {
    ASSERT_EQ(cudaMemset(b, 0x7f, kN * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
    EXPECT_EQ(read_back(b), stream_b) << "launch " << launch;
    EXPECT_EQ(from_graph, from_stream) << "launch " << launch;
    EXPECT_EQ(graph_calls, launch + 1);
  }
  for (int v : stream_b) ASSERT_EQ(v, 16);  // (0 + 3) * 5 + 1
  for (int v : from_stream) ASSERT_EQ(v, 15);
  EXPECT_EQ(stream_calls, 1);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // the refused staged copy is not the program's error
  cudaFree(a), cudaFree(b);
}

TEST_F(PrebuiltGraph, TheFirstLaunchRecordsAndTheNextOnesSubmitThePieces) {
  int *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kN * sizeof(int)), cudaSuccess);
  std::vector<int> pageable(kN);
  int calls = 0;
  capture([&](cudaStream_t s) { mixed_work(s, a, b, pageable.data(), &calls); });
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
    EXPECT_EQ(notes_with(rec, "is recorded, not submitted"), 1u);
    EXPECT_EQ(notes_with(rec, "prebuilt: chunk 0 of 128 KiB"), 1u);
    // The memset, two kernels and the device copy; then the last kernel after the live steps.
    EXPECT_EQ(notes_with(rec, "prebuilt: piece 0: 4 step(s) in 1 segment(s)"), 1u);
    EXPECT_EQ(notes_with(rec, "prebuilt: piece 1: 1 step(s) in 1 segment(s)"), 1u);
    EXPECT_EQ(notes_with(rec, "prebuilt: a copy through the staging buffer needs the host"), 1u);
    EXPECT_EQ(notes_with(rec, "add_to grid ("), 2u);  // the QMDs are written once, here
  }
  trace::Recorder rec;
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(notes_with(rec, "is recorded"), 0u);
  EXPECT_EQ(notes_with(rec, "launch: "), 0u);  // no QMD written, no cuLaunchKernel
  for (const std::string& t : rec.texts(trace::Layer::Libcuda)) EXPECT_NE(t.rfind("cuLaunchKernel", 0), 0u) << t;
  EXPECT_EQ(notes_with(rec, "channel: submit 1 prebuilt segment(s)"), 2u);  // the two pieces
  EXPECT_EQ(calls, 2);
  for (int v : read_back(b)) ASSERT_EQ(v, 16);
  cudaFree(a), cudaFree(b);
}

TEST_F(PrebuiltGraph, AnUploadRecordsAheadOfTheFirstLaunch) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  capture([&](cudaStream_t s) {
    cudaMemsetAsync(a, 0, kN * sizeof(int), s);
    (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, kN, 2);
  });
  {
    trace::Recorder rec;
    ASSERT_EQ(cudaGraphUpload(exec_, s_), cudaSuccess);
    EXPECT_EQ(notes_with(rec, "is recorded, not submitted"), 1u);
    EXPECT_EQ(notes_with(rec, "channel: submit"), 0u);  // nothing runs at an upload
  }
  trace::Recorder rec;
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(notes_with(rec, "is recorded"), 0u);
  EXPECT_EQ(notes_with(rec, "channel: submit 1 prebuilt segment(s)"), 1u);
  for (int v : read_back(a)) ASSERT_EQ(v, 2);
  cudaFree(a);
}

// The host time of the nth recorded runtime call whose text starts with call.
const trace::Event* call_event(const std::vector<trace::Event>& events, std::string_view call, int nth = 0) {
  for (const trace::Event& e : events)
    if (e.layer == trace::Layer::Cudart && e.kind == trace::Kind::Call && std::string_view(e.text).starts_with(call) &&
        nth-- == 0)
      return &e;
  return nullptr;
}

TEST_F(PrebuiltGraph, ALaunchCostsTheHostOneSubmissionAndItsKernelsRunBackToBack) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 0, kN * sizeof(int)), cudaSuccess);
  constexpr int kKernels = 20;
  auto twenty = [&](cudaStream_t s) {
    for (int i = 0; i < kKernels; ++i) (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, kN, 1);
  };
  capture(twenty);
  trace::Recorder rec;
  ASSERT_EQ(cudaGraphUpload(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  twenty(s_);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  const std::vector<trace::Event> events = rec.events();
  const trace::Event* launch = call_event(events, "cudaGraphLaunch(graphExec");
  ASSERT_NE(launch, nullptr);
  // host_clock.h: recording a kernel costs 1.1 us, a launch 2 us and 4.5 ns a step (the H200's).
  const trace::Event* upload = call_event(events, "cudaGraphUpload");
  ASSERT_NE(upload, nullptr);
  EXPECT_EQ(upload->host_end_ns - upload->host_ns, kKernels * 1100u);
  EXPECT_EQ(launch->host_end_ns - launch->host_ns, 2000u + kKernels * 9 / 2);
  const trace::Event* first = call_event(events, "cudaLaunchKernel");
  const trace::Event* last = call_event(events, "cudaLaunchKernel", kKernels - 1);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->host_end_ns - first->host_ns, kKernels * 4300u);  // host_clock::kLaunchNs each
  // The GPU's spans: the graph's kernels all come from the one launch call and follow each other
  // without waiting for the host; the stream's kernels wait for each launch call.
  std::vector<const trace::DeviceSpan*> graph_spans, stream_spans;
  for (const trace::Event& e : events) {
    if (!e.span || e.span->unit != "compute") continue;
    (e.span->origin == launch->seq ? graph_spans : stream_spans).push_back(&*e.span);
  }
  ASSERT_EQ(graph_spans.size(), static_cast<size_t>(kKernels));
  ASSERT_EQ(stream_spans.size(), static_cast<size_t>(kKernels));
  const uint64_t graph_time = graph_spans.back()->end_ns - graph_spans.front()->start_ns;
  const uint64_t stream_time = stream_spans.back()->end_ns - stream_spans.front()->start_ns;
  EXPECT_GE(stream_time, (kKernels - 1) * 4300u);
  EXPECT_LT(graph_time, stream_time / 2) << graph_time << " ns against " << stream_time;
  for (int v : read_back(a)) ASSERT_EQ(v, 2 * kKernels);
  cudaFree(a);
}

TEST_F(PrebuiltGraph, NewParametersTakeEffectAtTheNextLaunchAndLaunchesInFlightKeepTheirs) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 0, kN * sizeof(int)), cudaSuccess);
  capture([&](cudaStream_t s) { (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, kN, 1); });
  size_t count = 1;
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphGetNodes(graph_, &node, &count), cudaSuccess);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  int n = kN, value = 10;
  void* args[] = {&a, &n, &value};
  cudaKernelNodeParams p{reinterpret_cast<void*>(&add_to), dim3(kN / 64), dim3(64), 0, args, nullptr};
  ASSERT_EQ(cudaGraphExecKernelNodeSetParams(exec_, node, &p), cudaSuccess);  // no wait before it
  for (int i = 0; i < 2; ++i) ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  // cudaGraphExecUpdate from a graph whose node adds 100.
  value = 100;
  cudaGraph_t g2 = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g2, 0), cudaSuccess);
  cudaGraphNode_t n2 = nullptr;
  ASSERT_EQ(cudaGraphAddKernelNode(&n2, g2, nullptr, 0, &p), cudaSuccess);
  cudaGraphExecUpdateResultInfo info{};
  ASSERT_EQ(cudaGraphExecUpdate(exec_, g2, &info), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  for (int v : read_back(a)) ASSERT_EQ(v, 3 * 1 + 2 * 10 + 100);
  cudaGraphDestroy(g2);
  cudaFree(a);
}

TEST_F(PrebuiltGraph, EachChannelGetsItsOwnPrebuiltWork) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, 2 * kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 0, 2 * kN * sizeof(int)), cudaSuccess);
  capture([&](cudaStream_t s) { (void)minicuda::launch<add_to>(dim3(2 * kN / 64), dim3(64), 0, s, a, 2 * kN, 7); });
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);  // the pool's next channel
  trace::Recorder rec;
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec_, other), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec_, nullptr), cudaSuccess);  // the context's own channel
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(notes_with(rec, "is recorded, not submitted"), 3u);
  EXPECT_EQ(notes_with(rec, "channel: submit 1 prebuilt segment(s)"), 4u);
  for (int v : read_back(a, 2 * kN)) ASSERT_EQ(v, 28);
  cudaStreamDestroy(other);
  cudaFree(a);
}

TEST_F(PrebuiltGraph, AGraphLargerThanAChunkSpansSeveralSegments) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(a, 0, kN * sizeof(int)), cudaSuccess);
  constexpr int kKernels = 600;  // about 0.5 KiB of QMD, parameters and methods each
  capture([&](cudaStream_t s) {
    for (int i = 0; i < kKernels; ++i) (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, kN, i % 2 == 0 ? 1 : 2);
  });
  trace::Recorder rec;
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  EXPECT_EQ(notes_with(rec, "prebuilt: chunk 2 of 128 KiB"), 1u);
  EXPECT_EQ(notes_with(rec, "prebuilt: chunk 3 of"), 0u);
  EXPECT_EQ(notes_with(rec, "channel: submit 3 prebuilt segment(s)"), 2u);
  for (int v : read_back(a)) ASSERT_EQ(v, 2 * (kKernels / 2) * 3);
  cudaFree(a);
}

TEST_F(PrebuiltGraph, AFaultInAPrebuiltKernelIsStickyAsFromAStream) {
  capture([&](cudaStream_t s) { (void)minicuda::launch<store_through>(dim3(1), dim3(1), 0, s, static_cast<int*>(nullptr)); });
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s_), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGraphLaunch(exec_, s_), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGraphExecDestroy(exec_), cudaSuccess);
  exec_ = nullptr;
  EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
  s_ = nullptr;
}

TEST_F(PrebuiltGraph, AnExecutableGraphMayBeDestroyedAfterADeviceReset) {
  int* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  capture([&](cudaStream_t s) { (void)minicuda::launch<add_to>(dim3(kN / 64), dim3(64), 0, s, a, kN, 1); });
  ASSERT_EQ(cudaGraphLaunch(exec_, s_), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);  // the context, its channels and the prebuilt memory go
  s_ = nullptr;
  EXPECT_EQ(cudaGraphExecDestroy(exec_), cudaSuccess);
  exec_ = nullptr;
}

}  // namespace
}  // namespace minicuda::testing
