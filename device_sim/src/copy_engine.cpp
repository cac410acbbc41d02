// copy_engine: HOPPER_DMA_COPY_A, the DMA unit behind cudaMemcpy and cudaMemset (see
// copy_engine.h for what it does and who talks to it).
#include "copy_engine.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "minicuda/trace.h"
#include "class/clc86f.h"
#include "class/clc8b5.h"
#include "gpu_semaphore.h"

namespace minicuda::gpu {

namespace {

// The cost model (docs/timing.md), fitted to what an H200 did (docs/data/h200_timing.txt): a
// fixed cost per LAUNCH_DMA that moves data, then the bytes written at the rate of the path
// they take. A release-only LAUNCH_DMA costs nothing extra. The three copy engines split the
// work by direction, as the H200's did: a copy each way at once ran at full speed (PCIe is full
// duplex), two copies the same way took twice as long: host to device on ce0, device to host
// on ce1, the rest (device to device, memset, host to host) on ce2.
// The H200's figures were timed with events around one cudaMemcpyAsync or cudaMemsetAsync, so
// they include the 2.3 us the host took to submit it; the host timeline charges that to the
// host (driver/user/src/host_clock.h), so the fixed costs here are the fitted ones less 2.3 us.
struct CopyCost {
  uint64_t fixed_ns;
  double bytes_per_ns;  // = GB/s
};
constexpr CopyCost kHostToDevice{2400, 55.0};  // PCIe 5.0 x16, pinned: 1 MiB 24.2 us, 64 MiB 1219 us
constexpr CopyCost kDeviceToHost{1300, 55.0};  // 1 MiB 22.6 us, 64 MiB 1219 us
constexpr CopyCost kDeviceToDevice{4700, 2120.0};  // HBM3e, bytes counted once: 1 MiB 7.5 us, 256 MiB 134 us
constexpr CopyCost kMemset{0, 4200.0};             // 256 MiB 65.8 us (the host's 2.3 us is all of the fixed part)
constexpr CopyCost kHostToHost{2400, 55.0};        // over PCIe

// The simulated time of writing `bytes` at cost.
uint64_t transfer_ns(const CopyCost& cost, uint64_t bytes) {
  return cost.fixed_ns + static_cast<uint64_t>(static_cast<double>(bytes) / cost.bytes_per_ns + 0.5);
}

uint64_t join(uint32_t upper, uint32_t lower) {
  return (static_cast<uint64_t>(nv_drf_val(NVC8B5_OFFSET_UPPER_UPPER, upper)) << 32) | lower;
}

const char* access_name(Access access) { return access == Access::Read ? "read" : "write"; }

ChannelFault mmu_fault(uint32_t chid, const MemoryFault& fault, const char* role) {
  return ChannelFault{
      chid,
      fault.kind,
      Engine::Copy,
      fault.access,
      fault.va,
      NVC8B5_LAUNCH_DMA,
      fmt::format("MMU fault: copy engine {} of {} {:#x} ({})", access_name(fault.access), role,
                  fault.va, fault.kind == FaultKind::MmuReadOnly ? "read-only page" : "no PTE")};
}

ChannelFault error(uint32_t chid, FaultKind kind, uint32_t method, std::string what) {
  return ChannelFault{chid, kind, Engine::Copy, Access::Read, 0, method, std::move(what)};
}

// count lines of bytes each, pitch bytes apart, from base.
struct Lines {
  uint64_t base;
  uint64_t pitch;
  uint64_t bytes;
  uint64_t count;
};

// The address of line i; nullopt if it lies beyond the end of the address space.
std::optional<uint64_t> line_va(const Lines& lines, uint64_t i) {
  uint64_t offset = i * lines.pitch;  // i < 2^32 and pitch < 2^32: no overflow
  if (offset > std::numeric_limits<uint64_t>::max() - lines.base) return std::nullopt;
  return lines.base + offset;
}

// Checks every byte of every line for access, before anything moves.
std::optional<MemoryFault> check_lines(const GpuMemory& memory, const Lines& lines, Access access) {
  for (uint64_t i = 0; i < lines.count; ++i) {
    std::optional<uint64_t> va = line_va(lines, i);
    if (!va) return MemoryFault{lines.base, access, FaultKind::MmuUnmapped};
    if (auto fault = memory.check(*va, lines.bytes, access)) return fault;
  }
  return std::nullopt;
}

// Fills bytes at dst with copies of the element_bytes-long pattern, a page-sized chunk at a time.
void fill_pattern(uint8_t* dst, uint64_t bytes, const uint8_t* element, uint64_t element_bytes) {
  if (element_bytes == 1) {
    std::memset(dst, element[0], bytes);
    return;
  }
  // One cache-hot chunk of whole elements, built by doubling, then copied out as often as needed.
  uint8_t chunk[4096];
  const uint64_t chunk_bytes = std::min<uint64_t>(bytes, (sizeof(chunk) / element_bytes) * element_bytes);
  uint64_t filled = std::min(chunk_bytes, element_bytes);
  std::memcpy(chunk, element, filled);
  while (filled < chunk_bytes) {
    const uint64_t n = std::min(filled, chunk_bytes - filled);
    std::memcpy(chunk + filled, chunk, n);
    filled += n;
  }
  for (uint64_t off = 0; off < bytes; off += chunk_bytes)
    std::memcpy(dst + off, chunk, std::min(chunk_bytes, bytes - off));
}

// The selectors DST_X..DST_W of SET_REMAP_COMPONENTS.
NvU32 remap_selector(NvU32 components, int c) {
  const NvBitField fields[4] = {
      NVC8B5_SET_REMAP_COMPONENTS_DST_X, NVC8B5_SET_REMAP_COMPONENTS_DST_Y,
      NVC8B5_SET_REMAP_COMPONENTS_DST_Z, NVC8B5_SET_REMAP_COMPONENTS_DST_W};
  return nv_drf_val(fields[c], components);
}

// Whether LAUNCH_DMA reads its source: a plain copy does, a remap only if a destination component
// takes a source component (a memset takes constants only).
bool reads_source(const CopyState& state, uint32_t launch) {
  if (nv_drf_val(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, launch) == 0) return true;
  const uint64_t num_dst = nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, state.remap_components) + 1;
  for (uint64_t c = 0; c < num_dst; ++c) {
    if (remap_selector(state.remap_components, static_cast<int>(c)) <= NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W)
      return true;
  }
  return false;
}

// Which copy engine a transfer goes to, and at what cost: by the apertures of its first source and
// destination pages (an unmapped page counts as vidmem: the transfer will fault anyway).
struct Route {
  TimelineUnit unit;
  const CopyCost* cost;
};
Route route(const Mmu& mmu, uint64_t src, uint64_t dst, bool reads) {
  auto aperture = [&](uint64_t va) {
    std::optional<Pte> pte = mmu.translate(va);
    return pte ? pte->aperture : Aperture::Vidmem;
  };
  const Aperture to = aperture(dst);
  const Aperture from = reads ? aperture(src) : to;
  const bool h2d = from == Aperture::Sysmem && to == Aperture::Vidmem;
  const bool d2h = from == Aperture::Vidmem && to == Aperture::Sysmem;
  if (h2d) return {TimelineUnit::Copy0, &kHostToDevice};
  if (d2h) return {TimelineUnit::Copy1, &kDeviceToHost};
  if (from == Aperture::Sysmem || to == Aperture::Sysmem) return {TimelineUnit::Copy2, &kHostToHost};
  return {TimelineUnit::Copy2, reads ? &kDeviceToDevice : &kMemset};
}

}  // namespace

