// A context's GPFIFO channel (see channel.h for the memory layout and the submission steps).
#include "channel.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "host_clock.h"
#include "prebuilt.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"

namespace minicuda::libcuda {

namespace {

// Maps an RM memory object for the CPU: a fresh fd of the right node bound to the control fd,
// NV_ESC_RM_MAP_MEMORY, then mmap of that fd. Returns the address, or null.
void* map_for_cpu(NvHandle hParent, NvHandle hMemory, uint64_t length, bool gpu_node) {
  Driver& d = driver();
  const DeviceInfo* dev = gpu_node ? device_of_handle(hParent) : nullptr;
  const std::string node = dev ? "/dev/nvidia" + std::to_string(dev->node_minor) : gpu_node ? "/dev/nvidia0" : "/dev/nvidiactl";
  int fd = kernel::sys_open(node.c_str(), kernel::kORdWr | kernel::kOCloexec);
  if (fd < 0) return nullptr;
  if (gpu_node) {
    nv_ioctl_register_fd_t reg{d.ctl_fd};
    if (kernel::sys_ioctl(fd, NV_IOWR(NV_ESC_REGISTER_FD, sizeof reg), &reg) < 0) {
      kernel::sys_close(fd);
      return nullptr;
    }
  }
  nv_ioctl_nvos33_parameters_with_fd map{};
  map.params.hClient = d.hClient;
  map.params.hDevice = hParent;
  map.params.hMemory = hMemory;
  map.params.length = length;
  map.fd = fd;
  void* cpu = nullptr;
  if (kernel::sys_ioctl(d.ctl_fd, NV_IOWR(NV_ESC_RM_MAP_MEMORY, sizeof map), &map) == 0 && map.params.status == NV_OK) {
    cpu = kernel::sys_mmap(nullptr, length, kernel::kProtRead | kernel::kProtWrite, kernel::kMapShared, fd, 0);
    if (kernel::mmap_failed(cpu)) cpu = nullptr;
  }
  kernel::sys_close(fd);  // the mapping keeps the file (as the measured libcuda does)
  return cpu;
}

}  // namespace

uint8_t* map_system_memory(CUctx_st& ctx, uint64_t bytes, NvHandle* memory) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  NV_MEMORY_ALLOCATION_PARAMS mem{};
  mem.type = NVOS32_TYPE_IMAGE;
  mem.attr = nv_field_num(NVOS32_ATTR_LOCATION_SHIFT, NVOS32_ATTR_LOCATION_MASK, NVOS32_ATTR_LOCATION_PCI);
  mem.size = bytes;
  *memory = next_handle();
  if (rm_alloc(d.hClient, dev.hDevice, memory, NV01_MEMORY_SYSTEM, &mem, sizeof mem) != NV_OK) {
    *memory = 0;
    return nullptr;
  }
  auto* cpu = static_cast<uint8_t*>(map_for_cpu(dev.hDevice, *memory, bytes, /*gpu_node=*/false));
  if (cpu == nullptr) return nullptr;
  if (uvm_map_memory(ctx.uvm_fd, reinterpret_cast<uint64_t>(cpu), bytes, dev.uuid, *memory) != NV_OK) {
    kernel::sys_munmap(cpu, bytes);
    return nullptr;
  }
  return cpu;
}

void free_mapped_system_memory(CUctx_st& ctx, uint8_t* cpu, uint64_t bytes, NvHandle memory) {
  if (cpu != nullptr) {
    uvm_free_range(ctx.uvm_fd, reinterpret_cast<uint64_t>(cpu));
    kernel::sys_munmap(cpu, bytes);
  }
  if (memory != 0) rm_free(driver().hClient, device_info(ctx.device)->hDevice, memory);
}

void* map_usermode(NvHandle hSubdevice, NvHandle hUsermode) {
  return map_for_cpu(hSubdevice, hUsermode, NVC361_NV_USERMODE__SIZE, /*gpu_node=*/true);
}

