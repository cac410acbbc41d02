// libFuzzer target: the simulated GPU's method interface, driven the way a hostile user-mode
// driver (or a buggy libcuda) could drive it - GPFIFO entries, pushbuffer segments and the
// doorbell, straight into device_sim's host interface, PBDMA, copy engine and compute engine,
// with no kernel module in between.
//
// Each input gets a fresh gpu::Device (teaching preset) with no worker thread: work starts only
// when the input calls run_pending() or poll(); MINICUDA_SM_THREADS=1 keeps blocks on one thread.
// Even-length inputs run with MINICUDA_ENGINE_THREADS=0, so nothing depends on thread timing;
// odd-length ones with the engines on their own threads, whose work (Busy channels, resumed by
// those threads) goes on after poll() returns while the input carries on. Memory, mapped by hand as
// nvidia.ko would map it:
//   ring page   vidmem, writable: the GPFIFO rings and USERD pages of the channels, pushbuffer
//               space after them;
//   data page   vidmem, writable: semaphores, copy sources and targets, bytes from the input,
//               the printf FIFO (its header too, offsets near 2^32 included);
//   code page   vidmem, read-only for the GPU: two code records of a harmless kernel, QMDs built
//               from the input (good ones and bad ones: version, grid, block, shared memory,
//               program address, constant banks), constant bank 0;
//   sysmem      two pinned host pages, with a canary page on either side that is never mapped.
// Around them the UVA window is unmapped (PROT_NONE in the host, so a stray host access
// crashes). One to three channels (ring sizes 2..64, some inline ones) get operations
// decoded from the input: pushbuffer segments of method headers of every SEC_OP (INC,
// NON_INC, ONE_INC, IMMD, END_PB_SEGMENT, tertiary ops, raw dwords) whose methods are the real
// host, copy and compute ones or made up, with data that plants addresses inside and outside
// the mappings and sizes near the limits; GPFIFO entries that are good, control entries, of bad
// lengths or addresses; GPPut published right or wrong (work published and never rung stays
// unrun); doorbells through the usermode register (Device::usermode_write32) with good or
// made-up tokens, and writes to other registers of the page;
// host writes that satisfy acquires; unmapping and remapping pages; channels removed and added.
//
// After every run_pending()/poll() these must hold: every channel run is Idle, Waiting or
// Faulted (Busy or Pending too after a poll() with the engines' threads); each new fault names a
// channel of this input, has a kind and a message; a faulted channel has its fault recorded;
// GPGet in USERD lies inside the ring; the canary pages are unchanged; the harmless kernel, which
// touches no memory, never takes an MMU fault; simulated time never goes back. A violation names itself on stderr and traps: libFuzzer keeps the input.
//
// Bounded work per input: the harmless kernel traps after kThreadBudget threads, so a grid of
// 2^63 blocks stops; the fault-injection plan gpu@N+=ecc stops every channel that fetches more
// than kSegmentBudget segments, so a channel that republishes its own GPPut (an endless ring)
// stops too; LINE_COUNT data in the segments written here is clamped (kMaxLineCount), and a header
// that would run on past its segment into LINE_COUNT is cut, since a copy of 2^32 lines all at one
// address is real work, not a bug.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "minicuda/device.h"
#include "minicuda/device_code.h"
#include "minicuda/fault.h"
#include "pushbuffer_clamp.h"
#include "nv_hw_classes.h"
#include "nv_kernel_code.h"

namespace gpu = minicuda::gpu;
using fuzz_pushbuffer::Expansion;
using fuzz_pushbuffer::clamp_pass;

