// Private to libcuda: a GPFIFO channel of a context, the path by which work reaches the GPU.
//
// One system-memory object (NV01_MEMORY_SYSTEM, mapped for the CPU with RM_MAP_MEMORY + mmap and
// for the GPU at the same address through UVM) holds, in order:
//   [0, 8 KiB)        the GPFIFO ring: 1024 entries of 8 bytes
//   [8 KiB, +512)     USERD: the GPU's GPGet (0x88) and libcuda's GPPut (0x8C)
//   [10 KiB, 12 KiB)  fence times: 128 four-word semaphores; fence N's submit also releases
//                     slot N % 128 with the GPU's timestamp, so the host learns when N completed
//   [12 KiB, 16 KiB)  semaphores the GPU releases and libcuda waits on
//   [16 KiB, 512 KiB) the pushbuffer, where libcuda writes methods
//   [512 KiB, 896 KiB) launch data: a QMD and its constant bank 0 (the parameters) per launch
//   [896 KiB, 960 KiB) the printf FIFO kernels write to (constant bank 1 of every launch)
//   [960 KiB, 1 MiB)  code records of the kernels loaded in the context (nv_kernel_code.h)
// Submitting is: write methods into the pushbuffer, one GPFIFO entry pointing at them, advance
// GPPut, store the channel's work-submit token at the doorbell (the usermode page + 0x90).
// None of it is a system call. The doorbell store is a plain 32-bit store to a register of the
// mapped page (bus::Reg32): the bus delivers it to the GPU's host interface, which schedules the
// channel (minicuda/bus.h); until then the GPU does not look at the channel. Every segment starts with minicuda's host-timeline methods
// (MINICUDA_SET_ORIGIN, MINICUDA_SET_HOST_TIME: the submitting call and the host's simulated
// time, host_clock.h) and ends with the fence's releases.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include "libcuda.h"
#include "minicuda/bus.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"
#include "class/clcbc0.h"
#include "class/clcbc0qmd.h"
#include "nv_kernel_code.h"
#include "nv_occupancy.h"
#include "nv_sm_exception.h"
#include "nv_uapi.h"

namespace minicuda::libcuda {

// A run of methods kept outside the channel's pushbuffer (prebuilt.h): the GPU address and
// length of one GPFIFO entry's worth.
struct PushSegment {
  uint64_t va = 0;
  uint32_t dwords = 0;
};

class Channel {
 public:
  static constexpr uint32_t kEntries = 1024;
  static constexpr uint64_t kUserdOffset = 8 << 10;
  static constexpr uint64_t kFenceTimesOffset = 10 << 10;
  static constexpr uint32_t kFenceTimeSlots = 128;
  static constexpr uint64_t kSemaphoreOffset = 12 << 10;
  static constexpr uint64_t kPushbufferOffset = 16 << 10;
  static constexpr uint64_t kPushbufferEnd = 512 << 10;
  static constexpr uint64_t kLaunchDataOffset = 512 << 10;
  static constexpr uint64_t kLaunchDataEnd = 896 << 10;
  static constexpr uint64_t kPrintfOffset = 896 << 10;
  static constexpr uint64_t kPrintfBytes = 64 << 10;
  static constexpr uint64_t kCodeOffset = 960 << 10;
  static constexpr uint64_t kBytes = 1 << 20;
  static constexpr uint32_t kCodeSlots = static_cast<uint32_t>((kBytes - kCodeOffset) / sizeof(NvMinicudaKernelCode));

  // Builds the channel's RM objects (channel group, context share, the memory above, the channel,
  // its compute and copy objects) and mappings; `doorbell` is the mapped usermode page.
  CUresult create(CUctx_st& ctx, volatile uint32_t* doorbell);
  // Frees what create() made (after waiting for the channel's work to finish).
  void destroy(CUctx_st& ctx);
  bool ready() const { return base_ != nullptr; }

