// CUDA graphs, executable graphs (graph_exec.h): cudaGraphInstantiate builds the work list once - the
// nodes in a topological order, child graphs inlined, each with its own copy of the parameters -
// and cudaGraphLaunch submits it to the stream in that order (graph_prebuilt.cpp), the steps that
// are not prebuilt through the same driver calls a stream-ordered program makes (cuLaunchKernel,
// the copy and memset engines, host functions, events). cudaGraphExecUpdate and the
// cudaGraphExec*SetParams calls change the executable's copy only, and drop its prebuilt work.
#include <algorithm>
#include <set>

#include "graph_exec.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

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

// The types a conditional body may hold, at any depth (CUDA 13 header).
bool allowed_in_body(cudaGraphNodeType t) {
  return t == cudaGraphNodeTypeKernel || t == cudaGraphNodeTypeEmpty || t == cudaGraphNodeTypeGraph ||
         t == cudaGraphNodeTypeMemset || t == cudaGraphNodeTypeMemcpy || t == cudaGraphNodeTypeConditional;
}

// Appends g's nodes to seq in a topological order, a child graph's nodes in its place, a
// conditional node with its bodies; false on a cycle or a body with a node it may not hold.
bool flatten(const CUgraph_st& g, size_t top, bool top_level, bool in_body, CUgraphExec_st& exec, Sequence* seq) {
  std::vector<const CUgraphNode_st*> order;
  if (!topological_order(g, &order)) return false;
  for (const auto* n : order) {
    size_t t = top_level ? index_of(g, n) : top;
    const Payload& p = n->payload;
    if (in_body && !allowed_in_body(p.type)) {
      trace::note(trace::Layer::Cudart, "graph {}: a conditional body may not hold a {} node", g.id, type_name(p.type));
      return false;
    }
    if (p.allocation) exec.allocations.push_back(p.allocation);
    if (p.type == cudaGraphNodeTypeGraph) {
      if (!flatten(*p.child, t, false, in_body, exec, seq)) return false;
    } else if (p.type == cudaGraphNodeTypeConditional) {
      Step s{t, p, {}};
      s.payload.bodies.clear();  // the graph owns the bodies; the step has their steps
      for (auto& body : p.bodies) {
        Sequence b;
        for (auto& h : body->handles)
          if (h->assign_default) b.defaults.push_back(h);
        if (!flatten(*body, t, false, true, exec, &b)) return false;
        s.bodies.push_back(std::move(b));
      }
      seq->steps.push_back(std::move(s));
    } else if (p.type != cudaGraphNodeTypeEmpty) {
      seq->steps.push_back({t, p, {}});
    }
  }
  return true;
}

size_t count_steps(const Sequence& seq) {
  size_t n = seq.steps.size();
  for (auto& s : seq.steps)
    for (auto& b : s.bodies) n += count_steps(b);
  return n;
}