namespace {

constexpr uint64_t kRingOffset = 0;                  // channel k's GPFIFO at ring page + k * 0x1000
constexpr uint64_t kUserdOffset = 0x10000;           // channel k's USERD at + k * 0x200
constexpr uint64_t kPushbufferOffset = 0x20000;      // pushbuffer space to the end of the page
constexpr uint64_t kFifoOffset = 0x100000;           // printf FIFO in the data page
constexpr uint64_t kFifoBytes = 4096;
constexpr uint64_t kDataPushbufferOffset = 0x180000;  // pushbuffer space in the data page
constexpr uint64_t kQmdOffset = 0x1000;              // QMD i at code page + 0x1000 + i * 256
constexpr uint64_t kParamsOffset = 0x3000;           // constant bank 0 in the code page
constexpr int kQmds = 8;
constexpr int kMaxChannels = 3;
constexpr int64_t kThreadBudget = 4096;
constexpr int kSegmentBudget = 256;
constexpr uint8_t kCanary = 0xA5;

// The harmless kernel: it touches no GPU memory. With parameters (constant bank 0 of 8 bytes),
// the first word picks what a thread does: printf into the FIFO, __trap(), or nothing.
std::atomic<int64_t> g_threads_left{0};
const char kPlainName[] = "harmless";
const char kParamsName[] = "harmless_params";

void harmless(const void*) {
  if (g_threads_left.fetch_sub(1, std::memory_order_relaxed) <= 0) __trap();
}

void harmless_params(const void* params) {
  if (g_threads_left.fetch_sub(1, std::memory_order_relaxed) <= 0) __trap();
  uint32_t mode = 0;
  std::memcpy(&mode, params, sizeof mode);
  if ((mode & 3) == 1) minicuda_printf("block %u thread %u\n", blockIdx.x, threadIdx.x);
  if ((mode & 3) == 2 && threadIdx.x == mode >> 8) __trap();
}

// Every method the engines know, so that structured headers often hit one.
constexpr uint32_t kHostMethods[] = {
    NVC56F_SET_OBJECT,      NVC56F_ILLEGAL,      NVC56F_NOP,          NVC56F_SEMAPHOREA,
    NVC56F_NON_STALL_INTERRUPT, NVC56F_FB_FLUSH, NVC56F_MEM_OP_A,     NVC56F_MEM_OP_D,
    NVC56F_SET_REFERENCE,   NVC56F_SEM_ADDR_LO,  NVC56F_SEM_ADDR_HI,  NVC56F_SEM_PAYLOAD_LO,
    NVC56F_SEM_PAYLOAD_HI,  NVC56F_SEM_EXECUTE,  NVC56F_WFI,          NVC56F_YIELD,
    NVC56F_CLEAR_FAULTED,   NVC56F_MINICUDA_SET_ORIGIN_LO,  NVC56F_MINICUDA_SET_ORIGIN_HI,
    NVC56F_MINICUDA_SET_HOST_TIME_LO,        NVC56F_MINICUDA_SET_HOST_TIME_HI};
constexpr uint32_t kEngineMethods[] = {
    NVC8B5_NOP,           NVC8B5_SET_SEMAPHORE_A,      NVC8B5_SET_SEMAPHORE_B,
    NVC8B5_SET_SEMAPHORE_PAYLOAD, NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER, NVC8B5_SET_SRC_PHYS_MODE,
    NVC8B5_SET_DST_PHYS_MODE, NVC8B5_LAUNCH_DMA,       NVC8B5_OFFSET_IN_UPPER,
    NVC8B5_OFFSET_IN_LOWER, NVC8B5_OFFSET_OUT_UPPER,   NVC8B5_OFFSET_OUT_LOWER,
    NVC8B5_PITCH_IN,      NVC8B5_PITCH_OUT,            NVC8B5_LINE_LENGTH_IN,
    NVC8B5_LINE_COUNT,    NVC8B5_SET_REMAP_CONST_A,    NVC8B5_SET_REMAP_CONST_B,
    NVC8B5_SET_REMAP_COMPONENTS, NVCBC0_SEND_PCAS_A,   NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER,
    NVCBC0_SEND_SIGNALING_PCAS2_B};
constexpr uint32_t kEdgeValues[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 255, 256, 0x1000, 0x1FFF, 0xFFFF,
                                    0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFF0, 0xFFFFFFFC, 0xFFFFFFFF};

struct ChannelSlot {
  bool live = false;
  gpu::ChannelConfig config{};
  uint32_t put = 0;             // the host's next GPFIFO slot (published or not)
  uint64_t extended_base = ~0ull;  // what the last extended-base entry written here set
  Expansion expansion;  // at the end of the last segment written for it (for the clamp)
  int faults_allowed = 0;       // incarnations of this chid so far: each may fault once
};

struct Session {
  gpu::Device* device = nullptr;
  bool engine_threads = false;  // odd-length inputs: the engines' work goes on after poll()
  uint64_t ring = 0, data = 0, code = 0, gap = 0;  // page VAs (gap: in the window, unmapped)
  uint8_t* sys = nullptr;       // 4 host pages: canary, 2 mapped pages, canary
  uint64_t sysmem = 0;          // VA of the two mapped pages
  bool data_mapped = true, sys_mapped = true;
  // Pushbuffer space handed out so far, in the ring page, the data page and sysmem: segments
  // never overlap, so each runs as written (and clamped).
  uint64_t pb_cursor = kPushbufferOffset, data_pb_cursor = kDataPushbufferOffset, sys_pb_cursor = 0;
  ChannelSlot channels[kMaxChannels];
  size_t faults_seen = 0;
  uint64_t last_now = 0;
};

uint64_t qmd_va(const Session& s, int i) { return s.code + kQmdOffset + uint64_t(i) * NVCBC0_QMD_BYTES; }

// An address: inside a mapping (often at its very end), in the read-only page, just outside,
// in the unmapped part of the window, in a canary page, or anywhere at all.
uint64_t pick_address(FuzzedDataProvider& in, const Session& s) {
  const uint64_t offset = in.ConsumeIntegralInRange<uint64_t>(0, gpu::kBigPage - 1) & ~uint64_t{3};
  switch (in.ConsumeIntegralInRange(0, 31)) {
    case 0: return s.data + gpu::kBigPage - in.PickValueInArray({4, 8, 16, 32, 64});  // the last bytes
    case 1: return s.data + gpu::kBigPage;                                           // the next page
    case 2: return s.code + (offset & 0xFFFF);
    case 3: return s.ring + kPushbufferOffset + (offset % (gpu::kBigPage - kPushbufferOffset));
    case 4: return s.sysmem + (offset & 0x1FFF);
    case 5: return s.sysmem - gpu::kSmallPage + (offset & 0xFFF);                    // canary
    case 6: return s.sysmem + 2 * gpu::kSmallPage + (offset & 0xFFF);                // canary
    case 7: return s.gap + offset;
    case 8: return s.data + kFifoOffset;
    case 9: return in.ConsumeIntegral<uint64_t>();
    case 10: return 0;
    default: return s.data + (offset & 0xFFFF);  // where the semaphores and buffers are
  }
}

uint32_t pick_value(FuzzedDataProvider& in) {
  return in.ConsumeBool() ? in.PickValueInArray(kEdgeValues) : in.ConsumeIntegral<uint32_t>();
}

// The data dword for a method: addresses for the address methods, well-formed or mangled
// operation words, anything else.
uint32_t pick_data(FuzzedDataProvider& in, const Session& s, uint32_t method) {
  if (in.ConsumeIntegralInRange(0, 7) == 0) return pick_value(in);
  switch (method) {
    case NVC56F_SEM_ADDR_LO: case NVC8B5_SET_SEMAPHORE_B: case NVC8B5_OFFSET_IN_LOWER:
    case NVC8B5_OFFSET_OUT_LOWER: return static_cast<uint32_t>(pick_address(in, s));
    case NVC56F_SEM_ADDR_HI: case NVC8B5_SET_SEMAPHORE_A: case NVC8B5_OFFSET_IN_UPPER:
    case NVC8B5_OFFSET_OUT_UPPER: return static_cast<uint32_t>(pick_address(in, s) >> 32);
    case NVCBC0_SEND_PCAS_A: return static_cast<uint32_t>(qmd_va(s, in.ConsumeIntegralInRange(0, kQmds - 1)) >> 8);
    case NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER: return static_cast<uint32_t>(s.code >> 40);
    case NVCBC0_SEND_SIGNALING_PCAS2_B: return NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE;
    case NVC56F_SET_OBJECT: return in.ConsumeBool() ? HOPPER_DMA_COPY_A : HOPPER_COMPUTE_A;
    case NVC56F_SEM_EXECUTE:
      return nv_sem_execute(in.ConsumeIntegralInRange(0, 7), in.ConsumeIntegralInRange(0, 1), in.ConsumeBool(),
                            in.ConsumeBool()) |
             (in.ConsumeIntegralInRange<uint32_t>(0, 15) << 27) | (in.ConsumeIntegralInRange<uint32_t>(0, 1) << 31);
    case NVC8B5_LAUNCH_DMA:
      return nv_launch_dma_copy(in.ConsumeIntegralInRange(0, 3), in.ConsumeBool(), in.ConsumeBool()) ^
             (in.ConsumeBool() ? in.ConsumeIntegral<uint32_t>() & in.ConsumeIntegral<uint32_t>() : 0);
    case NVC8B5_LINE_LENGTH_IN: return in.ConsumeIntegralInRange<uint32_t>(0, 0x2000);
    case NVC8B5_LINE_COUNT: return in.ConsumeIntegralInRange<uint32_t>(0, 4);
    case NVC8B5_PITCH_IN: case NVC8B5_PITCH_OUT: return in.ConsumeIntegralInRange<uint32_t>(0, 0x4000);
    default: return pick_value(in);
  }
}

uint32_t pick_method(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 5)) {
    case 0: case 1: return in.PickValueInArray(kHostMethods);
    case 2: case 3: case 4: return in.PickValueInArray(kEngineMethods);
    default: return in.ConsumeIntegralInRange<uint32_t>(0, 0x1FFF) << 2;  // anything the header can say
  }
}

