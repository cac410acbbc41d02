// Stream capture (graph.h): cudaStreamBeginCapture turns a stream into a recorder. Work submitted
// to it - kernels, async copies and memsets, host functions - becomes a node of the capture's
// graph that depends on the stream's current frontier (its last nodes), instead of running. An
// event recorded in a capturing stream remembers that frontier; a stream that waits on it joins the
// capture (fork) or merges the frontier into its own (join). cudaStreamEndCapture, in the stream
// that began it, hands back the graph once every joined stream was joined back.
//
// Errors (the CUDA 13 header's documentation; not recorded on the device):
//   - beginning a capture on the legacy stream: cudaErrorStreamCaptureUnsupported; on a stream
//     already capturing: cudaErrorIllegalState;
//   - cudaStreamSynchronize/Query of a capturing stream, and the potentially unsafe calls the
//     capture mode forbids (see capture_unsafe_call): cudaErrorStreamCaptureUnsupported, and the
//     capture is invalidated; work submitted to an invalidated capture, and its end:
//     cudaErrorStreamCaptureInvalidated;
//   - waiting on an event recorded outside the capture: cudaErrorStreamCaptureIsolation;
//   - ending in another stream than the origin: cudaErrorStreamCaptureUnmatched; with a joined
//     stream's work not joined back: cudaErrorStreamCaptureUnjoined; from another thread than the
//     one that began a global or thread-local capture: cudaErrorStreamCaptureWrongThread.
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
};
struct StreamState {
  std::shared_ptr<Capture> capture;
  std::vector<CUgraphNode_st*> frontier;  // the nodes the stream's next node depends on
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
std::atomic<int> g_active{0};  // captures in progress in the process: 0 keeps the hooks cheap
std::atomic<unsigned long long> g_next_id{1};
thread_local cudaStreamCaptureMode t_mode = cudaStreamCaptureModeGlobal;

bool is_legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

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
  std::erase_if(events(), [&](auto& kv) { return kv.second.capture == c; });
  --g_active;
}

void ancestors(CUgraphNode_st* n, std::set<CUgraphNode_st*>* seen) {
  if (!seen->insert(n).second) return;
  for (auto* d : n->deps) ancestors(d, seen);
}

}  // namespace

namespace minicuda::cudart::graph {

std::optional<cudaError_t> capture_node(cudaStream_t stream, Payload node) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return std::nullopt;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  cudaGraphNodeType type = node.type;
  CUgraphNode_st* n = add_node_to(*s->capture->graph, std::move(node), s->frontier);
  trace::note(trace::Layer::Cudart, "captured into graph {}: node {} ({}) after {} dependencies",
              s->capture->graph->id, s->capture->graph->nodes.size() - 1, type_name(type), s->frontier.size());
  s->frontier = {n};
  return cudaSuccess;
}

std::optional<cudaError_t> capture_kernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                          cudaStream_t stream) {
  if (g_active.load() == 0) return std::nullopt;
  {
    std::lock_guard lock(mutex());
    if (state_of(stream) == nullptr) return std::nullopt;
  }
  cudaKernelNodeParams p{const_cast<void*>(func), grid, block, static_cast<unsigned>(shared), args, nullptr};
  Payload node;
  if (cudaError_t e = kernel_payload(&p, &node); e != cudaSuccess) return e;
  return capture_node(stream, std::move(node));
}

std::optional<cudaError_t> capture_event_record(cudaEvent_t event, cudaStream_t stream) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return std::nullopt;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  if (event == nullptr) return cudaErrorInvalidResourceHandle;
  events()[event] = {s->capture, s->frontier};
  return cudaSuccess;
}

std::optional<cudaError_t> capture_wait_event(cudaStream_t stream, cudaEvent_t event) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  auto ev = events().find(event);
  if (ev == events().end()) {
    if (s == nullptr) return std::nullopt;
    invalidate(*s->capture, "a wait on an event recorded outside the capture");
    return cudaErrorStreamCaptureIsolation;
  }
  if (s == nullptr) {  // fork: the stream joins the capture after the event's nodes
    if (is_legacy(stream)) return cudaErrorStreamCaptureImplicit;
    streams()[stream] = {ev->second.capture, ev->second.frontier};
    return cudaSuccess;
  }
  if (s->capture != ev->second.capture) return cudaErrorStreamCaptureMerge;
  if (s->capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  for (auto* n : ev->second.frontier)  // join: the stream's next node also waits for the event's
    if (std::find(s->frontier.begin(), s->frontier.end(), n) == s->frontier.end()) s->frontier.push_back(n);
  return cudaSuccess;
}