CUresult Channel::create(CUctx_st& ctx, volatile uint32_t* doorbell) {
  Driver& d = driver();
  const DeviceInfo& dev = *device_info(ctx.device);
  NV_STATUS s;
  NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS group{};
  group.hVASpace = ctx.hVaSpace;
  group.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
  group_ = next_handle();
  if ((s = rm_alloc(d.hClient, dev.hDevice, &group_, KEPLER_CHANNEL_GROUP_A, &group, sizeof group)) != NV_OK) {
    return to_cu_result(s);
  }
  NV_CTXSHARE_ALLOCATION_PARAMETERS share{};
  share.hVASpace = ctx.hVaSpace;
  share.flags = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC;
  share_ = next_handle();
  if ((s = rm_alloc(d.hClient, group_, &share_, FERMI_CONTEXT_SHARE_A, &share, sizeof share)) != NV_OK) {
    return to_cu_result(s);
  }

  // The ring, USERD, semaphores and pushbuffer: system memory, mapped for the CPU and, at the
  // same address, for the GPU.
  base_ = map_system_memory(ctx, kBytes, &memory_);
  if (base_ == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  static uint64_t serials = 0;
  serial_ = ++serials;

  // The error notifier: a page of system memory RM writes when the channel faults.
  NV_MEMORY_ALLOCATION_PARAMS notifier{};
  notifier.type = NVOS32_TYPE_IMAGE;
  notifier.size = kernel::kPageSize;
  notifier_memory_ = next_handle();
  if ((s = rm_alloc(d.hClient, dev.hDevice, &notifier_memory_, NV01_MEMORY_SYSTEM, &notifier, sizeof notifier)) != NV_OK) {
    return to_cu_result(s);
  }
  notifier_ = static_cast<NvNotification*>(map_for_cpu(dev.hDevice, notifier_memory_, kernel::kPageSize, false));
  if (notifier_ == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;

  NV_CHANNEL_ALLOC_PARAMS ch{};
  ch.hObjectError = notifier_memory_;
  ch.gpFifoOffset = reinterpret_cast<uint64_t>(base_);
  ch.gpFifoEntries = kEntries;
  ch.hContextShare = share_;
  ch.hVASpace = ctx.hVaSpace;
  ch.hUserdMemory[0] = memory_;
  ch.userdOffset[0] = kUserdOffset;
  ch.engineType = NV2080_ENGINE_TYPE_GRAPHICS;
  if (d.launch_blocking) ch.flags |= NVOS04_FLAGS_MINICUDA_INLINE;  // CUDA_LAUNCH_BLOCKING=1: run work inline
  inline_ = d.launch_blocking;
  channel_ = next_handle();
  if ((s = rm_alloc(d.hClient, group_, &channel_, HOPPER_CHANNEL_GPFIFO_A, &ch, sizeof ch)) != NV_OK) {
    return to_cu_result(s);
  }
  compute_ = next_handle();
  if ((s = rm_alloc(d.hClient, channel_, &compute_, HOPPER_COMPUTE_A, nullptr, 0)) != NV_OK) return to_cu_result(s);
  NVB0B5_ALLOCATION_PARAMETERS ce{NVB0B5_ALLOCATION_PARAMETERS_VERSION_1, NV2080_ENGINE_TYPE_COPY0};
  copy_ = next_handle();
  if ((s = rm_alloc(d.hClient, channel_, &copy_, HOPPER_DMA_COPY_A, &ce, sizeof ce)) != NV_OK) return to_cu_result(s);

  NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS token{};
  if ((s = rm_control(d.hClient, channel_, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &token, sizeof token)) != NV_OK) {
    return to_cu_result(s);
  }
  token_ = token.workSubmitToken;
  NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS schedule{};
  schedule.bEnable = NV_TRUE;
  if ((s = rm_control(d.hClient, group_, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &schedule, sizeof schedule)) != NV_OK) {
    return to_cu_result(s);
  }
  // The page's 32-bit registers: a store to one is a write on the bus to the GPU (bus.h).
  doorbell_ = reinterpret_cast<bus::Reg32*>(const_cast<uint32_t*>(doorbell));
  return CUDA_SUCCESS;
}

void Channel::destroy(CUctx_st& ctx) {
  Driver& d = driver();
  if (base_ != nullptr && fence_ != 0) (void)wait(fence_);
  if (group_ != 0) rm_free(d.hClient, device_info(ctx.device)->hDevice, group_);  // channel and objects with it
  free_mapped_system_memory(ctx, base_, kBytes, memory_);
  if (notifier_ != nullptr) kernel::sys_munmap(notifier_, kernel::kPageSize);
  if (notifier_memory_ != 0) rm_free(d.hClient, device_info(ctx.device)->hDevice, notifier_memory_);
  group_ = share_ = memory_ = channel_ = compute_ = copy_ = notifier_memory_ = 0;
  notifier_ = nullptr;
  base_ = nullptr;
  doorbell_ = nullptr;
}

}  // namespace minicuda::libcuda

// --- submission ---------------------------------------------------------------------------

namespace minicuda::libcuda {

namespace {
// Writes one incrementing method header and its data at base + *write (no room check).
void append(uint8_t* base, uint64_t* write, uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
  auto* p = reinterpret_cast<uint32_t*>(base + *write);
  *p++ = nv_method_inc(subchannel, method, static_cast<NvU32>(data.size()));
  for (uint32_t v : data) *p++ = v;
  *write += 4 * (data.size() + 1);
}
constexpr uint64_t kReleaseBytes = 2 * 4 * 6;  // submit()'s two releases: each a header and 5 words
constexpr uint64_t kStampBytes = 4 * 5;        // a segment's host-timeline methods: a header and 4 words
// Kept free after every method: for the releases, in a segment of their own when prebuilt
// segments come between (submit()).
constexpr uint64_t kReserve = 128;
static_assert(kStampBytes + kReleaseBytes <= kReserve);
}  // namespace

void Channel::method(uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
  if (CUprebuilt_st* r = prebuilt::recording_for(*this)) return prebuilt::record_method(*r, subchannel, method, data);
  make_room(kStampBytes + 4 * (data.size() + 1));
  if (pb_write_ == pb_segment_) begin_segment();
  append(base_, &pb_write_, subchannel, method, data);
}

void Channel::begin_segment() { pb_write_ += kStampBytes; }

// Keeps the pushbuffer a simple ring: when the methods would run past its end, the pending
// ones are submitted (their release fits in the reserve every method leaves), the GPU is
// allowed to finish everything, and writing starts over.
void Channel::make_room(uint64_t bytes) {
  if (pb_write_ + bytes + kReserve <= kPushbufferEnd) return;
  if (pb_write_ != pb_segment_) (void)submit();
  (void)wait(fence_);  // a fault shows again at the caller's own wait
  pb_write_ = pb_segment_ = kPushbufferOffset;
}

void Channel::write_entry(uint64_t entry) {
  auto* ring = reinterpret_cast<volatile uint64_t*>(base_);
  uint32_t next = (gp_put_ + 1) % kEntries;
  // A full ring: publish what is written (a submission of many prebuilt segments may fill it
  // alone), then wait for the GPU to consume an entry (GPGet is in USERD).
  if (next == __atomic_load_n(userd32(NVC56F_USERD_GP_GET), __ATOMIC_ACQUIRE)) publish();
  while (next == __atomic_load_n(userd32(NVC56F_USERD_GP_GET), __ATOMIC_ACQUIRE)) sched_yield();
  ring[gp_put_] = entry;
  gp_put_ = next;
}

void Channel::close_segment() {
  uint64_t stamp = pb_segment_;
  const uint64_t origin = trace::current_root(), host_time = host_clock::now();
  append(base_, &stamp, NV_SUBCHANNEL_HOST, NVC56F_MINICUDA_SET_ORIGIN_LO,
         {static_cast<uint32_t>(origin), static_cast<uint32_t>(origin >> 32), static_cast<uint32_t>(host_time),
          static_cast<uint32_t>(host_time >> 32)});
  write_segment_entry(reinterpret_cast<uint64_t>(base_) + pb_segment_,
                      static_cast<uint32_t>((pb_write_ - pb_segment_) / 4));
  pb_segment_ = pb_write_;
}

void Channel::write_segment_entry(uint64_t va, uint32_t dwords) {
  // Pushbuffers above 1 TiB need the upper address bits first (a GPFIFO control entry).
  if ((va >> 40) != extended_base_) {
    write_entry(nv_gp_entry_pb_extended_base(va));
    extended_base_ = va >> 40;
  }
  write_entry(nv_gp_entry(va, dwords));
}

void Channel::publish() {
  // GPPut, then the doorbell (release ordering: the entries are visible first). The doorbell
  // store is what makes the GPU look at this channel at all.
  __atomic_store_n(userd32(NVC56F_USERD_GP_PUT), gp_put_, __ATOMIC_RELEASE);
  doorbell_[NVC361_NOTIFY_CHANNEL_PENDING / 4] = token_;
}

uint64_t Channel::submit(std::span<const PushSegment> prebuilt) {
  if (CUprebuilt_st* r = prebuilt::recording_for(*this)) {
    prebuilt::record_submit(*r);
    return fence_;
  }
  uint64_t fence_va = reinterpret_cast<uint64_t>(fence_word());
  uint64_t value = fence_ + 1;
  uint64_t first = 0, dwords = 0;
  if (!prebuilt.empty()) {
    // The pending methods, or the host-timeline methods alone, go first: they set the origin and
    // host time the prebuilt work runs with. The releases' segment must then fit without
    // make_room(), which could start the pushbuffer over beneath this unpublished entry: the
    // reserve every method leaves holds it, and so does the room asked for here.
    if (pb_write_ == pb_segment_) {
      make_room(2 * kStampBytes + kReleaseBytes);
      begin_segment();
    }
    first = reinterpret_cast<uint64_t>(base_) + pb_segment_;
    dwords += (pb_write_ - pb_segment_) / 4;
    close_segment();
    for (const PushSegment& s : prebuilt) {
      write_segment_entry(s.va, s.dwords);
      dwords += s.dwords;
    }
  }
  // Not method(): its make_room() would submit again. With methods pending, the reserve they
  // left holds the releases; with none, make_room() may start the pushbuffer over (no submit).
  if (pb_write_ == pb_segment_) {
    if (prebuilt.empty()) make_room(kStampBytes + kReleaseBytes);
    begin_segment();
  }
  // The fence-time slot first, with the timestamp: the same channel time as the fence's release
  // after it, so once the fence is seen the slot holds its time (fence_time()).
  uint64_t time_va = reinterpret_cast<uint64_t>(base_) + kFenceTimesOffset +
                     (value % kFenceTimeSlots) * NV_SEMAPHORE_FOUR_WORD_SIZE;
  append(base_, &pb_write_, NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
         {static_cast<uint32_t>(time_va), static_cast<uint32_t>(time_va >> 32), static_cast<uint32_t>(value),
          static_cast<uint32_t>(value >> 32),
          nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT,
                         /*release_wfi=*/true, /*release_timestamp=*/true)});
  append(base_, &pb_write_, NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
         {static_cast<uint32_t>(fence_va), static_cast<uint32_t>(fence_va >> 32),
          static_cast<uint32_t>(value), static_cast<uint32_t>(value >> 32),
          nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT,
                         /*release_wfi=*/true)});
  const uint64_t last = reinterpret_cast<uint64_t>(base_) + pb_segment_;
  dwords += (pb_write_ - pb_segment_) / 4;
  close_segment();
  fence_ = value;
  if (prebuilt.empty()) {
    trace::note(trace::Layer::Libcuda, "channel: submit {} dwords at {:#x}, GPPut {}, doorbell token {}", dwords,
                last, gp_put_, token_);
  } else {
    trace::note(trace::Layer::Libcuda,
                "channel: submit {} prebuilt segment(s) between the entries at {:#x} and {:#x} ({} dwords in all), "
                "GPPut {}, doorbell token {}",
                prebuilt.size(), first, last, dwords, gp_put_, token_);
  }
  publish();
  if (inline_) {
    // CUDA_LAUNCH_BLOCKING=1: sleep in poll() on the control device; nvidia.ko runs the channel's
    // work in this thread meanwhile (a debugger steps from here into the kernel body).
    kernel::PollFd fd{driver().ctl_fd, kernel::kPollIn, 0};
    (void)kernel::sys_poll(&fd, 1, -1);
  }
  return value;
}

