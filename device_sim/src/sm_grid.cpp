// sm_grid: grid_group::sync, the barrier over every thread of a cooperative grid. The block's
// threads meet at a block barrier; the first to leave it waits for the other blocks (blocking the
// block's host thread: a cooperative grid has one per block, see compute_engine.cpp); a second
// block barrier holds the rest until it is back.
#include <fmt/format.h>

#include "sm_block.h"

namespace minicuda::gpu::sm {

bool BlockRun::grid_sync() {
  if (region_mode_) region_violation("grid_group::sync");
  if (launch_->grid_barrier == nullptr) {
    KernelError e;
    e.kind = KernelErrorKind::Trap;
    e.message = fmt::format("grid.sync() in kernel {}, which was not launched cooperatively "
                            "(cudaLaunchCooperativeKernel): the grid's blocks need not be resident together",
                            launch_->kernel_name);
    raise_kernel_error(std::move(e));
  }
  // Every thread of the block enters with the same count of finished grid barriers: it only
  // grows after the first block barrier below, which all of them must reach first.
  const uint64_t round = grid_syncs_;
  syncthreads(0, 0, nullptr);
  alignment_check(false);
  if (grid_syncs_ == round) {
    grid_syncs_ = round + 1;
    if (!launch_->grid_barrier->arrive_and_wait()) {
      stopped_by_grid_ = true;
      KernelError e;
      e.kind = KernelErrorKind::Trap;
      e.message = "the grid stopped at grid.sync() after another block's error";
      raise_kernel_error(std::move(e));
    }
  }
  syncthreads(0, 0, nullptr);
  alignment_check(false);
  return true;
}

}  // namespace minicuda::gpu::sm
