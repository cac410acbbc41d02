// coop_threads: a process-wide set of parked host threads for cooperative grids (see the header).
// The set is never destroyed: parked threads end with the process.
#include "coop_threads.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace minicuda::gpu {
namespace {

// Counts the jobs of one run down to zero.
class Countdown {
 public:
  explicit Countdown(uint64_t n) : left_(n) {}
  void arrive() {
    std::lock_guard lock(mutex_);
    if (--left_ == 0) zero_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    zero_.wait(lock, [this] { return left_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable zero_;
  uint64_t left_;
};

class Pool;

// One parked thread: waits for a job, runs it, goes back to the pool's idle list.
class Worker {
 public:
  explicit Worker(Pool& pool) : pool_(pool) {}
  void start() { std::thread([this] { loop(); }).detach(); }  // throws std::system_error
  void give(const std::function<void(uint64_t)>* job, uint64_t index, Countdown* done) {
    {
      std::lock_guard lock(mutex_);
      job_ = job;
      index_ = index;
      done_ = done;
    }
    wake_.notify_one();
  }

 private:
  void loop();
  Pool& pool_;
  std::mutex mutex_;
  std::condition_variable wake_;
  const std::function<void(uint64_t)>* job_ = nullptr;
  uint64_t index_ = 0;
  Countdown* done_ = nullptr;
};

class Pool {
 public:
  static Pool& get() {
    static Pool* pool = new Pool;  // never destroyed: its threads may still be parked at exit
    return *pool;
  }
  // Up to count workers, idle ones first, new ones while the host gives threads.
  std::vector<Worker*> take(uint64_t count) {
    std::vector<Worker*> crew;
    crew.reserve(count);
    std::lock_guard lock(mutex_);
    while (crew.size() < count && !idle_.empty()) {
      crew.push_back(idle_.back());
      idle_.pop_back();
    }
    while (crew.size() < count) {
      auto* w = new Worker(*this);
      try {
        w->start();
      } catch (const std::system_error&) {
        delete w;
        break;
      }
      all_.push_back(w);
      crew.push_back(w);
    }
    return crew;
  }
  void park(Worker* w) {
    std::lock_guard lock(mutex_);
    idle_.push_back(w);
  }

 private:
  std::mutex mutex_;
  std::vector<Worker*> idle_;
  std::vector<Worker*> all_;  // every worker ever started (they live as long as the process)
};

void Worker::loop() {
  pthread_setname_np(pthread_self(), "gpu-sm-coop");
  // An alternate signal stack of this thread's own (sm_signals.cpp runs its fault handler on it).
  static constexpr size_t kSignalStackBytes = 64 << 10;
  stack_t ss{};
  ss.ss_sp = new char[kSignalStackBytes];
  ss.ss_size = kSignalStackBytes;
  sigaltstack(&ss, nullptr);
  for (;;) {
    const std::function<void(uint64_t)>* job;
    uint64_t index;
    Countdown* done;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return job_ != nullptr; });
      job = job_;
      index = index_;
      done = done_;
      job_ = nullptr;
    }
    (*job)(index);
    pool_.park(this);
    done->arrive();
  }
}

}  // namespace

void CoopThreads::run(uint64_t count, const std::function<void(uint64_t)>& job,
                      const std::function<void(uint64_t)>& short_of_threads) {
  std::vector<Worker*> crew = Pool::get().take(count);
  if (crew.size() < count) short_of_threads(crew.size());
  Countdown done(crew.size());
  for (uint64_t i = 0; i < crew.size(); ++i) crew[i]->give(&job, i, &done);
  done.wait();
}

}  // namespace minicuda::gpu