uint64_t Channel::event_va(uint32_t slot) const {
  return reinterpret_cast<uint64_t>(base_) + kSemaphoreOffset + (slot + 1ull) * NV_SEMAPHORE_FOUR_WORD_SIZE;
}

void Channel::acquire(uint64_t va, uint64_t value) {
  method(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
         {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(value),
          static_cast<uint32_t>(value >> 32),
          nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT)});
}

void Channel::release_timestamped(uint64_t va, uint64_t payload) {
  method(NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
         {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(payload),
          static_cast<uint32_t>(payload >> 32),
          nv_sem_execute(NVC56F_SEM_EXECUTE_OPERATION_RELEASE, NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT,
                         /*release_wfi=*/true, /*release_timestamp=*/true)});
}

namespace {
uint64_t host_semaphore_va(const uint8_t* base) {
  return reinterpret_cast<uint64_t>(base) + Channel::kSemaphoreOffset +
         (Channel::kEventSlots + 1ull) * NV_SEMAPHORE_FOUR_WORD_SIZE;
}
}  // namespace

void Channel::acquire_host(uint64_t value) { acquire(host_semaphore_va(base_), value); }

void Channel::release_host(uint64_t value) {
  __atomic_store_n(reinterpret_cast<uint64_t*>(host_semaphore_va(base_)), value, __ATOMIC_RELEASE);
}

