// host_interface: the GPU unit that owns the channels and the doorbell, and schedules the
// PBDMA over the channels that were rung.
//
// A real GPU keeps channels on runlists and time-slices its PBDMAs between them; here one PBDMA
// takes one GPFIFO entry at a time from the pending channel whose work the host submitted first
// (the host time in its segment, then chid), until the entry is done, waits on a semaphore,
// hands a method to an engine's thread (Busy) or faults, and chooses again while any channel made
// progress, so that a release on one channel frees an acquire on another within the same
// run_pending(), and work reaches the engines in submission order. When an engine's thread finishes, engine_done() makes the
// channel Pending again and wakes whoever waits (run_pending, the device's worker).
//
// The doorbell is the only way in: a store of a channel's work-submit token to the usermode page
// reaches doorbell() over the simulated bus (minicuda/bus.h, Device::usermode_write32), on the
// storing thread. doorbell() marks the channel Pending and, once the GPU is started (start()),
// hands the PBDMA to a thread of the GPU's: an idle engine's thread (EngineThreads::take_doorbell,
// the compute engine's by preference, so that a launch needs no second hand-over), or else the
// gpu-host thread. No thread looks at a channel that was not rung. The one thing the GPU polls is
// what the hardware polls: a channel Waiting at a semaphore acquire, which gpu-host retries with a
// back-off while one exists.
//
// Who talks to it: nvidia.ko adds and removes channels (RM's channel allocation and free) and
// routes the usermode page's stores to the device; nvidia.ko's poll() handler runs the inline
// channels (poll(true)); tests call run_pending().
#include "host_interface.h"

#include <pthread.h>

#include <algorithm>
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
          device.mmu(),
          [this](uint32_t chid, uint64_t serial, std::optional<ChannelFault> fault) {
            engine_done(chid, serial, std::move(fault));
          },
          [this] { run_channels(/*include_inline=*/false, /*wait=*/false); })),
      pbdma_(std::make_unique<Pbdma>(device, *memory_, *copy_engine_, *compute_engine_, *engines_)) {}

// gpu-host first, then the engines' threads: their work uses the engines, the memory port and this.
HostInterface::~HostInterface() {
  stop();
  engines_.reset();
}

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
  {
    std::lock_guard<std::mutex> tokens(doorbell_mutex_);
    by_token_[config.token] = channel.get();
  }
  channels_[config.chid] = std::move(channel);
  timeline_.add_channel(config.chid);
  trace::note(trace::Layer::Gpu, "host: add ch {} (token {:#x}), GPFIFO {:#x} x {}, USERD {:#x}",
              config.chid, config.token, config.gpfifo_va, config.gpfifo_entries, config.userd_va);
}

void HostInterface::remove_channel(uint32_t chid) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = channels_.find(chid);
  if (it == channels_.end()) return;
  {
    std::lock_guard<std::mutex> tokens(doorbell_mutex_);  // no doorbell handler touches it any more
    by_token_.erase(it->second->config.token);
  }
  channels_.erase(it);
  trace::note(trace::Layer::Gpu, "host: remove ch {}", chid);
}

// The doorbell is a posted write: it takes only the token table's lock, never the PBDMA's, so
// the storing thread never waits for work being decoded or run. It raises the channel's rung
// flag; the next PBDMA pass turns it into Pending (absorb_rings_locked). An Idle channel needs
// a pass: the handler asks a GPU thread for one. A channel that is Pending, Waiting or Busy is
// on its way already - a pass is coming, gpu-host retries its acquire, or its engine's thread
// resumes it - and that pass, reading GPPut after the flag, runs what this doorbell announced.
// (The flag is set before the status is read, and a pass sets Idle before it looks at the flags
// for the last time, so one of the two sees the other.)
void HostInterface::doorbell(uint32_t token) {
  std::lock_guard<std::mutex> tokens(doorbell_mutex_);
  auto it = by_token_.find(token);
  if (it == by_token_.end()) {
    // The real host interface drops a token that names no channel of its runlists.
    trace::note(trace::Layer::Gpu, "doorbell(token={:#x}): no channel has this token: ignored", token);
    return;
  }
  Channel& channel = *it->second;
  if (channel.status == ChannelStatus::Faulted) {
    trace::note(trace::Layer::Gpu, "doorbell(token={:#x}) -> ch {}: stopped by a fault, ignored", token,
                channel.config.chid);
    return;
  }
  trace::note(trace::Layer::Gpu, "doorbell(token={:#x}) -> ch {}", token, channel.config.chid);
  channel.rung.store(true);
  if (channel.status != ChannelStatus::Idle) return;
  // Inline channels run in nvidia.ko's poll(); before start(), nobody runs anything unasked.
  if (!started_.load() || channel.config.inline_only) return;
  if (engines_->enabled() && engines_->take_doorbell()) return;  // an idle engine's thread runs the PBDMA
  bool notify = false;
  {
    std::lock_guard<std::mutex> host(host_mutex_);
    host_rung_.store(true);
    notify = host_sleeping_;
  }
  if (notify) doorbell_cv_.notify_one();
}

bool HostInterface::absorb_rings_locked() {
  bool any = false;
  for (auto& [chid, channel] : channels_) {
    if (channel->rung.exchange(false) && channel->status == ChannelStatus::Idle) {
      channel->status = ChannelStatus::Pending;
      any = true;
    }
  }
  return any;
}

