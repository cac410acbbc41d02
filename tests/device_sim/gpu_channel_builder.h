// Test helpers for device_sim's work-submission units: a Pushbuffer that encodes methods with
// the class headers (nv_hw_classes.h), and a TestChannel that does by hand what nvidia.ko and libcuda will do:
// map a GPFIFO ring, a USERD page and a pushbuffer in vidmem, register the channel with the
// host interface, and submit (copy the methods, write the GPFIFO entry, advance GPPut, ring
// the doorbell).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "minicuda/device.h"
#include "nv_hw_classes.h"

namespace minicuda::gpu::testing {

template <typename T>
T* at(uint64_t va) {
  return reinterpret_cast<T*>(va);
}

// A pushbuffer segment under construction.
struct Pushbuffer {
  std::vector<uint32_t> dwords;

  Pushbuffer& inc(uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
    dwords.push_back(nv_method_inc(subchannel, method, static_cast<uint32_t>(data.size())));
    dwords.insert(dwords.end(), data);
    return *this;
  }
  Pushbuffer& non_inc(uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
    dwords.push_back(nv_method_non_inc(subchannel, method, static_cast<uint32_t>(data.size())));
    dwords.insert(dwords.end(), data);
    return *this;
  }
  Pushbuffer& one_inc(uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
    dwords.push_back(nv_method_one_inc(subchannel, method, static_cast<uint32_t>(data.size())));
    dwords.insert(dwords.end(), data);
    return *this;
  }
  Pushbuffer& immd(uint32_t subchannel, uint32_t method, uint32_t data) {
    dwords.push_back(nv_method_immd(subchannel, method, data));
    return *this;
  }
  Pushbuffer& set_object(uint32_t subchannel, uint32_t nvclass) {
    return inc(subchannel, NVC56F_SET_OBJECT, {nvclass});
  }
  // SEM_ADDR_LO..SEM_EXECUTE in one incrementing run, as tinygrad's signal() does.
  Pushbuffer& semaphore(uint64_t va, uint64_t payload, uint32_t execute) {
    return inc(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
               {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32),
                static_cast<uint32_t>(payload), static_cast<uint32_t>(payload >> 32), execute});
  }
  Pushbuffer& release32(uint64_t va, uint32_t payload) {
    return semaphore(va, payload,
                     nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE,
                                    NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT));
  }
  Pushbuffer& release64(uint64_t va, uint64_t payload, bool timestamp = false) {
    return semaphore(
        va, payload,
        nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT,
                       /*release_wfi=*/true, timestamp));
  }
  Pushbuffer& acquire(uint64_t va, uint64_t payload, uint32_t operation,
                      uint32_t size = NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_32BIT) {
    return semaphore(va, payload, nv_sem_execute(operation, size));
  }
  // A 1D pitch copy on the copy subchannel, optionally followed by a semaphore release.
  Pushbuffer& copy(uint64_t src, uint64_t dst, uint32_t bytes,
                   uint32_t semaphore_type = NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE) {
    inc(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_IN_UPPER,
        {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src),
         static_cast<uint32_t>(dst >> 32), static_cast<uint32_t>(dst)});
    inc(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {bytes});
    return inc(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA, {nv_launch_dma_copy(semaphore_type)});
  }
  // The copy engine's semaphore for the next LAUNCH_DMA.
  Pushbuffer& copy_semaphore(uint64_t va, uint32_t payload) {
    return inc(NV_SUBCHANNEL_COPY, NVC8B5_SET_SEMAPHORE_A,
               {static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(va), payload});
  }
  // A memset of elements components of component_bytes, each = value (UVM's memset_{1,4}).
  Pushbuffer& memset(uint64_t dst, uint32_t value, uint32_t component_bytes, uint32_t elements) {
    inc(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_CONST_A, {value});
    inc(NV_SUBCHANNEL_COPY, NVC8B5_SET_REMAP_COMPONENTS, {nv_remap_memset(component_bytes)});
    inc(NV_SUBCHANNEL_COPY, NVC8B5_OFFSET_OUT_UPPER,
        {static_cast<uint32_t>(dst >> 32), static_cast<uint32_t>(dst)});
    inc(NV_SUBCHANNEL_COPY, NVC8B5_LINE_LENGTH_IN, {elements});
    return inc(NV_SUBCHANNEL_COPY, NVC8B5_LAUNCH_DMA,
               {nv_launch_dma_copy(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE, false, /*remap=*/true)});
  }
};

// One channel whose ring, USERD and pushbuffer live in a 2 MiB vidmem page at region_va:
// the ring at +0, USERD at +kUserd, pushbuffer space from +kPushbuffer.
class TestChannel {
 public:
  static constexpr uint64_t kUserd = 0x10000;
  static constexpr uint64_t kPushbuffer = 0x20000;

  TestChannel(Device& device, uint32_t chid, uint64_t region_va, uint64_t vram_offset,
              uint32_t entries = 16)
      : device_(device), region_(region_va) {
    EXPECT_TRUE(device.mmu().map_vidmem(region_va, vram_offset, kBigPage));
    std::memset(at<void>(region_va), 0, kPushbuffer);
    config_ = ChannelConfig{chid, 0x100 + chid, region_va, entries, region_va + kUserd};
    device.host().add_channel(config_);
  }

  const ChannelConfig& config() const { return config_; }
  uint32_t chid() const { return config_.chid; }
  uint64_t userd() const { return config_.userd_va; }
  uint32_t gp_get() const { return load(NVC56F_USERD_GP_GET); }
  uint32_t gp_put() const { return put_; }

  // Writes one raw GPFIFO entry at GPPut and moves the (unpublished) put index on.
  void write_entry(uint64_t entry) {
    at<uint64_t>(config_.gpfifo_va)[put_] = entry;
    put_ = (put_ + 1) % config_.gpfifo_entries;
  }
  // Copies pb into the pushbuffer space and writes its GPFIFO entry (after an extended-base
  // entry the first time: UVA addresses are above 1 TiB). Returns the segment's VA.
  uint64_t write(const Pushbuffer& pb) {
    uint64_t va = region_ + kPushbuffer + pb_used_;
    std::memcpy(at<void>(va), pb.dwords.data(), pb.dwords.size() * 4);
    pb_used_ += (pb.dwords.size() * 4 + 63) & ~uint64_t{63};
    if (!extended_base_written_) {
      write_entry(nv_gp_entry_pb_extended_base(va));
      extended_base_written_ = true;
    }
    write_entry(nv_gp_entry(va, static_cast<uint32_t>(pb.dwords.size())));
    return va;
  }
  // Publishes the entries written so far: GPPut in USERD (a release store, as libcuda's
  // store after its memory barrier).
  void publish() {
    std::atomic_ref<uint32_t>(*at<uint32_t>(userd() + NVC56F_USERD_GP_PUT)).store(put_);
  }
  void ring() { device_.host().doorbell(config_.token); }
  // write + publish + ring: one submission.
  uint64_t submit(const Pushbuffer& pb) {
    uint64_t va = write(pb);
    publish();
    ring();
    return va;
  }
  ChannelStatus status() const { return *device_.host().channel_status(config_.chid); }

 private:
  // An acquire load: the GPU's threads write USERD while tests read it.
  uint32_t load(uint32_t offset) const {
    return std::atomic_ref<uint32_t>(*at<uint32_t>(userd() + offset)).load(std::memory_order_acquire);
  }

  Device& device_;
  uint64_t region_;
  ChannelConfig config_{};
  uint32_t put_ = 0;
  uint64_t pb_used_ = 0;
  bool extended_base_written_ = false;
};

}  // namespace minicuda::gpu::testing