bool Channel::faulted() const {
  return notifier_ != nullptr && __atomic_load_n(&notifier_->status, __ATOMIC_ACQUIRE) != 0;
}

CUresult Channel::fault_result() const {
  if (!faulted()) return CUDA_SUCCESS;
  if (notifier_->info32 == ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT) return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (notifier_->info32 == ROBUST_CHANNEL_CONTAINED_ERROR) return CUDA_ERROR_ECC_UNCORRECTABLE;
  switch (notifier_->info16) {
    case NV_SM_EXCEPTION_MISALIGNED_ADDR: return CUDA_ERROR_MISALIGNED_ADDRESS;
    case NV_SM_EXCEPTION_ASSERT: return CUDA_ERROR_ASSERT;
    case NV_SM_EXCEPTION_ILLEGAL_INSTR: return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    case NV_SM_EXCEPTION_TRAP:
    case NV_SM_EXCEPTION_STACK_OVERFLOW: return CUDA_ERROR_LAUNCH_FAILED;
    default: return CUDA_ERROR_ILLEGAL_ADDRESS;  // other channel errors (bad methods...) poison it too
  }
}

const NvMinicudaFaultRecord* Channel::fault_record() const {
  if (!faulted()) return nullptr;
  return reinterpret_cast<const NvMinicudaFaultRecord*>(reinterpret_cast<const char*>(notifier_) +
                                                        NV_MINICUDA_FAULT_RECORD_OFFSET);
}

