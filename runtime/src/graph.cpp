// CUDA graphs, the model (graph.h): cudaGraphCreate/Destroy/Clone, the cudaGraphAdd*Node calls,
// edges, the queries and the node parameter calls. Error codes: cudaErrorInvalidValue for NULL
// outputs, handles that are no live graph or node, and dependencies on nodes of another graph, as
// recorded on the H200 (tests/data/h200/graphs/probe_graphs.txt).
#include <algorithm>
#include <atomic>
#include <set>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace minicuda::cudart::graph {
namespace {
std::set<const CUgraph_st*>& graphs() {
  static auto* s = new std::set<const CUgraph_st*>;
  return *s;
}
std::set<const CUgraphNode_st*>& nodes() {
  static auto* s = new std::set<const CUgraphNode_st*>;
  return *s;
}
std::atomic<uint32_t> g_next_id{1};
}  // namespace

std::recursive_mutex& mutex() {
  static auto* m = new std::recursive_mutex;
  return *m;
}
bool live_graph(const CUgraph_st* g) { return g != nullptr && graphs().count(g) != 0; }
bool live_node(const CUgraphNode_st* n) { return n != nullptr && nodes().count(n) != 0; }

CUgraph_st* adopt(std::unique_ptr<CUgraph_st> g) {
  g->id = g_next_id++;
  for (auto& n : g->nodes) nodes().insert(n.get());
  CUgraph_st* raw = g.release();
  graphs().insert(raw);
  return raw;
}

namespace {
void forget(CUgraph_st* g) {
  for (auto& n : g->nodes) nodes().erase(n.get());
  graphs().erase(g);
}
}  // namespace

const char* type_name(cudaGraphNodeType t) {
  switch (t) {
    case cudaGraphNodeTypeKernel: return "kernel";
    case cudaGraphNodeTypeMemcpy: return "memcpy";
    case cudaGraphNodeTypeMemset: return "memset";
    case cudaGraphNodeTypeHost: return "host";
    case cudaGraphNodeTypeGraph: return "graph";
    case cudaGraphNodeTypeEmpty: return "empty";
    case cudaGraphNodeTypeWaitEvent: return "event wait";
    case cudaGraphNodeTypeEventRecord: return "event record";
    case cudaGraphNodeTypeMemAlloc: return "mem alloc";
    case cudaGraphNodeTypeMemFree: return "mem free";
    case cudaGraphNodeTypeConditional: return "conditional";
    default: return "other";
  }
}

std::string kernel_name(const void* func) {
  CUkernel k = nullptr;
  const char* name = nullptr;
  if (context_and_kernel(func, &k) != cudaSuccess || cuKernelGetName(&name, k) != CUDA_SUCCESS) return "?";
  return name;
}

// The argument bytes are copied by the layout libcuda reports (cuKernelGetParamInfo), as the real
// runtime does: a node keeps its arguments' values, not the caller's pointers.
cudaError_t kernel_payload(const cudaKernelNodeParams* p, Payload* out) {
  if (p == nullptr) return cudaErrorInvalidValue;
  CUkernel k = nullptr;
  if (cudaError_t e = context_and_kernel(p->func, &k); e != cudaSuccess) return e;
  if (p->extra != nullptr) {
    trace::note(trace::Layer::Cudart, "kernel node: the 'extra' argument form is not built");
    return cudaErrorNotSupported;
  }
  Payload n;
  n.type = cudaGraphNodeTypeKernel;
  n.func = p->func, n.grid = p->gridDim, n.block = p->blockDim, n.shared = p->sharedMemBytes;
  size_t offset = 0, size = 0;
  for (size_t i = 0; cuKernelGetParamInfo(k, i, &offset, &size) == CUDA_SUCCESS; ++i) {
    if (p->kernelParams == nullptr || p->kernelParams[i] == nullptr) return cudaErrorInvalidValue;
    auto* bytes = static_cast<const unsigned char*>(p->kernelParams[i]);
    n.args.emplace_back(bytes, bytes + size);
  }
  *out = std::move(n);
  return cudaSuccess;
}

namespace {
// The payload a node of type t starts from; the *_payload functions fill in their parameters.
Payload* fresh(Payload* out, cudaGraphNodeType t) {
  *out = Payload{};
  out->type = t;
  return out;
}
}  // namespace

