// CUDA graphs, executable graphs (graph.h): cudaGraphInstantiate builds the work list once - the
// nodes in a topological order, child graphs inlined, each with its own copy of the parameters -
// and cudaGraphLaunch submits it to the stream in that order, through the same driver calls a
// stream-ordered program makes (cuLaunchKernel, the copy and memset engines, host functions,
// events). The stream's order keeps every edge. cudaGraphExecUpdate and the cudaGraphExec*
// SetParams calls change the executable's copy only.
#include <algorithm>
#include <set>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

struct CUgraphExec_st {
  struct Step {
    size_t top = 0;  // index of the top-level graph node it comes from
    Payload payload;
  };
  std::vector<Step> steps;                  // in submission order
  std::vector<const CUgraphNode_st*> nodes;  // the instantiated graph's nodes, creation order (compared, never read)
  std::vector<cudaGraphNodeType> types;      // their types and dependencies (creation indices), for updates
  std::vector<std::vector<size_t>> deps;
  uint32_t graph_id = 0;
};

namespace {
std::set<const CUgraphExec_st*>& execs() {
  static auto* s = new std::set<const CUgraphExec_st*>;
  return *s;
}

size_t index_of(const CUgraph_st& g, const CUgraphNode_st* n) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].get() == n) return i;
  return g.nodes.size();
}

// Appends g's nodes in a topological order, a child graph's nodes in its place; false on a cycle.
bool flatten(const CUgraph_st& g, size_t top, bool top_level, std::vector<CUgraphExec_st::Step>* steps) {
  std::vector<const CUgraphNode_st*> order;
  if (!topological_order(g, &order)) return false;
  for (const auto* n : order) {
    size_t t = top_level ? index_of(g, n) : top;
    if (n->payload.type == cudaGraphNodeTypeGraph) {
      if (!flatten(*n->payload.child, t, false, steps)) return false;
    } else if (n->payload.type != cudaGraphNodeTypeEmpty) {
      steps->push_back({t, n->payload});
    }
  }
  return true;
}

cudaError_t instantiate(const char* api, cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  trace::Scope scope(trace::Layer::Cudart, "{}(pGraphExec={}, graph={}, flags={})", api,
                     static_cast<void*>(pGraphExec), static_cast<void*>(graph), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (pGraphExec == nullptr || !live_graph(graph)) return done(scope, cudaErrorInvalidValue);
  // Only AutoFreeOnLaunch and Upload have a meaning without graph memory nodes and device launch.
  if ((flags & ~static_cast<unsigned long long>(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                                cudaGraphInstantiateFlagUpload)) != 0)
    return done(scope, cudaErrorInvalidValue);
  auto exec = std::make_unique<CUgraphExec_st>();
  // A cycle (cudaGraphAddDependencies accepts the edge that closes it): cudaErrorInvalidValue,
  // recorded on the H200.
  if (!flatten(*graph, 0, true, &exec->steps)) {
    trace::note(trace::Layer::Cudart, "graph {}: its edges form a cycle", graph->id);
    return done(scope, cudaErrorInvalidValue);
  }
  for (auto& n : graph->nodes) {
    exec->nodes.push_back(n.get());
    exec->types.push_back(n->payload.type);
    exec->deps.emplace_back();
    for (auto* d : n->deps) exec->deps.back().push_back(index_of(*graph, d));
  }
  exec->graph_id = graph->id;
  trace::note(trace::Layer::Cudart, "graph {} instantiated: {} nodes -> {} steps", graph->id, graph->nodes.size(),
              exec->steps.size());
  *pGraphExec = exec.release();
  execs().insert(*pGraphExec);
  return done(scope, cudaSuccess);
}

// One step onto the stream, through the calls a stream-ordered program makes.
cudaError_t submit(const Payload& p, cudaStream_t stream) {
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      std::vector<void*> args;
      for (auto& a : p.args) args.push_back(const_cast<unsigned char*>(a.data()));
      return launch_kernel("cudaGraphLaunch", DefaultStream::Legacy, p.func, p.grid, p.block, args.data(), p.shared,
                           stream);
    }
    case cudaGraphNodeTypeMemcpy:
      return p.copy1d ? cudaMemcpyAsync(p.dst, p.src, p.count, p.kind, stream) : cudaMemcpy3DAsync(&p.copy3d, stream);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParams& m = p.memset;
      auto dst = reinterpret_cast<CUdeviceptr>(m.dst);
      size_t pitch = m.height > 1 ? m.pitch : m.width * m.elementSize;
      auto s = reinterpret_cast<CUstream>(stream);
      CUresult r = m.elementSize == 1
                       ? cuMemsetD2D8Async(dst, pitch, static_cast<unsigned char>(m.value), m.width, m.height, s)
                       : cuMemsetD2D32Async(dst, pitch, m.value, m.width, m.height, s);
      return to_cuda_error(r);
    }
    case cudaGraphNodeTypeHost: return cudaLaunchHostFunc(stream, p.host.fn, p.host.userData);
    case cudaGraphNodeTypeEventRecord: return cudaEventRecord(p.event, stream);
    case cudaGraphNodeTypeWaitEvent: return cudaStreamWaitEvent(stream, p.event, 0);
    default: return cudaSuccess;
  }
}

CUgraphExec_st::Step* step_of(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type) {
  if (execs().count(exec) == 0 || !live_node(node)) return nullptr;
  for (auto& s : exec->steps)
    if (exec->nodes[s.top] == node && s.payload.type == type) return &s;
  return nullptr;
}

