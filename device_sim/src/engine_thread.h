// engine_thread: the host threads the GPU's engines run on. A real GPU's compute engine and
// copy engines are separate units that work at the same time, each on the work of whichever
// channel its runlist scheduled; here each unit (compute, ce0, ce1, ce2: TimelineUnit) has a host
// thread of its own, so that a kernel of one stream really runs while a copy of another moves its
// bytes, and the PBDMA goes on fetching the other channels meanwhile.
//
// What runs here: the work of one method that keeps an engine busy - a grid launch
// (SEND_SIGNALING_PCAS2_B) or a LAUNCH_DMA that moves data. The PBDMA hands it over (submit),
// marks the channel Busy and serves other channels; when the work is done, `done` tells the host
// interface, which lets the PBDMA resume the channel after that method. Each unit's thread runs
// its work in the order submitted, one at a time, holding the MMU's access lock for each
// (Mmu::lock_for_access), so pages are not torn down under it.
//
// The PBDMA for a doorbell: an idle unit's thread also runs the PBDMA when the host interface asks
// it to (take_doorbell), so that the doorbell of a launch is served by the compute engine's own
// thread, which then takes the grid from its own queue: one hand-over from the program's thread
// to the GPU, not two (docs/performance.md, launch latency).
//
// MINICUDA_ENGINE_THREADS=0 turns the threads off: every method then runs on the PBDMA's thread
// as it is fetched (the model before engines had threads; the simulated times are the same).
//
// Who talks to it: HostInterface owns it; the PBDMA submits work to it; the doorbell hands it
// the PBDMA.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "minicuda/device.h"

namespace minicuda::gpu {

// The work of one engine method: returns the fault that stops its channel, or nullopt.
using EngineWork = std::function<std::optional<ChannelFault>()>;

class EngineThreads {
 public:
  // Called on the engine's thread when work of channel chid (serial: which channel of that chid,
  // Channel::serial) has finished, after the thread has let go of the MMU and the unit. It may
  // submit more work (the host interface runs the PBDMA from it).
  using Done = std::function<void(uint32_t chid, uint64_t serial, std::optional<ChannelFault> fault)>;
  // One round of the PBDMA (HostInterface::run_channels), run on a unit's thread that took a
  // doorbell, holding no lock of this class. It may submit work, to this unit too.
  using RunPbdma = std::function<void()>;

  EngineThreads(const Mmu& mmu, Done done, RunPbdma run_pbdma);
  // Stops every thread: work not yet started is dropped (its channel is going away with the
  // GPU), work running finishes first.
  ~EngineThreads();
  EngineThreads(const EngineThreads&) = delete;
  EngineThreads& operator=(const EngineThreads&) = delete;

  // False under MINICUDA_ENGINE_THREADS=0: the PBDMA then calls run_here() for everything.
  bool enabled() const { return enabled_; }
  // Queues work on unit's thread (started at its first work). Never blocks on the work.
  void submit(TimelineUnit unit, uint32_t chid, uint64_t serial, EngineWork work);
  // Runs work on the calling thread, after the unit's current work and before its next, so a
  // unit never runs two pieces of work at once (inline channels, or threads turned off). The
  // caller holds the MMU's access lock.
  std::optional<ChannelFault> run_here(TimelineUnit unit, const EngineWork& work);
  // Runs work on the calling thread if the unit has nothing queued or running (then returns
  // true, with its fault in *fault); else returns false and runs nothing. The PBDMA does small
  // copies so, sparing them the hand-over to another thread.
  bool run_here_if_idle(TimelineUnit unit, const EngineWork& work, std::optional<ChannelFault>* fault);
  // Work submitted and not finished yet, on every unit.
  size_t in_flight() const;
  // A doorbell rang: asks an idle unit's thread (nothing queued or running) to run the PBDMA -
  // one that is awake (looking for work) first, else the compute engine's, woken or started.
  // Returns false, asking nothing, when no unit is idle or the threads are off: the caller then
  // has the PBDMA run elsewhere (gpu-host).
  bool take_doorbell();

 private:
  struct Job {
    uint32_t chid;
    uint64_t serial;
    EngineWork work;
  };
  struct Unit {
    std::mutex exec;  // held while the unit runs a piece of work (its thread's, or run_here's)
    std::deque<Job> queue;  // guarded by EngineThreads::mutex_
    // A piece of work is running (here or in run_here_if_idle); cleared when the work is done,
    // before done_ resumes its channel, so the thread takes doorbells meanwhile. Guarded by mutex_.
    bool running = false;
    bool sleeping = false;  // its thread waits on wake (not spinning): submit must notify; guarded by mutex_
    bool doorbell = false;  // take_doorbell asked its thread to run the PBDMA; guarded by mutex_
    // Bumped (under mutex_) whenever work is queued or a doorbell is handed over: what the
    // thread watches while it spins, without taking mutex_.
    std::atomic<uint64_t> pokes{0};
    std::condition_variable wake;
    std::thread thread;
  };
  void thread_loop(Unit& unit);
  void start_locked(Unit& unit);  // starts unit's thread if it has none (mutex_ held)

  const Mmu& mmu_;
  Done done_;
  RunPbdma run_pbdma_;
  const bool enabled_;
  mutable std::mutex mutex_;
  bool stop_ = false;
  size_t in_flight_ = 0;  // guarded by mutex_
  Unit units_[kTimelineUnits];
};

}  // namespace minicuda::gpu
