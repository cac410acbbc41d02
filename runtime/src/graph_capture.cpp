// Stream capture (graph.h): cudaStreamBeginCapture turns a stream into a recorder. Work submitted
// to it - kernels, async copies and memsets, host functions - becomes a node of the capture's
// graph that depends on the stream's current frontier (its last nodes), instead of running. An
// event recorded in a capturing stream remembers that frontier; a stream that waits on it joins the
// capture (fork) or merges the frontier into its own (join). cudaStreamEndCapture, in the stream
// that began it, hands back the graph once every joined stream was joined back.
//
// Errors, as recorded on the H200 (tests/data/h200/graphs/probe_graphs.txt):
//   - beginning a capture on the legacy stream: cudaErrorStreamCaptureUnsupported; on a stream
//     already capturing: cudaErrorIllegalState;
//   - cudaStreamSynchronize/Query of a capturing stream, cudaGraphLaunch into one,
//     cudaDeviceSynchronize in any mode, and the potentially unsafe calls the capture mode forbids
//     (see capture_unsafe_call): cudaErrorStreamCaptureUnsupported, and the capture is
//     invalidated; work submitted to an invalidated capture, and its end:
//     cudaErrorStreamCaptureInvalidated;
//   - work on the legacy stream (a launch, cudaMemcpy, cudaMemset, cudaStreamQuery(0)) while a
//     blocking stream captures: cudaErrorStreamCaptureImplicit, in every mode, the capture
//     invalidated;
//   - cudaEventQuery/Synchronize of an event recorded in a capture in progress:
//     cudaErrorCapturedEvent, the capture invalidated; of one whose capture ended (until it is
//     recorded again outside a capture): cudaErrorInvalidValue, as is a wait on it;
//   - waiting on an event recorded outside the capture: cudaErrorStreamCaptureIsolation;
//   - ending in another stream than the origin: cudaErrorStreamCaptureUnmatched, the capture
//     invalidated but not ended; with a joined stream's work not joined back:
//     cudaErrorStreamCaptureUnjoined; from another thread than the one that began a global or
//     thread-local capture: cudaErrorStreamCaptureWrongThread (the last two not recorded).
#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "graph.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {

struct Capture {
  CUgraph_st* graph = nullptr;
  cudaStream_t origin = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread;
  unsigned long long id = 0;
  bool invalidated = false;
  bool owns_graph = true;  // false for cudaStreamBeginCaptureToGraph: the program's graph stays
};
struct StreamState {
  std::shared_ptr<Capture> capture;
  std::vector<CUgraphNode_st*> frontier;  // the nodes the stream's next node depends on
  bool blocking = true;                   // synchronizes with the legacy stream
  std::vector<cudaGraphEdgeData> edge_data;  // what cudaStreamGetCaptureInfo hands out (default edges)
};
struct EventState {
  std::shared_ptr<Capture> capture;
  std::vector<CUgraphNode_st*> frontier;
};

std::map<cudaStream_t, StreamState>& streams() {
  static auto* m = new std::map<cudaStream_t, StreamState>;
  return *m;
}
std::map<cudaEvent_t, EventState>& events() {
  static auto* m = new std::map<cudaEvent_t, EventState>;
  return *m;
}
// Events last recorded in a capture that has ended: unusable until recorded outside a capture.
std::set<cudaEvent_t>& ended_events() {
  static auto* s = new std::set<cudaEvent_t>;
  return *s;
}
std::atomic<int> g_active{0};  // captures in progress in the process: 0 keeps the hooks cheap
std::atomic<unsigned long long> g_next_id{1};
thread_local cudaStreamCaptureMode t_mode = cudaStreamCaptureModeGlobal;

bool is_legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }
bool is_blocking(cudaStream_t s) {
  unsigned flags = 0;
  return s != cudaStreamPerThread && cuStreamGetFlags(reinterpret_cast<CUstream>(s), &flags) == CUDA_SUCCESS &&
         (flags & CU_STREAM_NON_BLOCKING) == 0;
}

StreamState* state_of(cudaStream_t s) {
  auto it = streams().find(s);
  return it == streams().end() ? nullptr : &it->second;
}