template <class Params, class Check>
cudaError_t exec_set(const char* api, cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type,
                     const Params* params, Check check) {
  trace::Scope scope(trace::Layer::Cudart, "{}(hGraphExec={}, node={})", api, static_cast<void*>(exec),
                     static_cast<void*>(node));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  CUgraphExec_st::Step* s = step_of(exec, node, type);
  if (s == nullptr) return done(scope, cudaErrorInvalidValue);
  Payload p;
  if (cudaError_t e = check(params, &p); e != cudaSuccess) return done(scope, e);
  s->payload = std::move(p);
  return done(scope, cudaSuccess);
}
}  // namespace

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiate", pGraphExec, graph, flags);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph, flags);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphExecDestroy(graphExec={})", static_cast<void*>(graphExec));
  std::lock_guard lock(mutex());
  if (execs().erase(graphExec) == 0) return done(scope, cudaErrorInvalidValue);
  delete graphExec;
  return done(scope, cudaSuccess);
}

// NULL or a destroyed executable graph: cudaErrorInvalidValue (recorded). The first step that
// fails stops the launch with its error.
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphLaunch(graphExec={}, stream={})", static_cast<void*>(graphExec),
                     static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (execs().count(graphExec) == 0) return done(scope, cudaErrorInvalidValue);
  // Recorded: a launch into a capturing stream is refused and invalidates the capture.
  if (auto e = capture_stream_call(stream, "cudaGraphLaunch", false)) return done(scope, *e);
  trace::note(trace::Layer::Cudart, "graph {}: {} steps onto stream {}", graphExec->graph_id, graphExec->steps.size(),
              static_cast<void*>(stream));
  for (auto& s : graphExec->steps)
    if (cudaError_t e = submit(s.payload, stream); e != cudaSuccess) return done(scope, e);
  return done(scope, cudaSuccess);
}

// The update keeps the executable's topology: hGraph must have as many nodes, of the same types,
// in the same creation order, with the same edges. Then every step takes the new node's
// parameters, a kernel node's function included (recorded on the H200: a change of function is
// accepted). Otherwise cudaErrorGraphExecUpdateFailure with the reason in *resultInfo, which may be
// NULL (recorded).
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo* resultInfo) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphExecUpdate(hGraphExec={}, hGraph={})",
                     static_cast<void*>(hGraphExec), static_cast<void*>(hGraph));
  std::lock_guard lock(mutex());
  if (execs().count(hGraphExec) == 0 || !live_graph(hGraph)) return done(scope, cudaErrorInvalidValue);
  auto fail = [&](cudaGraphExecUpdateResult why, cudaGraphNode_t node, cudaGraphNode_t from) {
    if (resultInfo != nullptr) *resultInfo = {why, node, from};
    return done(scope, cudaErrorGraphExecUpdateFailure);
  };
  // Recorded on the H200: a different node count names no node; an edge the graph adds names the
  // node it leads to, an edge it lacks the node it came from; errorFromNode stays NULL.
  const size_t count = hGraphExec->types.size();
  if (count != hGraph->nodes.size()) return fail(cudaGraphExecUpdateErrorTopologyChanged, nullptr, nullptr);
  auto has = [](const std::vector<size_t>& v, size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<std::vector<size_t>> now(count);
  for (size_t i = 0; i < count; ++i)
    for (auto* d : hGraph->nodes[i]->deps) now[i].push_back(index_of(*hGraph, d));
  for (size_t i = 0; i < count; ++i) {
    CUgraphNode_st* n = hGraph->nodes[i].get();
    for (size_t d : now[i])
      if (!has(hGraphExec->deps[i], d)) return fail(cudaGraphExecUpdateErrorTopologyChanged, n, nullptr);
    for (size_t j = 0; j < count; ++j)
      if (has(hGraphExec->deps[j], i) && !has(now[j], i)) return fail(cudaGraphExecUpdateErrorTopologyChanged, n, nullptr);
    if (n->payload.type != hGraphExec->types[i]) return fail(cudaGraphExecUpdateErrorNodeTypeChanged, n, nullptr);
    if (n->payload.type == cudaGraphNodeTypeGraph) return fail(cudaGraphExecUpdateErrorNotSupported, n, nullptr);
  }
  for (auto& s : hGraphExec->steps) s.payload = hGraph->nodes[s.top]->payload;
  if (resultInfo != nullptr) *resultInfo = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* pNodeParams) {
  return exec_set("cudaGraphExecKernelNodeSetParams", hGraphExec, node, cudaGraphNodeTypeKernel, pNodeParams,
                  kernel_node_payload);
}
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* pNodeParams) {
  return exec_set("cudaGraphExecMemcpyNodeSetParams", hGraphExec, node, cudaGraphNodeTypeMemcpy, pNodeParams,
                  memcpy3d_payload);
}
// A 1-D copy node takes another 1-D copy; the node stays a copy node (a kernel node is refused).
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, cudaMemcpyKind kind) {
  auto check = [&](const void*, Payload* out) { return memcpy1d_payload(dst, src, count, kind, out); };
  return exec_set("cudaGraphExecMemcpyNodeSetParams1D", hGraphExec, node, cudaGraphNodeTypeMemcpy,
                  static_cast<const void*>(nullptr), check);
}
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaMemsetParams* pNodeParams) {
  return exec_set("cudaGraphExecMemsetNodeSetParams", hGraphExec, node, cudaGraphNodeTypeMemset, pNodeParams,
                  memset_payload);
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* pNodeParams) {
  return exec_set("cudaGraphExecHostNodeSetParams", hGraphExec, node, cudaGraphNodeTypeHost, pNodeParams,
                  host_payload);
}
