// device_launch: the compute engine's side of CUDA dynamic parallelism - it drains the launch
// queue of a grid whose blocks have all run and runs each child grid on the SMs, as the compute
// work distributor of a real GPU takes the device runtime's launch records (device_launch_queue.h,
// docs/dynamic-parallelism.md). A child grid is timed like any grid, on the channel of the
// host-launched grid it descends from, after its parent's blocks.
#include <algorithm>

#include <fmt/format.h>

#include "compute_engine.h"
#include "minicuda/replayable_faults.h"
#include "minicuda/trace.h"
#include "nv_occupancy.h"
#include "sm.h"

namespace minicuda::gpu {
namespace {

const char* stream_text(uintptr_t stream, std::string* scratch) {
  if (stream == 0) return "NULL";
  if (stream == devrt::kTailLaunchStream) return "cudaStreamTailLaunch";
  if (stream == devrt::kFireAndForgetStream) return "cudaStreamFireAndForget";
  *scratch = fmt::format("{:#x}", stream);
  return scratch->c_str();
}

}  // namespace

std::optional<ChannelFault> ComputeEngine::run_children(uint32_t chid, DeviceLaunchQueue& parent,
                                                        const GridLaunch& parent_grid, bool inline_run) {
  std::vector<DeviceLaunchRecord> records = parent.take();
  const DeviceProperties& props = device_.properties();
  std::optional<ChannelFault> fault;
  for (DeviceLaunchRecord& r : records) {
    if (fault) {  // an earlier child failed: the parent fails, the rest never run
      parent.complete();
      continue;
    }
    GridLaunch grid;
    grid.kernel_name = r.code.name;
    grid.entry = r.code.entry;
    grid.block_entry = r.code.block_entry;
    grid.params = r.params.data();
    grid.grid = r.grid;
    grid.block = r.block;
    grid.dynamic_shared = r.shared;
    grid.printf_buffer = parent_grid.printf_buffer;  // the context's one printf FIFO
    grid.printf_bytes = parent_grid.printf_bytes;
    grid.heap = parent_grid.heap;  // the context's one device heap
    DeviceLaunchQueue children(devrt_limits_, props, parent.depth() + 1, grid.kernel_name);
    grid.children = &children;

    const uint64_t threads = uint64_t{r.block.x} * r.block.y * r.block.z;
    const uint64_t blocks = uint64_t{r.grid.x} * r.grid.y * r.grid.z;
    const NvOccupancy occ = nv_occupancy(sm_limits(props), static_cast<uint32_t>(threads), 1, r.shared);
    std::string scratch;
    trace::note(trace::Layer::Gpu,
                "compute: ch {} device-side launch (depth {}) of {} grid ({},{},{}) block ({},{},{}), {} B dynamic "
                "shared, stream {}: launched by {} block ({},{},{}) thread ({},{},{})",
                chid, children.depth(), grid.kernel_name, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y,
                r.block.z, r.shared, stream_text(r.stream, &scratch), parent.kernel_name(), r.from_block.x,
                r.from_block.y, r.from_block.z, r.from_thread.x, r.from_thread.y, r.from_thread.z);
    const unsigned helpers = inline_run ? 1u : static_cast<unsigned>(std::min<uint64_t>(blocks, threads_));
    grid_activity(true);
    device_.activity().begin(TimelineUnit::Compute, chid, grid.kernel_name);
    std::optional<BlockError> error = run_grid(grid, helpers);
    device_.activity().end(TimelineUnit::Compute);
    grid_activity(false);
    const TimeSpan span = device_.timeline().run_grid(
        chid, grid_footprint(props, blocks, threads, 1, r.shared, occ.blocks_per_sm),
        wave_model_ns(props, occ.blocks_per_sm, threads, blocks));
    trace::device_span({timeline_unit_name(TimelineUnit::Compute), grid.kernel_name, chid, span.start, span.end,
                        device_.timeline().origin(chid), {}},
                       "compute: ch {} {} (device-side launch, depth {}) ran t={}..{} ns", chid, grid.kernel_name,
                       children.depth(), span.start, span.end);
    fault = error ? kernel_fault(chid, grid.kernel_name, *error) : run_children(chid, children, grid, inline_run);
    parent.complete();
  }
  return fault;
}

}  // namespace minicuda::gpu