void invalidate(Capture& c, const char* why) {
  if (!c.invalidated) trace::note(trace::Layer::Cudart, "capture {} invalidated: {}", c.id, why);
  c.invalidated = true;
}

// Ends capture c in every stream and event that belongs to it.
void finish(const std::shared_ptr<Capture>& c) {
  std::erase_if(streams(), [&](auto& kv) { return kv.second.capture == c; });
  std::erase_if(events(), [&](auto& kv) {
    if (kv.second.capture != c) return false;
    ended_events().insert(kv.first);
    return true;
  });
  --g_active;
}

// Work on the legacy stream synchronizes with every blocking stream: a capture in one of them is
// invalidated and the call fails with cudaErrorStreamCaptureImplicit. (The mutex is held.)
std::optional<cudaError_t> implicit_sync(const char* api) {
  bool hit = false;
  for (auto& [stream, s] : streams())
    if (s.blocking) {
      invalidate(*s.capture, fmt::format("{} on the legacy stream", api).c_str());
      hit = true;
    }
  if (!hit) return std::nullopt;
  return cudaErrorStreamCaptureImplicit;
}

void ancestors(CUgraphNode_st* n, std::set<CUgraphNode_st*>* seen) {
  if (!seen->insert(n).second) return;
  for (auto* d : n->deps) ancestors(d, seen);
}

}  // namespace

namespace minicuda::cudart::graph {

std::optional<cudaError_t> capture_node(cudaStream_t stream, Payload node, CUgraphNode_st** added) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return is_legacy(stream) ? implicit_sync(type_name(node.type)) : std::nullopt;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  cudaGraphNodeType type = node.type;
  CUgraphNode_st* n = add_node_to(*s->capture->graph, std::move(node), s->frontier);
  trace::note(trace::Layer::Cudart, "captured into graph {}: node {} ({}) after {} dependencies",
              s->capture->graph->id, s->capture->graph->nodes.size() - 1, type_name(type), s->frontier.size());
  s->frontier = {n};
  if (added != nullptr) *added = n;
  return cudaSuccess;
}

bool capture_frontier_active(cudaStream_t stream) {
  if (g_active.load() == 0) return false;
  std::lock_guard lock(mutex());
  return state_of(stream) != nullptr;
}

bool capture_frontier(cudaStream_t stream, CUgraph_st** graph, std::vector<CUgraphNode_st*>* frontier) {
  if (g_active.load() == 0) return false;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr || s->capture->invalidated) return false;
  *graph = s->capture->graph;
  *frontier = s->frontier;
  return true;
}

std::optional<cudaError_t> capture_kernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                          cudaStream_t stream) {
  if (g_active.load() == 0) return std::nullopt;
  {
    std::lock_guard lock(mutex());
    if (state_of(stream) == nullptr) return is_legacy(stream) ? implicit_sync("a kernel launch") : std::nullopt;
  }
  cudaKernelNodeParams p{const_cast<void*>(func), grid, block, static_cast<unsigned>(shared), args, nullptr};
  Payload node;
  if (cudaError_t e = kernel_payload(&p, &node); e != cudaSuccess) return e;
  return capture_node(stream, std::move(node));
}

std::optional<cudaError_t> capture_event_record(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(mutex());
  ended_events().erase(event);  // recorded again: what it holds now counts
  StreamState* s = state_of(stream);
  if (s == nullptr) return std::nullopt;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  if (event == nullptr) return cudaErrorInvalidResourceHandle;
  events()[event] = {s->capture, s->frontier};
  return cudaSuccess;
}

std::optional<cudaError_t> capture_wait_event(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard lock(mutex());
  if (ended_events().count(event)) return cudaErrorInvalidValue;
  if (g_active.load() == 0) return std::nullopt;
  StreamState* s = state_of(stream);
  auto ev = events().find(event);
  if (ev == events().end()) {
    if (s == nullptr) return std::nullopt;
    invalidate(*s->capture, "a wait on an event recorded outside the capture");
    return cudaErrorStreamCaptureIsolation;
  }
  if (s == nullptr) {  // fork: the stream joins the capture after the event's nodes
    if (is_legacy(stream)) return cudaErrorStreamCaptureImplicit;
    streams()[stream] = {ev->second.capture, ev->second.frontier, is_blocking(stream), {}};
    return cudaSuccess;
  }
  if (s->capture != ev->second.capture) return cudaErrorStreamCaptureMerge;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  for (auto* n : ev->second.frontier)  // join: the stream's next node also waits for the event's
    if (std::find(s->frontier.begin(), s->frontier.end(), n) == s->frontier.end()) s->frontier.push_back(n);
  return cudaSuccess;
}

