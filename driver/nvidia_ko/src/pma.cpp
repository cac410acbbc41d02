// The physical memory allocator (PMA): which bytes of VRAM belong to which memory object.
//
// RM asks it for the backing of every NV01_MEMORY_LOCAL_USER object. It hands out 2 MiB-aligned
// runs (the big-page size), first fit from the bottom of VRAM, and coalesces on free. Freed VRAM
// is discarded so that the host memory behind the simulated VRAM goes back to the host.
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {
constexpr uint64_t kGranule = gpu::kBigPage;
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

Pma::Pma(uint64_t size) : size_(size / kGranule * kGranule), free_bytes_(size_) {
  if (size_) free_[0] = size_;
}

std::optional<uint64_t> Pma::alloc(uint64_t size, uint64_t alignment) {
  if (size == 0 || size > size_) return std::nullopt;
  size = round_up(size, kGranule);
  alignment = alignment < kGranule ? kGranule : round_up(alignment, kGranule);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = round_up(it->first, alignment);
    uint64_t end = it->first + it->second;
    if (start >= end || end - start < size) continue;
    uint64_t run_start = it->first;
    free_.erase(it);
    if (start > run_start) free_[run_start] = start - run_start;
    if (start + size < end) free_[start + size] = end - (start + size);
    free_bytes_ -= size;
    return start;
  }
  return std::nullopt;
}

void Pma::free(uint64_t offset, uint64_t size) {
  size = round_up(size, kGranule);
  nv_device().vram().discard(offset, size);
  free_bytes_ += size;
  auto [it, inserted] = free_.emplace(offset, size);
  // Coalesce with the next and the previous free run.
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

}  // namespace minicuda::nvidia
