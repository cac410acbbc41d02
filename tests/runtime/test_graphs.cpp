// CUDA graphs through the runtime (runtime/src/graph*.cpp, docs/graphs.md): values computed by
// explicit graphs (a chain, a diamond, copy + kernel + copy, child graphs, host and event nodes),
// parameter changes on graphs and executable graphs, cudaGraphExecUpdate, the queries, and the
// error codes of bad input.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime_fixtures.h"

namespace {
__global__ void add_value(int* data, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += value;
}
__global__ void times_two(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2;
}
// out[i] = a[i] + b[i]: the join of a diamond.
__global__ void sum_into(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
}  // namespace

namespace minicuda::testing {
namespace {

// Kernels in a plain .cpp file are registered at their first typed launch; a graph names them by
// address first, so the fixture registers them as a .cu's start-up registration would.
class GraphTest : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    minicuda::detail::ensure_registered<add_value>();
    minicuda::detail::ensure_registered<times_two>();
    minicuda::detail::ensure_registered<sum_into>();
  }
};
constexpr int kN = 256;

cudaKernelNodeParams add_params(int** data, int* n, int* value) {
  static void* args[3];  // rebuilt per call; the node copies the values at once
  args[0] = data, args[1] = n, args[2] = value;
  return {reinterpret_cast<void*>(&add_value), dim3(kN / 64), dim3(64), 0, args, nullptr};
}

std::vector<int> read_back(const int* d) {
  std::vector<int> h(kN);
  EXPECT_EQ(cudaMemcpy(h.data(), d, kN * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

TEST_F(GraphTest, AChainOfKernelsRunsInOrderEveryLaunch) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaMemsetParams ms{d, 0, 0, 4, kN, 1};  // every element = 0
  cudaGraphNode_t zero = nullptr, add = nullptr, twice = nullptr;
  ASSERT_EQ(cudaGraphAddMemsetNode(&zero, g, nullptr, 0, &ms), cudaSuccess);
  int n = kN, value = 3;
  cudaKernelNodeParams kp = add_params(&d, &n, &value);
  ASSERT_EQ(cudaGraphAddKernelNode(&add, g, &zero, 1, &kp), cudaSuccess);
  value = 1000;  // the node kept 3
  void* args2[] = {&d, &n};
  cudaKernelNodeParams tp{reinterpret_cast<void*>(&times_two), dim3(kN / 64), dim3(64), 0, args2, nullptr};
  ASSERT_EQ(cudaGraphAddKernelNode(&twice, g, &add, 1, &tp), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  for (int launch = 0; launch < 3; ++launch) {
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (int v : read_back(d)) ASSERT_EQ(v, 6);  // (0 + 3) * 2, whatever ran before
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  cudaFree(d);
}

TEST_F(GraphTest, ADiamondJoinsBothBranches) {
  int *a = nullptr, *b = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kN * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, kN * sizeof(int)), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t root = nullptr, left = nullptr, right = nullptr, join = nullptr;
  ASSERT_EQ(cudaGraphAddEmptyNode(&root, g, nullptr, 0), cudaSuccess);
  cudaMemsetParams ma{a, 0, 5, 4, kN, 1}, mb{b, 0, 7, 4, kN, 1};
  ASSERT_EQ(cudaGraphAddMemsetNode(&left, g, &root, 1, &ma), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemsetNode(&right, g, &root, 1, &mb), cudaSuccess);
  int n = kN;
  void* args[] = {&a, &b, &out, &n};
  cudaKernelNodeParams kp{reinterpret_cast<void*>(&sum_into), dim3(kN / 64), dim3(64), 0, args, nullptr};
  cudaGraphNode_t both[] = {left, right};
  ASSERT_EQ(cudaGraphAddKernelNode(&join, g, both, 2, &kp), cudaSuccess);

  size_t count = 0;
  ASSERT_EQ(cudaGraphGetNodes(g, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 4u);
  cudaGraphNode_t roots[2] = {};
  count = 2;
  ASSERT_EQ(cudaGraphGetRootNodes(g, roots, &count), cudaSuccess);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(roots[0], root);
  EXPECT_EQ(roots[1], nullptr);
  cudaGraphNode_t from[4] = {}, to[4] = {};
  count = 4;
  ASSERT_EQ(cudaGraphGetEdges(g, from, to, nullptr, &count), cudaSuccess);
  ASSERT_EQ(count, 4u);
  EXPECT_EQ(std::vector<cudaGraphNode_t>(from, from + 4), (std::vector<cudaGraphNode_t>{root, root, left, right}));
  EXPECT_EQ(std::vector<cudaGraphNode_t>(to, to + 4), (std::vector<cudaGraphNode_t>{left, right, join, join}));
  cudaGraphNodeType type{};
  ASSERT_EQ(cudaGraphNodeGetType(join, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeKernel);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int v : read_back(out)) ASSERT_EQ(v, 12);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaFree(a), cudaFree(b), cudaFree(out);
}

TEST_F(GraphTest, CopyKernelCopyRoundTripsHostData) {
  std::vector<int> in(kN), out(kN, -1);
  for (int i = 0; i < kN; ++i) in[i] = i;
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t up = nullptr, k = nullptr, down = nullptr;
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, d, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice),
            cudaSuccess);
  int n = kN, value = 100;
  cudaKernelNodeParams kp = add_params(&d, &n, &value);
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g, &up, 1, &kp), cudaSuccess);
  // The copy back through the 3D form: one row of kN ints.
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(d, kN * sizeof(int), kN * sizeof(int), 1);
  p.dstPtr = make_cudaPitchedPtr(out.data(), kN * sizeof(int), kN * sizeof(int), 1);
  p.extent = make_cudaExtent(kN * sizeof(int), 1, 1);
  p.kind = cudaMemcpyDeviceToHost;
  ASSERT_EQ(cudaGraphAddMemcpyNode(&down, g, &k, 1, &p), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiateWithFlags(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], i + 100) << i;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaFree(d);
}

struct HostLog {
  std::vector<int> order;
};
void CUDART_CB log_one(void* p) { static_cast<HostLog*>(p)->order.push_back(1); }
void CUDART_CB log_two(void* p) { static_cast<HostLog*>(p)->order.push_back(2); }

TEST_F(GraphTest, ChildGraphsHostNodesAndEventsRunInPlace) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  HostLog log;
  cudaGraph_t child = nullptr, g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&child, 0), cudaSuccess);
  cudaMemsetParams ms{d, 0, 1, 4, kN, 1};
  cudaGraphNode_t set = nullptr, host1 = nullptr, sub = nullptr, host2 = nullptr, rec = nullptr;
  ASSERT_EQ(cudaGraphAddMemsetNode(&set, child, nullptr, 0, &ms), cudaSuccess);
  cudaHostNodeParams h1{log_one, &log};
  ASSERT_EQ(cudaGraphAddHostNode(&host1, child, &set, 1, &h1), cudaSuccess);
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&sub, g, nullptr, 0, child), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(child), cudaSuccess);  // the node holds its own copy
  cudaHostNodeParams h2{log_two, &log};
  ASSERT_EQ(cudaGraphAddHostNode(&host2, g, &sub, 1, &h2), cudaSuccess);
  cudaEvent_t ev = nullptr;
  ASSERT_EQ(cudaEventCreate(&ev), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEventRecordNode(&rec, g, &host2, 1, ev), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(ev), cudaSuccess);
  EXPECT_EQ(log.order, (std::vector<int>{1, 2}));
  for (int v : read_back(d)) ASSERT_EQ(v, 1);

  // A second graph waits on the event before it doubles.
  cudaGraph_t g2 = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g2, 0), cudaSuccess);
  cudaGraphNode_t wait = nullptr, k = nullptr;
  ASSERT_EQ(cudaGraphAddEventWaitNode(&wait, g2, nullptr, 0, ev), cudaSuccess);
  int n = kN;
  void* args[] = {&d, &n};
  cudaKernelNodeParams tp{reinterpret_cast<void*>(&times_two), dim3(kN / 64), dim3(64), 0, args, nullptr};
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g2, &wait, 1, &tp), cudaSuccess);
  cudaGraphExec_t exec2 = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec2, g2, 0), cudaSuccess);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec2, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int v : read_back(d)) ASSERT_EQ(v, 2);
  cudaGraphExecDestroy(exec), cudaGraphExecDestroy(exec2);
  cudaGraphDestroy(g), cudaGraphDestroy(g2);
  cudaEventDestroy(ev), cudaStreamDestroy(s);
  cudaFree(d);
}