// A kernel node's configuration is checked when the node is made or changed (recorded: a block of
// 0 or of more than 1024 threads is cudaErrorInvalidValue there, not at launch).
cudaError_t kernel_node_payload(const cudaKernelNodeParams* p, Payload* out) {
  if (p != nullptr) {
    const dim3 b = p->blockDim, g = p->gridDim;
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0 || b.z > 64 ||
        static_cast<uint64_t>(b.x) * b.y * b.z > 1024)
      return p->func == nullptr ? cudaErrorInvalidDeviceFunction : cudaErrorInvalidValue;
  }
  return kernel_payload(p, out);
}

// A 1-D copy: a known direction, and both pointers unless nothing is copied.
cudaError_t memcpy1d_payload(void* dst, const void* src, size_t count, cudaMemcpyKind kind, Payload* out) {
  if (static_cast<int>(kind) < 0 || static_cast<int>(kind) > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (count != 0 && (dst == nullptr || src == nullptr)) return cudaErrorInvalidValue;
  Payload* n = fresh(out, cudaGraphNodeTypeMemcpy);
  n->copy1d = true, n->dst = dst, n->src = src, n->count = count, n->kind = kind;
  return cudaSuccess;
}

cudaError_t memcpy3d_payload(const cudaMemcpy3DParms* p, Payload* out) {
  if (p == nullptr) return cudaErrorInvalidValue;
  if (static_cast<int>(p->kind) < 0 || static_cast<int>(p->kind) > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  fresh(out, cudaGraphNodeTypeMemcpy)->copy3d = *p;
  return cudaSuccess;
}

// elementSize 1, 2 or 4 and, for more than one row, a pitch that holds a row (cudaErrorInvalidValue;
// elementSize 3 recorded). 2-byte elements: cudaErrorNotSupported (libcuda builds no 16-bit async
// memset; the H200 accepts them).
cudaError_t memset_payload(const cudaMemsetParams* p, Payload* out) {
  if (p == nullptr || p->dst == nullptr) return cudaErrorInvalidValue;
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) return cudaErrorInvalidValue;
  if (p->elementSize == 2) {
    trace::note(trace::Layer::Cudart, "memset node: 2-byte elements are not built (no cuMemsetD2D16Async)");
    return cudaErrorNotSupported;
  }
  if (p->height > 1 && p->pitch < p->width * p->elementSize) return cudaErrorInvalidValue;
  fresh(out, cudaGraphNodeTypeMemset)->memset = *p;
  return cudaSuccess;
}

cudaError_t host_payload(const cudaHostNodeParams* p, Payload* out) {
  if (p == nullptr || p->fn == nullptr) return cudaErrorInvalidValue;
  fresh(out, cudaGraphNodeTypeHost)->host = *p;
  return cudaSuccess;
}

std::unique_ptr<CUgraph_st> clone(const CUgraph_st& g) {
  auto c = std::make_unique<CUgraph_st>();
  std::vector<CUgraphNode_st*> map;
  for (auto& n : g.nodes) {
    auto copy = std::make_unique<CUgraphNode_st>();
    copy->graph = c.get();
    copy->payload = n->payload;
    if (n->payload.child) copy->payload.child = std::shared_ptr<CUgraph_st>(clone(*n->payload.child));
    map.push_back(copy.get());
    c->nodes.push_back(std::move(copy));
  }
  auto index = [&g](const CUgraphNode_st* n) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].get() == n) return i;
    return size_t{0};
  };
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (auto* d : g.nodes[i]->deps) map[i]->deps.push_back(map[index(d)]);
  return c;
}

CUgraphNode_st* add_node_to(CUgraph_st& g, Payload p, const std::vector<CUgraphNode_st*>& deps) {
  auto n = std::make_unique<CUgraphNode_st>();
  n->graph = &g;
  n->payload = std::move(p);
  n->deps = deps;
  nodes().insert(n.get());
  g.nodes.push_back(std::move(n));
  return g.nodes.back().get();
}

void destroy(CUgraph_st* g) {
  forget(g);
  delete g;
}

bool topological_order(const CUgraph_st& g, std::vector<const CUgraphNode_st*>* order) {
  order->clear();
  std::set<const CUgraphNode_st*> done;
  // Repeated passes in creation order: a node goes as soon as all its dependencies went.
  while (order->size() < g.nodes.size()) {
    size_t before = order->size();
    for (auto& n : g.nodes) {
      if (done.count(n.get())) continue;
      if (std::all_of(n->deps.begin(), n->deps.end(), [&](auto* d) { return done.count(d) != 0; })) {
        order->push_back(n.get());
        done.insert(n.get());
      }
    }
    if (order->size() == before) return false;  // every node left waits on another: a cycle
  }
  return true;
}

}  // namespace minicuda::cudart::graph