// Upload is a flag of cudaGraphInstantiateWithParams only, which names the stream: the other
// two calls refuse it with cudaErrorInvalidValue (graph_upload/probe_graph_upload.txt).
cudaError_t instantiate(const char* api, cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags,
                        bool upload_allowed = false) {
  trace::Scope scope(trace::Layer::Cudart, "{}(pGraphExec={}, graph={}, flags={})", api,
                     static_cast<void*>(pGraphExec), static_cast<void*>(graph), flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (pGraphExec == nullptr || !live_graph(graph)) return done(scope, cudaErrorInvalidValue);
  // Only AutoFreeOnLaunch and Upload have a meaning without device launch; AutoFreeOnLaunch with
  // DeviceLaunch is refused (CUDA 13 header).
  const auto auto_free = static_cast<unsigned long long>(cudaGraphInstantiateFlagAutoFreeOnLaunch);
  const auto upload = upload_allowed ? static_cast<unsigned long long>(cudaGraphInstantiateFlagUpload) : 0;
  if ((flags & ~(auto_free | upload)) != 0) return done(scope, cudaErrorInvalidValue);
  if (graph->parent != nullptr) return done(scope, cudaErrorInvalidValue);  // a conditional body
  // Memory and conditional nodes: one executable graph at a time (CUDA 13 header); a second is
  // cudaErrorNotSupported on the H200 (graph_memory/probe_graph_memory.txt unfreed.inst_second).
  const bool single = has_single_use_nodes(*graph);
  if (single && graph->single_exec != nullptr && execs().count(graph->single_exec) != 0) {
    trace::note(trace::Layer::Cudart, "graph {} has memory or conditional nodes and an executable graph already",
                graph->id);
    return done(scope, cudaErrorNotSupported);
  }
  auto exec = std::make_unique<CUgraphExec_st>();
  exec->auto_free = (flags & auto_free) != 0;
  for (auto& h : graph->handles)
    if (h->assign_default) exec->main.defaults.push_back(h);
  // A cycle (cudaGraphAddDependencies accepts the edge that closes it): cudaErrorInvalidValue,
  // recorded on the H200.
  if (!flatten(*graph, 0, true, false, *exec, &exec->main)) {
    trace::note(trace::Layer::Cudart, "graph {}: its edges form a cycle or a body holds a node it may not", graph->id);
    return done(scope, cudaErrorInvalidValue);
  }
  for (auto& n : graph->nodes) {
    exec->nodes.push_back(n.get());
    exec->types.push_back(n->payload.type);
    exec->deps.emplace_back();
    for (auto* d : n->deps) exec->deps.back().push_back(index_of(*graph, d));
  }
  if (single) {
    exec->graph = graph;
    graph->single_exec = exec.get();
  }
  exec->graph_id = graph->id;
  trace::note(trace::Layer::Cudart, "graph {} instantiated: {} nodes -> {} steps", graph->id, graph->nodes.size(),
              count_steps(exec->main));
  *pGraphExec = exec.release();
  execs().insert(*pGraphExec);
  return done(scope, cudaSuccess);
}

// One step onto the stream, through the calls a stream-ordered program makes.
cudaError_t submit(const Payload& p, cudaStream_t stream, const char* api) {
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      std::vector<void*> args;
      for (auto& a : p.args) args.push_back(const_cast<unsigned char*>(a.data()));
      return launch_kernel(api, DefaultStream::Legacy, p.func, p.grid, p.block, args.data(), p.shared,
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

// A conditional step: the variable's value once the work before it is done picks the body; a
// While node runs its body again until the value reads 0.
cudaError_t run_conditional(const CUgraphExec_st& exec, const Step& s, cudaStream_t stream) {
  const ConditionalHandle& h = *s.payload.handle;
  for (unsigned round = 0;; ++round) {
    unsigned value = 0;
    if (cudaError_t e = read_condition(h, stream, &value); e != cudaSuccess) return e;
    const Sequence* body = nullptr;
    switch (s.payload.cond) {
      case cudaGraphCondTypeIf: body = value != 0 ? &s.bodies[0] : (s.bodies.size() == 2 ? &s.bodies[1] : nullptr); break;
      case cudaGraphCondTypeWhile: body = value != 0 ? &s.bodies[0] : nullptr; break;
      case cudaGraphCondTypeSwitch: body = value < s.bodies.size() ? &s.bodies[value] : nullptr; break;
    }
    trace::note(trace::Layer::Cudart, "graph {}: conditional {:#x} = {} -> {}", exec.graph_id, h.slot, value,
                body == nullptr ? std::string("no body") : fmt::format("body {}", body - s.bodies.data()));
    if (body == nullptr) return cudaSuccess;
    if (cudaError_t e = run(exec, *body, stream); e != cudaSuccess) return e;
    if (s.payload.cond != cudaGraphCondTypeWhile) return cudaSuccess;
  }
}


Step* step_of(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraphNodeType type) {
  if (execs().count(exec) == 0 || !live_node(node)) return nullptr;
  for (auto& s : exec->main.steps)
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
  Step* s = step_of(exec, node, type);
  if (s == nullptr) return done(scope, cudaErrorInvalidValue);
  Payload p;
  if (cudaError_t e = check(params, &p); e != cudaSuccess) return done(scope, e);
  s->payload = std::move(p);
  drop_prebuilt(*exec);
  return done(scope, cudaSuccess);
}
}  // namespace

namespace minicuda::cudart::graph {

cudaError_t run_step(const CUgraphExec_st& exec, const Step& s, cudaStream_t stream, const char* api) {
  switch (s.payload.type) {
    case cudaGraphNodeTypeMemAlloc: return launch_alloc(*s.payload.allocation, stream, exec.auto_free);
    case cudaGraphNodeTypeMemFree: return launch_free(*s.payload.allocation, stream);
    case cudaGraphNodeTypeConditional: return run_conditional(exec, s, stream);
    default: return submit(s.payload, stream, api);
  }
}

cudaError_t run(const CUgraphExec_st& exec, const Sequence& seq, cudaStream_t stream) {
  for (auto& h : seq.defaults)
    if (cudaError_t e = assign_default(*h, stream); e != cudaSuccess) return e;
  for (auto& s : seq.steps)
    if (cudaError_t e = run_step(exec, s, stream); e != cudaSuccess) return e;
  return cudaSuccess;
}

}  // namespace minicuda::cudart::graph

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiate", pGraphExec, graph, flags);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph, flags);
}

// The result is in params->result_out (cudaGraphInstantiateSuccess, or cudaGraphInstantiateError
// with the call's error); with cudaGraphInstantiateFlagUpload the executable graph is then
// uploaded to params->uploadStream, as cudaGraphUpload does.
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* instantiateParams) {
  if (instantiateParams == nullptr) {
    trace::Scope scope(trace::Layer::Cudart, "cudaGraphInstantiateWithParams(pGraphExec={}, graph={}, params=NULL)",
                       static_cast<void*>(pGraphExec), static_cast<void*>(graph));
    return done(scope, cudaErrorInvalidValue);
  }
  const unsigned long long flags = instantiateParams->flags;
  instantiateParams->errNode_out = nullptr;
  cudaError_t e = instantiate("cudaGraphInstantiateWithParams", pGraphExec, graph, flags, true);
  if (e == cudaSuccess && (flags & cudaGraphInstantiateFlagUpload) != 0)
    e = cudaGraphUpload(*pGraphExec, instantiateParams->uploadStream);
  instantiateParams->result_out = e == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
  return e;
}