// Where the methods go: mostly the usual subchannels, sometimes any of the 8.
uint32_t pick_subchannel(FuzzedDataProvider& in, uint32_t method) {
  if (in.ConsumeIntegralInRange(0, 3) == 0) return in.ConsumeIntegralInRange(0, 7);
  if (method < NV_HOST_METHOD_LIMIT) return NV_SUBCHANNEL_HOST;
  return method >= NVCBC0_SEND_PCAS_A && method <= NVCBC0_SEND_SIGNALING_PCAS2_B ? NV_SUBCHANNEL_COMPUTE
         : method == NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER                     ? NV_SUBCHANNEL_COMPUTE
                                                                                : NV_SUBCHANNEL_COPY;
}

void push_header(std::vector<uint32_t>& pb, FuzzedDataProvider& in, const Session& s, uint32_t sec_op,
                 uint32_t subchannel, uint32_t method, uint32_t count, uint32_t data_dwords) {
  pb.push_back(nv_method_header(sec_op, subchannel, method, count));
  for (uint32_t i = 0; i < data_dwords; ++i) {
    const uint32_t target = sec_op == NVC56F_DMA_SEC_OP_INC_METHOD ? method + 4 * i
                            : sec_op == NVC56F_DMA_SEC_OP_ONE_INC && i > 0 ? method + 4
                                                                           : method;
    pb.push_back(pick_data(in, s, target));
  }
}

void push_inc(std::vector<uint32_t>& pb, uint32_t subchannel, uint32_t method, std::initializer_list<uint32_t> data) {
  pb.push_back(nv_method_inc(subchannel, method, static_cast<uint32_t>(data.size())));
  pb.insert(pb.end(), data);
}

