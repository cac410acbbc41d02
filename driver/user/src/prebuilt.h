// Private to libcuda: prebuilt work (cuda_graphs.h, CUetblMinicudaPrebuilt; docs/graphs.md).
//
// An executable graph's kernels, copies and memsets are encoded once, for the channel of the
// stream the graph runs on: while a thread records, Channel::method() and launch_data() write
// into the recording's chunks (NV01_MEMORY_SYSTEM objects mapped for the CPU and, at the same
// address, for the GPU) instead of the channel's pushbuffer and launch-data ring, and
// Channel::submit() publishes nothing. Each chunk holds methods growing up from its start and
// launch data (QMDs and constant banks) growing down from its end. A piece is a list of
// segments - runs of methods in one chunk - that a launch submits as one GPFIFO entry each
// (Channel::submit with prebuilt segments), behind the host-timeline methods of the launch and
// before its fence. The GPU reads the same memory at every launch; nothing in it changes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "channel.h"

struct CUprebuilt_st {
  CUctx_st* ctx = nullptr;  // null once the context is torn down (its memory went with it)
  minicuda::libcuda::Channel* channel = nullptr;
  uint64_t channel_serial = 0;
  struct Chunk {
    NvHandle memory = 0;
    uint8_t* cpu = nullptr;  // also the GPU address
    uint64_t methods_end = 0, data_begin = 0;  // offsets: [0, methods_end) methods, [data_begin, size) data
  };
  std::vector<Chunk> chunks;
  uint64_t segment_start = 0;  // offset in the last chunk of the segment being recorded
  struct Piece {
    std::vector<minicuda::libcuda::PushSegment> segments;
    uint64_t steps = 0;  // the calls recorded into it (each ended with a Channel::submit)
  };
  Piece open;  // the piece being recorded
  std::vector<Piece> pieces;
  bool out_of_memory = false;            // a chunk could not be had: the recording is void
  std::vector<uint8_t> scratch;          // where writes go once it is void
  uint64_t last_fence = 0;               // the channel's fence of the last launch of a piece
  bool recording = false;
};

namespace minicuda::libcuda::prebuilt {

// Bytes of one chunk.
inline constexpr uint64_t kChunkBytes = 128 << 10;

// The recording the calling thread makes for ch, or null (one thread-local load).
CUprebuilt_st* recording_for(const Channel& ch);
// Channel::method() and launch_data() while recording.
void record_method(CUprebuilt_st& r, uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data);
Channel::LaunchData record_launch_data(CUprebuilt_st& r, uint64_t bytes);
// Channel::submit() while recording: one more step in the open piece.
void record_submit(CUprebuilt_st& r);
// What a call that submits work costs the host (host_clock.h): ns, or recording's cost when the
// calling thread records for ch.
uint64_t host_cost(const Channel& ch, uint64_t ns);
// For a call whose work cannot be prebuilt: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED with what in
// the trace when the calling thread records for ch, else CUDA_SUCCESS. Called before the call
// does anything.
CUresult refuse_if_recording(const Channel& ch, const char* what);
// The export table.
const CUetblMinicudaPrebuilt& table();
// Context teardown (its channels idle): frees the memory of every recording of ctx.
void context_torn_down(CUctx_st& ctx);

}  // namespace minicuda::libcuda::prebuilt