CUresult Channel::wait(uint64_t fence, WaitMode mode) {
  // Spin, then yield, then sleep a little longer each time: the GPU may be quick or busy.
  unsigned spins = 0;
  auto sleep = std::chrono::microseconds(1);
  bool told = false;
  while (__atomic_load_n(fence_word(), __ATOMIC_ACQUIRE) < fence) {
    if (faulted()) {
      flush_printf();
      return fault_result();
    }
    if (mode == WaitMode::Blocking) {
      if (!told) trace::note(trace::Layer::Libcuda, "blocking sync: sleep in poll() until fence {}", fence);
      told = true;
      kernel::PollFd fd{driver().ctl_fd, kernel::kPollIn, 0};
      (void)kernel::sys_poll(&fd, 1, -1);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    if (inline_) {
      // CUDA_LAUNCH_BLOCKING=1: nobody else runs this channel; it stopped at an acquire (a host
      // function not yet done). Let nvidia.ko run it again in this thread.
      kernel::PollFd fd{driver().ctl_fd, kernel::kPollIn, 0};
      (void)kernel::sys_poll(&fd, 1, -1);
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      continue;
    }
    if (++spins < 1000) continue;
    if (spins < 2000) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(sleep * 2, std::chrono::microseconds(500));
  }
  host_clock::reach(fence_time(fence));
  flush_printf();
  return CUDA_SUCCESS;
}

bool Channel::query(uint64_t fence) const {
  if (!reached(fence)) return false;
  host_clock::reach(fence_time(fence));
  return true;
}

uint64_t Channel::fence_time(uint64_t fence) const {
  if (fence == 0) return 0;  // nothing was ever submitted: no time to wait for
  const uint8_t* slot = base_ + kFenceTimesOffset + (fence % kFenceTimeSlots) * NV_SEMAPHORE_FOUR_WORD_SIZE;
  return __atomic_load_n(reinterpret_cast<const uint64_t*>(slot + NV_SEMAPHORE_TIMESTAMP_OFFSET), __ATOMIC_ACQUIRE);
}

Channel::LaunchData Channel::launch_data(uint64_t bytes) {
  if (CUprebuilt_st* r = prebuilt::recording_for(*this)) return prebuilt::record_launch_data(*r, bytes);
  bytes = (bytes + NVCBC0_QMD_ALIGNMENT - 1) / NVCBC0_QMD_ALIGNMENT * NVCBC0_QMD_ALIGNMENT;
  if (launch_write_ + bytes > kLaunchDataEnd) {
    // The ring is full: publish what is pending, let the GPU finish every launch, start over.
    if (pb_write_ != pb_segment_) (void)submit();
    (void)wait(fence_);
    launch_write_ = kLaunchDataOffset;
  }
  LaunchData data{base_ + launch_write_, reinterpret_cast<uint64_t>(base_) + launch_write_};
  launch_write_ += bytes;
  return data;
}

uint64_t Channel::add_code(const NvMinicudaKernelCode& code) {
  if (code_slots_used_ >= kCodeSlots) return 0;
  uint64_t offset = kCodeOffset + uint64_t{code_slots_used_++} * sizeof(NvMinicudaKernelCode);
  std::memcpy(base_ + offset, &code, sizeof code);
  return reinterpret_cast<uint64_t>(base_) + offset;
}

// Kernel printf output reaches the host when it synchronises, as with the real printf FIFO.
// The FIFO is only read once the GPU has finished all submitted work (or the channel has
// stopped), so that no kernel is still writing to it; then it starts over empty.
void Channel::flush_printf() {
  auto* fifo = reinterpret_cast<NvMinicudaPrintfFifo*>(base_ + kPrintfOffset);
  bool idle = faulted() || __atomic_load_n(fence_word(), __ATOMIC_ACQUIRE) >= fence_;
  uint32_t used = __atomic_load_n(&fifo->end, __ATOMIC_ACQUIRE);
  if (!idle || (used == 0 && fifo->dropped == 0)) return;
  uint32_t capacity = static_cast<uint32_t>(kPrintfBytes - sizeof(NvMinicudaPrintfFifo));
  std::fwrite(base_ + kPrintfOffset + sizeof(NvMinicudaPrintfFifo), 1, std::min(used, capacity), stdout);
  if (fifo->dropped != 0)
    std::fprintf(stdout, "[minicuda: %u device printf record(s) dropped: the 64 KiB printf FIFO was full]\n",
                 fifo->dropped);
  std::fflush(stdout);
  fifo->write = 0;
  fifo->dropped = 0;
  fifo->end = 0;
}

}  // namespace minicuda::libcuda
