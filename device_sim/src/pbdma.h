// pbdma: the host interface's fetch-and-decode unit (PBDMA, "pushbuffer DMA"). For one channel
// it reads GPPut from the channel's USERD, fetches the GPFIFO entries from GPGet up to it,
// fetches each entry's pushbuffer segment, expands the method headers into (subchannel,
// method, data) triples and executes them: methods below 0x100 are host methods it runs itself
// (SET_OBJECT, semaphores, NON_STALL_INTERRUPT, WFI...), the others go to the engine bound to
// the subchannel (the copy engine or the compute engine). After
// each entry it writes GPGet back to USERD, which is how the host learns that the GPU has
// consumed it.
//
// Engines: a method that keeps an engine busy (a grid launch, a LAUNCH_DMA that moves data) is
// handed to that engine's host thread (engine_thread.h) and the channel becomes Busy: run()
// returns and the host interface resumes the channel after that method once the engine is done.
// Every other method runs here, as it is fetched. Inline channels run everything here.
//
// Cost model: kGpEntryFetchNs per pushbuffer segment fetched, on the channel's timeline (pbdma.cpp,
// docs/timing.md); host methods are free; a release records its time for the acquires it frees.
//
// Who talks to it: HostInterface::run_pending() runs it over each pending channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "compute_engine.h"
#include "copy_engine.h"
#include "engine_thread.h"
#include "gpu_memory.h"
#include "host_interface.h"

namespace minicuda::gpu {

// What one run of a channel did.
struct PbdmaRun {
  size_t entries = 0;       // GPFIFO entries consumed (GPGet advanced by this many)
  bool progressed = false;  // any entry consumed or any method executed
  uint64_t nonstall_interrupts = 0;
  std::optional<ChannelFault> fault;
};

class Pbdma {
 public:
  Pbdma(Device& device, const GpuMemory& memory, CopyEngine& copy_engine, ComputeEngine& compute_engine,
        EngineThreads& engines);

  // Runs channel until its GPFIFO is empty (status Idle), an acquire is not satisfied
  // (Waiting, to resume at that method), an engine took a method to its thread (Busy, to resume
  // after it) or something faults (Faulted, the fault returned). one_entry: stop after one
  // GPFIFO entry (status Pending if more may follow), so the host interface can choose again.
  PbdmaRun run(Channel& channel, bool one_entry = false);
  // When the host submitted the channel's next work: the host time of the segment it is in, or
  // of the next segment, read from its first methods (MINICUDA_SET_ORIGIN_LO .. HOST_TIME_HI,
  // which libcuda puts first in every segment). kNothingSubmitted when GPGet has reached GPPut:
  // work the host publishes after this look was submitted later than any it can see now. 0
  // when the next work cannot be read (a segment built otherwise, a control entry, an unmapped
  // ring): such work goes first. Only the order of the host interface's choices depends on it,
  // never what the work does.
  static constexpr uint64_t kNothingSubmitted = UINT64_MAX;
  uint64_t next_submit_time(const Channel& channel) const;

 private:
  enum class Step { Done, Wait, Busy, Fault };

  Step run_segment(Channel& channel, uint64_t pb_va, std::span<const uint32_t> dwords,
                   PbdmaRun& run);
  Step execute(Channel& channel, uint32_t subchannel, uint32_t method, uint32_t data, uint64_t at,
               PbdmaRun& run);
  Step host_method(Channel& channel, uint32_t subchannel, uint32_t method, uint32_t data,
                   uint64_t at, PbdmaRun& run);
  Step sem_execute(Channel& channel, uint32_t data, uint64_t at, PbdmaRun& run);
  // MINICUDA_SET_HOST_TIME_HI (the high word; LO was latched): holds the channel's timeline
  // until the host time the segment was submitted at (Timeline::hold). Never faults.
  Step host_time(Channel& channel, uint32_t hi);
  // An engine method's work: on the engine's thread (Busy), or here for inline channels, with
  // threads off, and for LAUNCH_DMAs that only release a semaphore.
  Step engine_work(Channel& channel, TimelineUnit unit, bool on_thread, EngineWork work, PbdmaRun& run);
  // A register method's result, set on this thread (no EngineWork built): Done, or its fault.
  static Step register_done(std::optional<ChannelFault> fault, PbdmaRun& run);

  Device& device_;
  const GpuMemory& memory_;
  CopyEngine& copy_engine_;
  ComputeEngine& compute_engine_;
  EngineThreads& engines_;
};

}  // namespace minicuda::gpu
