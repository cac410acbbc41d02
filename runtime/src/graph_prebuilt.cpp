// Prebuilt graph launches (graph_exec.h): an executable graph's kernels, copies and memsets are
// encoded once per channel into device-visible memory, through libcuda's CUetblMinicudaPrebuilt
// table, and each launch submits them as GPFIFO entries pointing at that memory
// (docs/graphs.md, "What a graph is on the GPU").
//
// Recording runs the steps through the usual calls while libcuda writes their methods into the
// recording: a kernel step is a cuLaunchKernel as ever, so the same checks and the same QMD
// come out of it. A step whose work needs the host when it runs is refused by libcuda
// (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, before it does anything) and becomes a live step of
// the launch; host, event, memory and conditional steps are live from the start.
#include "graph_exec.h"

using namespace minicuda;
using namespace minicuda::cudart;
using namespace minicuda::cudart::graph;

namespace {

const CUetblMinicudaPrebuilt* table() {
  static const CUetblMinicudaPrebuilt* t = [] {
    const void* p = nullptr;
    return cuGetExportTable(&p, &CU_ETID_MinicudaPrebuilt) == CUDA_SUCCESS
               ? static_cast<const CUetblMinicudaPrebuilt*>(p)
               : nullptr;
  }();
  return t;
}

// Steps whose work may be pushbuffer methods alone.
bool may_prebuild(const Step& s) {
  switch (s.payload.type) {
    case cudaGraphNodeTypeKernel:
    case cudaGraphNodeTypeMemcpy:
    case cudaGraphNodeTypeMemset: return true;
    default: return false;
  }
}

void release(const Prebuilt& p) {
  if (p.handle != nullptr) (void)table()->Destroy(p.handle);
}

// Records exec's main sequence for stream's channel into *out; api (the call that records) names
// the kernels' launches in the trace. False when the work cannot be
// prebuilt (out of memory, or a step failed: the launch then submits step by step and reports it).
bool record(const CUgraphExec_st& exec, cudaStream_t stream, unsigned long long channel, const char* api,
            Prebuilt* out) {
  const CUetblMinicudaPrebuilt& t = *table();
  Prebuilt p;
  p.channel = channel;
  if (t.RecordBegin(&p.handle, stream) != CUDA_SUCCESS) return false;
  // The calls made here are the graph's, not the program's: they leave the last error alone.
  const cudaError_t program_error = exchange_last_error(cudaSuccess);
  bool pending = false, failed = false;
  auto close_piece = [&] {
    unsigned piece = 0;
    if (!pending) return;
    if (t.RecordPiece(p.handle, &piece) != CUDA_SUCCESS) failed = true;
    p.items.push_back({static_cast<int>(piece), nullptr});
    pending = false;
  };
  for (const Step& s : exec.main.steps) {
    if (may_prebuild(s)) {
      const cudaError_t e = run_step(exec, s, stream, api);
      if (e == cudaSuccess) {
        pending = true;
        continue;
      }
      if (e != cudaErrorStreamCaptureUnsupported) {
        failed = true;
        break;
      }
    }
    close_piece();
    p.items.push_back({-1, &s});
  }
  close_piece();
  const CUresult ended = t.RecordEnd(p.handle);  // out of memory: destroyed already
  if (ended != CUDA_SUCCESS) p.handle = nullptr;
  (void)exchange_last_error(program_error);
  if (failed || ended != CUDA_SUCCESS) {
    trace::note(trace::Layer::Cudart, "graph {}: its work could not be prebuilt; the launch submits it step by step",
                exec.graph_id);
    release(p);
    return false;
  }
  size_t pieces = 0, live = 0;
  for (auto& item : p.items) (item.piece >= 0 ? pieces : live) += 1;
  trace::note(trace::Layer::Cudart, "graph {}: prebuilt for channel {}: {} piece(s), {} step(s) submitted at launch",
              exec.graph_id, channel, pieces, live);
  *out = std::move(p);
  return true;
}

// The prebuilt work of exec for stream's channel: found, or recorded now; null when it cannot be had.
const Prebuilt* prebuilt_for(CUgraphExec_st& exec, cudaStream_t stream, const char* api) {
  if (table() == nullptr) return nullptr;
  unsigned long long channel = 0;
  if (table()->StreamChannel(stream, &channel) != CUDA_SUCCESS) return nullptr;
  for (const Prebuilt& p : exec.prebuilt)
    if (p.channel == channel) return &p;
  Prebuilt p;
  if (!record(exec, stream, channel, api, &p)) return nullptr;
  exec.prebuilt.push_back(std::move(p));
  return &exec.prebuilt.back();
}

}  // namespace

namespace minicuda::cudart::graph {

cudaError_t launch(CUgraphExec_st& exec, cudaStream_t stream) {
  const Prebuilt* p = prebuilt_for(exec, stream, "cudaGraphLaunch");
  if (p == nullptr) {
    trace::note(trace::Layer::Cudart, "graph {}: {} steps onto stream {}", exec.graph_id, exec.main.steps.size(),
                static_cast<void*>(stream));
    return run(exec, exec.main, stream);
  }
  trace::note(trace::Layer::Cudart, "graph {}: prebuilt work onto stream {}", exec.graph_id, static_cast<void*>(stream));
  for (auto& h : exec.main.defaults)
    if (cudaError_t e = assign_default(*h, stream); e != cudaSuccess) return e;
  for (const Prebuilt::Item& item : p->items) {
    const cudaError_t e = item.live != nullptr
                              ? run_step(exec, *item.live, stream)
                              : to_cuda_error(table()->Launch(p->handle, static_cast<unsigned>(item.piece), stream));
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t upload(CUgraphExec_st& exec, cudaStream_t stream) {
  if (prebuilt_for(exec, stream, "cudaGraphUpload") == nullptr)
    trace::note(trace::Layer::Cudart, "graph {}: nothing prebuilt; its launches submit it step by step",
                exec.graph_id);
  return cudaSuccess;
}

void drop_prebuilt(CUgraphExec_st& exec) {
  for (const Prebuilt& p : exec.prebuilt) release(p);
  exec.prebuilt.clear();
}

}  // namespace minicuda::cudart::graph