TEST_F(GraphTest, SetParamsChangeTheGraphOrTheExecutableOnly) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaMemsetParams ms{d, 0, 0, 4, kN, 1};
  cudaGraphNode_t zero = nullptr, add = nullptr;
  ASSERT_EQ(cudaGraphAddMemsetNode(&zero, g, nullptr, 0, &ms), cudaSuccess);
  int n = kN, value = 1;
  cudaKernelNodeParams kp = add_params(&d, &n, &value);
  ASSERT_EQ(cudaGraphAddKernelNode(&add, g, &zero, 1, &kp), cudaSuccess);
  cudaKernelNodeParams got{};
  ASSERT_EQ(cudaGraphKernelNodeGetParams(add, &got), cudaSuccess);
  EXPECT_EQ(got.func, reinterpret_cast<void*>(&add_value));
  EXPECT_EQ(got.gridDim.x, unsigned{kN / 64});
  EXPECT_EQ(*static_cast<int*>(got.kernelParams[2]), 1);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  value = 20;
  kp = add_params(&d, &n, &value);
  ASSERT_EQ(cudaGraphExecKernelNodeSetParams(exec, add, &kp), cudaSuccess);
  ms.value = 2;
  ASSERT_EQ(cudaGraphExecMemsetNodeSetParams(exec, zero, &ms), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int v : read_back(d)) ASSERT_EQ(v, 22);
  ASSERT_EQ(cudaGraphKernelNodeGetParams(add, &got), cudaSuccess);
  EXPECT_EQ(*static_cast<int*>(got.kernelParams[2]), 1);  // the graph kept its own

  // cudaGraphKernelNodeSetParams changes the graph; a new instantiation sees it.
  value = 300;
  kp = add_params(&d, &n, &value);
  ASSERT_EQ(cudaGraphKernelNodeSetParams(add, &kp), cudaSuccess);
  cudaGraphExec_t exec2 = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec2, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec2, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int v : read_back(d)) ASSERT_EQ(v, 300);

  // Another kernel in an executable's kernel node: accepted (recorded on the H200); a node of
  // the wrong type: refused.
  void* args2[] = {&d, &n};
  cudaKernelNodeParams other{reinterpret_cast<void*>(&times_two), dim3(1), dim3(1), 0, args2, nullptr};
  EXPECT_EQ(cudaGraphExecKernelNodeSetParams(exec, add, &other), cudaSuccess);
  EXPECT_EQ(cudaGraphExecKernelNodeSetParams(exec, zero, &kp), cudaErrorInvalidValue);
  cudaHostNodeParams hp{log_one, nullptr};
  EXPECT_EQ(cudaGraphExecHostNodeSetParams(exec, add, &hp), cudaErrorInvalidValue);
  cudaGraphExecDestroy(exec), cudaGraphExecDestroy(exec2);
  cudaGraphDestroy(g);
  cudaFree(d);
}

