// coop_threads: the host threads that run a cooperative grid, one per block (every block of such
// a grid must be resident at once, so each needs a host thread to wait at grid.sync()). The
// threads stay parked between launches: each keeps its fiber stacks and its per-thread SM state,
// mapped and touched once, instead of building and unmapping them at every launch.
#pragma once

#include <cstdint>
#include <functional>

namespace minicuda::gpu {

class CoopThreads {
 public:
  // Runs job(0) .. job(count-1) each on a host thread of its own, all at the same time, and
  // returns when every one has returned. When the host cannot give count threads (EAGAIN),
  // short_of_threads(started) is called first, with the number of threads there are; only jobs
  // 0 .. started-1 then run. Thread-safe: several grids may run at once, each on its own threads.
  static void run(uint64_t count, const std::function<void(uint64_t)>& job,
                  const std::function<void(uint64_t)>& short_of_threads);
};

}  // namespace minicuda::gpu
