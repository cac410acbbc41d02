// Private to libcudart: CUDA graphs (docs/graphs.md).
//
//   graph.cpp          the model: graphs and nodes, the cudaGraphAdd*Node and node parameter calls
//   graph_edges.cpp    edges and the queries (cudaGraphAdd/RemoveDependencies, GetNodes/RootNodes/Edges)
//   graph_exec.cpp     instantiation (a topological order, child graphs inlined) and launch
//   graph_dot.cpp      cudaGraphDebugDotPrint (Graphviz)
//   graph_capture.cpp  stream capture, and the hooks the stream-ordered calls make into it
//   graph_memory.cpp   memory allocation and free nodes, the graph allocator's physical memory
//   graph_conditional.cpp  conditional handles and nodes, and their evaluation at launch
//   graph_add_node.cpp cudaGraphAddNode (every node type through cudaGraphNodeParams)
//   graph_prebuilt.cpp prebuilt launches: the work recorded per channel, submitted as GPFIFO entries
//
// A graph owns its nodes; a node owns a copy of its parameters (a kernel's argument values
// included), so a caller's structs may go away after the call. An executable graph owns another
// copy, which cudaGraphExec*SetParams and cudaGraphExecUpdate change without touching the graph.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cudart.h"

namespace minicuda::cudart::graph {

struct GraphAllocation;  // graph_memory.cpp: one allocation node's allocation

// A conditional variable (graph_conditional.cpp): a 4-byte slot of device memory, whose address
// is the handle; freed when the last graph or executable graph that uses it goes.
struct ConditionalHandle {
  CUdeviceptr slot = 0;
  unsigned default_value = 0;
  bool assign_default = false;        // cudaGraphCondAssignDefault
  const CUgraph_st* graph = nullptr;  // the graph it was made for (compared, never read)
  ~ConditionalHandle();
};

// What one node does, copied out of the caller's parameters.
struct Payload {
  cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
  // Kernel: the host function, the configuration and each argument's bytes.
  const void* func = nullptr;
  dim3 grid, block;
  unsigned shared = 0;
  std::vector<std::vector<unsigned char>> args;
  // Memcpy: a 1D copy (copy1d) or a cudaMemcpy3DParms.
  bool copy1d = false;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t count = 0;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  cudaMemcpy3DParms copy3d{};
  // Memset.
  cudaMemsetParams memset{};
  // Host.
  cudaHostNodeParams host{};
  // Event record / wait.
  cudaEvent_t event = nullptr;
  // Child graph: the graph's own clone of the child (cudaGraphAddChildGraphNode clones it).
  std::shared_ptr<CUgraph_st> child;
  // Memory allocation or free: the allocation (its address fixed when the allocation node was made).
  std::shared_ptr<GraphAllocation> allocation;
  // Conditional: the variable, the kind, and the bodies the node owns (live graphs a program fills).
  std::shared_ptr<ConditionalHandle> handle;
  cudaGraphConditionalNodeType cond = cudaGraphCondTypeIf;
  std::vector<std::shared_ptr<CUgraph_st>> bodies;
  std::vector<cudaGraph_t> body_handles;  // what phGraph_out points at
};

}  // namespace minicuda::cudart::graph

struct CUgraphNode_st {
  CUgraph_st* graph = nullptr;
  minicuda::cudart::graph::Payload payload;
  std::vector<CUgraphNode_st*> deps;  // the nodes it waits for, in the order they were added
  std::vector<void*> arg_pointers;    // what cudaGraphKernelNodeGetParams hands out
};

struct CUgraph_st {
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;  // in creation order
  uint32_t id = 0;                                      // numbers graphs in DOT output
  CUgraph_st* parent = nullptr;  // a conditional body: the graph that holds its node
  std::vector<std::shared_ptr<minicuda::cudart::graph::ConditionalHandle>> handles;  // created for it
  // A graph with memory or conditional nodes has at most one executable graph at a time: it.
  CUgraphExec_st* single_exec = nullptr;
};