// Builds zero -> add(value) [-> times_two when doubled] on d.
cudaGraph_t build_add_graph(int** d, int* n, int* value, bool doubled) {
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaMemsetParams ms{*d, 0, 0, 4, kN, 1};
  cudaGraphNode_t zero = nullptr, add = nullptr, twice = nullptr;
  EXPECT_EQ(cudaGraphAddMemsetNode(&zero, g, nullptr, 0, &ms), cudaSuccess);
  cudaKernelNodeParams kp = add_params(d, n, value);
  EXPECT_EQ(cudaGraphAddKernelNode(&add, g, &zero, 1, &kp), cudaSuccess);
  if (doubled) {
    void* args[] = {d, n};
    cudaKernelNodeParams tp{reinterpret_cast<void*>(&times_two), dim3(kN / 64), dim3(64), 0, args, nullptr};
    EXPECT_EQ(cudaGraphAddKernelNode(&twice, g, &add, 1, &tp), cudaSuccess);
  }
  return g;
}

TEST_F(GraphTest, ExecUpdateTakesNewParametersAndRefusesANewTopology) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  int n = kN, v1 = 4, v2 = 9;
  cudaGraph_t g1 = build_add_graph(&d, &n, &v1, false);
  cudaGraph_t g2 = build_add_graph(&d, &n, &v2, false);
  cudaGraph_t g3 = build_add_graph(&d, &n, &v2, true);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g1, 0), cudaSuccess);
  cudaGraphExecUpdateResultInfo info{};
  ASSERT_EQ(cudaGraphExecUpdate(exec, g2, &info), cudaSuccess);
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int v : read_back(d)) ASSERT_EQ(v, 9);

  EXPECT_EQ(cudaGraphExecUpdate(exec, g3, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(cudaGraphExecUpdate(exec, g2, nullptr), cudaSuccess);  // the result info is optional (recorded)
  // The CUDA 11 form (jacobiCudaGraphs calls it) answers from the same result info.
  cudaGraphNode_t error_node = nullptr;
  cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
  EXPECT_EQ(cudaGraphExecUpdate(exec, g3, &error_node, &result), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(error_node, info.errorNode);
  EXPECT_EQ(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(cudaGraphExecUpdate(exec, g2, nullptr, nullptr), cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g1), cudaGraphDestroy(g2), cudaGraphDestroy(g3);
  cudaFree(d);
}

TEST_F(GraphTest, ACloneRunsLikeItsOriginal) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  int n = kN, v = 5;
  cudaGraph_t g = build_add_graph(&d, &n, &v, true);
  cudaGraph_t c = nullptr;
  ASSERT_EQ(cudaGraphClone(&c, g), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);
  size_t edges = 0;
  ASSERT_EQ(cudaGraphGetEdges(c, nullptr, nullptr, nullptr, &edges), cudaSuccess);
  EXPECT_EQ(edges, 2u);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, c, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int x : read_back(d)) ASSERT_EQ(x, 10);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(c);
  cudaFree(d);
}

TEST_F(GraphTest, BadInputGetsTheDocumentedErrors) {
  cudaGraph_t g = nullptr;
  EXPECT_EQ(cudaGraphCreate(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t a = nullptr, b = nullptr;
  EXPECT_EQ(cudaGraphAddEmptyNode(&a, nullptr, nullptr, 0), cudaErrorInvalidValue);  // null graph
  EXPECT_EQ(cudaGraphAddEmptyNode(nullptr, g, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddEmptyNode(&a, g, nullptr, 1), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphAddEmptyNode(&a, g, nullptr, 0), cudaSuccess);
  cudaGraphNode_t twice[] = {a, a};
  EXPECT_EQ(cudaGraphAddEmptyNode(&b, g, twice, 2), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
  // Dependencies: an existing edge, a missing one, a node of another graph.
  EXPECT_EQ(cudaGraphAddDependencies(g, &a, &b, nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphRemoveDependencies(g, &b, &a, nullptr, 1), cudaErrorInvalidValue);
  cudaGraph_t other = nullptr;
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  cudaGraphNode_t x = nullptr;
  EXPECT_EQ(cudaGraphAddEmptyNode(&x, other, &a, 1), cudaErrorInvalidValue);
  // Payloads.
  cudaHostNodeParams no_fn{nullptr, nullptr};
  EXPECT_EQ(cudaGraphAddHostNode(&x, g, nullptr, 0, &no_fn), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddHostNode(&x, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
  int dummy = 0;
  cudaMemsetParams bad_size{&dummy, 0, 0, 3, 1, 1};
  EXPECT_EQ(cudaGraphAddMemsetNode(&x, g, nullptr, 0, &bad_size), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddMemcpyNode1D(&x, g, nullptr, 0, &dummy, &dummy, 4, static_cast<cudaMemcpyKind>(42)),
            cudaErrorInvalidMemcpyDirection);
  cudaKernelNodeParams no_func{nullptr, dim3(1), dim3(1), 0, nullptr, nullptr};
  EXPECT_EQ(cudaGraphAddKernelNode(&x, g, nullptr, 0, &no_func), cudaErrorInvalidDeviceFunction);
  EXPECT_EQ(cudaGraphAddEventRecordNode(&x, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphAddChildGraphNode(&x, g, nullptr, 0, g), cudaErrorInvalidValue);
  size_t count = 0;
  ASSERT_EQ(cudaGraphGetNodes(g, nullptr, &count), cudaSuccess);
  EXPECT_EQ(count, 2u);  // no failed call added a node

  // A cycle: accepted as an edge, refused at instantiation.
  ASSERT_EQ(cudaGraphAddDependencies(g, &b, &a, nullptr, 1), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaErrorInvalidValue);
  EXPECT_EQ(exec, nullptr);
  ASSERT_EQ(cudaGraphRemoveDependencies(g, &b, &a, nullptr, 1), cudaSuccess);
  EXPECT_EQ(cudaGraphInstantiate(nullptr, g, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphInstantiate(&exec, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagDeviceLaunch), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  EXPECT_EQ(cudaGraphLaunch(nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphDestroy(nullptr), cudaErrorInvalidValue);
  cudaGraphDestroy(other);
}

TEST_F(GraphTest, DotPrintWritesTheNodesAndEdges) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  int n = kN, v = 5;
  cudaGraph_t g = build_add_graph(&d, &n, &v, true);
  std::string path = ::testing::TempDir() + "graph_dot_test.dot";
  ASSERT_EQ(cudaGraphDebugDotPrint(g, path.c_str(), 0), cudaSuccess);
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  std::string dot = text.str();
  EXPECT_EQ(dot.rfind("digraph graph_", 0), 0u) << dot;
  EXPECT_NE(dot.find("_node_0\" [shape=rectangle label=\"0 memset\\nvalue 0x0, 256 x 1 elements of 4 B\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("add_value"), std::string::npos) << dot;
  EXPECT_NE(dot.find("<<<(4,1,1), (64,1,1), 0>>>"), std::string::npos) << dot;
  EXPECT_NE(dot.find("_node_0\" -> \""), std::string::npos) << dot;
  EXPECT_NE(dot.find("_node_1\" -> \""), std::string::npos) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  std::remove(path.c_str());
  EXPECT_EQ(cudaGraphDebugDotPrint(g, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0), cudaErrorOperatingSystem);
  cudaGraphDestroy(g);
  cudaFree(d);
}

// The CUDA 11 form (error node, log buffer) that older programs still call, as NVIDIA's
// jacobiCudaGraphs does: it instantiates with flags 0 and leaves both outputs as they were.
TEST_F(GraphTest, TheFiveArgumentInstantiateOfCuda11StillInstantiates) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, kN * sizeof(int)), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaMemsetParams ms{d, 0, 0x01010101u, 4, kN, 1};
  cudaGraphNode_t fill = nullptr;
  ASSERT_EQ(cudaGraphAddMemsetNode(&fill, g, nullptr, 0, &ms), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  cudaGraphNode_t error_node = fill;
  char log[16] = "untouched";
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, &error_node, log, sizeof log), cudaSuccess);
  EXPECT_EQ(error_node, fill);
  EXPECT_STREQ(log, "untouched");
  ASSERT_EQ(cudaGraphLaunch(exec, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int v : read_back(d)) ASSERT_EQ(v, 0x01010101);
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaFree(d);
}

}  // namespace
}  // namespace minicuda::testing
