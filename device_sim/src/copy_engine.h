// copy_engine: the GPU's copy engine (class HOPPER_DMA_COPY_A, 0xC8B5), the DMA unit behind
// cudaMemcpy and cudaMemset. A channel programs it with methods on the subchannel that
// SET_OBJECT bound to the copy class: the address, pitch and length methods only set registers
// of the channel's copy context (CopyState); LAUNCH_DMA then moves the data and, if asked,
// releases a semaphore.
//
// What LAUNCH_DMA does here:
//   * pitch-linear copies between any mapped VAs, vidmem or sysmem: one line of LINE_LENGTH_IN
//     bytes, or LINE_COUNT lines PITCH_IN / PITCH_OUT bytes apart (MULTI_LINE_ENABLE);
//   * remapped transfers (REMAP_ENABLE): each destination element is built from components of
//     1-4 bytes taken from the source element or from SET_REMAP_CONST_A/B; a memset is a remap
//     whose only component is CONST_A, and then LINE_LENGTH_IN counts elements;
//   * the semaphore release that follows (ONE_WORD: the payload; FOUR_WORD: payload and
//     timestamp), or a semaphore reduction.
// INTERRUPT_TYPE and FLUSH_ENABLE have no effect yet: no interrupt is delivered, and every
// write is visible to the host at once.
// Every address is checked against the MMU for the whole transfer before a byte moves, so a
// fault writes nothing.
//
// Cost model (docs/timing.md, fitted to an H200): a fixed cost per transfer plus the bytes at
// the rate of their path, on the timeline of the copy engine for that direction - ce0 host to
// device, ce1 device to host, ce2 the rest (copy_engine.cpp).
//
// Who talks to it: the PBDMA (pbdma.cpp) hands it every method of a copy subchannel.
#pragma once

#include <cstdint>
#include <optional>

#include "gpu_memory.h"
#include "minicuda/device.h"

namespace minicuda::gpu {

// The copy engine's method registers of one channel (its engine context): what the methods
// before LAUNCH_DMA have set. Names follow clc8b5.h.
struct CopyState {
  uint32_t offset_in_upper = 0, offset_in_lower = 0;
  uint32_t offset_out_upper = 0, offset_out_lower = 0;
  uint32_t pitch_in = 0, pitch_out = 0;
  uint32_t line_length_in = 0, line_count = 0;
  uint32_t semaphore_a = 0, semaphore_b = 0;
  uint32_t semaphore_payload = 0, semaphore_payload_upper = 0;
  uint32_t remap_const_a = 0, remap_const_b = 0, remap_components = 0;
};

class CopyEngine {
 public:
  // instance: which copy engine this is ("ce0" in traces).
  CopyEngine(Device& device, const GpuMemory& memory, int instance);

  // Executes one HOPPER_DMA_COPY_A method of channel chid on its context state. Returns the
  // fault that stops the channel, or nullopt:
  //   IllegalMethod  a method this class does not have
  //   NotModelled    LAUNCH_DMA asks for block-linear layout, physical addressing, secure copy,
  //                  scrubbing, a conditional-interrupt semaphore or a float reduction
  //   BadArgument    a remap that selects a source component beyond NUM_SRC_COMPONENTS, a
  //                  misaligned semaphore
  //   MmuUnmapped / MmuReadOnly  a source, destination or semaphore byte the MMU refuses
  std::optional<ChannelFault> method(uint32_t chid, CopyState& state, uint32_t method,
                                     uint32_t data);
  // The copy engine a LAUNCH_DMA of these registers runs on: ce0 host to device, ce1 device to
  // host, ce2 the rest (by the apertures of the first source and destination pages).
  TimelineUnit unit_of(const CopyState& state, uint32_t launch) const;
  // The bytes a LAUNCH_DMA of these registers writes (all lines, remapped elements counted
  // whole); 0 for a semaphore-only LAUNCH_DMA.
  static uint64_t bytes_written(const CopyState& state, uint32_t launch);

 private:
  std::optional<ChannelFault> launch_dma(uint32_t chid, const CopyState& state, uint32_t launch);
  std::optional<ChannelFault> transfer(uint32_t chid, const CopyState& state, uint32_t launch);
  std::optional<ChannelFault> release(uint32_t chid, const CopyState& state, uint32_t launch);

  Device& device_;
  const GpuMemory& memory_;
  int instance_;
};

}  // namespace minicuda::gpu