namespace minicuda::cudart::graph {

// The lock every graph call holds, and the handles that are live (graphs, nodes, execs).
std::recursive_mutex& mutex();
bool live_graph(const CUgraph_st* g);
bool live_node(const CUgraphNode_st* n);

// Payload checks and copies: cudaSuccess or the call's error (graph.cpp).
cudaError_t kernel_payload(const cudaKernelNodeParams* p, Payload* out);
// kernel_payload, after the checks of a kernel node's launch configuration.
cudaError_t kernel_node_payload(const cudaKernelNodeParams* p, Payload* out);
cudaError_t memcpy1d_payload(void* dst, const void* src, size_t count, cudaMemcpyKind kind, Payload* out);
cudaError_t memcpy3d_payload(const cudaMemcpy3DParms* p, Payload* out);
cudaError_t memset_payload(const cudaMemsetParams* p, Payload* out);
cudaError_t host_payload(const cudaHostNodeParams* p, Payload* out);
// A deep copy of g (nodes, edges, child graphs), registered as live; map[i] is the copy of node i.
std::unique_ptr<CUgraph_st> clone(const CUgraph_st& g);
// Registers/unregisters a graph made outside graph.cpp (a clone, a capture's graph).
CUgraph_st* adopt(std::unique_ptr<CUgraph_st> g);
// The nodes of g in a topological order (creation order among independent nodes); false when the
// edges form a cycle.
bool topological_order(const CUgraph_st& g, std::vector<const CUgraphNode_st*>* order);
// Adds a registered node to g after deps (capture); destroys a live graph and its nodes.
CUgraphNode_st* add_node_to(CUgraph_st& g, Payload p, const std::vector<CUgraphNode_st*>& deps);
void destroy(CUgraph_st* g);
// The shared body of the cudaGraphAdd*Node calls (graph.cpp): checks the graph and the
// dependencies (each a live node of graph, none twice), reports payload_error if those pass, else
// adds the node.
cudaError_t add_node(trace::Scope& scope, cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     size_t ndeps, cudaError_t payload_error, Payload payload);
// True when g (or a graph inside it) has a node of a type that forbids clones and a second
// instantiation: memory allocation/free and conditional nodes.
bool has_single_use_nodes(const CUgraph_st& g);

// Graph memory (graph_memory.cpp).
// An allocation node's payload: checks p, reserves the allocation's address range (or reuses the
// range of an allocation of graph freed by one of deps' ancestors) and writes it to p->dptr.
cudaError_t alloc_payload(CUgraph_st* graph, const cudaGraphNode_t* deps, size_t ndeps, cudaMemAllocNodeParams* p,
                          Payload* out);
// A free node's payload: dptr must start an allocation of an allocation node that no free node
// frees yet (cudaErrorInvalidValue otherwise).
cudaError_t free_payload(CUgraph_st* graph, void* dptr, Payload* out);
// The launch of an allocation node: physical memory mapped at the allocation's fixed address
// (reused from the graph allocator, or asked of the driver). An allocation still live from the
// launch before: freed first when auto_free, else cudaErrorInvalidValue.
cudaError_t launch_alloc(GraphAllocation& a, cudaStream_t stream, bool auto_free);
// The launch of a free node: the allocation's physical memory may be reused after the work
// queued on stream so far. Not live: cudaErrorInvalidValue.
cudaError_t launch_free(GraphAllocation& a, cudaStream_t stream);
// An executable graph goes away: the physical memory of its allocations that are not live goes
// back to the graph allocator.
void release_exec_allocations(const std::vector<std::shared_ptr<GraphAllocation>>& allocations);
// cudaFree (stream == nullptr, sync) and cudaFreeAsync of a pointer: nothing when it is no graph
// allocation's address; cudaSuccess when it freed one; cudaErrorInvalidValue for a graph
// allocation that is not live.
std::optional<cudaError_t> free_graph_allocation(void* ptr, cudaStream_t stream, bool sync);
// cudaMallocAsync / cudaFreeAsync on a capturing stream: an allocation or free node.
std::optional<cudaError_t> capture_malloc(cudaStream_t stream, size_t size, void** out);
std::optional<cudaError_t> capture_free(cudaStream_t stream, void* ptr);
// The allocation's address and requested size (DOT labels).
CUdeviceptr allocation_address(const GraphAllocation& a);
size_t allocation_bytes(const GraphAllocation& a);
// Records which graph frees the allocation, once its free node n was added.
void free_node_added(const CUgraphNode_st* n);

// Conditional nodes (graph_conditional.cpp).
// A conditional node's payload: a handle of graph or of a graph it is a body of, a known type
// and a size it allows; makes the bodies.
cudaError_t conditional_payload(CUgraph_st* graph, cudaConditionalNodeParams* p, Payload* out);
// Writes the variable's default after the work queued on stream.
cudaError_t assign_default(const ConditionalHandle& h, cudaStream_t stream);
// The variable's value once the work queued on stream so far is done (waits for it).
cudaError_t read_condition(const ConditionalHandle& h, cudaStream_t stream, unsigned* value);

// Stream capture hooks (graph_capture.cpp). Each returns nothing when the call is not affected by
// a capture - the caller goes on as usual - and otherwise the call's result: cudaSuccess when its
// work became a node of the capture, cudaErrorStreamCaptureInvalidated on an invalidated capture,
// cudaErrorStreamCaptureUnsupported (the capture invalidated) for a call a capture forbids.
std::optional<cudaError_t> capture_node(cudaStream_t stream, Payload node, CUgraphNode_st** added = nullptr);
// For an active capture of stream: true, with its graph and the stream's current dependencies.
bool capture_frontier(cudaStream_t stream, CUgraph_st** graph, std::vector<CUgraphNode_st*>* frontier);
// Whether stream is capturing (an active or an invalidated capture).
bool capture_frontier_active(cudaStream_t stream);
std::optional<cudaError_t> capture_kernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                          cudaStream_t stream);
std::optional<cudaError_t> capture_host(cudaStream_t stream, cudaHostFn_t fn, void* data);
std::optional<cudaError_t> capture_copy(cudaStream_t stream, void* dst, const void* src, size_t count,
                                        cudaMemcpyKind kind);
