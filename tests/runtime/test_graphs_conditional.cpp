// Conditional nodes and cudaGraphAddNode (runtime/src/graph_conditional.cpp, graph_add_node.cpp,
// docs/graphs.md): If, If/else, While and Switch bodies chosen by a value that kernels set with
// cudaGraphSetConditional, the default value and cudaGraphCondAssignDefault, capture into a body
// (cudaStreamBeginCaptureToGraph, cudaStreamUpdateCaptureDependencies), and the error codes.
#include <vector>

#include "runtime_fixtures.h"

namespace {
__global__ void set_from(const int* value, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *value); }
__global__ void add_to(int* slot, int amount) { atomicAdd(slot, amount); }
// The body of a while loop: counts *counter down and stops the loop at 0.
__global__ void count_down(int* counter, int* runs, cudaGraphConditionalHandle h) {
  ++*runs;
  if (--*counter == 0) cudaGraphSetConditional(h, 0);
}
}  // namespace

namespace minicuda::testing {
namespace {

class GraphConditional : public FreshProcess {
 protected:
  void SetUp() override {
    FreshProcess::SetUp();
    minicuda::detail::ensure_registered<set_from>();
    minicuda::detail::ensure_registered<add_to>();
    minicuda::detail::ensure_registered<count_down>();
    ASSERT_EQ(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMallocManaged(&cells_, 4 * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaGraphCreate(&g_, 0), cudaSuccess);
  }
  void TearDown() override {
    (void)cudaDeviceSynchronize();
    (void)cudaFree(cells_);
    FreshProcess::TearDown();
  }
  // A kernel node of fn(args...) through cudaGraphAddNode.
  cudaGraphNode_t kernel(cudaGraph_t g, const std::vector<cudaGraphNode_t>& deps, void* fn, void** args) {
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = fn;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(1);
    p.kernel.kernelParams = args;
    cudaGraphNode_t n = nullptr;
    EXPECT_EQ(cudaGraphAddNode(&n, g, deps.data(), nullptr, deps.size(), &p), cudaSuccess);
    return n;
  }
  // A kernel node that adds `amount` to cells_[slot].
  cudaGraphNode_t adder(cudaGraph_t g, int slot, int amount) {
    int* target = cells_ + slot;
    void* args[2] = {&target, &amount};
    return kernel(g, {}, reinterpret_cast<void*>(&add_to), args);
  }
  cudaGraphNodeParams conditional(cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, unsigned size) {
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    return p;
  }
  // Runs e once with *cells_ = value (the value set_from reads) and the counters cleared.
  void run(cudaGraphExec_t e, int value) {
    cells_[0] = value, cells_[1] = cells_[2] = cells_[3] = 0;
    ASSERT_EQ(cudaGraphLaunch(e, s_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
  }

  cudaStream_t s_ = nullptr;
  cudaGraph_t g_ = nullptr;
  int* cells_ = nullptr;  // [0]: the value; [1..3]: what the bodies add to
};

TEST_F(GraphConditional, AnIfElseNodeRunsTheBodyTheKernelsValueChooses) {
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_), cudaSuccess);
  int* value = cells_;
  void* args[2] = {&value, &h};
  cudaGraphNode_t setter = kernel(g_, {}, reinterpret_cast<void*>(&set_from), args);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeIf, 2);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g_, &setter, nullptr, 1, &c), cudaSuccess);
  ASSERT_NE(c.conditional.phGraph_out, nullptr);
  adder(c.conditional.phGraph_out[0], 1, 1);
  adder(c.conditional.phGraph_out[1], 2, 1);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeConditional);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  run(e, 5);
  EXPECT_EQ(cells_[1], 1);
  EXPECT_EQ(cells_[2], 0);
  run(e, 0);
  EXPECT_EQ(cells_[1], 0);
  EXPECT_EQ(cells_[2], 1);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphConditional, AWhileNodeRunsItsBodyUntilTheValueIsZero) {
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_, 1, cudaGraphCondAssignDefault), cudaSuccess);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g_, nullptr, nullptr, 0, &c), cudaSuccess);
  int* counter = cells_;
  int* runs = cells_ + 1;
  void* args[3] = {&counter, &runs, &h};
  kernel(c.conditional.phGraph_out[0], {}, reinterpret_cast<void*>(&count_down), args);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  run(e, 7);
  EXPECT_EQ(cells_[1], 7);
  EXPECT_EQ(cells_[0], 0);
  // The default (1) is assigned again at each launch, so the loop runs again.
  run(e, 3);
  EXPECT_EQ(cells_[1], 3);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphConditional, ASwitchNodeRunsBodyNAndNoneOutOfRange) {
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_), cudaSuccess);
  int* value = cells_;
  void* args[2] = {&value, &h};
  cudaGraphNode_t setter = kernel(g_, {}, reinterpret_cast<void*>(&set_from), args);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeSwitch, 3);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g_, &setter, nullptr, 1, &c), cudaSuccess);
  for (int i = 0; i < 3; ++i) adder(c.conditional.phGraph_out[i], 1 + i, 10 + i);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  for (int v = 0; v < 3; ++v) {
    run(e, v);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(cells_[1 + i], i == v ? 10 + i : 0) << "value " << v;
  }
  run(e, 3);
  EXPECT_EQ(cells_[1] + cells_[2] + cells_[3], 0);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphConditional, TheDefaultValueDecidesWhenNoKernelSetsIt) {
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_, 2, cudaGraphCondAssignDefault), cudaSuccess);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeSwitch, 3);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g_, nullptr, nullptr, 0, &c), cudaSuccess);
  for (int i = 0; i < 3; ++i) adder(c.conditional.phGraph_out[i], 1 + i, 1);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  run(e, 0);
  EXPECT_EQ(cells_[3], 1);
  EXPECT_EQ(cells_[1] + cells_[2], 0);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
}

