// cudaGraphDebugDotPrint (graph.h): the graph as a Graphviz digraph. Each node is a box named
// graph_<id>_node_<index> (index: creation order) labelled with its type and what it does (a
// kernel's name and configuration, a copy's size and kind, a memset's value, ...); each edge an
// arrow from the dependency to the node; a child graph a dashed cluster with its own nodes.
// cudaGraphDebugDotFlagsVerbose adds the handles. Errors (recorded on the H200): cudaErrorInvalidValue
// for a NULL path or a graph that is not live, cudaErrorOperatingSystem when the file cannot be
// written; unknown flag bits are accepted.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {

std::string label(const CUgraphNode_st& n, size_t index, bool verbose) {
  const Payload& p = n.payload;
  std::string what;
  switch (p.type) {
    case cudaGraphNodeTypeKernel:
      what = fmt::format("{}\\n<<<({},{},{}), ({},{},{}), {}>>>", kernel_name(p.func), p.grid.x, p.grid.y, p.grid.z,
                         p.block.x, p.block.y, p.block.z, p.shared);
      break;
    case cudaGraphNodeTypeMemcpy:
      what = p.copy1d ? fmt::format("{} B {}", p.count, memcpy_kind_name(p.kind))
                      : fmt::format("{}x{}x{} B {}", p.copy3d.extent.width, p.copy3d.extent.height,
                                    p.copy3d.extent.depth, memcpy_kind_name(p.copy3d.kind));
      break;
    case cudaGraphNodeTypeMemset:
      what = fmt::format("value {:#x}, {} x {} elements of {} B", p.memset.value, p.memset.width, p.memset.height,
                         p.memset.elementSize);
      break;
    case cudaGraphNodeTypeHost: what = fmt::format("fn {}", reinterpret_cast<void*>(p.host.fn)); break;
    case cudaGraphNodeTypeEventRecord:
    case cudaGraphNodeTypeWaitEvent: what = fmt::format("event {}", static_cast<void*>(p.event)); break;
    case cudaGraphNodeTypeMemAlloc:
      what = fmt::format("{} B at {:#x}", allocation_bytes(*p.allocation), allocation_address(*p.allocation));
      break;
    case cudaGraphNodeTypeMemFree: what = fmt::format("{:#x}", allocation_address(*p.allocation)); break;
    case cudaGraphNodeTypeConditional: {
      static constexpr const char* kKinds[] = {"if", "while", "switch"};
      what = fmt::format("{} {:#x}, {} bodies", kKinds[p.cond], p.handle->slot, p.bodies.size());
      break;
    }
    default: break;
  }
  std::string l = fmt::format("{} {}", index, type_name(p.type));
  if (!what.empty()) l += "\\n" + what;
  if (verbose) l += fmt::format("\\nnode {}", static_cast<const void*>(&n));
  return l;
}

void write_graph(std::string& out, const CUgraph_st& g, const std::string& prefix, bool verbose) {
  auto name = [&](size_t i) { return fmt::format("{}_node_{}", prefix, i); };
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const CUgraphNode_st& n = *g.nodes[i];
    if (n.payload.type == cudaGraphNodeTypeGraph) {
      std::string inner = fmt::format("{}_child_{}", prefix, i);
      out += fmt::format("subgraph cluster_{} {{\nlabel=\"{} graph\" style=dashed;\n", inner, i);
      write_graph(out, *n.payload.child, inner, verbose);
      // The child's place in the edges: an invisible point inside the cluster.
      out += fmt::format("\"{}\" [shape=point];\n}}\n", name(i));
    } else {
      out += fmt::format("\"{}\" [shape=rectangle label=\"{}\"];\n", name(i), label(n, i, verbose));
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto* d : g.nodes[i]->deps)
      for (size_t j = 0; j < g.nodes.size(); ++j)
        if (g.nodes[j].get() == d) out += fmt::format("\"{}\" -> \"{}\";\n", name(j), name(i));
}

}  // namespace

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaGraphDebugDotPrint(graph={}, path={}, flags={})",
                     static_cast<void*>(graph), path == nullptr ? "NULL" : path, flags);
  std::lock_guard lock(mutex());
  if (!live_graph(graph) || path == nullptr) return done(scope, cudaErrorInvalidValue);
  std::string out = fmt::format("digraph graph_{} {{\n", graph->id);
  write_graph(out, *graph, fmt::format("graph_{}", graph->id), (flags & cudaGraphDebugDotFlagsVerbose) != 0);
  out += "}\n";
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return done(scope, cudaErrorOperatingSystem);
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  ok = std::fclose(f) == 0 && ok;
  return done(scope, ok ? cudaSuccess : cudaErrorOperatingSystem);
}