CopyEngine::CopyEngine(Device& device, const GpuMemory& memory, int instance)
    : device_(device), memory_(memory), instance_(instance) {}

std::optional<ChannelFault> CopyEngine::method(uint32_t chid, CopyState& state, uint32_t method,
                                               uint32_t data) {
  switch (method) {
    case NVC8B5_OFFSET_IN_UPPER: state.offset_in_upper = data; return std::nullopt;
    case NVC8B5_OFFSET_IN_LOWER: state.offset_in_lower = data; return std::nullopt;
    case NVC8B5_OFFSET_OUT_UPPER: state.offset_out_upper = data; return std::nullopt;
    case NVC8B5_OFFSET_OUT_LOWER: state.offset_out_lower = data; return std::nullopt;
    case NVC8B5_PITCH_IN: state.pitch_in = data; return std::nullopt;
    case NVC8B5_PITCH_OUT: state.pitch_out = data; return std::nullopt;
    case NVC8B5_LINE_LENGTH_IN: state.line_length_in = data; return std::nullopt;
    case NVC8B5_LINE_COUNT: state.line_count = data; return std::nullopt;
    case NVC8B5_SET_SEMAPHORE_A: state.semaphore_a = data; return std::nullopt;
    case NVC8B5_SET_SEMAPHORE_B: state.semaphore_b = data; return std::nullopt;
    case NVC8B5_SET_SEMAPHORE_PAYLOAD: state.semaphore_payload = data; return std::nullopt;
    case NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER:
      state.semaphore_payload_upper = data;
      return std::nullopt;
    case NVC8B5_SET_REMAP_CONST_A: state.remap_const_a = data; return std::nullopt;
    case NVC8B5_SET_REMAP_CONST_B: state.remap_const_b = data; return std::nullopt;
    case NVC8B5_SET_REMAP_COMPONENTS: state.remap_components = data; return std::nullopt;
    case NVC8B5_LAUNCH_DMA: return launch_dma(chid, state, data);
    // Accepted and without effect here: NOP, and the physical-mode targets (only used with
    // SRC/DST_TYPE PHYSICAL, which LAUNCH_DMA refuses).
    case NVC8B5_NOP:
    case NVC8B5_SET_SRC_PHYS_MODE:
    case NVC8B5_SET_DST_PHYS_MODE: return std::nullopt;
    default:
      return error(chid, FaultKind::IllegalMethod, method,
                   fmt::format("copy engine: no method {:#x} in HOPPER_DMA_COPY_A", method));
  }
}

