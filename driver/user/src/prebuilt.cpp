// Prebuilt work: recording a channel's methods into device-visible memory, and submitting them
// later as GPFIFO entries (prebuilt.h; the export table of cuda_graphs.h).
#include "prebuilt.h"

#include <algorithm>
#include <cstring>

#include "host_clock.h"
#include "libcuda.h"

namespace minicuda::libcuda::prebuilt {

namespace {

thread_local CUprebuilt_st* t_recording = nullptr;


void free_chunks(CUprebuilt_st& r) {
  if (r.ctx != nullptr)
    for (auto& c : r.chunks) free_mapped_system_memory(*r.ctx, c.cpu, kChunkBytes, c.memory);
  r.chunks.clear();
}

// Frees the retired recordings whose last launch the GPU has finished (or whose context is gone).
void reclaim() {
  auto& retired = driver().prebuilt_retired;
  for (auto it = retired.begin(); it != retired.end();) {
    CUprebuilt_st* r = *it;
    if (r->ctx != nullptr && !r->channel->reached_or_faulted(r->last_fence)) {
      ++it;
      continue;
    }
    free_chunks(*r);
    delete r;
    it = retired.erase(it);
  }
}

// Ends the segment being recorded in the last chunk (when it holds methods).
void close_segment(CUprebuilt_st& r) {
  if (r.chunks.empty()) return;
  const auto& c = r.chunks.back();
  if (c.methods_end > r.segment_start) {
    r.open.segments.push_back({reinterpret_cast<uint64_t>(c.cpu) + r.segment_start,
                               static_cast<uint32_t>((c.methods_end - r.segment_start) / 4)});
  }
  r.segment_start = c.methods_end;
}

// A fresh chunk; false (the recording void) when the memory cannot be had.
bool new_chunk(CUprebuilt_st& r) {
  close_segment(r);
  CUprebuilt_st::Chunk c;
  c.cpu = map_system_memory(*r.ctx, kChunkBytes, &c.memory);
  if (c.cpu == nullptr) {
    free_mapped_system_memory(*r.ctx, nullptr, 0, c.memory);
    trace::note(trace::Layer::Libcuda, "prebuilt: no memory for a {} KiB chunk; the recording is void",
                kChunkBytes >> 10);
    r.out_of_memory = true;
    return false;
  }
  c.data_begin = kChunkBytes;
  trace::note(trace::Layer::Libcuda, "prebuilt: chunk {} of {} KiB at {:#x}, mapped for the GPU", r.chunks.size(),
              kChunkBytes >> 10, reinterpret_cast<uint64_t>(c.cpu));
  r.chunks.push_back(c);
  r.segment_start = 0;
  return true;
}

// Room for bytes of methods (methods) or of launch data in the last chunk, a new one if needed.
bool room(CUprebuilt_st& r, uint64_t bytes) {
  if (r.out_of_memory) return false;
  if (!r.chunks.empty() && r.chunks.back().methods_end + bytes <= r.chunks.back().data_begin) return true;
  return new_chunk(r) && bytes <= kChunkBytes;
}

}  // namespace

CUprebuilt_st* recording_for(const Channel& ch) {
  CUprebuilt_st* r = t_recording;
  return r != nullptr && r->channel == &ch ? r : nullptr;
}

void record_method(CUprebuilt_st& r, uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
  const uint64_t bytes = 4 * (data.size() + 1);
  if (!room(r, bytes)) return;
  auto& c = r.chunks.back();
  auto* p = reinterpret_cast<uint32_t*>(c.cpu + c.methods_end);
  *p++ = nv_method_inc(subchannel, method, static_cast<NvU32>(data.size()));
  for (uint32_t v : data) *p++ = v;
  c.methods_end += bytes;
}

Channel::LaunchData record_launch_data(CUprebuilt_st& r, uint64_t bytes) {
  bytes = (bytes + NVCBC0_QMD_ALIGNMENT - 1) / NVCBC0_QMD_ALIGNMENT * NVCBC0_QMD_ALIGNMENT;
  auto fits = [&] {
    const auto& c = r.chunks.back();
    return c.data_begin >= bytes && c.data_begin - bytes >= c.methods_end;
  };
  if (r.out_of_memory || ((r.chunks.empty() || !fits()) && (!new_chunk(r) || !fits()))) {
    // Void (or larger than a chunk): the writes go to scratch memory, the recording is not used.
    r.out_of_memory = true;
    r.scratch.assign(bytes, 0);
    return {r.scratch.data(), 0};
  }
  auto& c = r.chunks.back();
  c.data_begin -= bytes;
  return {c.cpu + c.data_begin, reinterpret_cast<uint64_t>(c.cpu) + c.data_begin};
}

void record_submit(CUprebuilt_st& r) { ++r.open.steps; }

uint64_t host_cost(const Channel& ch, uint64_t ns) {
  return recording_for(ch) != nullptr ? host_clock::kPrebuiltRecordNs : ns;
}

CUresult refuse_if_recording(const Channel& ch, const char* what) {
  if (recording_for(ch) == nullptr) return CUDA_SUCCESS;
  trace::note(trace::Layer::Libcuda, "prebuilt: {} needs the host when it runs: not recorded", what);
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

void context_torn_down(CUctx_st& ctx) {
  auto forget = [&](std::set<CUprebuilt_st*>& set) {
    for (CUprebuilt_st* r : set) {
      if (r->ctx != &ctx) continue;
      free_chunks(*r);
      r->ctx = nullptr;
      r->channel = nullptr;
    }
  };
  forget(driver().prebuilt);
  forget(driver().prebuilt_retired);
  reclaim();
}

namespace {

// The export table's calls. Each takes the driver's lock, as every cu* entry point does.

CUresult record_begin(CUprebuilt* pPrebuilt, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "prebuilt RecordBegin(hStream={})", static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (pPrebuilt == nullptr) return done(scope, CUDA_ERROR_INVALID_VALUE);
  if (t_recording != nullptr) return done(scope, CUDA_ERROR_ILLEGAL_STATE);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream); r != CUDA_SUCCESS) return done(scope, r);
  reclaim();
  auto* p = new CUprebuilt_st;
  p->ctx = ctx;
  p->channel = &channel_of(*ctx, stream);
  p->channel_serial = p->channel->serial();
  p->recording = true;
  driver().prebuilt.insert(p);
  t_recording = p;
  trace::note(trace::Layer::Libcuda, "prebuilt: this thread's work for channel {} is recorded, not submitted",
              p->channel_serial);
  *pPrebuilt = p;
  return done(scope, CUDA_SUCCESS);
}

CUresult record_piece(CUprebuilt prebuilt, unsigned* pPiece) {
  std::lock_guard lock(driver_mutex());
  if (driver().prebuilt.count(prebuilt) == 0 || !prebuilt->recording || pPiece == nullptr) return CUDA_ERROR_INVALID_VALUE;
  close_segment(*prebuilt);
  *pPiece = static_cast<unsigned>(prebuilt->pieces.size());
  uint64_t dwords = 0;
  for (auto& s : prebuilt->open.segments) dwords += s.dwords;
  trace::note(trace::Layer::Libcuda, "prebuilt: piece {}: {} step(s) in {} segment(s), {} dwords", *pPiece,
              prebuilt->open.steps, prebuilt->open.segments.size(), dwords);
  prebuilt->pieces.push_back(std::move(prebuilt->open));
  prebuilt->open = {};
  return CUDA_SUCCESS;
}

CUresult destroy(CUprebuilt prebuilt);

CUresult record_end(CUprebuilt prebuilt) {
  {
    std::lock_guard lock(driver_mutex());
    if (driver().prebuilt.count(prebuilt) == 0 || !prebuilt->recording || t_recording != prebuilt)
      return CUDA_ERROR_INVALID_VALUE;
    t_recording = nullptr;
    prebuilt->recording = false;
    close_segment(*prebuilt);
    if (!prebuilt->out_of_memory) return CUDA_SUCCESS;
  }
  (void)destroy(prebuilt);
  return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult launch(CUprebuilt prebuilt, unsigned piece, CUstream hStream) {
  trace::Scope scope(trace::Layer::Libcuda, "prebuilt Launch(piece={}, hStream={})", piece, static_cast<void*>(hStream));
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return done(scope, r);
  if (driver().prebuilt.count(prebuilt) == 0 || prebuilt->recording || piece >= prebuilt->pieces.size())
    return done(scope, CUDA_ERROR_INVALID_VALUE);
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream); r != CUDA_SUCCESS) return done(scope, r);
  Channel& ch = channel_of(*ctx, stream);
  if (prebuilt->ctx != ctx || prebuilt->channel != &ch) return done(scope, CUDA_ERROR_INVALID_HANDLE);
  const CUprebuilt_st::Piece& p = prebuilt->pieces[piece];
  if (p.segments.empty()) return done(scope, CUDA_SUCCESS);
  host_clock::spend(host_clock::kPrebuiltLaunchNs + p.steps * host_clock::kPrebuiltLaunchPerTwoStepsNs / 2);
  order_with_null_stream(*ctx, stream);
  const uint64_t fence = ch.submit(p.segments);
  prebuilt->last_fence = fence;
  submitted(stream, fence);
  if (driver().launch_blocking) {
    if (CUresult r = ch.wait(fence); r != CUDA_SUCCESS) return done(scope, *ctx, r);
  }
  return done(scope, CUDA_SUCCESS);
}

CUresult stream_channel(CUstream hStream, unsigned long long* pChannel) {
  std::lock_guard lock(driver_mutex());
  CUcontext ctx = nullptr;
  if (CUresult r = require_context(&ctx); r != CUDA_SUCCESS) return r;
  if (pChannel == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUstream_st* stream = nullptr;
  if (CUresult r = resolve_stream(*ctx, hStream, &stream); r != CUDA_SUCCESS) return r;
  *pChannel = channel_of(*ctx, stream).serial();
  return CUDA_SUCCESS;
}

CUresult destroy(CUprebuilt prebuilt) {
  std::lock_guard lock(driver_mutex());
  if (driver().prebuilt.erase(prebuilt) == 0) return CUDA_ERROR_INVALID_VALUE;
  if (t_recording == prebuilt) t_recording = nullptr;
  driver().prebuilt_retired.insert(prebuilt);
  reclaim();
  return CUDA_SUCCESS;
}

const CUetblMinicudaPrebuilt kTable = {sizeof(CUetblMinicudaPrebuilt), record_begin, record_piece, record_end,
                                       launch,   stream_channel,        destroy};

}  // namespace

const CUetblMinicudaPrebuilt& table() { return kTable; }

}  // namespace minicuda::libcuda::prebuilt
