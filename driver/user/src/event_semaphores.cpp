// event_semaphores: the context's event semaphores, in its channel's page and then in pages of
// their own (event_semaphores.h).
#include "event_semaphores.h"

#include "channel.h"
#include "libcuda.h"

namespace minicuda::libcuda {

CUresult EventSemaphores::take(CUctx_st& ctx, uint32_t* slot) {
  if (!pending_.empty()) reclaim();
  if (!free_.empty()) {
    *slot = free_.top();
    free_.pop();
    return CUDA_SUCCESS;
  }
  const uint32_t next = made_;
  if (next >= Channel::kEventSlots && (next - Channel::kEventSlots) % kPageSlots == 0) {
    Page page;
    page.base = map_system_memory(ctx, kPageBytes, &page.memory);
    if (page.base == nullptr) {
      free_mapped_system_memory(ctx, nullptr, kPageBytes, page.memory);
      trace::note(trace::Layer::Libcuda, "event: no system memory for {} more event semaphores", kPageSlots);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    trace::note(trace::Layer::Libcuda, "event: {} more event semaphores in system memory at {:#x}", kPageSlots,
                reinterpret_cast<uint64_t>(page.base));
    pages_.push_back(page);
  }
  *slot = next;
  ++made_;
  return CUDA_SUCCESS;
}

void EventSemaphores::give_back(uint32_t slot, const Channel* channel, uint64_t fence) {
  if (channel == nullptr || channel->reached_or_faulted(fence)) {
    free_.push(slot);
  } else {
    pending_.push_back(Pending{slot, channel, fence});
  }
}

void EventSemaphores::reclaim() {
  std::erase_if(pending_, [&](const Pending& p) {
    if (!p.channel->reached_or_faulted(p.fence)) return false;
    free_.push(p.slot);
    return true;
  });
}

uint64_t EventSemaphores::va(const CUctx_st& ctx, uint32_t slot) const {
  if (slot < Channel::kEventSlots) return ctx.channel->event_va(slot);
  const uint32_t index = slot - Channel::kEventSlots;
  return reinterpret_cast<uint64_t>(pages_[index / kPageSlots].base) +
         uint64_t{index % kPageSlots} * NV_SEMAPHORE_FOUR_WORD_SIZE;
}

uint64_t EventSemaphores::timestamp(const CUctx_st& ctx, uint32_t slot) const {
  const auto* semaphore = reinterpret_cast<const uint8_t*>(va(ctx, slot));
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(semaphore + NV_SEMAPHORE_TIMESTAMP_OFFSET),
                         __ATOMIC_ACQUIRE);
}

void EventSemaphores::release_all(CUctx_st& ctx) {
  for (const Page& page : pages_) free_mapped_system_memory(ctx, page.base, kPageBytes, page.memory);
  pages_.clear();
  pending_.clear();
  free_ = {};
  made_ = 0;
}

}  // namespace minicuda::libcuda