// One piece of a segment: a header of any kind with its data, or a well-formed sequence (a
// semaphore operation, a copy, a memset, a launch, a SET_OBJECT) with input-chosen values.
void push_piece(std::vector<uint32_t>& pb, FuzzedDataProvider& in, const Session& s) {
  const uint32_t method = pick_method(in);
  const uint32_t sub = pick_subchannel(in, method);
  switch (in.ConsumeIntegralInRange(0, 17)) {
    case 0: case 1: {  // INC / NON_INC / ONE_INC, with the right number of data dwords
      const uint32_t sec_op = in.PickValueInArray(
          {NVC56F_DMA_SEC_OP_INC_METHOD, NVC56F_DMA_SEC_OP_NON_INC_METHOD, NVC56F_DMA_SEC_OP_ONE_INC});
      const uint32_t count = in.ConsumeIntegralInRange(0, 6);
      push_header(pb, in, s, sec_op, sub, method, count, count);
      break;
    }
    case 2: {  // a count larger than what follows: the header runs on into the next segment
      const uint32_t count = in.ConsumeBool() ? NVC56F_DMA_METHOD_COUNT_MAX : in.ConsumeIntegralInRange(2, 40);
      push_header(pb, in, s, NVC56F_DMA_SEC_OP_NON_INC_METHOD, sub, method, count, 1);
      break;
    }
    case 3:
      pb.push_back(nv_method_immd(sub, method, in.ConsumeIntegralInRange<uint32_t>(0, NVC56F_DMA_IMMD_DATA_MAX)));
      break;
    case 4: {  // END_PB_SEGMENT, tertiary ops, reserved SEC_OPs, NOP
      const uint32_t sec_op = in.ConsumeIntegralInRange(0, 7);
      pb.push_back((sec_op << 29) | (in.ConsumeIntegral<uint32_t>() & 0x1FFFFFFF & -uint32_t(in.ConsumeBool())));
      break;
    }
    case 5: pb.push_back(in.ConsumeIntegral<uint32_t>()); break;  // a raw dword
    case 6: case 7: case 14: {  // SEM_ADDR_LO..SEM_EXECUTE
      const uint64_t va = pick_address(in, s) & ~uint64_t(in.ConsumeBool() ? 15 : 3);
      const uint64_t payload =
          in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(0, 8) : in.ConsumeIntegral<uint64_t>();
      push_inc(pb, NV_SUBCHANNEL_HOST, NVC56F_SEM_ADDR_LO,
               {static_cast<uint32_t>(va), static_cast<uint32_t>(va >> 32), static_cast<uint32_t>(payload),
                static_cast<uint32_t>(payload >> 32), pick_data(in, s, NVC56F_SEM_EXECUTE)});
      break;
    }
    case 8: case 9: case 15: {  // a copy, maybe multi-line, maybe with its semaphore
      const uint64_t src = pick_address(in, s), dst = pick_address(in, s);
      push_inc(pb, sub, NVC8B5_OFFSET_IN_UPPER,
               {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src), static_cast<uint32_t>(dst >> 32),
                static_cast<uint32_t>(dst), pick_data(in, s, NVC8B5_PITCH_IN), pick_data(in, s, NVC8B5_PITCH_OUT),
                pick_data(in, s, NVC8B5_LINE_LENGTH_IN), pick_data(in, s, NVC8B5_LINE_COUNT)});
      if (in.ConsumeBool()) {
        const uint64_t sem = pick_address(in, s);
        push_inc(pb, sub, NVC8B5_SET_SEMAPHORE_A,
                 {static_cast<uint32_t>(sem >> 32), static_cast<uint32_t>(sem), pick_value(in), pick_value(in)});
      }
      push_inc(pb, sub, NVC8B5_LAUNCH_DMA, {pick_data(in, s, NVC8B5_LAUNCH_DMA)});
      break;
    }
    case 10: {  // a remap: a memset, or components picked from the source and the constants
      const uint64_t src = pick_address(in, s), dst = pick_address(in, s);
      push_inc(pb, sub, NVC8B5_SET_REMAP_CONST_A,
               {pick_value(in), pick_value(in), in.ConsumeBool() ? nv_remap_memset(in.ConsumeIntegralInRange(1, 4))
                                                                 : in.ConsumeIntegral<uint32_t>() & 0x03337777u});
      push_inc(pb, sub, NVC8B5_OFFSET_IN_UPPER,
               {static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(src), static_cast<uint32_t>(dst >> 32),
                static_cast<uint32_t>(dst)});
      push_inc(pb, sub, NVC8B5_LINE_LENGTH_IN, {pick_data(in, s, NVC8B5_LINE_LENGTH_IN)});
      push_inc(pb, sub, NVC8B5_LAUNCH_DMA,
               {nv_launch_dma_copy(in.ConsumeIntegralInRange(0, 2), in.ConsumeBool(), /*remap=*/true)});
      break;
    }
    case 11: case 12: case 16: {  // a launch of one of the QMDs (or of any 256-byte aligned address)
      const uint64_t qmd = in.ConsumeIntegralInRange(0, 5) == 0 ? pick_address(in, s) & ~uint64_t{0xFF}
                                                                : qmd_va(s, in.ConsumeIntegralInRange(0, kQmds - 1));
      const uint32_t compute = in.ConsumeIntegralInRange(0, 7) == 0 ? sub : NV_SUBCHANNEL_COMPUTE;
      push_inc(pb, compute, NVCBC0_MINICUDA_SET_PCAS_ADDRESS_UPPER, {static_cast<uint32_t>(qmd >> 40)});
      push_inc(pb, compute, NVCBC0_SEND_PCAS_A, {static_cast<uint32_t>(qmd >> 8)});
      push_inc(pb, compute, NVCBC0_SEND_SIGNALING_PCAS2_B, {pick_data(in, s, NVCBC0_SEND_SIGNALING_PCAS2_B)});
      break;
    }
    default:  // bind a class (or a class this GPU does not have)
      push_inc(pb, in.ConsumeIntegralInRange(0, 7), NVC56F_SET_OBJECT,
               {in.ConsumeIntegralInRange(0, 5) == 0 ? pick_value(in) : pick_data(in, s, NVC56F_SET_OBJECT)});
      break;
  }
}

