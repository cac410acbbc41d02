// Private to libcudart: CUDA graphs (docs/graphs.md).
//
//   graph.cpp          the model: graphs and nodes, the cudaGraphAdd*Node and node parameter calls
//   graph_edges.cpp    edges and the queries (cudaGraphAdd/RemoveDependencies, GetNodes/RootNodes/Edges)
//   graph_exec.cpp     instantiation (a topological order, child graphs inlined) and launch
//   graph_dot.cpp      cudaGraphDebugDotPrint (Graphviz)
//   graph_capture.cpp  stream capture, and the hooks the stream-ordered calls make into it
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

// Stream capture hooks (graph_capture.cpp). Each returns nothing when the call is not affected by
// a capture - the caller goes on as usual - and otherwise the call's result: cudaSuccess when its
// work became a node of the capture, cudaErrorStreamCaptureInvalidated on an invalidated capture,
// cudaErrorStreamCaptureUnsupported (the capture invalidated) for a call a capture forbids.
std::optional<cudaError_t> capture_node(cudaStream_t stream, Payload node);
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
