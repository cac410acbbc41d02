// simt_async: the SIMT executor's asynchronous copies and mbarriers (nv_sass.h CP_ASYNC,
// CP_ASYNC_GROUP, MBARRIER) - what cuda::memcpy_async, cuda::pipeline and cuda::barrier compile to.
//
// The model (docs/simt.md "Asynchronous copies and mbarriers"):
// - A cp.async copy completes when it is issued: the bytes are in shared memory before the next
//   instruction. PTX lets a copy complete at any time before the wait that covers it, so this is
//   one of the orders a GPU may show; cp.async.commit_group and wait_group then have nothing left
//   to wait for. A program that reads the destination without waiting is wrong on a GPU, and
//   racecheck-style tools (not this executor) are what finds that.
// - An mbarrier is a 64-bit object in shared memory. Its word holds the pending arrivals of the
//   current phase (bits 0-20), the arrivals each phase expects (21-41), the transaction bytes
//   still to come (42-62, two's complement) and the phase's parity (63). A phase completes when
//   its pending arrivals and transaction bytes both reach 0: the parity flips and the pending
//   count starts again from the expected one. arrive returns the word before the arrival as its
//   state; test_wait/try_wait with that state is true once the parity differs from the state's.
//   The warps of a block run on one host thread, so the word needs no atomics.
#include <cstring>

#include <fmt/format.h>

#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

constexpr uint32_t kCountMask = (1u << 21) - 1;
constexpr uint32_t kMaxCount = (1u << 20) - 1;  // PTX: counts are 1 .. 2^20 - 1

struct Mbarrier {
  uint32_t pending = 0, expected = 0;
  int32_t tx = 0;
  uint32_t phase = 0;
};

Mbarrier unpack(uint64_t v) {
  Mbarrier m;
  m.pending = static_cast<uint32_t>(v) & kCountMask;
  m.expected = static_cast<uint32_t>(v >> 21) & kCountMask;
  const uint32_t tx = static_cast<uint32_t>(v >> 42) & kCountMask;
  m.tx = (tx & (1u << 20)) != 0 ? static_cast<int32_t>(tx) - (1 << 21) : static_cast<int32_t>(tx);
  m.phase = static_cast<uint32_t>(v >> 63);
  return m;
}

uint64_t pack(const Mbarrier& m) {
  return uint64_t{m.pending & kCountMask} | uint64_t{m.expected & kCountMask} << 21 |
         uint64_t{static_cast<uint32_t>(m.tx) & kCountMask} << 42 | uint64_t{m.phase & 1} << 63;
}

// The current phase completes once nothing is pending.
void complete_if_done(Mbarrier& m) {
  if (m.pending == 0 && m.tx == 0) {
    m.phase ^= 1;
    m.pending = m.expected;
  }
}

// The value of an address operand (REG: the register + imm; IMM: imm; SYMBOL: its address + imm).
uint64_t address_value(const BlockExec& b, const Warp& w, const NvSassOperand& op, unsigned lane) {
  switch (op.kind) {
    case NV_SASS_OPND_REG: return w.regs[size_t{op.index} * kLanes + lane] + op.imm;
    case NV_SASS_OPND_SYMBOL: {
      const NvSassProgram& p = b.program();
      return (op.index < p.symbol_count ? nv_p64_to_ptr<const NvU64>(p.symbols)[op.index] : 0) + op.imm;
    }
    default: return op.imm;
  }
}

// The address of an instruction's `addr` for a lane.
uint64_t instruction_address(const BlockExec& b, const Warp& w, const NvSassAddress& a, unsigned lane) {
  NvSassOperand op{};
  op.kind = a.kind == NV_SASS_OPND_NONE ? static_cast<NvU8>(NV_SASS_OPND_IMM) : a.kind;
  op.index = a.index;
  op.imm = static_cast<uint64_t>(a.offset);
  return address_value(b, w, op, lane);
}

// The host address of `bytes` bytes of shared memory at `address` in `space` (SHARED: a window
// offset; GENERIC: a generic address, which must fall in the block's shared window).
uint8_t* shared_at(BlockExec& b, uint8_t space, uint64_t address, unsigned bytes, const char* what) {
  const uint64_t base = reinterpret_cast<uint64_t>(b.shared());
  const uint64_t offset = space == NV_SASS_SPACE_SHARED ? address : address - base;
  if (offset + bytes > b.shared_size() || offset + bytes < offset)
    b.raise(KernelErrorKind::IllegalAddress,
            space == NV_SASS_SPACE_SHARED
                ? fmt::format("{} at shared offset {:#x} outside the block's {} bytes", what, address, b.shared_size())
                : fmt::format("{} at generic address {:#x}, which is not in the block's shared memory", what, address),
            address, true);
  if ((offset & (bytes - 1)) != 0 && bytes <= 16)
    b.raise(KernelErrorKind::MisalignedAddress,
            fmt::format("misaligned address {:#x} ({} needs {}-byte alignment)", address, what, bytes), address, true);
  return b.shared() + offset;
}

uint64_t operand_or(const BlockExec& b, const Warp& w, const NvSassOperand& op, unsigned lane, uint64_t absent) {
  if (op.kind == NV_SASS_OPND_NONE) return absent;
  uint64_t scratch[kLanes];
  return source(b, w, op, 1u << lane, scratch)[lane];
}