// Clamps twice: as the segment runs after the channel's last one (a header of that one may go on
// into it), and as it runs on its own (when that one never ran: its entry was overwritten).
void clamp_line_counts(std::vector<uint32_t>& pb, ChannelSlot& c) {
  Expansion fresh;
  clamp_pass(pb, fresh);
  clamp_pass(pb, c.expansion);
}

void write_entry(ChannelSlot& c, uint64_t entry) {
  reinterpret_cast<uint64_t*>(c.config.gpfifo_va)[c.put] = entry;
  c.put = (c.put + 1) & (c.config.gpfifo_entries - 1);
}

// A segment: built from the input, copied to pushbuffer space (the ring page, sometimes sysmem or
// the data page), and its GPFIFO entry written (with an extended-base entry when needed), with
// a length or address that is sometimes wrong.
void one_segment(FuzzedDataProvider& in, Session& s, ChannelSlot& c) {
  std::vector<uint32_t> pb;
  const int pieces = in.ConsumeIntegralInRange(0, 12);
  for (int i = 0; i < pieces; ++i) push_piece(pb, in, s);
  if (pb.size() > 1024) pb.resize(1024);
  clamp_line_counts(pb, c);
  const size_t bytes = pb.size() * 4;
  // The next free bytes of a pushbuffer space, 0 when it is full.
  auto take = [bytes](uint64_t base, uint64_t& cursor, uint64_t end) -> uint64_t {
    if (cursor + bytes > end) return 0;
    const uint64_t va = base + cursor;
    cursor += (bytes + 63) & ~uint64_t{63};
    return va;
  };
  uint64_t va = 0;
  switch (in.ConsumeIntegralInRange(0, 7)) {
    case 0:
      if (s.sys_mapped) va = take(s.sysmem, s.sys_pb_cursor, 2 * gpu::kSmallPage);
      break;
    case 1:
      if (s.data_mapped) va = take(s.data, s.data_pb_cursor, gpu::kBigPage);
      break;
    default: va = take(s.ring, s.pb_cursor, gpu::kBigPage - 64); break;
  }
  if (va == 0) return;
  if (bytes != 0) std::memcpy(reinterpret_cast<void*>(va), pb.data(), bytes);
  uint32_t length = static_cast<uint32_t>(pb.size());
  // (Rarely one of up to 2^21 - 1 dwords: the PBDMA allocates the segment before it checks it.)
  switch (in.ConsumeIntegralInRange(0, 63)) {
    case 0: length = in.ConsumeIntegralInRange<uint32_t>(0, (1u << 21) - 1); break;  // any length
    case 1: case 2: length = in.ConsumeIntegralInRange<uint32_t>(0, 0x2000); break;
    case 3: case 4: length += in.ConsumeIntegralInRange<uint32_t>(1, 64); break;     // runs past it
    case 5: case 6: case 7: va = pick_address(in, s) & ~uint64_t{3}; break;           // elsewhere
    default: break;
  }
  const uint64_t base = va & ~((uint64_t{1} << 40) - 1);
  if (base != c.extended_base && in.ConsumeIntegralInRange(0, 7) != 0) {
    write_entry(c, nv_gp_entry_pb_extended_base(va));
    c.extended_base = base;
  }
  write_entry(c, nv_gp_entry(va, length, in.ConsumeBool()) | (uint64_t(in.ConsumeBool()) << 41));
}

// A GPFIFO entry that is not a plain segment: a control entry (NOP, extended base, an opcode the
// PBDMA does not simulate) or 64 random bits.
void one_control_entry(FuzzedDataProvider& in, ChannelSlot& c) {
  uint64_t entry = 0;
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: entry = 0; break;
    case 1: entry = nv_gp_entry_pb_extended_base(in.ConsumeIntegral<uint64_t>()); c.extended_base = ~0ull; break;
    case 2: entry = uint64_t{in.ConsumeIntegralInRange<uint32_t>(0, 15)} << 60 | in.ConsumeIntegral<uint32_t>(); break;
    default:  // (half the time with a short length: see one_segment)
      entry = in.ConsumeIntegral<uint64_t>() & (in.ConsumeBool() ? ~0ull : ~(uint64_t{0x1FFFF0} << 42));
      c.extended_base = ~0ull;
      break;
  }
  write_entry(c, entry);
}

uint32_t* userd_word(const ChannelSlot& c, uint32_t offset) {
  return reinterpret_cast<uint32_t*>(c.config.userd_va + offset);
}

void publish(FuzzedDataProvider& in, ChannelSlot& c) {
  uint32_t put = c.put;
  if (in.ConsumeIntegralInRange(0, 7) == 0) put = in.ConsumeBool() ? c.config.gpfifo_entries : pick_value(in);
  std::atomic_ref<uint32_t>(*userd_word(c, NVC56F_USERD_GP_PUT)).store(put, std::memory_order_release);
}

