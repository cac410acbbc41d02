// host_interface: the per-channel state the GPU's host interface keeps. In the real GPU, RM
// writes a channel's configuration into its RAMFC (GPFIFO base and size, USERD address) when it
// allocates the channel, and the PBDMA holds the rest while the channel runs: where it is in
// the current pushbuffer segment, the method header it is expanding, the host semaphore
// registers and which engine class each subchannel is bound to. All of that is Channel.
//
// Who talks to it: HostInterface (host_interface.cpp) owns the channels; the PBDMA (pbdma.cpp)
// reads and updates one while it runs it, under HostInterface's mutex.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "compute_engine.h"
#include "copy_engine.h"
#include "minicuda/device.h"

namespace minicuda::gpu {

// One subchannel: the engine class SET_OBJECT bound to it and that engine's context.
struct Subchannel {
  uint32_t nvclass = 0;                  // 0: nothing bound
  CopyState copy;                        // HOPPER_DMA_COPY_A's registers
  ComputeState compute;                  // HOPPER_COMPUTE_A's registers
};

struct Channel {
  ChannelConfig config;
  // Written under HostInterface's mutex; atomic so that the doorbell handler, which never takes
  // that mutex, can read it.
  std::atomic<ChannelStatus> status{ChannelStatus::Idle};
  // The doorbell rang and no PBDMA pass has taken it yet (HostInterface::doorbell sets it, the
  // pass turns an Idle channel with it into a Pending one).
  std::atomic<bool> rung{false};
  // Which channel of this chid (chids are reused): engine work names its channel by both, so
  // that work finishing after its channel was removed resumes nothing.
  uint64_t serial = 0;

  // Fetch state. pb_extended_base: pushbuffer address bits 56:40 set by the last
  // SET_PB_SEGMENT_EXTENDED_BASE entry. in_segment: the entry at GPGet has been fetched and
  // partly executed (the channel stopped inside it, at an acquire); segment_dword: how many of
  // its dwords are done.
  uint64_t pb_extended_base = 0;
  bool in_segment = false;
  uint32_t segment_dword = 0;

  // The method header being expanded: its data dwords still to come go to method (a byte
  // offset) on subchannel; sec_op says whether method advances (INC, ONE_INC) or not.
  uint32_t method = 0;
  uint32_t subchannel = 0;
  uint32_t remaining = 0;
  uint32_t sec_op = 0;

  // Host semaphore registers (SEM_ADDR_LO/HI, SEM_PAYLOAD_LO/HI).
  uint32_t sem_addr_lo = 0, sem_addr_hi = 0;
  uint32_t sem_payload_lo = 0, sem_payload_hi = 0;

  // minicuda's host-timeline registers (MINICUDA_SET_ORIGIN_*, MINICUDA_SET_HOST_TIME_LO), and
  // the host time of the segment being executed (MINICUDA_SET_HOST_TIME_HI; 0 before any).
  uint32_t origin_lo = 0, origin_hi = 0;
  uint32_t host_time_lo = 0;
  uint64_t segment_host_time = 0;

  std::array<Subchannel, 8> subchannels;  // NVC56F_NUMBER_OF_SUBCHANNELS
};

}  // namespace minicuda::gpu