TimelineUnit CopyEngine::unit_of(const CopyState& state, uint32_t launch) const {
  return route(device_.mmu(), join(state.offset_in_upper, state.offset_in_lower),
               join(state.offset_out_upper, state.offset_out_lower), reads_source(state, launch))
      .unit;
}

uint64_t CopyEngine::bytes_written(const CopyState& state, uint32_t launch) {
  if (nv_drf_val(NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE, launch) == NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE) return 0;
  const uint64_t lines = nv_drf_val(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, launch) != 0 ? state.line_count : 1;
  uint64_t element = 1;
  if (nv_drf_val(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, launch) != 0)
    element = (nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, state.remap_components) + 1) *
              (nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, state.remap_components) + 1);
  return uint64_t{state.line_length_in} * element * lines;
}

// LAUNCH_DMA: refuse what is not modelled, move the data, then release the semaphore.
std::optional<ChannelFault> CopyEngine::launch_dma(uint32_t chid, const CopyState& state,
                                                   uint32_t launch) {
  NvU32 transfer_type = nv_drf_val(NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE, launch);
  if (transfer_type > NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NON_PIPELINED)
    return error(
        chid, FaultKind::BadArgument, NVC8B5_LAUNCH_DMA,
        fmt::format("copy engine: LAUNCH_DMA {:#x}: DATA_TRANSFER_TYPE 3 is not defined", launch));
  const char* not_modelled = nullptr;
  if (nv_drf_val(NVC8B5_LAUNCH_DMA_MEMORY_SCRUB_ENABLE, launch))
    not_modelled = "MEMORY_SCRUB_ENABLE";
  else if (nv_drf_val(NVC8B5_LAUNCH_DMA_COPY_TYPE, launch) == 1)
    not_modelled = "COPY_TYPE SECURE";
  else if (nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE, launch) ==
           NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_CONDITIONAL_INTR_SEMAPHORE)
    not_modelled = "SEMAPHORE_TYPE RELEASE_CONDITIONAL_INTR_SEMAPHORE";
  if (not_modelled != nullptr)
    return error(
        chid, FaultKind::NotModelled, NVC8B5_LAUNCH_DMA,
        fmt::format("copy engine: LAUNCH_DMA {:#x}: {} is not simulated", launch, not_modelled));

  if (transfer_type != NVC8B5_LAUNCH_DMA_DATA_TRANSFER_TYPE_NONE) {
    if (auto fault = transfer(chid, state, launch)) return fault;
  }
  return release(chid, state, launch);
}

