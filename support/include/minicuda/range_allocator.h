// minicuda/range_allocator.h: a first-fit allocator of address ranges, the structure behind two
// allocators of the stack: nvidia.ko's PMA (which bytes of VRAM belong to which memory object)
// and libcuda's pool (which part of the context's GPU VA range a chunk is mapped at). It hands
// out the lowest free range that fits and coalesces freed ranges with their neighbours.
// Part of minicuda::support (header only); not thread-safe: the owner's lock guards it.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>

#include "minicuda/round_up.h"

namespace minicuda {

class RangeAllocator {
 public:
  RangeAllocator() = default;
  // Manages [base, base + size), all free.
  RangeAllocator(uint64_t base, uint64_t size) : free_bytes_(size) {
    if (size) free_[base] = size;
  }

  // The start of the lowest free range of `size` bytes whose start is a multiple of
  // `alignment` (> 0), now allocated; nullopt when none is free. size 0 gets nullopt.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment = 1) {
    if (size == 0) return std::nullopt;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      const uint64_t run_start = it->first;
      const uint64_t run_end = it->first + it->second;
      const uint64_t start = round_up(run_start, alignment);
      if (start >= run_end || run_end - start < size) continue;
      free_.erase(it);
      if (start > run_start) free_[run_start] = start - run_start;
      if (start + size < run_end) free_[start + size] = run_end - (start + size);
      free_bytes_ -= size;
      return start;
    }
    return std::nullopt;
  }

  // Returns [start, start + size), which allocate() handed out, merging it with free
  // neighbours.
  void release(uint64_t start, uint64_t size) {
    if (size == 0) return;
    free_bytes_ += size;
    auto [it, inserted] = free_.emplace(start, size);
    auto next = std::next(it);
    if (next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }

  uint64_t free_bytes() const { return free_bytes_; }
  // How many separate free ranges there are (1 when nothing is allocated).
  size_t free_ranges() const { return free_.size(); }

 private:
  std::map<uint64_t, uint64_t> free_;  // start -> length, coalesced
  uint64_t free_bytes_ = 0;
};

}  // namespace minicuda