  // Appends one method with its data to the pushbuffer (an incrementing method header). While
  // this thread records prebuilt work for the channel (prebuilt.h), the method goes into the
  // recording instead.
  void method(uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data);
  // Appends the releases of the next fence value (its fence-time slot with the GPU's
  // timestamp, then the fence semaphore), fills in the segment's host-timeline methods (this
  // thread's host time, the current trace root) and publishes everything pushed since the last
  // submit: one GPFIFO entry, GPPut, the doorbell. Returns the fence to wait for.
  // With prebuilt segments: the pending methods (at least the host-timeline ones) get their
  // entry first, then one entry per prebuilt segment, then the releases in an entry of their
  // own; so the prebuilt work runs with this submission's origin and host time.
  // While this thread records for the channel: nothing is published; the last fence.
  uint64_t submit(std::span<const PushSegment> prebuilt = {});
  // Waits until the GPU has released `fence` (polling the semaphore: no system call), moves
  // this thread's host clock on to the fence's completion time (fence_time), then prints what
  // kernels wrote to the printf FIFO. If the channel faulted instead (its error notifier was
  // written): the error of the fault (fault_result()), and the clock stays.
  // How the host thread waits (CU_EVENT_BLOCKING_SYNC, CU_CTX_SCHED_BLOCKING_SYNC): Spin polls
  // the semaphore, then yields, then sleeps; Blocking never spins: it sleeps in poll() on the
  // control device between looks at the semaphore, leaving the CPU to other threads.
  enum class WaitMode { Spin, Blocking };
  CUresult wait(uint64_t fence, WaitMode mode = WaitMode::Spin);
  // The GPU time at which `fence` (released already) completed: its fence-time slot's
  // timestamp. Exact unless the GPU has since completed kFenceTimeSlots more fences of this
  // channel, when the slot holds a later one's time.
  uint64_t fence_time(uint64_t fence) const;
  // Has the GPU reported an error on this channel (error notifier status set)?
  bool faulted() const;
  // The CUresult of the channel's fault, from the notifier's Xid (info32) and SM exception
  // (info16): MMU fault 700, misaligned 716, assert 710, trap 719, illegal instruction 715.
  CUresult fault_result() const;
  // RM's record of the fault (kernel, block, thread, address), or null before any fault.
  const NvMinicudaFaultRecord* fault_record() const;

  // Room for one launch's QMD and constant bank in the launch-data ring, 256-byte aligned: its
  // CPU pointer and GPU address. Wrapping around waits for the GPU to finish earlier launches.
  // While this thread records for the channel: room in the recording's memory instead.
  struct LaunchData {
    uint8_t* cpu;
    uint64_t va;
  };
  LaunchData launch_data(uint64_t bytes);
  // The printf FIFO (its GPU address and size) that launches pass in constant bank 1.
  uint64_t printf_va() const { return reinterpret_cast<uint64_t>(base_) + kPrintfOffset; }
  // Writes a kernel's code record into the next free slot; its GPU address, or 0 when all
  // kCodeSlots are taken.
  uint64_t add_code(const NvMinicudaKernelCode& code);
  // The last fence submitted.
  uint64_t last_fence() const { return fence_; }
  // This channel's number among all channels the process made (never reused): what prebuilt
  // work records as the channel it was built for.
  uint64_t serial() const { return serial_; }
  // Has the GPU released `fence` yet? (One load; never waits.)
  bool reached(uint64_t fence) const { return __atomic_load_n(fence_word(), __ATOMIC_ACQUIRE) >= fence; }
  // reached(), for a query the program made (cuStreamQuery, cuEventQuery): a query that finds
  // the work done has seen it finish, so this thread's host clock moves on to the fence's
  // completion time, as after a wait.
  bool query(uint64_t fence) const;