TEST_F(GraphConditional, CaptureFillsABodyAndUpdatesTheStreamsDependencies) {
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureStatus status;
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 0;
  ASSERT_EQ(cudaStreamGetCaptureInfo(s_, &status, nullptr, &g, &deps, nullptr, &ndeps), cudaSuccess);
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g, 4, cudaGraphCondAssignDefault), cudaSuccess);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeWhile, 1);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &c), cudaSuccess);
  ASSERT_EQ(cudaStreamUpdateCaptureDependencies(s_, &node, nullptr, 1, cudaStreamSetCaptureDependencies), cudaSuccess);
  EXPECT_EQ(cudaStreamUpdateCaptureDependencies(s_, &node, nullptr, 1, 2), cudaErrorInvalidValue);
  int* target = cells_ + 3;
  int amount = 100;
  void* args[2] = {&target, &amount};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<void*>(&add_to), dim3(1), dim3(1), args, 0, s_), cudaSuccess);
  cudaGraph_t ended = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s_, &ended), cudaSuccess);
  EXPECT_EQ(ended, g);
  EXPECT_EQ(cudaStreamUpdateCaptureDependencies(s_, &node, nullptr, 1, 0), cudaErrorIllegalState);
  // The body, captured into the graph the node owns.
  ASSERT_EQ(cudaStreamBeginCaptureToGraph(s_, c.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                          cudaStreamCaptureModeGlobal),
            cudaSuccess);
  int* counter = cells_;
  int* runs = cells_ + 1;
  void* body_args[3] = {&counter, &runs, &h};
  ASSERT_EQ(cudaLaunchKernel(reinterpret_cast<void*>(&count_down), dim3(1), dim3(1), body_args, 0, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(s_, nullptr), cudaSuccess);  // the program's graph stays
  size_t n = 0;
  ASSERT_EQ(cudaGraphGetNodes(c.conditional.phGraph_out[0], nullptr, &n), cudaSuccess);
  EXPECT_EQ(n, 1u);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
  run(e, 5);
  EXPECT_EQ(cells_[1], 5);    // the loop ran until the counter reached 0
  EXPECT_EQ(cells_[3], 100);  // then the node after it
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);
}