void HostInterface::start() {
  std::lock_guard<std::mutex> lock(host_mutex_);
  if (host_thread_.joinable()) return;
  started_.store(true);
  stop_ = false;
  host_rung_.store(true);  // channels rung before the start run first
  host_thread_ = std::thread([this] { host_thread_loop(); });
}

void HostInterface::stop() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(host_mutex_);
    if (!host_thread_.joinable()) return;
    started_.store(false);
    stop_ = true;
    thread = std::move(host_thread_);
  }
  doorbell_cv_.notify_all();
  thread.join();
}

// gpu-host: the PBDMA's own thread, for the doorbells no idle engine's thread took (and every
// doorbell with the engines' threads off). After a run it watches for the next ring a while (work
// comes in bursts) - a load of host_rung_, not a look at any channel - then sleeps until rung.
// While a channel waits at an acquire, it wakes to retry it after 1 us, 2 us, ... up to 1 ms:
// the semaphore polling the real PBDMA does too.
void HostInterface::host_thread_loop() {
  pthread_setname_np(pthread_self(), "gpu-host");
  constexpr int kSpinChecks = 1000;
  constexpr auto kFirstRetry = std::chrono::microseconds(1);
  constexpr auto kLongestRetry = std::chrono::microseconds(1000);
  auto retry = kFirstRetry;
  bool was_rung = false;  // the last run was for a doorbell: watch for the next one a while
  std::unique_lock lock(host_mutex_);
  while (!stop_) {
    if (was_rung) {
      lock.unlock();
      for (int i = 0; i < kSpinChecks && !host_rung_.load(std::memory_order_acquire); ++i) std::this_thread::yield();
      lock.lock();
    }
    if (!host_rung_.load() && !stop_) {
      auto rung = [&] { return stop_ || host_rung_.load(); };
      host_sleeping_ = true;
      if (waiting_.load() > 0) {
        if (!doorbell_cv_.wait_for(lock, retry, rung)) retry = std::min(retry * 2, kLongestRetry);
      } else {
        doorbell_cv_.wait(lock, [&] { return rung() || waiting_.load() > 0; });
      }
      host_sleeping_ = false;
    }
    if (stop_) break;
    was_rung = host_rung_.exchange(false);
    if (was_rung) retry = kFirstRetry;
    lock.unlock();
    run_channels(/*include_inline=*/false, /*wait=*/false);
    lock.lock();
  }
}

bool HostInterface::collect_ready_locked(bool include_inline, std::vector<std::pair<uint64_t, Channel*>>& ready) {
  bool busy = false;
  ready.clear();
  for (auto& [chid, channel] : channels_) {
    if (channel->config.inline_only && !include_inline) continue;
    busy = busy || channel->status == ChannelStatus::Busy;
    if (channel->status == ChannelStatus::Pending || channel->status == ChannelStatus::Waiting)
      ready.emplace_back(pbdma_->next_submit_time(*channel), channel.get());
  }
  // By submit time, ties in chid order (stable): an insertion sort, as there are few.
  for (size_t i = 1; i < ready.size(); ++i)
    for (size_t j = i; j > 0 && ready[j].first < ready[j - 1].first; --j) std::swap(ready[j], ready[j - 1]);
  return busy;
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
  bool notify = false;
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
        std::vector<std::pair<uint64_t, Channel*>>& ready = ready_;
        bool progressed = true;
        while (progressed) {
          progressed = absorb_rings_locked();  // doorbells rung since the last look
          busy = collect_ready_locked(include_inline, ready);
          // A look reads the channels one after another, so it can miss work the host published
          // on one channel while it looked and yet see work the same host thread published later
          // on a channel it read after: that later work would go first. So look again until a
          // look finds nothing new. A host thread publishes in submission order (GPPut, then the
          // doorbell), so whatever it published before the work a look saw is seen by the next.
          for (;;) {
            const bool rung = absorb_rings_locked();
            progressed = progressed || rung;
            busy = collect_ready_locked(include_inline, second_look_);
            if (!rung && second_look_ == ready) break;
            std::swap(ready, second_look_);
          }
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
          // Before giving up: a doorbell rung meanwhile (a last look, after every Idle was set).
          if (!progressed) progressed = absorb_rings_locked();
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
    if (!new_faults.empty()) handler = fault_handler_;
    // Channels stopped at an acquire: gpu-host retries them (host_thread_loop), and must hear of
    // the first one if it sleeps without a timeout.
    int waiting = 0;
    for (auto& [chid, channel] : channels_)
      waiting += !channel->config.inline_only && channel->status == ChannelStatus::Waiting;
    notify = waiting_.exchange(waiting) == 0 && waiting > 0;
  }
  if (notify) {
    {
      std::lock_guard<std::mutex> host(host_mutex_);
      notify = host_sleeping_;
    }
    if (notify) doorbell_cv_.notify_one();
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

size_t HostInterface::poll(bool include_inline) { return run_channels(include_inline, /*wait=*/false); }

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
  const Channel& channel = *it->second;
  if (channel.status == ChannelStatus::Idle && channel.rung) return ChannelStatus::Pending;  // the next pass takes it
  return channel.status.load();
}

uint64_t HostInterface::nonstall_interrupts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nonstall_interrupts_;
}

}  // namespace minicuda::gpu
