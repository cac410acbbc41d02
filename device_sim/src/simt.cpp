// simt: the warp scheduler of the SIMT executor - blocks, warps, divergence, barriers, faults
// (see simt.h for the model). The instructions themselves are in simt_alu.cpp,
// simt_memory.cpp and simt_warp.cpp.
#include "simt.h"

#include <algorithm>
#include <csignal>
#include <cstring>

#include <fmt/format.h>

#include "minicuda/trace.h"
#include "sm_signals.h"

namespace minicuda::gpu::simt {

namespace {
uint32_t popcount(uint32_t m) { return static_cast<uint32_t>(__builtin_popcount(m)); }

// The lanes of warp w that exist in a block of `threads` threads.
uint32_t present_lanes(unsigned w, unsigned threads) {
  const unsigned lanes = std::min(kLanes, threads - w * kLanes);
  return lanes == kLanes ? kFullMask : (1u << lanes) - 1;
}

// The first lane's value of a uniform operand (a barrier id, a membermask): immediates and
// registers alike.
uint64_t uniform_value(const BlockExec& b, const Warp& w, const NvSassOperand& op, uint32_t lanes) {
  uint64_t scratch[kLanes];
  const unsigned first = static_cast<unsigned>(__builtin_ctz(lanes));
  return source(b, w, op, 1u << first, scratch)[first];
}

// Why `p` cannot run (an operand past the register or predicate file, a branch past the end, an
// unknown opcode or special register), or an empty string. The executor indexes its register
// files with the program's numbers, so a program is checked once before it runs.
std::string check_program(const NvSassProgram& p) {
  const NvSassInstruction* code = nv_sass_instructions(p);
  auto operand_ok = [&](const NvSassOperand& o) {
    switch (o.kind) {
      case NV_SASS_OPND_REG: return o.index < p.register_count;
      case NV_SASS_OPND_PRED: return o.index < p.predicate_count;
      case NV_SASS_OPND_SREG: return o.index < NV_SASS_SR_COUNT;
      default: return o.kind <= NV_SASS_OPND_SYMBOL;
    }
  };
  for (uint32_t pc = 0; pc < p.instruction_count; ++pc) {
    const NvSassInstruction& in = code[pc];
    bool ok = in.opcode < NV_SASS_OP_COUNT && in.operand_count <= NV_SASS_MAX_OPERANDS &&
              (in.guard == NV_SASS_PRED_TRUE || in.guard < p.predicate_count) &&
              (in.pred_dst == NV_SASS_PRED_TRUE || in.pred_dst < p.predicate_count) &&
              (in.addr.kind != NV_SASS_OPND_REG || in.addr.index < p.register_count) &&
              ((in.opcode != NV_SASS_OP_BRA && in.opcode != NV_SASS_OP_CALL) || in.target < p.instruction_count);
    for (unsigned i = 0; i < NV_SASS_MAX_OPERANDS && ok; ++i) ok = operand_ok(in.operand[i]);
    // Every instruction that writes operand[0] as a register or predicate needs one there.
    if (ok && in.operand_count == 0 && in.opcode != NV_SASS_OP_NOP && in.opcode != NV_SASS_OP_EXIT &&
        in.opcode != NV_SASS_OP_RET && in.opcode != NV_SASS_OP_BRA && in.opcode != NV_SASS_OP_CALL &&
        in.opcode != NV_SASS_OP_TRAP && in.opcode != NV_SASS_OP_BRKPT && in.opcode != NV_SASS_OP_MEMBAR &&
        in.opcode != NV_SASS_OP_NANOSLEEP && in.opcode != NV_SASS_OP_PREFETCH)
      ok = false;
    if (!ok) return fmt::format("instruction {} ({}) is malformed", pc, disassemble(in));
  }
  return {};
}

// True if the program reads a %reserved_smem_offset_* register: the block then gets the
// reserved shared memory after its own window.
bool uses_reserved_shared(const NvSassProgram& p) {
  const NvSassInstruction* code = nv_sass_instructions(p);
  for (uint32_t pc = 0; pc < p.instruction_count; ++pc)
    for (unsigned i = 0; i < NV_SASS_MAX_OPERANDS; ++i)
      if (code[pc].operand[i].kind == NV_SASS_OPND_SREG && code[pc].operand[i].index >= NV_SASS_SR_RESERVED_SMEM_BEGIN &&
          code[pc].operand[i].index <= NV_SASS_SR_RESERVED_SMEM_1)
        return true;
  return false;
}

bool is_warp_op(uint16_t opcode) {
  return opcode == NV_SASS_OP_SHFL || opcode == NV_SASS_OP_VOTE || opcode == NV_SASS_OP_MATCH ||
         opcode == NV_SASS_OP_REDUX || opcode == NV_SASS_OP_BAR_WARP_SYNC;
}
}  // namespace

std::optional<BlockError> BlockExec::run_blocks(const GridLaunch& launch, BlockQueue& queue) {
  launch_ = &launch;
  program_ = launch.sass;
  code_ = nv_sass_instructions(*program_);
  queue_ = &queue;
  threads_ = launch.block.x * launch.block.y * launch.block.z;
  const unsigned warps = (threads_ + kLanes - 1) / kLanes;
  warps_.assign(warps, Warp{});
  regs_.assign(size_t{warps} * program_->register_count * kLanes, 0);
  preds_.assign(size_t{warps} * program_->predicate_count * kLanes, 0);
  for (unsigned w = 0; w < warps; ++w) {
    warps_[w].index = w;
    warps_[w].regs = regs_.data() + size_t{w} * program_->register_count * kLanes;
    warps_[w].preds = preds_.data() + size_t{w} * program_->predicate_count * kLanes;
  }
  shared_size_ = (uint64_t{program_->shared_bytes} + 15) / 16 * 16 + launch.dynamic_shared;
  reserved_shared_ = (shared_size_ + 15) / 16 * 16;
  if (uses_reserved_shared(*program_)) shared_size_ = reserved_shared_ + kReservedSharedBytes;
  if (shared_.size() < shared_size_) shared_.resize(shared_size_);
  local_bytes_ = (uint64_t{program_->local_bytes} + 15) / 16 * 16;
  local_.assign(local_bytes_ * threads_, 0);
  tracing_ = trace::enabled(trace::Layer::Warp);
  counting_ = launch.counters != nullptr;
  if (counting_) counter_.begin_grid();
  error_.reset();
  if (std::string why = check_program(*program_); !why.empty()) {  // before any register is touched
    KernelError e;
    e.kind = KernelErrorKind::IllegalInstruction;
    e.message = fmt::format("the SASS program of {} cannot run: {}", nv_sass_name(*program_), why);
    queue.stop();
    return BlockError{0, std::move(e), false};
  }
  install_signal_handlers();
  alignment_check(false);  // the executor checks alignment itself (simt_memory.cpp)
  uint64_t end = 0;
  while (!error_ && !queue.stopped() && queue.claim(&block_, &end)) {
    for (; block_ < end; ++block_) {
      if (queue.stopped()) break;
      start_block();
      if (sigsetjmp(jump_, 0) != 0) {  // a fault or an error raised by an instruction
        t_fault_jump = nullptr;
        record_fault();
        break;
      }
      t_fault_jump = &jump_;
      run_block();
      t_fault_jump = nullptr;
      if (error_) break;
    }
  }
  t_fault_jump = nullptr;
  if (counting_) counter_.end_grid(*launch.counters);
  if (!error_) return std::nullopt;
  queue.stop();
  return BlockError{block_, std::move(*error_), false};
}

void BlockExec::start_block() {
  block_idx_ = queue_->index(block_);
  exited_ = 0;
  if (counting_) counter_.begin_block(block_, static_cast<unsigned>(warps_.size()));
  for (Warp& w : warps_) {
    const uint32_t present = present_lanes(w.index, threads_);
    w.ready = present;
    w.exited = ~present;
    w.barrier = w.waiting = w.yielded = 0;
    w.group = present;
    w.group_pc = 0;
    w.last_group = 0;
    std::fill(std::begin(w.pc), std::end(w.pc), 0u);
    std::fill(std::begin(w.carry), std::end(w.carry), uint8_t{0});
    for (auto& stack : w.call_stack) stack.clear();
    for (auto& frames : w.frames) frames.clear();
    std::fill(std::begin(w.stack_used), std::end(w.stack_used), uint64_t{0});
  }
  std::fill(regs_.begin(), regs_.end(), 0);
  std::fill(preds_.begin(), preds_.end(), 0);
  std::fill(local_.begin(), local_.end(), 0);
  // Shared memory starts zeroed in every block, so that what a block reads before writing never
  // depends on which block ran before it on this host thread.
  std::fill(shared_.begin(), shared_.begin() + static_cast<std::ptrdiff_t>(shared_size_), 0);
  for (unsigned i = 0; i < kBarriers; ++i) arrived_[i] = expected_[i] = red_popc_[i] = red_or_[i] = 0, red_and_[i] = 1;
}

// Round-robin over the warps: each runs until none of its lanes is ready. A pass in which no
// warp could run while threads are left is a deadlock (a barrier or warp operation that can
// never complete), reported as a trap.
void BlockExec::run_block() {
  while (exited_ < threads_) {
    bool progressed = false;
    for (Warp& w : warps_) {
      if (w.ready == 0) continue;
      run_warp(w);
      progressed = true;
    }
    if (!progressed && exited_ < threads_) {
      unsigned at_barrier = 0;
      for (const Warp& w : warps_) at_barrier += popcount(w.barrier);
      KernelError e;
      e.kind = KernelErrorKind::Trap;
      e.block = block_idx_;
      e.message = fmt::format("deadlock: {} of {} threads wait at bar.sync and the others at a warp "
                              "operation or barrier they can never complete",
                              at_barrier, threads_ - exited_);
      error_ = e;
      return;
    }
  }
}

// Forms the next group: the ready lanes at the lowest PC, with the lanes waiting there at a warp
// operation. Lanes that yielded are passed over while other lanes are ready, and rejoin when the
// group reaches their PC. Writes the old group's PC back to its lanes first.
void BlockExec::regroup(Warp& w) {
  for_lanes(w.group, [&](unsigned l) { w.pc[l] = w.group_pc; });
  w.yielded &= w.ready;
  uint32_t candidates = w.ready & ~w.yielded;
  if (candidates == 0) candidates = w.ready, w.yielded = 0;
  uint32_t lowest = UINT32_MAX;
  for_lanes(candidates, [&](unsigned l) { lowest = std::min(lowest, w.pc[l]); });
  uint32_t group = 0;
  for_lanes(w.ready | w.waiting, [&](unsigned l) {
    if (w.pc[l] == lowest) group |= 1u << l;
  });
  w.yielded &= ~group;
  w.waiting &= ~group;
  w.ready |= group;
  if (tracing_ && w.last_group != 0 && (group & w.last_group) == w.last_group && group != w.last_group)
    trace_line(w, lowest, group, fmt::format("reconverge {:08x}", group));
  w.group = group;
  w.group_pc = lowest;
}

// A warp runs for at most kTimeSlice warp-instructions before the block's other warps get a turn,
// so a warp that spins on a flag another warp of the block will write (cooperative groups'
// multi-warp barriers: a loop of ld.acquire) lets that warp run. The slice is a count, so the
// interleaving, and every result, is the same on every run and any number of host threads.
void BlockExec::run_warp(Warp& w) {
  constexpr unsigned kTimeSlice = 4096;
  fault_warp_ = &w;
  unsigned left = kTimeSlice;
  do {
    while (w.ready != 0) {
      if (left-- == 0) return;
      // Regroup unless every lane that could join already runs in the group.
      if (w.group == 0 || ((w.ready | w.waiting) & ~w.group) != 0) regroup(w);
      step(w);
    }
  } while (w.waiting != 0 && meet_at_warp_op(w));
}

// The live lanes of the membermasks of warp operation `in` (its last operand) for `lanes`: the
// union of each lane's own, since lanes may name different ones (cooperative groups' partitions).
uint32_t BlockExec::members_of(const Warp& w, const NvSassInstruction& in, uint32_t lanes) const {
  uint64_t scratch[kLanes];
  const uint64_t* m = source(*this, w, in.operand[in.operand_count - 1], lanes, scratch);
  uint32_t all = 0;
  for_lanes(lanes, [&](unsigned l) { all |= static_cast<uint32_t>(m[l]); });
  return all & ~w.exited;
}

// No lane of warp w is ready, and some wait at warp operations at different PCs (sm_70+ lets
// the lanes of a membermask meet at different instructions of the same kind): when every
// waiting lane's membermask is all there, they execute together, each lane its own
// instruction. True if they did.
bool BlockExec::meet_at_warp_op(Warp& w) {
  const uint32_t waiting = w.waiting;
  const NvSassInstruction* per_lane[kLanes] = {};
  uint16_t opcode = 0;
  bool complete = true;
  for_lanes(waiting, [&](unsigned l) {
    per_lane[l] = &code_[w.pc[l]];
    if (opcode == 0) opcode = per_lane[l]->opcode;
    if (per_lane[l]->opcode != opcode || (members_of(w, *per_lane[l], 1u << l) & ~waiting) != 0) complete = false;
  });
  if (!complete) return false;
  fault_instruction_ = per_lane[__builtin_ctz(waiting)];
  if (tracing_) trace_line(w, w.pc[__builtin_ctz(waiting)], waiting, "meet at a warp operation");
  execute_warp_op(*this, w, per_lane, waiting);
  for_lanes(waiting, [&](unsigned l) { w.pc[l] += 1; });
  w.waiting = 0;
  w.ready |= waiting;
  return true;
}

// Moves `lanes` of the group to to_pc (out of the group: pc[] keeps them).
void BlockExec::split(Warp& w, uint32_t lanes, uint32_t to_pc) {
  for_lanes(lanes, [&](unsigned l) { w.pc[l] = to_pc; });
  w.group &= ~lanes;
}

// Runs one warp-instruction for the group.
void BlockExec::step(Warp& w) {
  const uint32_t pc = w.group_pc;
  if (pc >= program_->instruction_count) {
    fault_instruction_ = &code_[program_->instruction_count - 1];
    raise(KernelErrorKind::IllegalInstruction, fmt::format("the program ran off its end (pc {})", pc));
  }
  const NvSassInstruction& in = code_[pc];
  fault_instruction_ = &in;
  const uint32_t group = w.group;
  uint32_t mask = group;
  if (in.guard != NV_SASS_PRED_TRUE) {
    NvSassOperand guard{};
    guard.kind = NV_SASS_OPND_PRED;
    guard.index = in.guard;
    guard.flags = in.guard_negate ? NV_SASS_OPND_NEGATE : 0;
    mask = predicate_mask(w, guard, group);
  }
  if (tracing_) trace_line(w, pc, group, mask == group ? "" : fmt::format("guard {:08x}", mask));
  if (counting_) counter_.count(*this, w, in, group, mask);
  w.last_group = group;
  switch (in.opcode) {
    case NV_SASS_OP_BRA:
    case NV_SASS_OP_CALL: {
      if (in.opcode == NV_SASS_OP_CALL) {
        for_lanes(mask, [&](unsigned l) { w.call_stack[l].push_back(pc + 1); });
        if ((in.flags & NV_SASS_FLAG_SAVE_FRAME) != 0 && mask != 0) push_frames(w, in, pc, mask);
      }
      // A yield point taken while other lanes of the warp are ready: those run next.
      if ((in.flags & NV_SASS_FLAG_YIELD) != 0 && mask != 0 && (w.ready & ~mask) != 0) {
        if (tracing_) trace_line(w, pc, group, fmt::format("yield: {:08x} wait", mask));
        w.yielded |= mask;
      }
      if (mask == group) {
        w.group_pc = in.target;
      } else if (mask == 0) {
        w.group_pc = pc + 1;
      } else {  // divergence: the lanes that branch leave the group; the others go on
        if (tracing_) trace_line(w, pc, group, fmt::format("diverge: {:08x} to {}, {:08x} to {}", mask, in.target,
                                                           group & ~mask, pc + 1));
        split(w, mask, in.target);
        w.group_pc = pc + 1;
      }
      return;
    }
    case NV_SASS_OP_RET: {
      uint32_t exiting = 0;
      for_lanes(mask, [&](unsigned l) {
        if (w.call_stack[l].empty()) {
          exiting |= 1u << l;
          return;
        }
        if (!w.frames[l].empty() && w.frames[l].back().depth == w.call_stack[l].size()) pop_frame(w, l);
        w.pc[l] = w.call_stack[l].back();
        w.call_stack[l].pop_back();
      });
      const uint32_t returning = mask & ~exiting;
      w.group &= ~returning;  // their PCs are in pc[]
      if (exiting != 0) lanes_exited(w, exiting);
      w.group_pc = pc + 1;  // lanes whose guard was false
      return;
    }
    case NV_SASS_OP_EXIT:
      if (mask != 0) lanes_exited(w, mask);
      w.group_pc = pc + 1;
      return;
    case NV_SASS_OP_BAR_SYNC:
    case NV_SASS_OP_BAR_RED:
      if (mask != 0) {
        split(w, mask, pc);
        w.ready &= ~mask;
        w.barrier |= mask;
        barrier_arrive(w, in, mask);
      }
      w.group_pc = pc + 1;
      return;
    case NV_SASS_OP_BAR_ARRIVE:
      if (mask != 0) barrier_arrive(w, in, mask);
      w.group_pc = pc + 1;
      return;
    case NV_SASS_OP_TRAP:
    case NV_SASS_OP_BRKPT:
      if (mask != 0) {
        fault_lane_ = static_cast<unsigned>(__builtin_ctz(mask));
        raise(KernelErrorKind::Trap, "trap executed");
      }
      w.group_pc = pc + 1;
      return;
    default:
      break;
  }
  if (is_warp_op(in.opcode)) {
    // Every live lane of the membermask must be here; else the lanes wait for the others (and
    // those whose guard is false go on).
    if (mask != 0 && (members_of(w, in, mask) & ~mask) != 0) {
      split(w, mask, pc);
      w.ready &= ~mask;
      w.waiting |= mask;
      w.group_pc = pc + 1;
      return;
    }
    if (mask != 0) {
      const NvSassInstruction* per_lane[kLanes];
      for (unsigned l = 0; l < kLanes; ++l) per_lane[l] = &in;
      execute_warp_op(*this, w, per_lane, mask);
    }
    w.group_pc = pc + 1;
    return;
  }
  if (mask != 0) {
    if (in.opcode == NV_SASS_OP_ACTIVEMASK) {
      uint64_t* d = w.regs + size_t{in.operand[0].index} * kLanes;
      for_lanes(mask, [&](unsigned l) { d[l] = group; });
    } else if (!execute_half(*this, w, in, mask) && !execute_alu(*this, w, in, mask) &&
               !execute_memory(*this, w, in, mask) &&
               !execute_async(*this, w, in, mask) && !execute_texture(*this, w, in, mask) &&
               !execute_heap(*this, w, in, mask) &&
               in.opcode != NV_SASS_OP_NOP && in.opcode != NV_SASS_OP_MEMBAR && in.opcode != NV_SASS_OP_PREFETCH &&
               in.opcode != NV_SASS_OP_NANOSLEEP) {
      fault_lane_ = static_cast<unsigned>(__builtin_ctz(mask));
      raise(KernelErrorKind::IllegalInstruction,
            fmt::format("instruction {} is not supported by the SIMT executor", nv_sass_opcode_name(in.opcode)));
    }
  }
  w.group_pc = pc + 1;
}

// Lanes arrive at the barrier of `in` (operand a: its id; b: the thread count, or every live
// thread of the block when absent).
void BlockExec::barrier_arrive(Warp& w, const NvSassInstruction& in, uint32_t lanes) {
  const bool red = in.opcode == NV_SASS_OP_BAR_RED;
  const NvSassOperand& id_op = in.operand[red ? 1 : 0];
  const NvSassOperand& count_op = in.operand[red ? 2 : 1];
  const unsigned id = static_cast<unsigned>(uniform_value(*this, w, id_op, lanes)) % kBarriers;
  if (count_op.kind != NV_SASS_OPND_NONE)
    expected_[id] = static_cast<unsigned>(uniform_value(*this, w, count_op, lanes));
  if (red) {
    const uint32_t p = predicate_mask(w, in.operand[3], lanes);
    red_popc_[id] += popcount(p);
    red_and_[id] &= (p == lanes) ? 1u : 0u;
    red_or_[id] |= p != 0 ? 1u : 0u;
  }
  for_lanes(lanes, [&](unsigned l) { w.bar_id[l] = static_cast<uint8_t>(id); });
  arrived_[id] += popcount(lanes);
  try_release_barriers();
}

void BlockExec::try_release_barriers() {
  const unsigned live = threads_ - exited_;
  for (unsigned id = 0; id < kBarriers; ++id) {
    const unsigned needed = expected_[id] != 0 ? std::min(expected_[id], live) : live;
    if (arrived_[id] != 0 && arrived_[id] >= needed) release_barrier(id);
  }
}

// Barrier `id` opens: its parked lanes go on after it; bar.red's lanes get the reduction.
void BlockExec::release_barrier(unsigned id) {
  for (Warp& w : warps_) {
    uint32_t released = 0;
    for_lanes(w.barrier, [&](unsigned l) {
      if (w.bar_id[l] != id) return;
      released |= 1u << l;
      const NvSassInstruction& in = code_[w.pc[l]];
      if (in.opcode == NV_SASS_OP_BAR_RED) {
        const uint32_t d = in.operand[0].index;
        if (in.atom == NV_SASS_ATOM_POPC) {
          w.regs[size_t{d} * kLanes + l] = red_popc_[id];
        } else {
          const unsigned v = in.atom == NV_SASS_ATOM_AND ? red_and_[id] : red_or_[id];
          if (in.type == NV_SASS_TYPE_PRED) w.preds[size_t{d} * kLanes + l] = static_cast<uint8_t>(v);
          else w.regs[size_t{d} * kLanes + l] = v;
        }
      }
      w.pc[l] += 1;
    });
    w.barrier &= ~released;
    w.ready |= released;
  }
  arrived_[id] = expected_[id] = red_popc_[id] = red_or_[id] = 0;
  red_and_[id] = 1;
}

// Lanes of the group leave the kernel: barriers no longer wait for them, and lanes waiting at a
// warp operation for them look again.
void BlockExec::lanes_exited(Warp& w, uint32_t lanes) {
  w.group &= ~lanes;
  w.ready &= ~lanes;
  w.exited |= lanes;
  exited_ += popcount(lanes);
  w.ready |= w.waiting;
  w.waiting = 0;
  try_release_barriers();
}

[[noreturn]] void BlockExec::raise(KernelErrorKind kind, std::string message, uint64_t address, bool write) {
  {
    KernelError e;
    e.kind = kind;
    e.message = std::move(message);
    e.address = address;
    e.write = write;
    std::swap(t_kernel_error, e);  // nothing that owns memory stays on this stack (siglongjmp)
  }
  t_kernel_error_pending = true;
  siglongjmp(jump_, 1);
}

// After a siglongjmp out of an instruction: what the handler saw (or what raise() set) becomes
// the block's error, naming the instruction, its source line and the lane's thread.
void BlockExec::record_fault() {
  alignment_check(false);
  KernelError e;
  if (t_kernel_error_pending) {
    e = t_kernel_error;
    t_kernel_error_pending = false;
  } else {
    const SavedFault& f = t_fault;
    e.address = f.address;
    e.write = f.write;
    if (f.signo == SIGSEGV || f.signo == SIGBUS) {
      e.kind = KernelErrorKind::IllegalAddress;
      e.message = f.code == SI_KERNEL ? std::string("illegal address (a non-canonical pointer)")
                                      : fmt::format("illegal {} of address {:#x}", f.write ? "write" : "read", f.address);
    } else {
      e.kind = KernelErrorKind::Trap;
      e.message = f.detail != nullptr ? f.detail : "unexpected signal";
    }
  }
  // A failed assert carries CUDA's own message; every other error names the instruction.
  if (fault_instruction_ != nullptr && e.kind != KernelErrorKind::Assert) e.message += " at " + where(*fault_instruction_);
  e.block = block_idx_;
  const unsigned thread = (fault_warp_ != nullptr ? fault_warp_->index * kLanes : 0) + fault_lane_;
  e.thread = thread_index(thread, launch_->block);
  error_ = std::move(e);
}

// "ld.global.u32 r2, [r1] (vector_add.cu:7, ptx line 31)"
std::string BlockExec::where(const NvSassInstruction& in) const {
  std::string text = disassemble(in);
  std::string at;
  if (in.line != 0) {
    const char* file = "?";
    if (in.file != 0xFFFF && in.file < program_->file_count && program_->files != 0)
      file = nv_p64_to_ptr<const char* const>(program_->files)[in.file];
    at = fmt::format("{}:{}", file, in.line);
  }
  if (in.ptx_line != 0) at += fmt::format("{}ptx line {}", at.empty() ? "" : ", ", in.ptx_line);
  return at.empty() ? text : fmt::format("{} ({})", text, at);
}

// One line of the warp trace: "block (0,0,0) warp 1 pc 5 mask ffffffff: add.s32 r3, r1, r2".
void BlockExec::trace_line(const Warp& w, uint32_t pc, uint32_t group, const std::string& note) const {
  const std::string text = pc < program_->instruction_count ? disassemble(code_[pc]) : "?";
  if (note.starts_with("diverge") || note.starts_with("reconverge")) {
    trace::note(trace::Layer::Warp, "block ({},{},{}) warp {} pc {} {}", block_idx_.x, block_idx_.y, block_idx_.z,
                w.index, pc, note);
    return;
  }
  trace::note(trace::Layer::Warp, "block ({},{},{}) warp {} pc {} mask {:08x}: {}{}{}", block_idx_.x, block_idx_.y,
              block_idx_.z, w.index, pc, group, text, note.empty() ? "" : "  // ", note);
}

}  // namespace minicuda::gpu::simt
