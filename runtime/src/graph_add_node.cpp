// cudaGraphAddNode (graph.h): one call for every node type, its parameters in the union of
// cudaGraphNodeParams chosen by `type`. Each type goes through the same payload function as its
// own cudaGraphAdd*Node call, so both forms check and copy alike. Outputs go back into the
// caller's struct: an allocation's address (alloc.dptr) and a conditional node's bodies
// (conditional.phGraph_out, an array the node owns).
#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {

bool all_zero(const void* p, size_t n) {
  auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i] != 0) return false;
  return true;
}

// The payload of p's node (its error when p is wrong), for a node of graph after deps.
cudaError_t payload_of(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t ndeps, cudaGraphNodeParams* p,
                       Payload* out) {
  switch (p->type) {
    case cudaGraphNodeTypeKernel: {
      const cudaKernelNodeParamsV2& k = p->kernel;
      cudaKernelNodeParams v1{k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
      return kernel_node_payload(&v1, out);
    }
    case cudaGraphNodeTypeMemcpy:
      if (p->memcpy.flags != 0 || !all_zero(p->memcpy.reserved, sizeof p->memcpy.reserved)) return cudaErrorInvalidValue;
      return memcpy3d_payload(&p->memcpy.copyParams, out);
    case cudaGraphNodeTypeMemset: {
      const cudaMemsetParamsV2& m = p->memset;
      cudaMemsetParams v1{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
      return memset_payload(&v1, out);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams v1{p->host.fn, p->host.userData};
      return host_payload(&v1, out);
    }
    case cudaGraphNodeTypeGraph: {
      cudaGraph_t child = p->graph.graph;
      if (!live_graph(child) || child == graph || child->parent != nullptr) return cudaErrorInvalidValue;
      if (p->graph.ownership != cudaGraphChildGraphOwnershipClone) {
        trace::note(trace::Layer::Cudart, "cudaGraphAddNode: child graphs are cloned into their node; moving one is not built");
        return cudaErrorNotSupported;
      }
      if (has_single_use_nodes(*child)) return cudaErrorNotSupported;
      *out = Payload{};
      out->type = cudaGraphNodeTypeGraph;
      out->child = std::shared_ptr<CUgraph_st>(clone(*child));
      return cudaSuccess;
    }
    case cudaGraphNodeTypeEmpty: *out = Payload{}; return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent: {
      cudaEvent_t event = p->type == cudaGraphNodeTypeEventRecord ? p->eventRecord.event : p->eventWait.event;
      if (event == nullptr) return cudaErrorInvalidValue;
      *out = Payload{};
      out->type = p->type;
      out->event = event;
      return cudaSuccess;
    }
    case cudaGraphNodeTypeMemAlloc: {
      static_assert(sizeof(cudaMemAllocNodeParams) == sizeof(cudaMemAllocNodeParamsV2));
      return alloc_payload(graph, deps, ndeps, reinterpret_cast<cudaMemAllocNodeParams*>(&p->alloc), out);
    }
    case cudaGraphNodeTypeMemFree: return free_payload(graph, p->free.dptr, out);
    case cudaGraphNodeTypeConditional: return conditional_payload(graph, &p->conditional, out);
    case cudaGraphNodeTypeExtSemaphoreSignal:
    case cudaGraphNodeTypeExtSemaphoreWait:
      trace::note(trace::Layer::Cudart, "cudaGraphAddNode: external-semaphore nodes are not built");
      return cudaErrorNotSupported;
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t add_node_params(const char* api, cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                            const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                            size_t numDependencies, cudaGraphNodeParams* nodeParams) {
  trace::Scope scope(trace::Layer::Cudart, "{}(pGraphNode={}, graph={}, numDependencies={}, type={})", api,
                     static_cast<void*>(pGraphNode), static_cast<void*>(graph), numDependencies,
                     nodeParams ? type_name(nodeParams->type) : "?");
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  cudaError_t e = cudaSuccess;
  Payload p;
  if (nodeParams == nullptr || !live_graph(graph) || !all_zero(nodeParams->reserved0, sizeof nodeParams->reserved0) ||
      nodeParams->reserved2 != 0) {
    e = cudaErrorInvalidValue;
  } else if (dependencyData != nullptr && !all_zero(dependencyData, numDependencies * sizeof(cudaGraphEdgeData))) {
    trace::note(trace::Layer::Cudart, "{}: only default edges are built", api);
    e = cudaErrorNotSupported;
  } else {
    e = payload_of(graph, pDependencies, numDependencies, nodeParams, &p);
  }
  e = add_node(scope, pGraphNode, graph, pDependencies, numDependencies, e, std::move(p));
  if (e != cudaSuccess) return e;
  CUgraphNode_st* n = *pGraphNode;
  if (n->payload.type == cudaGraphNodeTypeMemFree) free_node_added(n);
  if (n->payload.type == cudaGraphNodeTypeConditional) nodeParams->conditional.phGraph_out = n->payload.body_handles.data();
  return e;
}

}  // namespace

// Contract: adds a node of nodeParams->type with the parameters of that type's own call (and its
// errors). Reserved fields not zero, an unknown type, NULL nodeParams: cudaErrorInvalidValue;
// external-semaphore nodes, a child graph moved rather than cloned, edge data other than the
// default: cudaErrorNotSupported.
cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                             const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                             cudaGraphNodeParams* nodeParams) {
  return add_node_params("cudaGraphAddNode", pGraphNode, graph, pDependencies, dependencyData, numDependencies,
                         nodeParams);
}
cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                cudaGraphNodeParams* nodeParams) {
  return add_node_params("cudaGraphAddNode_v2", pGraphNode, graph, pDependencies, dependencyData, numDependencies,
                         nodeParams);
}
