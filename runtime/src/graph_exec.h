// Private to libcudart: executable graphs (graph.h lists the files).
//
// cudaGraphInstantiate flattens a graph into a Sequence of Steps (graph_exec.cpp). A launch
// submits them in that order to one stream, so the stream's order keeps every edge. For each
// channel a graph is launched on, the Steps whose work is pushbuffer methods alone - kernels,
// and copies and memsets the copy engine does by itself - are encoded once into prebuilt pieces
// in device-visible memory (graph_prebuilt.cpp, through libcuda's CUetblMinicudaPrebuilt); a
// launch submits each piece as GPFIFO entries that point at it, and the other Steps (host
// functions, events, memory and conditional nodes, staged copies) as a stream would.
#pragma once

#include <memory>
#include <vector>

#include "graph.h"

namespace minicuda::cudart::graph {

struct Step;
// A run of steps: a graph's, or a conditional body's. Each run first assigns the defaults of the
// conditional variables made for its graph with cudaGraphCondAssignDefault.
struct Sequence {
  std::vector<std::shared_ptr<ConditionalHandle>> defaults;
  std::vector<Step> steps;
};
struct Step {
  size_t top = 0;  // index of the top-level graph node it comes from
  Payload payload;
  std::vector<Sequence> bodies;  // a conditional node's bodies
};

// An executable graph's work prebuilt for one channel: the recording, and the launch's order of
// its pieces and of the steps submitted one by one.
struct Prebuilt {
  unsigned long long channel = 0;  // the channel's number (CUetblMinicudaPrebuilt::StreamChannel)
  CUprebuilt handle = nullptr;
  struct Item {
    int piece = -1;             // a piece of handle, or
    const Step* live = nullptr;  // a step submitted at the launch
  };
  std::vector<Item> items;
};

}  // namespace minicuda::cudart::graph

struct CUgraphExec_st {
  minicuda::cudart::graph::Sequence main;    // the steps in submission order
  std::vector<const CUgraphNode_st*> nodes;  // the instantiated graph's nodes, creation order (compared, never read)
  std::vector<cudaGraphNodeType> types;      // their types and dependencies (creation indices), for updates
  std::vector<std::vector<size_t>> deps;
  uint32_t graph_id = 0;
  CUgraph_st* graph = nullptr;  // the graph, when it allows one instantiation only (then graph->single_exec)
  bool auto_free = false;       // cudaGraphInstantiateFlagAutoFreeOnLaunch
  std::vector<std::shared_ptr<minicuda::cudart::graph::GraphAllocation>> allocations;  // of its allocation and free nodes
  std::vector<minicuda::cudart::graph::Prebuilt> prebuilt;  // per channel it was launched or uploaded on
};

namespace minicuda::cudart::graph {

// graph_exec.cpp: a run of steps onto the stream (the defaults, then each step), and one step,
// through the calls a stream-ordered program makes; a kernel's launch is named api in the trace.
cudaError_t run(const CUgraphExec_st& exec, const Sequence& seq, cudaStream_t stream);
cudaError_t run_step(const CUgraphExec_st& exec, const Step& s, cudaStream_t stream,
                     const char* api = "cudaGraphLaunch");

// graph_prebuilt.cpp.
// cudaGraphLaunch's work: the pieces prebuilt for stream's channel (recorded now if they were not)
// and the other steps, in order. When the work cannot be recorded (no memory for it, or a step
// fails), the launch submits every step as a stream would, which reports the step's error.
cudaError_t launch(CUgraphExec_st& exec, cudaStream_t stream);
// cudaGraphUpload's work: the pieces for stream's channel, recorded now (nothing when they are).
cudaError_t upload(CUgraphExec_st& exec, cudaStream_t stream);
// Frees the prebuilt work (the executable graph goes, or its parameters changed); libcuda keeps
// the memory until the launches in flight are done.
void drop_prebuilt(CUgraphExec_st& exec);

}  // namespace minicuda::cudart::graph
