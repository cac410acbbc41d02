// eventually(): waits, by polling, for something another thread (the simulated GPU's worker)
// will make true. Tests that watch the device thread use it instead of fixed sleeps.
#pragma once

#include <chrono>
#include <thread>

namespace testing_util {

// Polls pred every 50 µs for at most `limit`; returns its last value.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return pred();
}

}  // namespace testing_util