TEST_F(GraphConditional, HandleAndNodeErrors) {
  cudaGraphConditionalHandle h = 0;
  EXPECT_EQ(cudaGraphConditionalHandleCreate(nullptr, g_), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphConditionalHandleCreate(&h, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphConditionalHandleCreate(&h, g_, 0, 2), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_), cudaSuccess);
  cudaGraphNode_t n = nullptr;
  struct Case {
    cudaGraphConditionalNodeType type;
    unsigned size;
    cudaError_t want;
  };
  const Case cases[] = {{cudaGraphCondTypeIf, 0, cudaErrorInvalidValue},     {cudaGraphCondTypeIf, 3, cudaErrorInvalidValue},
                        {cudaGraphCondTypeWhile, 0, cudaErrorInvalidValue},  {cudaGraphCondTypeWhile, 2, cudaErrorInvalidValue},
                        {cudaGraphCondTypeSwitch, 0, cudaErrorInvalidValue}, {cudaGraphCondTypeSwitch, 5, cudaSuccess},
                        {static_cast<cudaGraphConditionalNodeType>(7), 1, cudaErrorInvalidValue}};
  for (const Case& k : cases) {
    cudaGraphNodeParams c = conditional(h, k.type, k.size);
    EXPECT_EQ(cudaGraphAddNode(&n, g_, nullptr, nullptr, 0, &c), k.want) << k.type << " size " << k.size;
  }
  // Another graph's handle.
  cudaGraph_t other = nullptr;
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeIf, 1);
  EXPECT_EQ(cudaGraphAddNode(&n, other, nullptr, nullptr, 0, &c), cudaErrorInvalidValue);
  // Reserved fields.
  c.reserved0[1] = 1;
  EXPECT_EQ(cudaGraphAddNode(&n, g_, nullptr, nullptr, 0, &c), cudaErrorInvalidValue);
  c.reserved0[1] = 0;
  // A body with a host node cannot be instantiated; a body is not the program's to destroy.
  ASSERT_EQ(cudaGraphAddNode(&n, g_, nullptr, nullptr, 0, &c), cudaSuccess);
  cudaGraph_t body = c.conditional.phGraph_out[0];
  EXPECT_EQ(cudaGraphDestroy(body), cudaErrorInvalidValue);
  cudaHostNodeParams hp{[](void*) {}, nullptr};
  cudaGraphNode_t hn = nullptr;
  ASSERT_EQ(cudaGraphAddHostNode(&hn, body, nullptr, 0, &hp), cudaSuccess);
  cudaGraphExec_t e = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaErrorInvalidValue);
  cudaGraph_t clone = nullptr;
  EXPECT_EQ(cudaGraphClone(&clone, g_), cudaErrorNotSupported);
  ASSERT_EQ(cudaGraphDestroy(other), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g_), cudaSuccess);  // its bodies go with it
  EXPECT_EQ(cudaGraphDestroy(body), cudaErrorInvalidValue);
}