std::optional<cudaError_t> capture_memset(cudaStream_t stream, void* dst, int value, size_t count);
std::optional<cudaError_t> capture_event_record(cudaEvent_t event, cudaStream_t stream);
std::optional<cudaError_t> capture_wait_event(cudaStream_t stream, cudaEvent_t event);
// A call on `stream` that no capture allows there (cudaStreamSynchronize and cudaStreamQuery with
// sync = true / false, cudaGraphLaunch): on a capturing stream, cudaErrorStreamCaptureUnsupported
// and the capture invalidated; on the legacy stream, implicit synchronization (below); a
// synchronization of another stream is a potentially unsafe call.
std::optional<cudaError_t> capture_stream_call(cudaStream_t stream, const char* api, bool sync);
// A synchronous call on the legacy stream (cudaMemcpy, cudaMemset): with a blocking stream
// capturing, cudaErrorStreamCaptureImplicit and that capture invalidated, in every mode.
std::optional<cudaError_t> capture_legacy_call(const char* api);
// cudaDeviceSynchronize: forbidden in every mode while a capture is in progress.
std::optional<cudaError_t> capture_device_sync();
// cudaEventQuery/cudaEventSynchronize: cudaErrorCapturedEvent for an event recorded in a capture
// in progress (invalidated), cudaErrorInvalidValue for one whose capture has ended.
std::optional<cudaError_t> capture_event_use(cudaEvent_t event);
void capture_event_destroyed(cudaEvent_t event);
// A call the capture modes call potentially unsafe (cudaMalloc, cudaFree, cudaMallocHost, a
// synchronous copy or memset, cudaStreamSynchronize of another stream), made by the calling thread.
std::optional<cudaError_t> capture_unsafe_call(const char* api);

// A kernel's name for the trace and DOT ("?" when unknown).
std::string kernel_name(const void* func);
// The short trace name of a node type ("kernel", "memcpy", ...).
const char* type_name(cudaGraphNodeType t);

}  // namespace minicuda::cudart::graph