namespace minicuda::cudart::graph {

cudaError_t add_node(trace::Scope& scope, cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                     const cudaGraphNode_t* deps, size_t ndeps, cudaError_t payload_error, Payload payload) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (pGraphNode == nullptr || !live_graph(graph) || (ndeps != 0 && deps == nullptr))
    return done(scope, cudaErrorInvalidValue);
  for (size_t i = 0; i < ndeps; ++i) {
    if (!live_node(deps[i]) || deps[i]->graph != graph) return done(scope, cudaErrorInvalidValue);
    if (std::find(deps, deps + i, deps[i]) != deps + i) return done(scope, cudaErrorInvalidValue);
  }
  if (payload_error != cudaSuccess) return done(scope, payload_error);
  auto n = std::make_unique<CUgraphNode_st>();
  n->graph = graph;
  n->payload = std::move(payload);
  n->deps.assign(deps, deps + ndeps);
  *pGraphNode = n.get();
  trace::note(trace::Layer::Cudart, "graph {}: node {} ({}) after {} dependencies", graph->id, graph->nodes.size(),
              type_name(n->payload.type), ndeps);
  nodes().insert(n.get());
  graph->nodes.push_back(std::move(n));
  return done(scope, cudaSuccess);
}

bool has_single_use_nodes(const CUgraph_st& g) {
  for (auto& n : g.nodes) {
    const Payload& p = n->payload;
    if (p.type == cudaGraphNodeTypeMemAlloc || p.type == cudaGraphNodeTypeMemFree ||
        p.type == cudaGraphNodeTypeConditional)
      return true;
    if (p.child && has_single_use_nodes(*p.child)) return true;
  }
  return false;
}

}  // namespace minicuda::cudart::graph

namespace {

// A cudaGraphAdd*Node call whose parameters one payload function checks and copies: copy(&payload)
// gives the parameters' error, which add_node reports after its own checks of graph and edges.
template <class Copy>
cudaError_t add_copied(trace::Scope& scope, cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                       const cudaGraphNode_t* deps, size_t ndeps, Copy copy) {
  Payload p;
  cudaError_t e = copy(&p);
  return add_node(scope, pGraphNode, graph, deps, ndeps, e, std::move(p));
}

#define ADD_SCOPE(api, extra_fmt, ...)                                                                             \
  trace::Scope scope(trace::Layer::Cudart, api "(pGraphNode={}, graph={}, numDependencies={}" extra_fmt ")",      \
                     static_cast<void*>(pGraphNode), static_cast<void*>(graph), numDependencies, ##__VA_ARGS__)

}  // namespace

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphCreate(pGraph={}, flags={})", static_cast<void*>(pGraph), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (pGraph == nullptr || flags != 0) return done(scope, cudaErrorInvalidValue);  // flags: must be 0
  std::lock_guard lock(mutex());
  *pGraph = adopt(std::make_unique<CUgraph_st>());
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphDestroy(graph={})", static_cast<void*>(graph));
  std::lock_guard lock(mutex());
  if (!live_graph(graph)) return done(scope, cudaErrorInvalidValue);
  if (graph->parent != nullptr) return done(scope, cudaErrorInvalidValue);  // a body: its node owns it
  destroy(graph);
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphClone(pGraphClone={}, originalGraph={})",
                     static_cast<void*>(pGraphClone), static_cast<void*>(originalGraph));
  std::lock_guard lock(mutex());
  if (pGraphClone == nullptr || !live_graph(originalGraph)) return done(scope, cudaErrorInvalidValue);
  // A graph with memory or conditional nodes cannot be cloned (CUDA 13 header).
  if (has_single_use_nodes(*originalGraph)) {
    trace::note(trace::Layer::Cudart, "graph {} has memory or conditional nodes: no clone", originalGraph->id);
    return done(scope, cudaErrorNotSupported);
  }
  *pGraphClone = adopt(clone(*originalGraph));
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const cudaKernelNodeParams* pNodeParams) {
  ADD_SCOPE("cudaGraphAddKernelNode", ", pNodeParams={}", static_cast<const void*>(pNodeParams));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  return add_copied(scope, pGraphNode, graph, pDependencies, numDependencies,
                    [&](Payload* p) { return kernel_node_payload(pNodeParams, p); });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const cudaMemcpy3DParms* pCopyParams) {
  ADD_SCOPE("cudaGraphAddMemcpyNode", ", pCopyParams={}", static_cast<const void*>(pCopyParams));
  return add_copied(scope, pGraphNode, graph, pDependencies, numDependencies,
                    [&](Payload* p) { return memcpy3d_payload(pCopyParams, p); });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                     const void* src, size_t count, cudaMemcpyKind kind) {
  ADD_SCOPE("cudaGraphAddMemcpyNode1D", ", dst={}, src={}, count={}, kind={}", dst, src, count,
            memcpy_kind_name(kind));
  return add_copied(scope, pGraphNode, graph, pDependencies, numDependencies,
                    [&](Payload* p) { return memcpy1d_payload(dst, src, count, kind, p); });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const cudaMemsetParams* pMemsetParams) {
  ADD_SCOPE("cudaGraphAddMemsetNode", ", pMemsetParams={}", static_cast<const void*>(pMemsetParams));
  return add_copied(scope, pGraphNode, graph, pDependencies, numDependencies,
                    [&](Payload* p) { return memset_payload(pMemsetParams, p); });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                 size_t numDependencies, const cudaHostNodeParams* pNodeParams) {
  ADD_SCOPE("cudaGraphAddHostNode", ", pNodeParams={}", static_cast<const void*>(pNodeParams));
  return add_copied(scope, pGraphNode, graph, pDependencies, numDependencies,
                    [&](Payload* p) { return host_payload(pNodeParams, p); });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
  ADD_SCOPE("cudaGraphAddChildGraphNode", ", childGraph={}", static_cast<void*>(childGraph));
  std::lock_guard lock(mutex());
  Payload p;
  p.type = cudaGraphNodeTypeGraph;
  cudaError_t e = cudaSuccess;
  if (!live_graph(childGraph) || childGraph == graph) e = cudaErrorInvalidValue;
  else if (has_single_use_nodes(*childGraph)) e = cudaErrorNotSupported;  // cloned into the node: no
  else p.child = std::shared_ptr<CUgraph_st>(clone(*childGraph));  // the node holds a copy
  return add_node(scope, pGraphNode, graph, pDependencies, numDependencies, e, std::move(p));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                  size_t numDependencies) {
  ADD_SCOPE("cudaGraphAddEmptyNode", "");
  return add_node(scope, pGraphNode, graph, pDependencies, numDependencies, cudaSuccess, Payload{});
}

