// Conditional nodes (graph.h): cudaGraphConditionalHandleCreate and the conditional node that
// cudaGraphAddNode makes, with its bodies.
//
// A conditional variable lives in device memory: cudaGraphConditionalHandleCreate takes a 4-byte
// slot from libcuda (cuMemAlloc_v2) and the handle is the slot's device address. Device code sets
// it with cudaGraphSetConditional, a plain store (cuda_device_runtime_api.h). A launch writes the
// default into the slot first when the handle asks for it (cuMemsetD32Async, in stream order); a
// conditional node reads the slot when the launch reaches it. The real GPU evaluates the node on
// the device, with no host round trip; minicuda's launch waits on the host for the work before
// the node (cuStreamSynchronize), reads the slot (cuMemcpyDtoH_v2), and submits the chosen body.
// So cudaGraphLaunch of a graph with conditional nodes returns after the work before its last
// conditional node has run.
//
// The handle belongs to the graph it was made for, and may be used by conditional nodes of that
// graph and of the bodies inside it (cudaErrorInvalidValue for another graph's).
#include <map>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {
// Every live handle by its value; guarded by graph::mutex().
std::map<cudaGraphConditionalHandle, ConditionalHandle*>& handles() {
  static auto* m = new std::map<cudaGraphConditionalHandle, ConditionalHandle*>;
  return *m;
}

std::shared_ptr<ConditionalHandle> find_handle(cudaGraphConditionalHandle h) {
  auto it = handles().find(h);
  if (it == handles().end()) return nullptr;
  const CUgraph_st* g = it->second->graph;
  for (auto& sp : const_cast<CUgraph_st*>(g)->handles)
    if (sp.get() == it->second) return sp;
  return nullptr;
}
}  // namespace

namespace minicuda::cudart::graph {

ConditionalHandle::~ConditionalHandle() {
  auto it = handles().find(slot);
  if (it != handles().end() && it->second == this) handles().erase(it);
  (void)cuMemFree_v2(slot);
}

cudaError_t assign_default(const ConditionalHandle& h, cudaStream_t stream) {
  return to_cuda_error(cuMemsetD2D32Async(h.slot, sizeof(unsigned), h.default_value, 1, 1, reinterpret_cast<CUstream>(stream)));
}

cudaError_t read_condition(const ConditionalHandle& h, cudaStream_t stream, unsigned* value) {
  if (CUresult e = cuStreamSynchronize(reinterpret_cast<CUstream>(stream)); e != CUDA_SUCCESS) return to_cuda_error(e);
  return to_cuda_error(cuMemcpyDtoH_v2(value, h.slot, sizeof *value));
}

// If: 1 or 2 bodies; While: 1; Switch: at least 1 (CUDA 13 header).
cudaError_t conditional_payload(CUgraph_st* graph, cudaConditionalNodeParams* p, Payload* out) {
  if (p == nullptr) return cudaErrorInvalidValue;
  std::shared_ptr<ConditionalHandle> h = find_handle(p->handle);
  bool ours = false;
  for (const CUgraph_st* g = graph; h && g != nullptr && !ours; g = g->parent) ours = h->graph == g;
  if (!ours) {
    trace::note(trace::Layer::Cudart, "conditional node: handle {:#x} is no handle of graph {} or a graph around it",
                p->handle, graph->id);
    return cudaErrorInvalidValue;
  }
  const unsigned n = p->size;
  const bool size_ok = (p->type == cudaGraphCondTypeIf && (n == 1 || n == 2)) ||
                       (p->type == cudaGraphCondTypeWhile && n == 1) || (p->type == cudaGraphCondTypeSwitch && n >= 1);
  if (!size_ok) return cudaErrorInvalidValue;
  *out = Payload{};
  out->type = cudaGraphNodeTypeConditional;
  out->handle = std::move(h);
  out->cond = p->type;
  for (unsigned i = 0; i < n; ++i) {
    auto body = std::make_unique<CUgraph_st>();
    body->parent = graph;
    CUgraph_st* raw = adopt(std::move(body));
    out->bodies.emplace_back(raw, [](CUgraph_st* g) { destroy(g); });
    out->body_handles.push_back(raw);
  }
  return cudaSuccess;
}

}  // namespace minicuda::cudart::graph

// Contract: *pHandle_out = a new conditional variable of graph. With cudaGraphCondAssignDefault
// in flags, each launch sets it to defaultLaunchValue before any node runs; without it the
// variable starts at 0 and keeps what device code last set (the H200 ignores defaultLaunchValue
// then: probe_graph_memory.txt, cond.no_assign_default_count). NULL pHandle_out, a graph that is not live, other flags:
// cudaErrorInvalidValue.
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart,
                     "cudaGraphConditionalHandleCreate(pHandle_out={}, graph={}, defaultLaunchValue={}, flags={})",
                     static_cast<void*>(pHandle_out), static_cast<void*>(graph), defaultLaunchValue, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  if (pHandle_out == nullptr || !live_graph(graph) || (flags & ~static_cast<unsigned>(cudaGraphCondAssignDefault)) != 0)
    return done(scope, cudaErrorInvalidValue);
  auto h = std::make_shared<ConditionalHandle>();
  if (CUresult e = cuMemAlloc_v2(&h->slot, sizeof(unsigned)); e != CUDA_SUCCESS) {
    h->slot = 0;
    return done(scope, to_cuda_error(e));
  }
  h->default_value = defaultLaunchValue;
  h->assign_default = (flags & cudaGraphCondAssignDefault) != 0;
  if (CUresult e = cuMemsetD32_v2(h->slot, h->assign_default ? defaultLaunchValue : 0, 1); e != CUDA_SUCCESS)
    return done(scope, to_cuda_error(e));
  h->graph = graph;
  handles()[h->slot] = h.get();
  graph->handles.push_back(h);
  *pHandle_out = h->slot;
  trace::note(trace::Layer::Cudart, "graph {}: conditional variable at {:#x}, default {}{}", graph->id, h->slot,
              defaultLaunchValue, h->assign_default ? " (assigned at each launch)" : "");
  if (scope.active()) scope.result("cudaSuccess, *pHandle_out={:#x}", h->slot);
  return cudaSuccess;
}