std::optional<cudaError_t> capture_stream_call(cudaStream_t stream, const char* api, bool sync) {
  if (g_active.load() == 0) return std::nullopt;
  {
    std::lock_guard lock(mutex());
    if (StreamState* s = state_of(stream)) {
      invalidate(*s->capture, fmt::format("{} of the capturing stream", api).c_str());
      return cudaErrorStreamCaptureUnsupported;
    }
    if (is_legacy(stream)) return implicit_sync(api);
  }
  return sync ? capture_unsafe_call(api) : std::nullopt;
}

std::optional<cudaError_t> capture_legacy_call(const char* api) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  return implicit_sync(api);
}

std::optional<cudaError_t> capture_device_sync() {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  for (auto& [stream, s] : streams()) invalidate(*s.capture, "cudaDeviceSynchronize");
  return cudaErrorStreamCaptureUnsupported;
}

std::optional<cudaError_t> capture_event_use(cudaEvent_t event) {
  std::lock_guard lock(mutex());
  if (ended_events().count(event)) return cudaErrorInvalidValue;
  auto ev = events().find(event);
  if (ev == events().end()) return std::nullopt;
  invalidate(*ev->second.capture, "a query or wait of an event recorded in it");
  return cudaErrorCapturedEvent;
}

void capture_event_destroyed(cudaEvent_t event) {
  std::lock_guard lock(mutex());
  ended_events().erase(event);
  events().erase(event);
}

// The rule of cudaThreadExchangeStreamCaptureMode: in the thread's mode Relaxed nothing is
// forbidden; in ThreadLocal, an unsafe call is forbidden while the thread has a capture begun in
// Global or ThreadLocal mode; in Global (the default), also while another thread has a capture
// begun in Global mode. The captures that forbid it are invalidated.
std::optional<cudaError_t> capture_unsafe_call(const char* api) {
  if (g_active.load() == 0 || t_mode == cudaStreamCaptureModeRelaxed) return std::nullopt;
  std::lock_guard lock(mutex());
  bool forbidden = false;
  for (auto& [stream, s] : streams()) {
    Capture& c = *s.capture;
    bool mine = c.thread == std::this_thread::get_id();
    if ((mine && c.mode != cudaStreamCaptureModeRelaxed) ||
        (!mine && t_mode == cudaStreamCaptureModeGlobal && c.mode == cudaStreamCaptureModeGlobal)) {
      invalidate(c, api);
      forbidden = true;
    }
  }
  if (!forbidden) return std::nullopt;
  return cudaErrorStreamCaptureUnsupported;
}

}  // namespace minicuda::cudart::graph

namespace {
// The body of cudaStreamBeginCapture(ToGraph): into graph (the capture's own when null), after deps.
cudaError_t begin_capture(trace::Scope& scope, cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* deps,
                          size_t ndeps, cudaStreamCaptureMode mode) {
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return done(scope, cudaErrorInvalidValue);
  if (is_legacy(stream)) return done(scope, cudaErrorStreamCaptureUnsupported);
  std::lock_guard lock(mutex());
  if (state_of(stream) != nullptr) return done(scope, cudaErrorIllegalState);
  std::vector<CUgraphNode_st*> frontier;
  if (graph != nullptr) {
    if (!live_graph(graph) || (ndeps != 0 && deps == nullptr)) return done(scope, cudaErrorInvalidValue);
    for (size_t i = 0; i < ndeps; ++i) {
      if (!live_node(deps[i]) || deps[i]->graph != graph) return done(scope, cudaErrorInvalidValue);
      frontier.push_back(deps[i]);
    }
  }
  auto c = std::make_shared<Capture>();
  c->owns_graph = graph == nullptr;
  c->graph = graph != nullptr ? graph : adopt(std::make_unique<CUgraph_st>());
  c->origin = stream, c->mode = mode, c->thread = std::this_thread::get_id(), c->id = g_next_id++;
  streams()[stream] = {c, frontier, is_blocking(stream), {}};
  ++g_active;
  trace::note(trace::Layer::Cudart, "capture {} into graph {}{}", c->id, c->graph->id,
              c->owns_graph ? "" : fmt::format(" (the program's, after {} nodes)", frontier.size()));
  return done(scope, cudaSuccess);
}
}  // namespace

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamBeginCapture(stream={}, mode={})", static_cast<void*>(stream),
                     static_cast<int>(mode));
  return begin_capture(scope, stream, nullptr, nullptr, 0, mode);
}

