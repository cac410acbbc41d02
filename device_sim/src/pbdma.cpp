// pbdma: the host interface's fetch-and-decode unit (see pbdma.h for what it does and who
// talks to it). Everything it touches (GPFIFO ring, pushbuffer, USERD, semaphores) is read and
// written through GpuMemory, so an unmapped address is an MMU fault that stops the channel.
#include "pbdma.h"

#include <string>

#include "minicuda/fault.h"
#include "minicuda/trace.h"
#include "nv_hw_classes.h"
#include "gpu_semaphore.h"

namespace minicuda::gpu {

namespace {

// The cost model: fetching one pushbuffer segment costs kGpEntryFetchNs of simulated time, so
// that work in successive GPFIFO entries gets increasing timestamps. Host methods are free.
constexpr uint64_t kGpEntryFetchNs = 100;

// Copies up to this many bytes run on the PBDMA's thread when their engine is idle (execute).
constexpr uint64_t kRunHereBytes = 64 * 1024;

ChannelFault mmu_fault(uint32_t chid, const MemoryFault& fault, uint32_t method, const char* role) {
  return ChannelFault{
      chid,
      fault.kind,
      Engine::Host,
      fault.access,
      fault.va,
      method,
      fmt::format("MMU fault: host {} of {} {:#x} ({})",
                  fault.access == Access::Read ? "read" : "write", role, fault.va,
                  fault.kind == FaultKind::MmuReadOnly ? "read-only page" : "no PTE")};
}

ChannelFault error(uint32_t chid, FaultKind kind, uint64_t at, uint32_t method, std::string what) {
  return ChannelFault{chid, kind, Engine::Host, Access::Read, at, method, std::move(what)};
}

// Fault injection (MINICUDA_FAULT gpu@N=..., minicuda/fault.h), asked at each pushbuffer segment
// the PBDMA fetches: the error the GPU raises there instead of running it, if any.
std::optional<ChannelFault> injected_error(uint32_t chid, uint64_t pb_va) {
  switch (fault::gpu_error()) {
    case fault::GpuError::Ecc:
      return error(chid, FaultKind::EccUncorrectable, pb_va, 0,
                   fmt::format("uncorrectable ECC error (DRAM double-bit error), injected by {}", fault::last_rule()));
    case fault::GpuError::IllegalAddress:
      return ChannelFault{chid, FaultKind::MmuUnmapped, Engine::Host, Access::Read, 0, 0,
                          fmt::format("MMU fault: no PTE, injected by {}", fault::last_rule())};
    case fault::GpuError::None: break;
  }
  return std::nullopt;
}

const char* acquire_text(uint32_t operation) {
  switch (operation) {
    case NVC56F_SEM_EXECUTE_OPERATION_ACQUIRE: return "==";
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ: return ">=";
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ: return ">= (circular)";
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_AND: return "& (and)";
    case NVC56F_SEM_EXECUTE_OPERATION_ACQ_NOR: return "nor";
    default: return "?";
  }
}

}  // namespace

Pbdma::Pbdma(Device& device, const GpuMemory& memory, CopyEngine& copy_engine, ComputeEngine& compute_engine,
             EngineThreads& engines)
    : device_(device), memory_(memory), copy_engine_(copy_engine), compute_engine_(compute_engine), engines_(engines) {}

uint64_t Pbdma::next_submit_time(const Channel& channel) const {
  if (channel.in_segment) return channel.segment_host_time;
  const ChannelConfig& config = channel.config;
  uint32_t gp_put = 0, gp_get = 0;
  if (memory_.load32(config.userd_va + NVC56F_USERD_GP_PUT, &gp_put) ||
      memory_.load32(config.userd_va + NVC56F_USERD_GP_GET, &gp_get) || gp_get >= config.gpfifo_entries)
    return 0;
  if (gp_get == gp_put) return kNothingSubmitted;
  uint64_t entry = 0;
  if (memory_.load64(config.gpfifo_va + uint64_t{gp_get} * NVC56F_GP_ENTRY__SIZE, &entry)) return 0;
  if (nv_gp_entry_length(entry) < 5) return 0;  // a control entry (the base comes first), or too short
  uint32_t head[5];
  if (memory_.read(channel.pb_extended_base | nv_gp_entry_address(entry), head, sizeof head)) return 0;
  if (head[0] != nv_method_inc(NV_SUBCHANNEL_HOST, NVC56F_MINICUDA_SET_ORIGIN_LO, 4)) return 0;
  return (uint64_t{head[4]} << 32) | head[3];
}

PbdmaRun Pbdma::run(Channel& channel, bool one_entry) {
  PbdmaRun run;
  const ChannelConfig& config = channel.config;
  const uint64_t userd = config.userd_va;
  auto stop = [&](ChannelFault fault) {
    trace::note(trace::Layer::Gpu, "pbdma: ch {} stopped: {}", config.chid, fault.what);
    channel.status = ChannelStatus::Faulted;
    run.fault = std::move(fault);
    return run;
  };

  while (true) {
    // What the host has published: GPPut. What the GPU has consumed: GPGet.
    uint32_t gp_put = 0, gp_get = 0;
    if (auto fault = memory_.load32(userd + NVC56F_USERD_GP_PUT, &gp_put))
      return stop(mmu_fault(config.chid, *fault, 0, "USERD"));
    if (auto fault = memory_.load32(userd + NVC56F_USERD_GP_GET, &gp_get))
      return stop(mmu_fault(config.chid, *fault, 0, "USERD"));
    if (gp_put >= config.gpfifo_entries || gp_get >= config.gpfifo_entries)
      return stop(error(config.chid, FaultKind::BadGpEntry, config.gpfifo_va, 0,
                        fmt::format("GPPut {} / GPGet {} outside the ring of {} entries", gp_put,
                                    gp_get, config.gpfifo_entries)));
    if (gp_get == gp_put) {
      channel.status = ChannelStatus::Idle;
      return run;
    }

    // Fetch the GPFIFO entry at GPGet.
    const uint64_t entry_va = config.gpfifo_va + uint64_t{gp_get} * NVC56F_GP_ENTRY__SIZE;
    uint64_t entry = 0;
    if (auto fault = memory_.load64(entry_va, &entry))
      return stop(mmu_fault(config.chid, *fault, 0, "GPFIFO entry"));
    const uint32_t length = nv_gp_entry_length(entry);

    if (length == 0) {
      // A control entry: no pushbuffer, an opcode instead.
      uint32_t opcode = nv_gp_entry_opcode(entry);
      if (opcode == NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE) {
        channel.pb_extended_base = nv_gp_entry_extended_base(entry);
        trace::note(trace::Layer::Gpu, "pbdma: ch {} GPFIFO[{}] pushbuffer base {:#x}", config.chid,
                    gp_get, channel.pb_extended_base);
      } else if (opcode != NVC56F_GP_ENTRY1_OPCODE_NOP) {
        return stop(error(config.chid, FaultKind::BadGpEntry, entry_va, 0,
                          fmt::format("GPFIFO[{}] = {:#018x}: control opcode {} is not simulated",
                                      gp_get, entry, opcode)));
      }
    } else {
      // Fetch the pushbuffer segment and execute it. SYNC_WAIT and LEVEL need nothing here:
      // every method completes before the next one starts.
      const uint64_t pb_va = channel.pb_extended_base | nv_gp_entry_address(entry);
      if (!channel.in_segment) {
        channel.in_segment = true;
        device_.timeline().advance(config.chid, kGpEntryFetchNs);
        trace::note(trace::Layer::Gpu, "pbdma: ch {} GPFIFO[{}] {} dwords at {:#x}", config.chid,
                    gp_get, length, pb_va);
        if (auto injected = injected_error(config.chid, pb_va)) return stop(std::move(*injected));
      }
      // The page walk first: a bogus entry of 2^21 dwords at an unmapped address costs nothing.
      if (auto fault = memory_.check(pb_va, uint64_t{length} * 4, Access::Read))
        return stop(mmu_fault(config.chid, *fault, 0, "pushbuffer"));
      // A segment of a launch or a copy is a few dozen dwords: those are read onto the stack.
      constexpr uint32_t kOnStack = 256;
      uint32_t on_stack[kOnStack];
      std::vector<uint32_t> on_heap(length > kOnStack ? length : 0);
      const std::span<uint32_t> dwords(length > kOnStack ? on_heap.data() : on_stack, length);
      if (auto fault = memory_.read(pb_va, dwords.data(), uint64_t{length} * 4))
        return stop(mmu_fault(config.chid, *fault, 0, "pushbuffer"));
      Step step = run_segment(channel, pb_va, dwords, run);
      if (step == Step::Wait) {
        channel.status = ChannelStatus::Waiting;
        return run;
      }
      if (step == Step::Busy) {
        channel.status = ChannelStatus::Busy;
        return run;
      }
      if (step == Step::Fault) return stop(std::move(*run.fault));
      // Get/GetHi: how far the PBDMA has read in the pushbuffer.
      const uint64_t pb_get = pb_va + uint64_t{length} * 4;
      if (auto fault = memory_.store32(userd + NVC56F_USERD_GET, static_cast<uint32_t>(pb_get)))
        return stop(mmu_fault(config.chid, *fault, 0, "USERD"));
      if (auto fault =
              memory_.store32(userd + NVC56F_USERD_GET_HI, static_cast<uint32_t>(pb_get >> 32)))
        return stop(mmu_fault(config.chid, *fault, 0, "USERD"));
    }

    // The entry is consumed: GPGet moves on (wrapping at the end of the ring) and goes back to
    // USERD, where the host sees it.
    channel.in_segment = false;
    channel.segment_dword = 0;
    gp_get = (gp_get + 1) & (config.gpfifo_entries - 1);
    if (auto fault = memory_.store32(userd + NVC56F_USERD_GP_GET, gp_get))
      return stop(mmu_fault(config.chid, *fault, 0, "USERD"));
    ++run.entries;
    run.progressed = true;
    if (one_entry) {
      channel.status = ChannelStatus::Pending;  // the next round finds out whether more follow
      return run;
    }
  }
}

// Expands the method headers of one pushbuffer segment, from where the channel stopped last
// (channel.segment_dword), and executes every method. A header's data may continue into the
// next segment: the expansion state lives in the channel, not here.
Pbdma::Step Pbdma::run_segment(Channel& channel, uint64_t pb_va, std::span<const uint32_t> dwords,
                               PbdmaRun& run) {
  const uint32_t chid = channel.config.chid;
  uint32_t pos = channel.segment_dword;
  while (pos < dwords.size()) {
    const uint64_t at = pb_va + uint64_t{pos} * 4;
    if (channel.remaining != 0) {
      // A data dword of the header being expanded.
      Step step = execute(channel, channel.subchannel, channel.method, dwords[pos], at, run);
      if (step == Step::Wait || step == Step::Fault) {
        channel.segment_dword = pos;  // resume at this very method
        return step;
      }
      run.progressed = true;
      ++pos;
      --channel.remaining;
      if (channel.sec_op == NVC56F_DMA_SEC_OP_INC_METHOD) {
        channel.method += 4;
      } else if (channel.sec_op == NVC56F_DMA_SEC_OP_ONE_INC) {
        channel.method += 4;  // the first dword went to method, all the others go to method+4
        channel.sec_op = NVC56F_DMA_SEC_OP_NON_INC_METHOD;
      }
      if (step == Step::Busy) {
        channel.segment_dword = pos;  // resume after it, once the engine is done
        return step;
      }
      continue;
    }

    const uint32_t header = dwords[pos];
    const uint32_t sec_op = nv_method_sec_op(header);
    switch (sec_op) {
      case NVC56F_DMA_SEC_OP_INC_METHOD:
      case NVC56F_DMA_SEC_OP_NON_INC_METHOD:
      case NVC56F_DMA_SEC_OP_ONE_INC:
        channel.method = nv_method_address(header);
        channel.subchannel = nv_method_subchannel(header);
        channel.remaining = nv_method_count(header);
        channel.sec_op = sec_op;
        ++pos;
        break;
      case NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD: {
        Step step = execute(channel, nv_method_subchannel(header), nv_method_address(header),
                            nv_method_immd_data(header), at, run);
        if (step == Step::Wait || step == Step::Fault) {
          channel.segment_dword = pos;
          return step;
        }
        run.progressed = true;
        ++pos;
        if (step == Step::Busy) {
          channel.segment_dword = pos;
          return step;
        }
        break;
      }
      case NVC56F_DMA_SEC_OP_END_PB_SEGMENT:
        pos = static_cast<uint32_t>(dwords.size());  // the rest of the segment is not methods
        break;
      case NVC56F_DMA_SEC_OP_GRP0_USE_TERT:
        // 0 is a NOP; the sub-device mask operations only matter with several GPUs in SLI.
        if (header == NVC56F_DMA_NOP ||
            nv_method_tert_op(header) != NVC56F_DMA_TERT_OP_GRP0_INC_METHOD) {
          ++pos;
          break;
        }
        [[fallthrough]];  // a legacy (pre-Fermi) incrementing header
      default:
        run.fault =
            error(chid, FaultKind::BadMethodHeader, at, 0,
                  fmt::format("pushbuffer {:#x}: {:#010x} is not a method header (SEC_OP {})", at,
                              header, sec_op));
        return Step::Fault;
    }
  }
  channel.segment_dword = 0;
  return Step::Done;
}

// Routes one method: host methods (below 0x100) to the host, the others to the engine bound to
// the subchannel. The engine methods that keep an engine busy go to its thread (engine_work).
Pbdma::Step Pbdma::execute(Channel& channel, uint32_t subchannel, uint32_t method, uint32_t data,
                           uint64_t at, PbdmaRun& run) {
  if (method < NV_HOST_METHOD_LIMIT) return host_method(channel, subchannel, method, data, at, run);
  const uint32_t chid = channel.config.chid;
  Subchannel& sub = channel.subchannels[subchannel];
  switch (sub.nvclass) {
    case HOPPER_DMA_COPY_A: {
      // Engine errors point at the offending method in the pushbuffer, MMU faults at the address.
      auto fix = [at](std::optional<ChannelFault> fault) {
        if (fault && fault->kind != FaultKind::MmuUnmapped && fault->kind != FaultKind::MmuReadOnly) fault->va = at;
        return fault;
      };
      if (method != NVC8B5_LAUNCH_DMA)  // a register of the channel's copy context: set here, at once
        return register_done(fix(copy_engine_.method(chid, sub.copy, method, data)), run);
      // A small copy runs here if its engine is idle: handing it to the engine's thread would cost
      // more than the copy. Anything longer keeps the engine busy on its own thread.
      const uint64_t bytes = CopyEngine::bytes_written(sub.copy, data);
      const TimelineUnit unit = copy_engine_.unit_of(sub.copy, data);
      if (bytes != 0 && bytes <= kRunHereBytes && engines_.enabled() && !channel.config.inline_only) {
        std::optional<ChannelFault> fault;
        if (engines_.run_here_if_idle(unit, [&] { return fix(copy_engine_.method(chid, sub.copy, method, data)); },
                                      &fault)) {
          if (!fault) return Step::Done;
          run.fault = std::move(fault);
          return Step::Fault;
        }
      }
      // The work keeps its own copy of the registers: the channel may be gone when it runs.
      return engine_work(channel, unit, bytes != 0,
                         [this, chid, state = sub.copy, data, fix]() mutable {
                           return fix(copy_engine_.method(chid, state, NVC8B5_LAUNCH_DMA, data));
                         },
                         run);
    }
    case HOPPER_COMPUTE_A: {
      auto fix = [at](std::optional<ChannelFault> fault) {
        if (fault && (fault->kind == FaultKind::IllegalMethod || fault->kind == FaultKind::BadArgument)) fault->va = at;
        return fault;
      };
      const bool inline_run = channel.config.inline_only;
      if (method != NVCBC0_SEND_SIGNALING_PCAS2_B)  // a register (or a method that does not exist): here, at once
        return register_done(fix(compute_engine_.method(chid, sub.compute, method, data, inline_run)), run);
      return engine_work(channel, TimelineUnit::Compute, true,
                         [this, chid, state = sub.compute, data, inline_run, fix]() mutable {
                           return fix(compute_engine_.method(chid, state, NVCBC0_SEND_SIGNALING_PCAS2_B, data,
                                                             inline_run));
                         },
                         run);
    }
    default:
      run.fault = error(chid, FaultKind::IllegalMethod, at, method,
                        fmt::format("method {:#x} on subchannel {}, which has no object bound",
                                    method, subchannel));
      return Step::Fault;
  }
}

// A register method only touches the channel's own engine context: it runs on the PBDMA's
// thread, without waiting for the unit (what engine_work does with on_thread false).
Pbdma::Step Pbdma::register_done(std::optional<ChannelFault> fault, PbdmaRun& run) {
  if (!fault) return Step::Done;
  run.fault = std::move(fault);
  return Step::Fault;
}

Pbdma::Step Pbdma::engine_work(Channel& channel, TimelineUnit unit, bool on_thread, EngineWork work,
                               PbdmaRun& run) {
  if (on_thread && engines_.enabled() && !channel.config.inline_only) {
    engines_.submit(unit, channel.config.chid, channel.serial, std::move(work));
    return Step::Busy;
  }
  // Register methods only touch the channel's own engine context: no need to wait for the unit.
  std::optional<ChannelFault> fault = on_thread ? engines_.run_here(unit, work) : work();
  if (!fault) return Step::Done;
  run.fault = std::move(fault);
  return Step::Fault;
}

Pbdma::Step Pbdma::host_method(Channel& channel, uint32_t subchannel, uint32_t method,
                               uint32_t data, uint64_t at, PbdmaRun& run) {
  const uint32_t chid = channel.config.chid;
  switch (method) {
    case NVC56F_SET_OBJECT: {
      uint32_t nvclass = nv_drf_val(NVC56F_SET_OBJECT_NVCLASS, data);
      if (nvclass != HOPPER_DMA_COPY_A && nvclass != HOPPER_COMPUTE_A) {
        run.fault =
            error(chid, FaultKind::IllegalMethod, at, method,
                  fmt::format("SET_OBJECT {:#x} on subchannel {}: not an engine class of this GPU",
                              nvclass, subchannel));
        return Step::Fault;
      }
      channel.subchannels[subchannel] = Subchannel{};
      channel.subchannels[subchannel].nvclass = nvclass;
      trace::note(trace::Layer::Gpu, "pbdma: ch {} subchannel {} = {}", chid, subchannel,
                  nv_hw_class_name(nvclass));
      return Step::Done;
    }
    // No effect in this model: every method completes before the next starts (WFI, the WFI of
    // a release), there are no caches or TLBs to flush (FB_FLUSH, MEM_OP_*), and one runlist
    // has nothing to yield to.
    case NVC56F_NOP:
    case NVC56F_WFI:
    case NVC56F_FB_FLUSH:
    case NVC56F_MEM_OP_A:
    case NVC56F_MEM_OP_B:
    case NVC56F_MEM_OP_C:
    case NVC56F_MEM_OP_D:
    case NVC56F_YIELD: return Step::Done;
    case NVC56F_NON_STALL_INTERRUPT:
      ++run.nonstall_interrupts;
      trace::note(trace::Layer::Gpu, "host: ch {} non-stall interrupt", chid);
      return Step::Done;
    case NVC56F_SET_REFERENCE:
      if (auto fault = memory_.store32(channel.config.userd_va + NVC56F_USERD_REFERENCE, data)) {
        run.fault = mmu_fault(chid, *fault, method, "USERD");
        return Step::Fault;
      }
      return Step::Done;
    case NVC56F_SEM_ADDR_LO: channel.sem_addr_lo = data; return Step::Done;
    case NVC56F_SEM_ADDR_HI: channel.sem_addr_hi = data; return Step::Done;
    case NVC56F_SEM_PAYLOAD_LO: channel.sem_payload_lo = data; return Step::Done;
    case NVC56F_SEM_PAYLOAD_HI: channel.sem_payload_hi = data; return Step::Done;
    case NVC56F_SEM_EXECUTE: return sem_execute(channel, data, at, run);
    case NVC56F_MINICUDA_SET_ORIGIN_LO: channel.origin_lo = data; return Step::Done;
    case NVC56F_MINICUDA_SET_ORIGIN_HI:
      channel.origin_hi = data;
      device_.timeline().set_origin(chid, (uint64_t{channel.origin_hi} << 32) | channel.origin_lo);
      return Step::Done;
    case NVC56F_MINICUDA_SET_HOST_TIME_LO: channel.host_time_lo = data; return Step::Done;
    case NVC56F_MINICUDA_SET_HOST_TIME_HI: return host_time(channel, data);
    default: {
      const char* name = nv_host_method_name(method);
      bool known = std::string_view(name) != "UNKNOWN" && method != NVC56F_ILLEGAL;
      run.fault = error(chid, known ? FaultKind::NotModelled : FaultKind::IllegalMethod, at, method,
                        fmt::format("host method {:#x} ({}) {}", method, name,
                                    known ? "is not simulated" : "does not exist"));
      return Step::Fault;
    }
  }
}

// MINICUDA_SET_HOST_TIME_HI: the segment was submitted at this host time, so nothing in it
// starts earlier. The note says whether the host's time held the channel back or the channel
// was later already (the GPU was behind the host).
Pbdma::Step Pbdma::host_time(Channel& channel, uint32_t hi) {
  const uint32_t chid = channel.config.chid;
  const uint64_t submitted = (uint64_t{hi} << 32) | channel.host_time_lo;
  channel.segment_host_time = submitted;
  const uint64_t before = device_.timeline().channel_time(chid);
  device_.timeline().hold(chid, submitted);
  const uint64_t origin = device_.timeline().origin(chid);
  const std::string by = origin != 0 ? fmt::format(" by #{}", origin) : "";
  if (submitted > before)
    trace::note(trace::Layer::Gpu, "host: ch {} submitted{} at host t={} ns: the channel waits from t={} ns", chid,
                by, submitted, before);
  else
    trace::note(trace::Layer::Gpu, "host: ch {} submitted{} at host t={} ns: the channel is at t={} ns already",
                chid, by, submitted, before);
  return Step::Done;
}

// SEM_EXECUTE: release, acquire or reduce the semaphore set up by SEM_ADDR_* and SEM_PAYLOAD_*.
Pbdma::Step Pbdma::sem_execute(Channel& channel, uint32_t data, uint64_t at, PbdmaRun& run) {
  const uint32_t chid = channel.config.chid;
  const uint32_t operation = nv_drf_val(NVC56F_SEM_EXECUTE_OPERATION, data);
  const bool is64 =
      nv_drf_val(NVC56F_SEM_EXECUTE_PAYLOAD_SIZE, data) == NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT;
  const bool timestamp = nv_drf_val(NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP, data) != 0;
  const PayloadSize size = is64 ? PayloadSize::Bits64 : PayloadSize::Bits32;
  const uint64_t va = (uint64_t{nv_drf_val(NVC86F_SEM_ADDR_HI_OFFSET, channel.sem_addr_hi)} << 32) |
                      (channel.sem_addr_lo & ~3u);
  const uint64_t payload = is64 ? (uint64_t{channel.sem_payload_hi} << 32) | channel.sem_payload_lo
                                : channel.sem_payload_lo;
  auto fail = [&](FaultKind kind, std::string what) {
    run.fault = error(chid, kind, at, NVC56F_SEM_EXECUTE, std::move(what));
    return Step::Fault;
  };
  if (operation > NVC56F_SEM_EXECUTE_OPERATION_REDUCTION)
    return fail(FaultKind::BadArgument,
                fmt::format("SEM_EXECUTE {:#x}: operation 7 is not defined", data));
  const bool release = operation == NVC56F_SEM_EXECUTE_OPERATION_RELEASE;
  const uint64_t alignment = release && timestamp ? NV_SEMAPHORE_FOUR_WORD_SIZE : (is64 ? 8 : 4);
  if (va % alignment != 0)
    return fail(FaultKind::BadArgument,
                fmt::format("SEM_EXECUTE: semaphore {:#x} is not {}-byte aligned", va, alignment));

  if (release) {
    // The release's time and its trace line come before the store, once the store cannot fault:
    // a host thread that sees the value may at once wait on it again or read the trace.
    if (auto fault = memory_.check(va, alignment, Access::Write)) {  // the bytes the release writes
      run.fault = mmu_fault(chid, *fault, NVC56F_SEM_EXECUTE, "semaphore");
      return Step::Fault;
    }
    std::optional<uint64_t> now;
    if (timestamp) now = device_.timeline().channel_time(chid);
    device_.timeline().release(chid, va, payload);
    if (timestamp)
      trace::note(trace::Layer::Gpu, "host: ch {} sem release {:#x} = {} (t={} ns)", chid, va,
                  payload, *now);
    else
      trace::note(trace::Layer::Gpu, "host: ch {} sem release {:#x} = {}", chid, va, payload);
    if (auto fault = semaphore_release(memory_, va, payload, size, now)) {
      run.fault = mmu_fault(chid, *fault, NVC56F_SEM_EXECUTE, "semaphore");
      return Step::Fault;
    }
    return Step::Done;
  }

  if (operation == NVC56F_SEM_EXECUTE_OPERATION_REDUCTION) {
    uint32_t reduction = nv_drf_val(NVC56F_SEM_EXECUTE_REDUCTION, data);
    if (reduction > NVC56F_SEM_EXECUTE_REDUCTION_DEC)
      return fail(FaultKind::BadArgument,
                  fmt::format("SEM_EXECUTE: reduction {} is not defined", reduction));
    bool is_signed = nv_drf_val(NVC56F_SEM_EXECUTE_REDUCTION_FORMAT, data) ==
                     NVC56F_SEM_EXECUTE_REDUCTION_FORMAT_SIGNED;
    uint64_t old = 0;
    if (auto fault = semaphore_reduce(memory_, va, reduction, is_signed, payload, size, &old)) {
      run.fault = mmu_fault(chid, *fault, NVC56F_SEM_EXECUTE, "semaphore");
      return Step::Fault;
    }
    device_.timeline().release(chid, va, 0);  // an acquire after it takes the last release's time
    trace::note(trace::Layer::Gpu, "host: ch {} sem reduce {:#x} (op {}, payload {}, was {})", chid,
                va, reduction, payload, old);
    return Step::Done;
  }

  bool satisfied = false;
  uint64_t value = 0;
  if (auto fault = semaphore_acquire(memory_, va, operation, payload, size, &satisfied, &value)) {
    run.fault = mmu_fault(chid, *fault, NVC56F_SEM_EXECUTE, "semaphore");
    return Step::Fault;
  }
  if (!satisfied) {
    if (channel.status != ChannelStatus::Waiting)  // say it once, not at every retry
      trace::note(trace::Layer::Gpu, "host: ch {} sem acquire {:#x} {} {}: waiting (is {})", chid,
                  va, acquire_text(operation), payload, value);
    return Step::Wait;
  }
  device_.timeline().acquired(chid, va, payload);  // the work after it waits for the release, in time too
  trace::note(trace::Layer::Gpu, "host: ch {} sem acquire {:#x} {} {}: ok (is {})", chid, va,
              acquire_text(operation), payload, value);
  return Step::Done;
}

}  // namespace minicuda::gpu