void copy_async(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  const bool bulk = in.mode == NV_SASS_CP_ASYNC_BULK;
  for_lanes(mask, [&](unsigned l) {
    b.set_fault_lane(l);
    const uint32_t size = static_cast<uint32_t>(operand_or(b, w, in.operand[2], l, 0));
    uint32_t from_src = bulk ? size : static_cast<uint32_t>(operand_or(b, w, in.operand[3], l, size));
    if (from_src > size) from_src = size;
    if (bulk && size % 16 != 0)
      b.raise(KernelErrorKind::MisalignedAddress,
              fmt::format("cp.async.bulk of {} bytes (the size must be a multiple of 16)", size));
    const uint64_t dst_address = instruction_address(b, w, in.addr, l);
    const uint64_t src = address_value(b, w, in.operand[1], l);
    const unsigned align = bulk ? 16u : size;
    if ((src & (align - 1)) != 0)
      b.raise(KernelErrorKind::MisalignedAddress,
              fmt::format("misaligned address {:#x} (cp.async source needs {}-byte alignment)", src, align), src, false);
    uint8_t* dst = shared_at(b, NV_SASS_SPACE_SHARED, dst_address, bulk ? 16u : size, "cp.async destination");
    if (bulk && dst_address + size > b.shared_size())
      b.raise(KernelErrorKind::IllegalAddress,
              fmt::format("cp.async.bulk of {} bytes at shared offset {:#x} outside the block's {} bytes", size,
                          dst_address, b.shared_size()),
              dst_address, true);
    std::memcpy(dst, reinterpret_cast<const void*>(src), from_src);  // a bad source faults (SIGSEGV)
    std::memset(dst + from_src, 0, size - from_src);
    if (bulk) {
      uint8_t* bar = shared_at(b, NV_SASS_SPACE_SHARED, address_value(b, w, in.operand[3], l), 8, "mbarrier");
      uint64_t word;
      std::memcpy(&word, bar, 8);
      Mbarrier m = unpack(word);
      m.tx -= static_cast<int32_t>(size);
      complete_if_done(m);
      word = pack(m);
      std::memcpy(bar, &word, 8);
    }
  });
}

void mbarrier(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  uint32_t completed = 0;  // test_wait's result, per lane
  for_lanes(mask, [&](unsigned l) {
    b.set_fault_lane(l);
    const uint64_t address = instruction_address(b, w, in.addr, l);
    uint8_t* p = shared_at(b, in.space, address, 8, "mbarrier");
    uint64_t word;
    std::memcpy(&word, p, 8);
    Mbarrier m = unpack(word);
    auto arrive = [&](uint32_t count) {
      m.pending = count >= m.pending ? 0 : m.pending - count;
      complete_if_done(m);
    };
    switch (in.mode) {
      case NV_SASS_MBAR_INIT: {
        const uint64_t count = operand_or(b, w, in.operand[1], l, 0);
        if (count == 0 || count > kMaxCount)
          b.raise(KernelErrorKind::IllegalInstruction,
                  fmt::format("mbarrier.init with count {} (PTX allows 1 to {})", count, kMaxCount));
        m = Mbarrier{};
        m.pending = m.expected = static_cast<uint32_t>(count);
        break;
      }
      case NV_SASS_MBAR_INVAL:
        m = Mbarrier{};
        break;
      case NV_SASS_MBAR_ARRIVE:
      case NV_SASS_MBAR_ARRIVE_DROP:
      case NV_SASS_MBAR_ARRIVE_EXPECT_TX: {
        if (in.operand[0].kind == NV_SASS_OPND_REG) dest(w, in.operand[0])[l] = word;
        uint32_t count = 1;
        if (in.mode == NV_SASS_MBAR_ARRIVE_EXPECT_TX) m.tx += static_cast<int32_t>(operand_or(b, w, in.operand[1], l, 0));
        else count = static_cast<uint32_t>(operand_or(b, w, in.operand[1], l, 1));
        if (in.mode == NV_SASS_MBAR_ARRIVE_DROP) m.expected = count >= m.expected ? 0 : m.expected - count;
        arrive(count);
        break;
      }
      case NV_SASS_MBAR_EXPECT_TX:
        m.tx += static_cast<int32_t>(operand_or(b, w, in.operand[1], l, 0));
        break;
      case NV_SASS_MBAR_COMPLETE_TX:
        m.tx -= static_cast<int32_t>(operand_or(b, w, in.operand[1], l, 0));
        complete_if_done(m);
        break;
      case NV_SASS_MBAR_TEST_WAIT:
        if (unpack(operand_or(b, w, in.operand[1], l, 0)).phase != m.phase) completed |= 1u << l;
        break;
      case NV_SASS_MBAR_TEST_WAIT_PARITY:
        if ((operand_or(b, w, in.operand[1], l, 0) & 1) != m.phase) completed |= 1u << l;
        break;
      case NV_SASS_MBAR_CP_ASYNC_ARRIVE:
        // The lane's copies have completed (at issue), so the arrival happens now. Without
        // .noinc the pending count is raised by one first, so the two cancel.
        if ((in.flags & NV_SASS_FLAG_NOINC) != 0) arrive(1);
        break;
      default:
        b.raise(KernelErrorKind::IllegalInstruction, fmt::format("mbarrier operation {} is unknown", in.mode));
    }
    word = pack(m);
    std::memcpy(p, &word, 8);
  });
  if (in.mode == NV_SASS_MBAR_TEST_WAIT || in.mode == NV_SASS_MBAR_TEST_WAIT_PARITY)
    write_predicate(w, in.operand[0].index, completed, mask);
}

}  // namespace

bool execute_async(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask) {
  switch (in.opcode) {
    case NV_SASS_OP_CP_ASYNC:
      copy_async(b, w, in, mask);
      return true;
    case NV_SASS_OP_CP_ASYNC_GROUP:  // every copy completed when it was issued
      return true;
    case NV_SASS_OP_MBARRIER:
      mbarrier(b, w, in, mask);
      return true;
    default:
      return false;
  }
}

}  // namespace minicuda::gpu::simt
