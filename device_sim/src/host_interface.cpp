// host_interface: the GPU unit that owns the channels and the doorbell, and schedules the
// PBDMA over the channels that have work.
//
// A real GPU keeps channels on runlists and time-slices its PBDMAs between them; here one PBDMA
// takes one GPFIFO entry at a time from the pending channel whose work the host submitted first
// (the host time in its segment, then chid), until the entry is done, waits on a semaphore,
// hands a method to an engine's thread (Busy) or faults, and chooses again while any channel made
// progress, so that a release on one channel frees an acquire on another within the same
// run_pending(), and work reaches the engines in submission order. When an engine's thread finishes, engine_done() makes the
// channel Pending again and wakes whoever waits (run_pending, the device's worker).
//
// Who talks to it: nvidia.ko adds and removes channels (RM's channel allocation and free) and
// forwards doorbell stores from the usermode page; whoever drives the device (inline after a
// doorbell, or a device thread later) calls run_pending().
#include "host_interface.h"

#include <cassert>

#include "compute_engine.h"
#include "copy_engine.h"
#include "engine_thread.h"
#include "gpu_memory.h"
#include "minicuda/device.h"
#include "minicuda/trace.h"
#include "class/clc86f.h"
#include "pbdma.h"

namespace minicuda::gpu {

HostInterface::HostInterface(Device& device)
    : mmu_(device.mmu()),
      timeline_(device.timeline()),
      memory_(std::make_unique<GpuMemory>(device.mmu())),
      copy_engine_(std::make_unique<CopyEngine>(device, *memory_, 0)),
      compute_engine_(std::make_unique<ComputeEngine>(device, *memory_)),
      engines_(std::make_unique<EngineThreads>(
          device.mmu(), [this](uint32_t chid, uint64_t serial, std::optional<ChannelFault> fault) {
            engine_done(chid, serial, std::move(fault));
          })),
      pbdma_(std::make_unique<Pbdma>(device, *memory_, *copy_engine_, *compute_engine_, *engines_)) {}

// The engines' threads go first: their work uses the engines, the memory port and this.
HostInterface::~HostInterface() { engines_.reset(); }

void HostInterface::add_channel(const ChannelConfig& config) {
  std::lock_guard<std::mutex> lock(mutex_);
  assert(channels_.count(config.chid) == 0 && "channel id already in use");
  for ([[maybe_unused]] const auto& [chid, channel] : channels_)
    assert(channel->config.token != config.token && "work submit token already in use");
  assert(config.gpfifo_entries >= 2 && (config.gpfifo_entries & (config.gpfifo_entries - 1)) == 0 &&
         "GPFIFO entries must be a power of two");
  assert(config.gpfifo_va % NVC56F_GP_ENTRY__SIZE == 0 && "GPFIFO must be 8-byte aligned");
  assert(config.userd_va % NVC56F_USERD_SIZE == 0 && "USERD must be 512-byte aligned");
  auto channel = std::make_unique<Channel>();
  channel->config = config;
  channel->serial = next_serial_++;
  channels_[config.chid] = std::move(channel);
  timeline_.add_channel(config.chid);
  trace::note(trace::Layer::Gpu, "host: add ch {} (token {:#x}), GPFIFO {:#x} x {}, USERD {:#x}",
              config.chid, config.token, config.gpfifo_va, config.gpfifo_entries, config.userd_va);
}

void HostInterface::remove_channel(uint32_t chid) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (channels_.erase(chid) != 0) trace::note(trace::Layer::Gpu, "host: remove ch {}", chid);
}

void HostInterface::doorbell(uint32_t token) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [chid, channel] : channels_) {
    if (channel->config.token != token) continue;
    trace::note(trace::Layer::Gpu, "usermode: doorbell token {:#x} -> ch {}", token, chid);
    if (channel->status == ChannelStatus::Idle) channel->status = ChannelStatus::Pending;
    return;  // Pending and Waiting channels will run anyway; Faulted ones never again
  }
  trace::note(trace::Layer::Gpu, "usermode: doorbell token {:#x}: no such channel, ignored", token);
}

size_t HostInterface::run_pending(bool include_inline) {
  uint64_t before;
  {
    std::lock_guard lock(mutex_);
    before = entries_consumed_;
  }
  run_channels(include_inline, /*wait=*/true);
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(entries_consumed_ - before);  // engines' threads resume channels too
}