TEST_F(GraphConditional, AddNodeMakesEveryBuiltTypeFromItsUnionMember) {
  int* target = nullptr;
  ASSERT_EQ(cudaMalloc(&target, 2 * sizeof(int)), cudaSuccess);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeMemset;
  p.memset = {target, 0, 0x01010101u, 4, 2, 1};
  cudaGraphNode_t memset = nullptr, alloc = nullptr, freed = nullptr, empty = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&memset, g_, nullptr, nullptr, 0, &p), cudaSuccess);
  p = cudaGraphNodeParams{};
  p.type = cudaGraphNodeTypeMemAlloc;
  p.alloc.bytesize = 64;
  p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  p.alloc.poolProps.location = {cudaMemLocationTypeDevice, 0};
  ASSERT_EQ(cudaGraphAddNode(&alloc, g_, &memset, nullptr, 1, &p), cudaSuccess);
  void* d = p.alloc.dptr;
  ASSERT_NE(d, nullptr);
  p = cudaGraphNodeParams{};
  p.type = cudaGraphNodeTypeMemFree;
  p.free.dptr = d;
  ASSERT_EQ(cudaGraphAddNode(&freed, g_, &alloc, nullptr, 1, &p), cudaSuccess);
  EXPECT_EQ(cudaGraphAddNode(&freed, g_, &alloc, nullptr, 1, &p), cudaErrorInvalidValue);  // freed twice
  p = cudaGraphNodeParams{};
  p.type = cudaGraphNodeTypeEmpty;
  EXPECT_EQ(cudaGraphAddNode(&empty, g_, &freed, nullptr, 1, &p), cudaSuccess);
  p.type = static_cast<cudaGraphNodeType>(0x0c);  // no node type has this number
  EXPECT_EQ(cudaGraphAddNode(&empty, g_, nullptr, nullptr, 0, &p), cudaErrorInvalidValue);
  p.type = cudaGraphNodeTypeExtSemaphoreWait;
  EXPECT_EQ(cudaGraphAddNode(&empty, g_, nullptr, nullptr, 0, &p), cudaErrorNotSupported);
  EXPECT_EQ(cudaGraphAddNode(&empty, g_, nullptr, nullptr, 0, nullptr), cudaErrorInvalidValue);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  run(e, 0);
  int got[2] = {};
  ASSERT_EQ(cudaMemcpy(got, target, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got[0], 0x01010101);
  EXPECT_EQ(got[1], 0x01010101);
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  ASSERT_EQ(cudaFree(target), cudaSuccess);
}

// A PTX kernel (what nvcc -ptx makes of `k(h, v) { cudaGraphSetConditional(h, v); }`): the JIT
// turns the device runtime's call into a store to the variable.
constexpr const char* kSetConditionalPtx = R"(
.version 9.0
.target sm_90
.address_size 64
.extern .func cudaGraphSetConditional
(
	.param .b64 cudaGraphSetConditional_param_0,
	.param .b32 cudaGraphSetConditional_param_1
)
;
.visible .entry set_conditional(
	.param .u64 set_conditional_param_0,
	.param .u32 set_conditional_param_1
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<2>;
	ld.param.u64 	%rd1, [set_conditional_param_0];
	ld.param.u32 	%r1, [set_conditional_param_1];
	{
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r1;
	call.uni cudaGraphSetConditional, (param0, param1);
	}
	ret;
}
)";

TEST_F(GraphConditional, APtxKernelSetsTheVariableThroughTheJit) {
  CUmodule module = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, kSetConditionalPtx), CUDA_SUCCESS);
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleGetFunction(&f, module, "set_conditional"), CUDA_SUCCESS);
  cudaGraphConditionalHandle h = 0;
  ASSERT_EQ(cudaGraphConditionalHandleCreate(&h, g_), cudaSuccess);  // no default assigned at launch
  cudaGraphNodeParams c = conditional(h, cudaGraphCondTypeIf, 1);
  cudaGraphNode_t node = nullptr;
  ASSERT_EQ(cudaGraphAddNode(&node, g_, nullptr, nullptr, 0, &c), cudaSuccess);
  adder(c.conditional.phGraph_out[0], 1, 1);
  cudaGraphExec_t e = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&e, g_, 0), cudaSuccess);
  for (unsigned value : {1u, 0u}) {
    void* args[2] = {&h, &value};
    ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(s_), args, nullptr), CUDA_SUCCESS);
    run(e, 0);
    EXPECT_EQ(cells_[1], value == 1 ? 1 : 0) << value;
  }
  ASSERT_EQ(cudaGraphExecDestroy(e), cudaSuccess);
  ASSERT_EQ(cuModuleUnload(module), CUDA_SUCCESS);
}

}  // namespace
}  // namespace minicuda::testing
