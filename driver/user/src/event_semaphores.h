// Private to libcuda: the semaphores events release.
//
// cuEventRecord is a timestamped release of one four-word semaphore (payload and GPU time) per
// event. The first Channel::kEventSlots live events of a context use the slots of its channel's
// semaphore page; the real driver has no such limit (the H200 holds 100000 live events in one
// context: tests/data/h200/events/probe_events.txt), so beyond them the context makes pages of
// system memory for the GPU, kPageSlots semaphores at a time, as they are needed, and keeps them
// until it is torn down.
//
// Who talks to it: cuEventCreate and cuEventDestroy_v2 take and give back slots, cuEventRecord
// and cuEventElapsedTime_v2 read their addresses and times (stream.cpp), teardown() frees the
// pages (context.cpp). Every call is made under the driver's mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "class/clc56f.h"
#include "cuda.h"
#include "nv_uapi.h"

namespace minicuda::libcuda {

class Channel;

class EventSemaphores {
 public:
  static constexpr uint64_t kPageBytes = 64 << 10;
  static constexpr uint32_t kPageSlots = static_cast<uint32_t>(kPageBytes / NV_SEMAPHORE_FOUR_WORD_SIZE);

  // The lowest free slot into *slot, making a page when every slot made so far is taken.
  // CUDA_ERROR_OUT_OF_MEMORY when the page cannot be made.
  CUresult take(CUctx_st& ctx, uint32_t* slot);
  // Slot's event was destroyed. Its last record (fence on channel; channel null when it was
  // never recorded) may still be on its way, and would then write its time over the next event
  // made with the slot: the slot is free once the GPU has passed that record.
  void give_back(uint32_t slot, const Channel* channel, uint64_t fence);
  // The GPU address of slot's semaphore (the same address for the CPU).
  uint64_t va(const CUctx_st& ctx, uint32_t slot) const;
  // The GPU time (ns) of slot's last release.
  uint64_t timestamp(const CUctx_st& ctx, uint32_t slot) const;
  // Frees the pages and forgets every slot (context teardown, after its channels are idle).
  void release_all(CUctx_st& ctx);

 private:
  struct Page {
    uint8_t* base = nullptr;
    NvHandle memory = 0;
  };
  struct Pending {
    uint32_t slot;
    const Channel* channel;
    uint64_t fence;
  };
  // Frees the slots of pending_ whose record the GPU has passed.
  void reclaim();
  std::vector<Page> pages_;
  std::vector<Pending> pending_;  // destroyed events' slots, their last record still to come
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_;  // lowest first
  uint32_t made_ = 0;  // slots handed out at least once: [0, made_)
};

}  // namespace minicuda::libcuda