namespace {
cudaError_t add_event_node(trace::Scope& scope, cudaGraphNodeType type, cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                           const cudaGraphNode_t* deps, size_t ndeps, cudaEvent_t event) {
  Payload p;
  p.type = type;
  p.event = event;
  return add_node(scope, pGraphNode, graph, deps, ndeps, event == nullptr ? cudaErrorInvalidValue : cudaSuccess,
                  std::move(p));
}
}  // namespace

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, size_t numDependencies, cudaEvent_t event) {
  ADD_SCOPE("cudaGraphAddEventRecordNode", ", event={}", static_cast<void*>(event));
  return add_event_node(scope, cudaGraphNodeTypeEventRecord, pGraphNode, graph, pDependencies, numDependencies, event);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t* pDependencies, size_t numDependencies, cudaEvent_t event) {
  ADD_SCOPE("cudaGraphAddEventWaitNode", ", event={}", static_cast<void*>(event));
  return add_event_node(scope, cudaGraphNodeTypeWaitEvent, pGraphNode, graph, pDependencies, numDependencies, event);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* pType) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphNodeGetType(node={})", static_cast<void*>(node));
  std::lock_guard lock(mutex());
  if (!live_node(node) || pType == nullptr) return done(scope, cudaErrorInvalidValue);
  *pType = node->payload.type;
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* pNodeParams) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphKernelNodeGetParams(node={})", static_cast<void*>(node));
  std::lock_guard lock(mutex());
  if (!live_node(node) || pNodeParams == nullptr || node->payload.type != cudaGraphNodeTypeKernel)
    return done(scope, cudaErrorInvalidValue);
  // kernelParams points at an array the node keeps alive: the argument pointers of its copies.
  node->arg_pointers.clear();
  for (auto& a : node->payload.args) node->arg_pointers.push_back(a.data());
  *pNodeParams = {const_cast<void*>(node->payload.func), node->payload.grid, node->payload.block, node->payload.shared,
                  node->arg_pointers.data(), nullptr};
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* pNodeParams) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphKernelNodeSetParams(node={})", static_cast<void*>(node));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (!live_node(node) || node->payload.type != cudaGraphNodeTypeKernel) return done(scope, cudaErrorInvalidValue);
  Payload p;
  if (cudaError_t e = kernel_node_payload(pNodeParams, &p); e != cudaSuccess) return done(scope, e);
  node->payload = std::move(p);
  return done(scope, cudaSuccess);
}
