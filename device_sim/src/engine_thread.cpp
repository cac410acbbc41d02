// engine_thread: one host thread per engine unit (see engine_thread.h).
#include "engine_thread.h"

#include <pthread.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace minicuda::gpu {
namespace {

bool engine_threads_enabled() {
  const char* env = std::getenv("MINICUDA_ENGINE_THREADS");
  return env == nullptr || std::string_view(env) != "0";
}

}  // namespace

EngineThreads::EngineThreads(const Mmu& mmu, Done done, RunPbdma run_pbdma)
    : mmu_(mmu), done_(std::move(done)), run_pbdma_(std::move(run_pbdma)), enabled_(engine_threads_enabled()) {}

void EngineThreads::start_locked(Unit& unit) {
  if (!unit.thread.joinable()) unit.thread = std::thread([this, &unit] { thread_loop(unit); });
}

EngineThreads::~EngineThreads() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    for (Unit& unit : units_) unit.pokes.fetch_add(1, std::memory_order_release);
  }
  for (Unit& unit : units_) unit.wake.notify_all();
  for (Unit& unit : units_) {
    if (unit.thread.joinable()) unit.thread.join();
  }
}

void EngineThreads::submit(TimelineUnit unit_id, uint32_t chid, uint64_t serial, EngineWork work) {
  Unit& unit = units_[static_cast<int>(unit_id)];
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    if (stop_) return;  // the GPU is going away: the channel stays Busy until it is removed
    unit.queue.push_back(Job{chid, serial, std::move(work)});
    ++in_flight_;
    start_locked(unit);
    unit.pokes.fetch_add(1, std::memory_order_release);
    notify = unit.sleeping;  // a spinning thread sees the queue by itself: no system call
  }
  if (notify) unit.wake.notify_one();
}

std::optional<ChannelFault> EngineThreads::run_here(TimelineUnit unit_id, const EngineWork& work) {
  std::lock_guard exec(units_[static_cast<int>(unit_id)].exec);
  return work();
}

bool EngineThreads::run_here_if_idle(TimelineUnit unit_id, const EngineWork& work, std::optional<ChannelFault>* fault) {
  Unit& unit = units_[static_cast<int>(unit_id)];
  {
    std::lock_guard lock(mutex_);
    if (!unit.queue.empty() || unit.running) return false;
    unit.running = true;  // the unit's thread starts nothing meanwhile
  }
  {
    std::lock_guard exec(unit.exec);
    *fault = work();
  }
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    unit.running = false;
    notify = unit.sleeping && !unit.queue.empty();
  }
  if (notify) unit.wake.notify_one();
  return true;
}

size_t EngineThreads::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

bool EngineThreads::take_doorbell() {
  if (!enabled_) return false;
  Unit* pick = nullptr;
  bool notify = false;
  {
    std::lock_guard lock(mutex_);
    if (stop_) return false;
    auto idle = [](const Unit& u) { return u.queue.empty() && !u.running; };
    for (Unit& unit : units_) {
      if (unit.thread.joinable() && !unit.sleeping && idle(unit)) {  // awake: sees the flag without a system call
        pick = &unit;
        break;
      }
    }
    Unit& compute = units_[static_cast<int>(TimelineUnit::Compute)];
    if (pick == nullptr && idle(compute)) pick = &compute;
    if (pick == nullptr) return false;
    start_locked(*pick);
    pick->doorbell = true;
    pick->pokes.fetch_add(1, std::memory_order_release);
    notify = pick->sleeping;
  }
  if (notify) pick->wake.notify_one();
  return true;
}

void EngineThreads::thread_loop(Unit& unit) {
  // "gpu-compute", "gpu-ce0", ...: what gdb's `info threads` and top show.
  const std::string name = std::string("gpu-") + timeline_unit_name(static_cast<TimelineUnit>(&unit - units_));
  pthread_setname_np(pthread_self(), name.c_str());
  // After a piece of work the thread looks for the next one (or a doorbell) a while before it
  // sleeps: work comes in bursts (a stream's copies, a loop of launches), and waking a sleeping
  // thread costs the hand-over more than the yields do. (gpu-host sleeps until rung, so on a
  // 2-core host this thread and the program's are the only ones that spin.)
  constexpr int kSpinChecks = 1000;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (unit.queue.empty() && !unit.doorbell && !stop_) {
      const uint64_t seen = unit.pokes.load(std::memory_order_relaxed);
      lock.unlock();
      for (int i = 0; i < kSpinChecks && unit.pokes.load(std::memory_order_acquire) == seen; ++i)
        std::this_thread::yield();
      lock.lock();
    }
    unit.sleeping = true;
    unit.wake.wait(lock, [&] { return stop_ || unit.doorbell || (!unit.queue.empty() && !unit.running); });
    unit.sleeping = false;
    if (stop_) return;
    if (unit.doorbell) {
      // The PBDMA, here: a launch it fetches lands in this very queue, taken below at once.
      unit.doorbell = false;
      lock.unlock();
      run_pbdma_();
      lock.lock();
      continue;
    }
    Job job = std::move(unit.queue.front());
    unit.queue.pop_front();
    unit.running = true;
    lock.unlock();
    std::optional<ChannelFault> fault;
    {
      // Lock order: the MMU's access lock, then the unit (as run_here's callers, who hold the
      // access lock already). Both are let go before done_, which takes the host interface's lock.
      auto access = mmu_.lock_for_access();
      std::lock_guard exec(unit.exec);
      fault = job.work();
    }
    job.work = nullptr;  // what it captured goes before the channel is resumed
    // The unit is idle from here on: a doorbell rung while done_ runs the PBDMA comes to this
    // thread (take_doorbell), which is awake, instead of waking gpu-host.
    lock.lock();
    unit.running = false;
    lock.unlock();
    done_(job.chid, job.serial, std::move(fault));
    lock.lock();
    --in_flight_;
  }
}

}  // namespace minicuda::gpu