void add_channel(FuzzedDataProvider& in, Session& s, int k, uint32_t chid) {
  ChannelSlot& c = s.channels[k];
  const uint64_t userd = s.ring + kUserdOffset + uint64_t(k) * NVC56F_USERD_SIZE;
  const uint64_t gpfifo = s.ring + kRingOffset + uint64_t(k) * 0x1000;
  std::memset(reinterpret_cast<void*>(userd), 0, NVC56F_USERD_SIZE);
  std::memset(reinterpret_cast<void*>(gpfifo), 0, 0x1000);
  const int faults_allowed = c.faults_allowed + 1;
  c = ChannelSlot{};
  c.live = true;
  c.faults_allowed = faults_allowed;
  c.config = gpu::ChannelConfig{chid, 0x100 + chid, gpfifo, 2u << in.ConsumeIntegralInRange(0, 5), userd,
                                in.ConsumeIntegralInRange(0, 7) == 0};
  s.device->host().add_channel(c.config);
  if (in.ConsumeIntegralInRange(0, 7) == 0 || s.pb_cursor + 64 > gpu::kBigPage) return;
  // Mostly the prologue libcuda writes first: compute on subchannel 1, copy on 4.
  std::vector<uint32_t> pb;
  push_inc(pb, NV_SUBCHANNEL_COMPUTE, NVC56F_SET_OBJECT, {HOPPER_COMPUTE_A});
  push_inc(pb, NV_SUBCHANNEL_COPY, NVC56F_SET_OBJECT, {HOPPER_DMA_COPY_A});
  const uint64_t va = s.ring + s.pb_cursor;
  std::memcpy(reinterpret_cast<void*>(va), pb.data(), pb.size() * 4);
  s.pb_cursor += 64;
  write_entry(c, nv_gp_entry_pb_extended_base(va));
  write_entry(c, nv_gp_entry(va, static_cast<uint32_t>(pb.size())));
  c.extended_base = va & ~((uint64_t{1} << 40) - 1);
}

// An invariant does not hold: say which, and crash (libFuzzer keeps the input).
[[noreturn]] void violated(const char* invariant, const std::string& detail = "") {
  std::fprintf(stderr, "fuzz_pushbuffer: invariant violated: %s %s\n", invariant, detail.c_str());
  __builtin_trap();
}

// The invariants after the host interface ran (include_inline: inline channels ran too).
// settled: after run_pending(), or a poll() with the engines' threads off: nothing is Pending.
void check(Session& s, bool include_inline, bool settled = true) {
  gpu::HostInterface& host = s.device->host();
  const std::vector<gpu::ChannelFault> faults = host.faults();
  if (faults.size() < s.faults_seen) violated("faults were forgotten");
  for (size_t i = s.faults_seen; i < faults.size(); ++i) {
    const gpu::ChannelFault& f = faults[i];
    bool ours = false;
    for (const ChannelSlot& c : s.channels) ours = ours || (c.faults_allowed > 0 && c.config.chid == f.chid);
    if (!ours || f.what.empty() || f.kind > gpu::FaultKind::EccUncorrectable || f.engine > gpu::Engine::Compute)
      violated("a fault without a channel of this input, a kind or a message:", f.what);
    // The harmless kernel touches no memory: an MMU fault inside it is the simulator's own access.
    if (f.engine == gpu::Engine::Compute && f.what.rfind("MMU fault: kernel", 0) == 0)
      violated("an MMU fault in the harmless kernel:", f.what);
  }
  s.faults_seen = faults.size();
  for (const ChannelSlot& c : s.channels) {
    if (!c.live) continue;
    const std::optional<gpu::ChannelStatus> status = host.channel_status(c.config.chid);
    if (!status) violated("a channel was lost");
    if (settled && *status == gpu::ChannelStatus::Pending && (include_inline || !c.config.inline_only))
      violated("a channel is still Pending after the run");
    int recorded = 0;  // faults recorded by now: an engine's thread may have faulted it meanwhile
    for (const gpu::ChannelFault& f : host.faults()) recorded += f.chid == c.config.chid;
    if (recorded > c.faults_allowed) violated("a channel faulted twice");  // it stays stopped after one
    if (*status == gpu::ChannelStatus::Faulted && recorded == 0) violated("a channel is Faulted with no fault");
    if (*status != gpu::ChannelStatus::Faulted && *userd_word(c, NVC56F_USERD_GP_GET) >= c.config.gpfifo_entries)
      violated("GPGet is outside the ring");
  }
  static const std::vector<uint8_t> canary(gpu::kSmallPage, kCanary);
  if (std::memcmp(s.sys, canary.data(), gpu::kSmallPage) != 0 ||
      std::memcmp(s.sys + 3 * gpu::kSmallPage, canary.data(), gpu::kSmallPage) != 0)
    violated("a canary page next to sysmem was written");
  const uint64_t now = s.device->now_ns();
  if (now < s.last_now) violated("simulated time went back");
  s.last_now = now;
}

void write_code_record(uint64_t va, void (*entry)(const void*), const char* name, uint32_t param_bytes) {
  NvMinicudaKernelCode code{};
  code.magic = NV_MINICUDA_KERNEL_CODE_MAGIC;
  code.param_bytes = param_bytes;
  code.entry = reinterpret_cast<NvU64>(entry);
  code.name = reinterpret_cast<NvU64>(name);
  std::memcpy(reinterpret_cast<void*>(va), &code, sizeof code);
}