// The data movement of LAUNCH_DMA: a pitch copy or a remapped transfer (memset), line by line.
std::optional<ChannelFault> CopyEngine::transfer(uint32_t chid, const CopyState& state,
                                                 uint32_t launch) {
  const bool multi_line = nv_drf_val(NVC8B5_LAUNCH_DMA_MULTI_LINE_ENABLE, launch) != 0;
  const bool remap = nv_drf_val(NVC8B5_LAUNCH_DMA_REMAP_ENABLE, launch) != 0;
  const uint64_t count = multi_line ? state.line_count : 1;
  const uint64_t src = join(state.offset_in_upper, state.offset_in_lower);
  const uint64_t dst = join(state.offset_out_upper, state.offset_out_lower);

  // Remap geometry: every destination element is num_dst components of component bytes, each
  // picked from the source element or a constant. Without remap an element is one byte.
  uint64_t component = 1, num_src = 1, num_dst = 1;
  NvU32 selectors[4] = {NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_X, 0, 0, 0};
  const bool reads_source = gpu::reads_source(state, launch);
  bool skips_bytes = false;
  if (remap) {
    component = nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_COMPONENT_SIZE, state.remap_components) + 1;
    num_src =
        nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_NUM_SRC_COMPONENTS, state.remap_components) + 1;
    num_dst =
        nv_drf_val(NVC8B5_SET_REMAP_COMPONENTS_NUM_DST_COMPONENTS, state.remap_components) + 1;
    for (uint64_t c = 0; c < num_dst; ++c) {
      selectors[c] = remap_selector(state.remap_components, static_cast<int>(c));
      if (selectors[c] <= NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W) {
        if (selectors[c] >= num_src)
          return error(
              chid, FaultKind::BadArgument, NVC8B5_LAUNCH_DMA,
              fmt::format("copy engine: remap component {} takes source component {} of {}", c,
                          selectors[c], num_src));
      } else if (selectors[c] == NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE) {
        skips_bytes = true;
      } else if (selectors[c] > NVC8B5_SET_REMAP_COMPONENTS_DST_NO_WRITE) {
        return error(chid, FaultKind::BadArgument, NVC8B5_LAUNCH_DMA,
                     fmt::format("copy engine: remap selector {} is not defined", selectors[c]));
      }
    }
  }
  const uint64_t src_element = component * num_src, dst_element = component * num_dst;
  const Lines src_lines{src, state.pitch_in, state.line_length_in * src_element, count};
  const Lines dst_lines{dst, state.pitch_out, state.line_length_in * dst_element, count};

  // What LAUNCH_DMA asks for that is not simulated: block-linear layouts, physical addresses.
  const char* not_modelled = nullptr;
  if (nv_drf_val(NVC8B5_LAUNCH_DMA_DST_MEMORY_LAYOUT, launch) !=
      NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH)
    not_modelled = "DST_MEMORY_LAYOUT BLOCKLINEAR";
  else if (nv_drf_val(NVC8B5_LAUNCH_DMA_DST_TYPE, launch) != NVC8B5_LAUNCH_DMA_TYPE_VIRTUAL)
    not_modelled = "DST_TYPE PHYSICAL";
  else if (reads_source && nv_drf_val(NVC8B5_LAUNCH_DMA_SRC_MEMORY_LAYOUT, launch) !=
                               NVC8B5_LAUNCH_DMA_MEMORY_LAYOUT_PITCH)
    not_modelled = "SRC_MEMORY_LAYOUT BLOCKLINEAR";
  else if (reads_source &&
           nv_drf_val(NVC8B5_LAUNCH_DMA_SRC_TYPE, launch) != NVC8B5_LAUNCH_DMA_TYPE_VIRTUAL)
    not_modelled = "SRC_TYPE PHYSICAL";
  if (not_modelled != nullptr)
    return error(
        chid, FaultKind::NotModelled, NVC8B5_LAUNCH_DMA,
        fmt::format("copy engine: LAUNCH_DMA {:#x}: {} is not simulated", launch, not_modelled));

  // The MMU first, for the whole transfer: a fault leaves memory untouched.
  if (reads_source) {
    if (auto fault = check_lines(memory_, src_lines, Access::Read))
      return mmu_fault(chid, *fault, "source");
  }
  if (auto fault = check_lines(memory_, dst_lines, Access::Write))
    return mmu_fault(chid, *fault, "destination");

  const Route where = route(device_.mmu(), src, dst, reads_source);
  const TimelineUnit unit = where.unit;
  const CopyCost& cost = *where.cost;

  // Then the data, through the UVA addresses the check has vouched for.
  uint8_t constants[8];
  std::memcpy(constants, &state.remap_const_a, 4);  // little endian: the low bytes come first
  std::memcpy(constants + 4, &state.remap_const_b, 4);
  uint8_t element[16] = {};
  for (uint64_t c = 0; c < num_dst && !reads_source; ++c) {
    const uint8_t* constant =
        selectors[c] == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A ? constants : constants + 4;
    std::memcpy(element + c * component, constant, component);
  }
  // Lines of no bytes move nothing (and their address, which the MMU did not check, may be 0).
  device_.activity().begin(unit, chid, nullptr);
  for (uint64_t i = 0; i < count && dst_lines.bytes != 0; ++i) {
    auto* out = reinterpret_cast<uint8_t*>(*line_va(dst_lines, i));
    const auto* in =
        reads_source ? reinterpret_cast<const uint8_t*>(*line_va(src_lines, i)) : nullptr;
    if (!remap) {
      std::memmove(out, in, dst_lines.bytes);  // overlapping lines copy as if through a buffer
    } else if (!reads_source && !skips_bytes) {
      fill_pattern(out, dst_lines.bytes, element, dst_element);  // memset
    } else {
      for (uint64_t e = 0; e < state.line_length_in; ++e) {
        for (uint64_t c = 0; c < num_dst; ++c) {
          uint8_t* to = out + e * dst_element + c * component;
          NvU32 sel = selectors[c];
          if (sel <= NVC8B5_SET_REMAP_COMPONENTS_DST_SRC_W)  // the source may overlap the destination
            std::memmove(to, in + e * src_element + sel * component, component);
          else if (sel == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A)
            std::memcpy(to, constants, component);
          else if (sel == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_B)
            std::memcpy(to, constants + 4, component);
        }
      }
    }
  }

  device_.activity().end(unit);
  const uint64_t bytes = dst_lines.bytes * count;
  const TimeSpan span = device_.timeline().run(chid, unit, transfer_ns(cost, bytes));
  const uint64_t now = span.end;
  std::string lines_text = count == 1 ? std::string()
                                      : fmt::format(" in {} lines, pitch {} -> {}", count,
                                                    state.pitch_in, state.pitch_out);
  // The note is also the span of device time the copy took (a Chrome trace draws it on the
  // engine's track, with an arrow from the call that submitted it).
  auto work = [&](const char* what, uint64_t amount) {
    return trace::DeviceSpan{timeline_unit_name(unit), fmt::format("{} {} B", what, amount), chid, span.start,
                             span.end, device_.timeline().origin(chid), {}};
  };
  if (!remap) {
    trace::device_span(work("copy", bytes), "{}: copy {} B {:#x} -> {:#x}{}, t={} ns", timeline_unit_name(unit),
                       bytes, src, dst, lines_text, now);
  } else if (!reads_source && num_dst == 1 &&
             selectors[0] == NVC8B5_SET_REMAP_COMPONENTS_DST_CONST_A) {
    trace::device_span(work("memset", bytes), "{}: memset {} B at {:#x} = {:#x} ({}-byte){}, t={} ns",
                       timeline_unit_name(unit), bytes, dst,
                       state.remap_const_a & (component == 4 ? ~0u : (1u << (8 * component)) - 1),
                       component, lines_text, now);
  } else {
    trace::device_span(work("remap", bytes), "{}: remap {} elements of {} B {:#x} -> {:#x}{}, t={} ns",
                       timeline_unit_name(unit), state.line_length_in * count, dst_element, src, dst, lines_text,
                       now);
  }
  return std::nullopt;
}