size_t HostInterface::run_channels(bool include_inline, bool wait) {
  std::vector<ChannelFault> new_faults;
  std::function<void(const ChannelFault&)> handler;
  size_t entries = 0;
  {
    std::unique_lock lock(mutex_);
    for (;;) {
      bool busy = false;
      {
        auto access = mmu_.lock_for_access();
        // One GPFIFO entry at a time, from the channel whose work the host submitted first (its
        // segments' host times; chid breaks ties), then choose again: so work of several channels
        // reaches the engines in the order it was submitted, whichever chids the channels got.
        std::vector<std::pair<uint64_t, Channel*>> ready;
        bool progressed = true;
        while (progressed) {
          progressed = false;
          busy = false;
          ready.clear();
          for (auto& [chid, channel] : channels_) {
            if (channel->config.inline_only && !include_inline) continue;
            busy = busy || channel->status == ChannelStatus::Busy;
            if (channel->status == ChannelStatus::Pending || channel->status == ChannelStatus::Waiting)
              ready.emplace_back(pbdma_->next_submit_time(*channel), channel.get());
          }
          std::stable_sort(ready.begin(), ready.end(),
                           [](const auto& a, const auto& b) { return a.first < b.first; });
          for (auto& [submitted, channel] : ready) {
            PbdmaRun run = pbdma_->run(*channel, /*one_entry=*/true);
            entries += run.entries;
            entries_consumed_ += run.entries;
            nonstall_interrupts_ += run.nonstall_interrupts;
            busy = busy || channel->status == ChannelStatus::Busy;
            if (run.fault) {
              faults_.push_back(*run.fault);
              new_faults.push_back(std::move(*run.fault));
            }
            if (run.progressed) {
              progressed = true;
              break;  // choose again
            }
          }
        }
      }
      if (!wait || !busy) break;
      // Engine work is running: sleep until some finishes (its channel is Pending again), with
      // neither lock held, then go round.
      const uint64_t seen = completions_;
      ++waiters_;
      engine_done_.wait(lock, [&] { return completions_ != seen; });
      --waiters_;
    }
    handler = fault_handler_;
  }
  // The "interrupt": nvidia.ko hears of each fault outside the lock, so it may call back in.
  if (handler) {
    for (const ChannelFault& fault : new_faults) handler(fault);
  }
  return entries;
}

void HostInterface::engine_done(uint32_t chid, uint64_t serial, std::optional<ChannelFault> fault) {
  std::function<void(const ChannelFault&)> handler;
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    auto it = channels_.find(chid);
    if (it != channels_.end() && it->second->serial == serial && it->second->status == ChannelStatus::Busy) {
      Channel& channel = *it->second;
      if (fault) {
        trace::note(trace::Layer::Gpu, "pbdma: ch {} stopped: {}", chid, fault->what);
        channel.status = ChannelStatus::Faulted;
        faults_.push_back(*fault);
        handler = fault_handler_;
      } else {
        channel.status = ChannelStatus::Pending;  // the PBDMA goes on after the method
      }
    } else {
      fault.reset();  // the channel is gone: nobody to tell
    }
    ++completions_;
    notify = waiters_ != 0;
  }
  if (notify) engine_done_.notify_all();
  if (handler) handler(*fault);
  // Then this engine's thread is the PBDMA for a moment: it goes on with the channel it resumed
  // (and any other with work) at once, instead of waiting for the gpu-host thread to notice.
  // A stream's next launch is then queued on this very thread, with no hand-over at all.
  run_channels(/*include_inline=*/false, /*wait=*/false);
}

uint64_t HostInterface::engine_completions() const {
  std::lock_guard lock(mutex_);
  return completions_;
}

void HostInterface::wait_for_engine(uint64_t seen, std::chrono::microseconds timeout) const {
  std::unique_lock lock(mutex_);
  ++waiters_;
  engine_done_.wait_for(lock, timeout, [&] { return completions_ != seen; });
  --waiters_;
}

size_t HostInterface::poll(bool include_inline) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto access = mmu_.lock_for_access();
    for (auto& [chid, channel] : channels_) {
      if (channel->status != ChannelStatus::Idle) continue;
      if (channel->config.inline_only && !include_inline) continue;
      uint32_t gp_put = 0, gp_get = 0;
      uint64_t userd = channel->config.userd_va;
      // An unreadable USERD is left alone here; run_pending() reports it as a fault if rung.
      if (memory_->load32(userd + NVC56F_USERD_GP_PUT, &gp_put)) continue;
      if (memory_->load32(userd + NVC56F_USERD_GP_GET, &gp_get)) continue;
      if (gp_put != gp_get) channel->status = ChannelStatus::Pending;
    }
  }
  return run_channels(include_inline, /*wait=*/false);
}

std::vector<ChannelFault> HostInterface::faults() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return faults_;
}

void HostInterface::set_fault_handler(std::function<void(const ChannelFault&)> handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  fault_handler_ = std::move(handler);
}

std::optional<ChannelStatus> HostInterface::channel_status(uint32_t chid) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = channels_.find(chid);
  if (it == channels_.end()) return std::nullopt;
  return it->second->status;
}

uint64_t HostInterface::nonstall_interrupts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nonstall_interrupts_;
}

}  // namespace minicuda::gpu
