// The physical memory allocator (PMA): which bytes of VRAM belong to which memory object.
//
// RM asks it for the backing of every NV01_MEMORY_LOCAL_USER object. It hands out 2 MiB-aligned
// runs (the big-page size), first fit from the bottom of VRAM, and coalesces on free
// (minicuda::RangeAllocator). Freed VRAM is discarded so that the host memory behind the
// simulated VRAM goes back to the host.
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {
constexpr uint64_t kGranule = gpu::kBigPage;
}  // namespace

Pma::Pma(uint64_t size) : size_(size / kGranule * kGranule), ranges_(0, size_) {}

std::optional<uint64_t> Pma::alloc(uint64_t size, uint64_t alignment) {
  if (size == 0 || size > size_) return std::nullopt;
  size = round_up(size, kGranule);
  alignment = alignment < kGranule ? kGranule : round_up(alignment, kGranule);
  return ranges_.allocate(size, alignment);
}

void Pma::free(uint64_t offset, uint64_t size) {
  size = round_up(size, kGranule);
  nv_device().vram().discard(offset, size);
  ranges_.release(offset, size);
}

}  // namespace minicuda::nvidia
