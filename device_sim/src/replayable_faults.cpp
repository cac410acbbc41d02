// replayable_faults: the GMMU's replayable fault buffer and its interrupt line (see
// minicuda/replayable_faults.h).
#include "minicuda/replayable_faults.h"

#include <atomic>
#include <mutex>
#include <set>

#include "sm_signals.h"

namespace minicuda::gpu {

namespace {

std::atomic<ReplayableFaultIsr> g_isr{nullptr};
std::atomic<GridActivityHook> g_grid_hook{nullptr};

// The fault buffer: packets written, not yet fetched, and the serials serviced, not yet answered.
struct FaultBuffer {
  std::mutex mutex;
  std::vector<ReplayableFault> pending;  // guarded by mutex
  std::set<uint64_t> serviced;           // guarded by mutex
  uint64_t next_serial = 1;              // guarded by mutex
};

FaultBuffer& buffer() {
  static auto* b = new FaultBuffer;  // never destroyed: SM threads may fault during exit
  return *b;
}

}  // namespace

void set_replayable_fault_isr(ReplayableFaultIsr isr) { g_isr.store(isr); }
void set_grid_activity_hook(GridActivityHook hook) { g_grid_hook.store(hook); }

bool raise_replayable_fault(uint64_t va, bool write) {
  ReplayableFaultIsr isr = g_isr.load();
  if (isr == nullptr) return false;  // no driver listens: the fault is fatal, as without UVM
  FaultBuffer& b = buffer();
  uint64_t serial = 0;
  {
    std::lock_guard lock(b.mutex);
    serial = b.next_serial++;
    b.pending.push_back(ReplayableFault{va, write, serial});
  }
  // The interrupt: the handler drains the buffer, this packet with it (another thread's handler
  // may have taken it already: then it was serviced or refused before isr() returns here, since
  // the handler runs the batches one at a time).
  isr();
  std::lock_guard lock(b.mutex);
  return b.serviced.erase(serial) != 0;
}

std::vector<ReplayableFault> fetch_replayable_faults() {
  FaultBuffer& b = buffer();
  std::lock_guard lock(b.mutex);
  std::vector<ReplayableFault> batch;
  batch.swap(b.pending);
  return batch;
}

void mark_serviced(uint64_t serial) {
  FaultBuffer& b = buffer();
  std::lock_guard lock(b.mutex);
  b.serviced.insert(serial);
}

void grid_activity(bool running) {
  if (GridActivityHook hook = g_grid_hook.load()) hook(running);
}

bool in_kernel_code() { return t_fault_jump != nullptr; }

}  // namespace minicuda::gpu