std::optional<cudaError_t> capture_sync(cudaStream_t stream) {
  if (g_active.load() == 0) return std::nullopt;
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return std::nullopt;
  invalidate(*s->capture, "the capturing stream was synchronized");
  return cudaErrorStreamCaptureUnsupported;
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

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamBeginCapture(stream={}, mode={})", static_cast<void*>(stream),
                     static_cast<int>(mode));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return done(scope, cudaErrorInvalidValue);
  if (is_legacy(stream)) return done(scope, cudaErrorStreamCaptureUnsupported);
  std::lock_guard lock(mutex());
  if (state_of(stream) != nullptr) return done(scope, cudaErrorIllegalState);
  auto c = std::make_shared<Capture>();
  c->graph = adopt(std::make_unique<CUgraph_st>());
  c->origin = stream, c->mode = mode, c->thread = std::this_thread::get_id(), c->id = g_next_id++;
  streams()[stream] = {c, {}};
  ++g_active;
  trace::note(trace::Layer::Cudart, "capture {} into graph {}", c->id, c->graph->id);
  return done(scope, cudaSuccess);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamEndCapture(stream={}, pGraph={})", static_cast<void*>(stream),
                     static_cast<void*>(pGraph));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (pGraph == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) return done(scope, cudaErrorIllegalState);
  std::shared_ptr<Capture> c = s->capture;
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    return done(scope, cudaErrorStreamCaptureWrongThread);
  *pGraph = nullptr;
  auto fail = [&](cudaError_t e) {
    finish(c);
    destroy(c->graph);
    return done(scope, e);
  };
  if (c->origin != stream) {
    invalidate(*c, "ended in another stream than the one that began it");
    return fail(cudaErrorStreamCaptureUnmatched);
  }
  if (c->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
  std::set<CUgraphNode_st*> joined;
  for (auto* n : s->frontier) ancestors(n, &joined);
  for (auto& [other, st] : streams())
    if (st.capture == c && other != stream)
      for (auto* n : st.frontier)
        if (!joined.count(n)) return fail(cudaErrorStreamCaptureUnjoined);
  finish(c);
  *pGraph = c->graph;
  trace::note(trace::Layer::Cudart, "capture {} ended: graph {} of {} nodes", c->id, c->graph->id,
              c->graph->nodes.size());
  return done(scope, cudaSuccess);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamIsCapturing(stream={})", static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (pCaptureStatus == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  *pCaptureStatus = s == nullptr                ? cudaStreamCaptureStatusNone
                    : s->capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                              : cudaStreamCaptureStatusActive;
  return done(scope, cudaSuccess);
}

// The capture's id, graph and the stream's current dependencies (arrays valid until the stream's
// next captured call), for an active or invalidated capture; only the status otherwise.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out, const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  trace::Scope scope(trace::Layer::Cudart, "cudaStreamGetCaptureInfo(stream={})", static_cast<void*>(stream));
  if (cudaError_t e = ensure_context(); e != cudaSuccess) return done(scope, e);
  if (captureStatus_out == nullptr) return done(scope, cudaErrorInvalidValue);
  std::lock_guard lock(mutex());
  StreamState* s = state_of(stream);
  if (s == nullptr) {
    *captureStatus_out = cudaStreamCaptureStatusNone;
    return done(scope, cudaSuccess);
  }
  *captureStatus_out = s->capture->invalidated ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive;
  if (id_out != nullptr) *id_out = s->capture->id;
  if (graph_out != nullptr) *graph_out = s->capture->graph;
  if (dependencies_out != nullptr) *dependencies_out = s->frontier.data();
  if (edgeData_out != nullptr) *edgeData_out = nullptr;  // all edges are default ones
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