// Contract: as cudaStreamBeginCapture, but the work becomes nodes of graph, after dependencies;
// cudaStreamEndCapture hands graph back. dependencyData: default edges only (NULL or zeros). A graph
// that is not live, a dependency that is not a node of it: cudaErrorInvalidValue.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t* dependencies,
                                          const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                          cudaStreamCaptureMode mode) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamBeginCaptureToGraph(stream={}, graph={}, numDependencies={}, mode={})",
                     static_cast<void*>(stream), static_cast<void*>(graph), numDependencies, static_cast<int>(mode));
  if (graph == nullptr) return done(scope, cudaErrorInvalidValue);
  for (size_t i = 0; dependencyData != nullptr && i < numDependencies; ++i)
    if (dependencyData[i].from_port != 0 || dependencyData[i].to_port != 0 || dependencyData[i].type != 0) {
      trace::note(trace::Layer::Cudart, "cudaStreamBeginCaptureToGraph: only default edges are built");
      return done(scope, cudaErrorNotSupported);
    }
  return begin_capture(scope, stream, graph, dependencies, numDependencies, mode);
}

// Contract: the capturing stream's next node depends on `dependencies` added to (flags
// cudaStreamAddCaptureDependencies) or instead of (cudaStreamSetCaptureDependencies) its current
// ones. Each must be a node of the capture's graph. Other flags, a node of another graph, NULL
// with a count: cudaErrorInvalidValue; a stream that does not capture: cudaErrorIllegalState.
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* dependencies,
                                                const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                                                unsigned int flags) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamUpdateCaptureDependencies(stream={}, numDependencies={}, flags={})",
                     static_cast<void*>(stream), numDependencies, flags);
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (flags > cudaStreamSetCaptureDependencies || (numDependencies != 0 && dependencies == nullptr))
    return done(scope, cudaErrorInvalidValue);
  (void)dependencyData;  // default edges
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return done(scope, cudaErrorIllegalState);
  if (s->capture->invalidated) return done(scope, cudaErrorStreamCaptureInvalidated);
  for (size_t i = 0; i < numDependencies; ++i)
    if (!live_node(dependencies[i]) || dependencies[i]->graph != s->capture->graph) return done(scope, cudaErrorInvalidValue);
  if (flags == cudaStreamSetCaptureDependencies) s->frontier.clear();
  for (size_t i = 0; i < numDependencies; ++i)
    if (std::find(s->frontier.begin(), s->frontier.end(), dependencies[i]) == s->frontier.end())
      s->frontier.push_back(dependencies[i]);
  return done(scope, cudaSuccess);
}