// QMD i: mostly one that runs, with input-chosen fields near their limits, sometimes broken.
void write_qmd(FuzzedDataProvider& in, const Session& s, int i) {
  NvU32 qmd[NVCBC0_QMD_BYTES / 4] = {};
  const bool params = in.ConsumeBool();
  const int odd = in.ConsumeIntegralInRange(0, 3) == 0 ? 3 : 0;  // how often a field is odd: 1 in odd + 1
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_QMD_MAJOR_VERSION,
             odd && in.ConsumeIntegralInRange(0, odd) == 0 ? in.ConsumeIntegralInRange(0, 15)
                                                           : NVCBC0_QMDV03_00_QMD_MAJOR_VERSION_3);
  auto is_odd = [&] { return odd && in.ConsumeIntegralInRange(0, odd) == 0; };
  auto dim = [&](uint32_t usual) { return is_odd() ? pick_value(in) : in.ConsumeIntegralInRange(1u, usual); };
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_WIDTH, dim(8));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_HEIGHT, dim(2));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_RASTER_DEPTH, dim(2));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION0, dim(64));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION1, dim(2));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_CTA_THREAD_DIMENSION2, dim(2));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_SHARED_MEMORY_SIZE, is_odd() ? pick_value(in) : in.ConsumeIntegralInRange(0, 1024));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_REGISTER_COUNT_V, is_odd() ? pick_value(in) : 32);
  uint64_t program = s.code + (params ? 64 : 0);
  if (is_odd()) program = pick_address(in, s);
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_LOWER, static_cast<uint32_t>(program));
  nv_qmd_set(qmd, NVCBC0_QMDV03_00_PROGRAM_ADDRESS_UPPER, static_cast<uint32_t>(program >> 32));
  // Constant bank 0 (parameters) and 1 (the printf FIFO).
  const uint64_t banks[2] = {s.code + kParamsOffset + 8 * in.ConsumeIntegralInRange(0, 3), s.data + kFifoOffset};
  const uint32_t sizes[2] = {1, kFifoBytes >> 4};
  for (NvU32 bank = 0; bank < 2; ++bank) {
    if (bank == NV_QMD_CBANK_PARAMS ? !params && in.ConsumeBool() : in.ConsumeIntegralInRange(0, 3) == 0) continue;
    const uint64_t va = is_odd() ? pick_address(in, s) : banks[bank];
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_VALID(bank), 1);
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_LOWER(bank), static_cast<uint32_t>(va));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_ADDR_UPPER(bank), static_cast<uint32_t>(va >> 32));
    nv_qmd_set(qmd, NVCBC0_QMDV03_00_CONSTANT_BUFFER_SIZE_SHIFTED4(bank),
               is_odd() ? pick_value(in) : sizes[bank]);
  }
  std::memcpy(reinterpret_cast<void*>(qmd_va(s, i)), qmd, sizeof qmd);
}

// The pages of the session: see the header comment. Returns false if the host is out of memory.
bool map_memory(FuzzedDataProvider& in, Session& s) {
  gpu::Mmu& mmu = s.device->mmu();
  const uint64_t base = mmu.uva_base();
  s.ring = base;
  s.data = base + gpu::kBigPage;
  s.gap = base + 2 * gpu::kBigPage;
  s.code = base + 3 * gpu::kBigPage;
  if (!mmu.map_vidmem(s.ring, 0, gpu::kBigPage) || !mmu.map_vidmem(s.data, gpu::kBigPage, gpu::kBigPage)) return false;
  // The code page: written through a writable mapping, then mapped read-only for the GPU.
  if (!mmu.map_vidmem(s.code, 2 * gpu::kBigPage, gpu::kBigPage)) return false;
  write_code_record(s.code, harmless, kPlainName, 0);
  write_code_record(s.code + 64, harmless_params, kParamsName, 8);
  for (int i = 0; i < kQmds; ++i) write_qmd(in, s, i);
  for (int i = 0; i < 4; ++i) {
    const uint32_t mode[2] = {in.ConsumeIntegral<uint32_t>(), 0};
    std::memcpy(reinterpret_cast<void*>(s.code + kParamsOffset + 8 * i), mode, sizeof mode);
  }
  mmu.unmap(s.code, gpu::kBigPage);
  if (!mmu.map_vidmem(s.code, 2 * gpu::kBigPage, gpu::kBigPage, /*writable=*/false)) return false;
  // The data page: input bytes at the start (semaphore values), the printf FIFO's header.
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange(0, 64));
  if (!bytes.empty()) std::memcpy(reinterpret_cast<void*>(s.data), bytes.data(), bytes.size());
  const NvMinicudaPrintfFifo fifo{in.ConsumeBool() ? 0 : pick_value(in), 0, in.ConsumeBool() ? 0 : pick_value(in), 0};
  std::memcpy(reinterpret_cast<void*>(s.data + kFifoOffset), &fifo, sizeof fifo);
  // Sysmem between two canary pages.
  void* sys = mmap(nullptr, 4 * gpu::kSmallPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sys == MAP_FAILED) return false;
  s.sys = static_cast<uint8_t*>(sys);
  std::memset(s.sys, kCanary, 4 * gpu::kSmallPage);
  s.sysmem = reinterpret_cast<uint64_t>(s.sys) + gpu::kSmallPage;
  return mmu.map_sysmem(s.sysmem, 2 * gpu::kSmallPage);
}