  // Event semaphores: four-word (payload + GPU timestamp) semaphores after the fence's, in the
  // same page: the first kEventSlots of the context's events (event_semaphores.h has the rest).
  // cuEventRecord is a release of one of them with a timestamp, after all earlier work
  // (wait-for-idle) - what the real driver does for an event.
  // The last four-word slot of the page is the host-function semaphore (below).
  static constexpr uint32_t kEventSlots = (4096 / NV_SEMAPHORE_FOUR_WORD_SIZE) - 2;
  // The GPU address of event semaphore slot (< kEventSlots) of this channel's page.
  uint64_t event_va(uint32_t slot) const;
  // Appends a release of payload to the four-word semaphore at va (any channel's), with the
  // GPU's timestamp, after all earlier work (what an event record is); submit() publishes it.
  void release_timestamped(uint64_t va, uint64_t payload);
  // Appends an acquire: this channel's later work waits until the 64-bit semaphore at va (any
  // channel's) is >= value.
  void acquire(uint64_t va, uint64_t value);
  // The GPU address of this channel's fence semaphore (what other channels acquire to wait for
  // its work).
  uint64_t fence_va() const { return reinterpret_cast<uint64_t>(fence_word()); }

  // The host-function semaphore: work queued behind a host function (cuLaunchHostFunc) waits
  // for it with an acquire (>= value) that acquire_host() appends; the thread that ran the
  // function releases it with release_host() - a store from the CPU, as real drivers release a
  // semaphore in host memory; the PBDMA, retrying its waiting channels, then goes on.
  void acquire_host(uint64_t value);
  void release_host(uint64_t value);
  // Has the GPU released `fence`, or faulted? Never waits, never prints (any thread).
  bool reached_or_faulted(uint64_t fence) const { return reached(fence) || faulted(); }

 private:
  uint32_t* userd32(uint32_t offset) const { return reinterpret_cast<uint32_t*>(base_ + kUserdOffset + offset); }
  volatile uint64_t* fence_word() const { return reinterpret_cast<volatile uint64_t*>(base_ + kSemaphoreOffset); }
  void make_room(uint64_t bytes);
  // Before the first method of a segment: leaves room for its host-timeline methods.
  void begin_segment();
  // Fills in the host-timeline methods of the segment [pb_segment_, pb_write_) and writes its
  // GPFIFO entry; the next segment starts at pb_write_.
  void close_segment();
  // One GPFIFO entry for dwords at va (after the extended-base entry when va's bits 56:40 are
  // not the ones the GPU was told).
  void write_segment_entry(uint64_t va, uint32_t dwords);
  // GPPut and the doorbell: the GPU sees every entry written so far.
  void publish();
  void flush_printf();
  void write_entry(uint64_t entry);

  NvHandle group_ = 0, share_ = 0, memory_ = 0, channel_ = 0, compute_ = 0, copy_ = 0, notifier_memory_ = 0;
  NvNotification* notifier_ = nullptr;  // the channel's error notifier (its own 4 KiB sysmem)
  uint8_t* base_ = nullptr;         // CPU (and, with UVA, GPU) address of the memory object
  bus::Reg32* doorbell_ = nullptr;  // the usermode page's registers (doorbell at NVC361_NOTIFY_CHANNEL_PENDING)
  uint32_t token_ = 0;
  uint64_t pb_write_ = kPushbufferOffset;  // where the next method goes
  uint64_t pb_segment_ = kPushbufferOffset;  // start of the not yet submitted methods
  uint32_t gp_put_ = 0;                      // next GPFIFO entry to write
  uint64_t fence_ = 0;                       // last fence value submitted
  uint64_t extended_base_ = ~0ull;           // pushbuffer VA bits 56:40 the GPU was told
  uint64_t launch_write_ = kLaunchDataOffset;  // where the next launch's data goes
  bool inline_ = false;                        // CUDA_LAUNCH_BLOCKING=1: submit() runs the work
  uint32_t code_slots_used_ = 0;
  uint64_t serial_ = 0;
};

// System memory for the GPU's use, as a channel's own: an NV01_MEMORY_SYSTEM object of bytes,
// mapped for the CPU (RM_MAP_MEMORY + mmap) and for the GPU at the same address (UVM). Its
// address, or null (then *memory is 0 or what free_mapped_system_memory must free).
uint8_t* map_system_memory(CUctx_st& ctx, uint64_t bytes, NvHandle* memory);
void free_mapped_system_memory(CUctx_st& ctx, uint8_t* cpu, uint64_t bytes, NvHandle memory);

}  // namespace minicuda::libcuda