// Records the executable graph's prebuilt pieces for stream's channel now, so that its first
// launch there is as cheap as the later ones (graph_prebuilt.cpp). NULL or a destroyed executable
// graph: cudaErrorInvalidValue; a capturing stream: cudaErrorStreamCaptureUnsupported, and the
// capture is invalidated (graph_upload/probe_graph_upload.txt).
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphUpload(graphExec={}, stream={})", static_cast<void*>(graphExec),
                     static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (execs().count(graphExec) == 0) return done(scope, cudaErrorInvalidValue);
  if (auto e = capture_stream_call(stream, "cudaGraphUpload", false)) return done(scope, *e);
  return done(scope, upload(*graphExec, stream));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphExecDestroy(graphExec={})", static_cast<void*>(graphExec));
  std::lock_guard lock(mutex());
  if (execs().erase(graphExec) == 0) return done(scope, cudaErrorInvalidValue);
  if (graphExec->graph != nullptr && live_graph(graphExec->graph) && graphExec->graph->single_exec == graphExec)
    graphExec->graph->single_exec = nullptr;
  release_exec_allocations(graphExec->allocations);
  drop_prebuilt(*graphExec);
  delete graphExec;
  return done(scope, cudaSuccess);
}

// NULL or a destroyed executable graph: cudaErrorInvalidValue (recorded). The first step that
// fails stops the launch with its error. The work goes as graph_prebuilt.cpp says.
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphLaunch(graphExec={}, stream={})", static_cast<void*>(graphExec),
                     static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (execs().count(graphExec) == 0) return done(scope, cudaErrorInvalidValue);
  // Recorded: a launch into a capturing stream is refused and invalidates the capture.
  if (auto e = capture_stream_call(stream, "cudaGraphLaunch", false)) return done(scope, *e);
  return done(scope, launch(*graphExec, stream));
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
    if (n->payload.type == cudaGraphNodeTypeGraph || n->payload.type == cudaGraphNodeTypeMemAlloc ||
        n->payload.type == cudaGraphNodeTypeMemFree || n->payload.type == cudaGraphNodeTypeConditional)
      return fail(cudaGraphExecUpdateErrorNotSupported, n, nullptr);
  }
  for (auto& s : hGraphExec->main.steps) s.payload = hGraph->nodes[s.top]->payload;
  drop_prebuilt(*hGraphExec);
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