// The semaphore part of LAUNCH_DMA: a release (one or four words) or a reduction.
std::optional<ChannelFault> CopyEngine::release(uint32_t chid, const CopyState& state,
                                                uint32_t launch) {
  NvU32 type = nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE, launch);
  if (type == NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_NONE) return std::nullopt;
  const uint64_t va = join(state.semaphore_a, state.semaphore_b);
  const bool two_word = nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE, launch) ==
                        NVC8B5_LAUNCH_DMA_SEMAPHORE_PAYLOAD_SIZE_TWO_WORD;
  const PayloadSize size = two_word ? PayloadSize::Bits64 : PayloadSize::Bits32;
  const uint64_t payload = two_word ? (static_cast<uint64_t>(state.semaphore_payload_upper) << 32) |
                                          state.semaphore_payload
                                    : state.semaphore_payload;
  const bool four_word = type == NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE_RELEASE_FOUR_WORD_SEMAPHORE;
  const bool reduction = nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_ENABLE, launch) != 0;
  const uint64_t alignment =
      four_word && !reduction ? NV_SEMAPHORE_FOUR_WORD_SIZE : (two_word ? 8 : 4);
  if (va % alignment != 0)
    return error(chid, FaultKind::BadArgument, NVC8B5_LAUNCH_DMA,
                 fmt::format("copy engine: semaphore {:#x} is not {}-byte aligned", va, alignment));

  if (reduction) {
    NvU32 op = nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION, launch);
    if (op > NVC56F_SEM_EXECUTE_REDUCTION_DEC)
      return error(chid, FaultKind::NotModelled, NVC8B5_LAUNCH_DMA,
                   fmt::format("copy engine: semaphore reduction {} is not simulated", op));
    bool is_signed = nv_drf_val(NVC8B5_LAUNCH_DMA_SEMAPHORE_REDUCTION_SIGN, launch) == 0;
    uint64_t old = 0;
    if (auto fault = semaphore_reduce(memory_, va, op, is_signed, payload, size, &old))
      return mmu_fault(chid, *fault, "semaphore");
    device_.timeline().release(chid, va, 0);
    trace::note(trace::Layer::Gpu, "ce{}: sem reduce {:#x} (op {}, payload {}, was {})", instance_,
                va, op, payload, old);
    return std::nullopt;
  }

  // The release's time and its trace line come before the store, once the store cannot fault:
  // a host thread that sees the value may at once wait on it again or read the trace.
  if (auto fault = memory_.check(va, four_word ? NV_SEMAPHORE_FOUR_WORD_SIZE : (size == PayloadSize::Bits64 ? 8 : 4),
                                 Access::Write))
    return mmu_fault(chid, *fault, "semaphore");
  std::optional<uint64_t> timestamp;
  if (four_word) timestamp = device_.timeline().channel_time(chid);  // when the copy before it ended
  device_.timeline().release(chid, va, payload);
  if (four_word)
    trace::note(trace::Layer::Gpu, "ce{}: sem release {:#x} = {} (four-word, t={} ns)", instance_,
                va, payload, *timestamp);
  else
    trace::note(trace::Layer::Gpu, "ce{}: sem release {:#x} = {}", instance_, va, payload);
  if (auto fault = semaphore_release(memory_, va, payload, size, timestamp))
    return mmu_fault(chid, *fault, "semaphore");
  return std::nullopt;
}

}  // namespace minicuda::gpu