// A NULL pGraph ends the capture and drops its graph (recorded: cudaSuccess).
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamEndCapture(stream={}, pGraph={})", static_cast<void*>(stream),
                     static_cast<void*>(pGraph));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return done(scope, cudaErrorIllegalState);
  std::shared_ptr<Capture> c = s->capture;
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    return done(scope, cudaErrorStreamCaptureWrongThread);
  if (pGraph != nullptr) *pGraph = nullptr;
  if (c->origin != stream) {  // the capture goes on, invalidated, until its origin ends it
    invalidate(*c, "ended in another stream than the one that began it");
    return done(scope, cudaErrorStreamCaptureUnmatched);
  }
  auto fail = [&](cudaError_t e) {
    finish(c);
    if (c->owns_graph) destroy(c->graph);
    return done(scope, e);
  };
  if (c->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
  std::set<CUgraphNode_st*> joined;
  for (auto* n : s->frontier) ancestors(n, &joined);
  for (auto& [other, st] : streams())
    if (st.capture == c && other != stream)
      for (auto* n : st.frontier)
        if (!joined.count(n)) return fail(cudaErrorStreamCaptureUnjoined);
  finish(c);
  trace::note(trace::Layer::Cudart, "capture {} ended: graph {} of {} nodes", c->id, c->graph->id,
              c->graph->nodes.size());
  if (pGraph == nullptr) {
    if (c->owns_graph) destroy(c->graph);
  } else {
    *pGraph = c->graph;
  }
  return done(scope, cudaSuccess);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamIsCapturing(stream={})", static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (pCaptureStatus == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  // The legacy stream while a blocking stream captures: recorded as cudaErrorStreamCaptureImplicit
  // with the status None (whether the query invalidates the capture was not recorded: it does not).
  if (s == nullptr && is_legacy(stream) &&
      std::any_of(streams().begin(), streams().end(), [](auto& kv) { return kv.second.blocking; })) {
    *pCaptureStatus = cudaStreamCaptureStatusNone;
    return done(scope, cudaErrorStreamCaptureImplicit);
  }
  *pCaptureStatus = s == nullptr                ? cudaStreamCaptureStatusNone
                    : s->capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                              : cudaStreamCaptureStatusActive;
  return done(scope, cudaSuccess);
}

// The capture's id, graph and the stream's current dependencies (arrays valid until the stream's
// next captured call) for an active capture; only the status otherwise (recorded: the outputs of a
// stream that does not capture stay as they were, and an invalidated capture's id is not handed out).
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out, const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamGetCaptureInfo(stream={})", static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (captureStatus_out == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr || s->capture->invalidated) {
    *captureStatus_out = s == nullptr ? cudaStreamCaptureStatusNone : cudaStreamCaptureStatusInvalidated;
    return done(scope, cudaSuccess);
  }
  *captureStatus_out = cudaStreamCaptureStatusActive;
  s->edge_data.assign(std::max<size_t>(s->frontier.size(), 1), cudaGraphEdgeData{});  // default edges
  if (id_out != nullptr) *id_out = s->capture->id;
  if (graph_out != nullptr) *graph_out = s->capture->graph;
  if (dependencies_out != nullptr) *dependencies_out = s->frontier.data();
  if (edgeData_out != nullptr) *edgeData_out = s->edge_data.data();
  if (numDependencies_out != nullptr) *numDependencies_out = s->frontier.size();
  return done(scope, cudaSuccess);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  trace::Scope scope(trace::Layer::Cudart, "cudaThreadExchangeStreamCaptureMode(mode={})", static_cast<void*>(mode));
  if (mode == nullptr || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
    return done(scope, cudaErrorInvalidValue);
  std::swap(*mode, t_mode);
  return done(scope, cudaSuccess);
}

namespace minicuda::cudart::graph {

std::optional<cudaError_t> capture_host(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  if (g_active.load() == 0) return std::nullopt;
  Payload p;
  p.type = cudaGraphNodeTypeHost;
  p.host = {fn, data};
  return capture_node(stream, std::move(p));
}
std::optional<cudaError_t> capture_copy(cudaStream_t stream, void* dst, const void* src, size_t count,
                                        cudaMemcpyKind kind) {
  if (g_active.load() == 0) return std::nullopt;
  Payload p;
  p.type = cudaGraphNodeTypeMemcpy;
  p.copy1d = true, p.dst = dst, p.src = src, p.count = count, p.kind = kind;
  return capture_node(stream, std::move(p));
}
std::optional<cudaError_t> capture_memset(cudaStream_t stream, void* dst, int value, size_t count) {
  if (g_active.load() == 0) return std::nullopt;
  Payload p;
  p.type = cudaGraphNodeTypeMemset;
  p.memset = {dst, 0, static_cast<unsigned char>(value), 1, count, 1};
  return capture_node(stream, std::move(p));
}

}  // namespace minicuda::cudart::graph