// Unmaps or maps again the data page or the sysmem pages: later work there faults, or runs again.
void toggle_mapping(FuzzedDataProvider& in, Session& s) {
  gpu::Mmu& mmu = s.device->mmu();
  if (in.ConsumeBool()) {
    if (s.data_mapped) mmu.unmap(s.data, gpu::kBigPage);
    else if (!mmu.map_vidmem(s.data, gpu::kBigPage, gpu::kBigPage)) violated("the data page does not map again");
    s.data_mapped = !s.data_mapped;
  } else {
    if (s.sys_mapped) mmu.unmap(s.sysmem, 2 * gpu::kSmallPage);
    else if (!mmu.map_sysmem(s.sysmem, 2 * gpu::kSmallPage, in.ConsumeBool())) violated("sysmem does not map again");
    s.sys_mapped = !s.sys_mapped;
  }
}

// The host writes a semaphore (the data page's first bytes, or sysmem), as a CPU release would.
void host_release(FuzzedDataProvider& in, const Session& s) {
  const uint64_t offset = in.ConsumeIntegralInRange<uint64_t>(0, 15) * 4;
  const uint32_t value = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 8) : pick_value(in);
  if (in.ConsumeBool() && s.data_mapped) std::memcpy(reinterpret_cast<void*>(s.data + offset), &value, 4);
  else std::memcpy(reinterpret_cast<void*>(s.sysmem + offset), &value, 4);
}

void run(FuzzedDataProvider& in, Session& s) {
  const int channels = in.ConsumeIntegralInRange(1, kMaxChannels);
  uint32_t chid = in.ConsumeIntegralInRange<uint32_t>(0, 8);
  for (int k = 0; k < channels; ++k) {
    add_channel(in, s, k, chid);
    chid += in.ConsumeIntegralInRange<uint32_t>(1, 40);
  }
  for (int ops = 0; ops < 48 && in.remaining_bytes() > 0; ++ops) {
    ChannelSlot& c = s.channels[in.ConsumeIntegralInRange(0, channels - 1)];
    gpu::HostInterface& host = s.device->host();
    switch (in.ConsumeIntegralInRange(0, 15)) {
      case 0: case 1: case 2: case 3: case 4:
        if (c.live) one_segment(in, s, c);
        break;
      case 5: if (c.live) one_control_entry(in, c); break;
      case 6: case 7: if (c.live) publish(in, c); break;
      case 8: {  // the doorbell: the usermode register the bus delivers to, or another register of the page
        const uint32_t token = in.ConsumeIntegralInRange(0, 7) == 0 ? pick_value(in) : c.config.token;
        const uint64_t offset = in.ConsumeIntegralInRange(0, 7) == 0 ? in.ConsumeIntegralInRange<uint64_t>(0, 0xFFFF) & ~3ull
                                                                     : NVC361_NOTIFY_CHANNEL_PENDING;
        s.device->usermode_write32(offset, token);
        break;
      }
      case 9: case 10: {
        const bool include_inline = in.ConsumeIntegralInRange(0, 3) != 0;
        host.run_pending(include_inline);
        check(s, include_inline);
        break;
      }
      case 11: {
        const bool include_inline = in.ConsumeBool();
        host.poll(include_inline);
        check(s, include_inline, /*settled=*/!s.engine_threads);
        break;
      }
      case 12: host_release(in, s); break;
      case 13: toggle_mapping(in, s); break;
      case 14:  // the channel is freed and made again: a fresh channel on the same ring
        if (c.live && in.ConsumeBool()) {
          host.remove_channel(c.config.chid);
          c.live = false;
        } else if (!c.live) {
          add_channel(in, s, static_cast<int>(&c - s.channels), c.config.chid);
        }
        break;
      default: {  // submit everything and run it: publish, ring, run
        for (ChannelSlot& each : s.channels) {
          if (!each.live) continue;
          std::atomic_ref<uint32_t>(*userd_word(each, NVC56F_USERD_GP_PUT)).store(each.put, std::memory_order_release);
          host.doorbell(each.config.token);
        }
        host.run_pending();
        check(s, true);
      }
    }
  }
  if (s.engine_threads) s.device->host().run_pending();  // what the threads still do, done
  else s.device->host().poll();
  check(s, true);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("MINICUDA_SM_THREADS", "1", 1);  // every block on the calling thread: deterministic
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  // The segment budget, and sometimes an injected error at an input-chosen segment.
  std::string plan = "gpu@" + std::to_string(kSegmentBudget) + "+=ecc";
  if (in.ConsumeIntegralInRange(0, 15) == 0)
    plan += ",gpu@" + std::to_string(in.ConsumeIntegralInRange(1, 16)) +
            (in.ConsumeBool() ? "=ecc" : "=illegal_address");
  if (!minicuda::fault::set_plan(plan)) violated("the fault plan does not parse:", plan);
  g_threads_left.store(kThreadBudget, std::memory_order_relaxed);
  Session s;
  s.engine_threads = (size & 1) != 0;  // read by the Device's EngineThreads when it is built
  setenv("MINICUDA_ENGINE_THREADS", s.engine_threads ? "1" : "0", 1);
  {
    gpu::Device device(gpu::Preset::Teaching);
    s.device = &device;
    if (map_memory(in, s)) run(in, s);
    s.device = nullptr;
  }
  if (s.sys != nullptr) munmap(s.sys, 4 * gpu::kSmallPage);
  minicuda::fault::set_plan("");
  return 0;
}
