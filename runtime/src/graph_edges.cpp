// CUDA graphs, the edges (graph.h): cudaGraphAddDependencies/RemoveDependencies and the queries
// cudaGraphGetNodes/GetRootNodes/GetEdges. The query calls follow the toolkit's two-step form:
// with a NULL array they report the count; with an array they fill at most *count entries (the
// rest NULL) and report the true count.
#include <algorithm>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {
// Non-default edge data (ports, types) is not built: all its bytes must be zero.
bool default_edges(const cudaGraphEdgeData* data, size_t n) {
  if (data == nullptr) return true;
  for (size_t i = 0; i < n; ++i) {
    const auto* b = reinterpret_cast<const unsigned char*>(&data[i]);
    if (std::any_of(b, b + sizeof(cudaGraphEdgeData), [](unsigned char c) { return c != 0; })) return false;
  }
  return true;
}

template <class T>
void fill(const std::vector<T>& all, T* out, size_t* count) {
  if (out != nullptr) {
    for (size_t i = 0; i < *count; ++i) out[i] = i < all.size() ? all[i] : T{};
  }
  *count = all.size();
}
}  // namespace

// Each pair must join two nodes of graph (a node to itself: refused when adding). An edge that
// exists (add) or does not (remove) is an error: cudaErrorInvalidValue, like the calls' other bad
// input (recorded on the H200). Cycles are accepted here and refused by cudaGraphInstantiate
// (recorded).
namespace {
cudaError_t change_edges(const char* api, bool add, cudaGraph_t graph, const cudaGraphNode_t* from,
                         const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  trace::Scope scope(trace::Layer::Cudart, "{}(graph={}, numDependencies={})", api, static_cast<void*>(graph),
                     numDependencies);
  std::lock_guard lock(mutex());
  if (!live_graph(graph) || (numDependencies != 0 && (from == nullptr || to == nullptr)))
    return done(scope, cudaErrorInvalidValue);
  if (!default_edges(edgeData, numDependencies)) return done(scope, cudaErrorNotSupported);
  for (size_t i = 0; i < numDependencies; ++i) {
    if (!live_node(from[i]) || !live_node(to[i]) || to[i]->graph != graph) return done(scope, cudaErrorInvalidValue);
    if (add && (from[i]->graph != graph || from[i] == to[i])) return done(scope, cudaErrorInvalidValue);
    auto& d = to[i]->deps;
    if ((std::find(d.begin(), d.end(), from[i]) != d.end()) == add) return done(scope, cudaErrorInvalidValue);
  }
  for (size_t i = 0; i < numDependencies; ++i) {
    if (add) to[i]->deps.push_back(from[i]);
    else std::erase(to[i]->deps, from[i]);
  }
  return done(scope, cudaSuccess);
}
}  // namespace

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  return change_edges("cudaGraphAddDependencies", true, graph, from, to, edgeData, numDependencies);
}
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  return change_edges("cudaGraphRemoveDependencies", false, graph, from, to, edgeData, numDependencies);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphGetNodes(graph={})", static_cast<void*>(graph));
  std::lock_guard lock(mutex());
  if (!live_graph(graph) || numNodes == nullptr) return done(scope, cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> all;
  for (auto& n : graph->nodes) all.push_back(n.get());
  fill(all, nodes, numNodes);
  return done(scope, cudaSuccess);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes, size_t* pNumRootNodes) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphGetRootNodes(graph={})", static_cast<void*>(graph));
  std::lock_guard lock(mutex());
  if (!live_graph(graph) || pNumRootNodes == nullptr) return done(scope, cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> roots;
  for (auto& n : graph->nodes)
    if (n->deps.empty()) roots.push_back(n.get());
  fill(roots, pRootNodes, pNumRootNodes);
  return done(scope, cudaSuccess);
}

// Edges in the order of their "to" node's creation, then of their addition.
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edgeData, size_t* numEdges) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphGetEdges(graph={})", static_cast<void*>(graph));
  std::lock_guard lock(mutex());
  if (!live_graph(graph) || numEdges == nullptr || ((from == nullptr) != (to == nullptr)))
    return done(scope, cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> f, t;
  for (auto& n : graph->nodes)
    for (auto* d : n->deps) f.push_back(d), t.push_back(n.get());
  size_t capacity = *numEdges;
  if (edgeData != nullptr && from != nullptr)
    for (size_t i = 0; i < capacity; ++i) edgeData[i] = cudaGraphEdgeData{};
  fill(f, from, numEdges);
  *numEdges = capacity;
  fill(t, to, numEdges);
  return done(scope, cudaSuccess);
}
