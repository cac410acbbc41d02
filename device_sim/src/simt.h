// simt: the SM's SIMT executor, which runs a kernel compiled to minicuda's SASS (nv_sass.h) -
// private to the SM. run_blocks (sm.cpp) hands a block here when the launch has a program.
//
// The model (docs/simt.md):
// - A block's threads are grouped into warps of 32 lanes. Each lane has a PC of its own
//   (independent thread scheduling, sm_70+). The scheduler runs the lanes of a warp that share
//   the lowest PC together - the *active mask* - one warp-instruction at a time: the
//   instruction is decoded once and executed in a loop over the active lanes. A branch that
//   some active lanes take and others do not *diverges* the warp; the lowest-PC rule runs the
//   lower path first and the lanes *reconverge* when their PCs meet again.
// - Registers live per warp, lane-minor (regs[r * 32 + lane]), so the lane loop is a walk over
//   consecutive slots. Predicates are a byte per lane.
// - bar.sync parks the lanes that reach it; the barrier opens when every thread of the block
//   that has not exited has arrived. Warp-synchronous instructions (shfl, vote, match, redux,
//   bar.warp.sync) wait until every non-exited lane of their membermask is at the same PC.
// - Warps of a block run round-robin on one host thread: each warp runs until all its lanes
//   wait or have exited, or for a time slice of warp-instructions (a spin-wait on another warp). Blocks of a grid run on the SM worker threads in parallel, so results
//   never depend on how many host threads there are.
// - Global and generic memory are host addresses as the GPU's page tables map them (mmu): an
//   access the page tables forbid is a SIGSEGV, caught by the SM's handler (sm_signals.h) and
//   turned into an IllegalAddress error naming the instruction and its source line.
#pragma once

#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nv_sass.h"
#include "simt_counters.h"
#include "sm.h"

namespace minicuda::gpu::simt {

constexpr unsigned kLanes = 32;
constexpr uint32_t kFullMask = 0xFFFFFFFFu;

// A warp: where each lane is, as lane masks that partition the warp's 32 lanes.
//   ready:   runs when its PC is the lowest of the ready lanes
//   barrier: parked at bar.sync / bar.red until the barrier opens
//   waiting: at a warp-synchronous instruction, until the rest of its membermask is there too
//   exited:  has exited (lanes past the block's last thread count as exited from the start)
// The lanes of `group` run together at `group_pc`; pc[] holds every other lane's PC.
// `yielded` (a subset of ready) took a yield point (NV_SASS_FLAG_YIELD) while other lanes were
// ready: they run again when no other ready lane is left, or when those lanes reach their PC.
struct Warp {
  unsigned index = 0;       // the warp's index in its block
  uint32_t ready = 0, barrier = 0, waiting = 0, exited = 0;
  uint32_t yielded = 0;
  uint32_t group = 0, group_pc = 0;
  uint32_t last_group = 0;  // the lanes of the previous warp-instruction (the trace)
  uint32_t pc[kLanes] = {};
  uint8_t bar_id[kLanes] = {};  // the barrier a parked lane waits at
  uint8_t carry[kLanes] = {};   // add.cc / addc carry flag
  std::vector<uint32_t> call_stack[kLanes];  // return indices (call / ret)
  // A recursive call's frame (CALL with SAVE_FRAME): the lane's registers and predicates at the
  // call, restored by the RET that returns to `return_pc` at call depth `depth`.
  struct Frame {
    uint32_t return_pc = 0, depth = 0;
    uint64_t bytes = 0;
    std::vector<uint64_t> regs;
    std::vector<uint8_t> preds;
  };
  std::vector<Frame> frames[kLanes];
  uint64_t stack_used[kLanes] = {};  // bytes of the lane's call stack its frames take
  uint64_t* regs = nullptr;    // register_count * 32 slots
  uint8_t* preds = nullptr;    // predicate_count * 32 bytes
};

// One block of a SASS kernel on the calling host thread. Reused block after block.
class BlockExec {
 public:
  // Runs blocks claimed from `queue` until none is left or a block raises an error.
  std::optional<BlockError> run_blocks(const GridLaunch& launch, BlockQueue& queue);

  // --- used by the instruction files (simt_alu.cpp, simt_memory.cpp, simt_warp.cpp) --------
  const NvSassProgram& program() const { return *program_; }
  const GridLaunch& launch() const { return *launch_; }
  uint8_t* shared() { return shared_.data(); }
  uint64_t shared_size() const { return shared_size_; }
  // The reserved shared memory (%reserved_smem_offset_*): kReservedSharedBytes at this offset,
  // after the kernel's static and dynamic shared memory, present when the program reads it.
  static constexpr uint64_t kReservedSharedBytes = 1024;
  uint64_t reserved_shared() const { return reserved_shared_; }
  uint8_t* local_of(unsigned thread) { return local_.data() + uint64_t{thread} * local_bytes_; }
  uint64_t local_bytes() const { return local_bytes_; }
  uint3 block_index() const { return block_idx_; }
  uint64_t block_linear() const { return block_; }
  unsigned threads() const { return threads_; }
  // Leaves the block with an error at the running instruction (siglongjmp, like a fault).
  [[noreturn]] void raise(KernelErrorKind kind, std::string message, uint64_t address = 0, bool write = false);
  // The lane whose access is about to run: a fault names it. Set before every memory access.
  void set_fault_lane(unsigned lane) {
    fault_lane_ = lane;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  // The special register `sr` for each lane of warp w in mask, into out[lane].
  void special_register(const Warp& w, uint32_t sr, uint32_t mask, uint64_t* out) const;

 private:
  void start_block();
  void run_block();
  void run_warp(Warp& w);
  uint32_t members_of(const Warp& w, const NvSassInstruction& in, uint32_t lanes) const;
  bool meet_at_warp_op(Warp& w);
  void regroup(Warp& w);
  void step(Warp& w);
  void split(Warp& w, uint32_t lanes, uint32_t to_pc);
  void barrier_arrive(Warp& w, const NvSassInstruction& in, uint32_t lanes);
  // simt_calls.cpp: a recursive call's frame for the lanes of mask, and its restoration at ret.
  void push_frames(Warp& w, const NvSassInstruction& in, uint32_t pc, uint32_t mask);
  void pop_frame(Warp& w, unsigned lane);
  void try_release_barriers();
  void release_barrier(unsigned id);
  void lanes_exited(Warp& w, uint32_t lanes);
  void record_fault();
  std::string where(const NvSassInstruction& in) const;
  void trace_line(const Warp& w, uint32_t pc, uint32_t group, const std::string& note) const;

  const GridLaunch* launch_ = nullptr;
  const NvSassProgram* program_ = nullptr;
  const NvSassInstruction* code_ = nullptr;
  BlockQueue* queue_ = nullptr;
  uint64_t block_ = 0, claimed_end_ = 0;
  uint3 block_idx_{0, 0, 0};
  unsigned threads_ = 0;
  unsigned exited_ = 0;
  std::vector<Warp> warps_;
  std::vector<uint64_t> regs_;
  std::vector<uint8_t> preds_;
  std::vector<uint8_t> shared_;
  uint64_t shared_size_ = 0, reserved_shared_ = 0;
  std::vector<uint8_t> local_;
  uint64_t local_bytes_ = 0;
  // Barriers 0..15: threads arrived, and bar.red's running reductions.
  static constexpr unsigned kBarriers = 16;
  unsigned arrived_[kBarriers] = {};
  unsigned expected_[kBarriers] = {};  // 0: every live thread
  unsigned red_popc_[kBarriers] = {}, red_and_[kBarriers] = {}, red_or_[kBarriers] = {};
  bool tracing_ = false;
  bool counting_ = false;  // the launch asked for counters (GridLaunch::counters)
  InstructionCounter counter_;
  // The fault context: the running warp, instruction and lane, kept in memory for the handler.
  Warp* fault_warp_ = nullptr;
  const NvSassInstruction* fault_instruction_ = nullptr;
  volatile unsigned fault_lane_ = 0;
  sigjmp_buf jump_;
  std::optional<KernelError> error_;
};

// --- the instruction families (one file each) ---------------------------------------------

// Arithmetic, logic, comparison, conversion and moves (simt_alu.cpp). False if `in` is not one.
bool execute_alu(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// ld/st/ldu/atom/red/cvta/isspacep/printf/assertfail (simt_memory.cpp). False if not one.
bool execute_memory(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// add/sub/mul/fma/neg/abs/min/max/setp on f16, f16x2, bf16, bf16x2 (simt_half.cpp). False if not one.
bool execute_half(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// cp.async, cp.async groups and mbarrier operations (simt_async.cpp). False if not one.
bool execute_async(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// tex, suld, sust through the SM's texture unit (simt_texture.cpp). False if `in` is not one.
bool execute_texture(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// The device heap's calls: malloc, free, device-side cudaMalloc/cudaFree (simt_heap.cpp). False if not one.
bool execute_heap(BlockExec& b, Warp& w, const NvSassInstruction& in, uint32_t mask);
// shfl/vote/match/redux/bar.warp.sync for the lanes of `mask`, which have met: lane l executes
// *in[l] (lanes may meet at different instructions of the same kind) (simt_warp.cpp).
void execute_warp_op(BlockExec& b, Warp& w, const NvSassInstruction* const in[kLanes], uint32_t mask);

// Source operand `op` for the lanes in mask: a pointer to 32 slots, either the register's own
// or `scratch` filled with the operand's value.
const uint64_t* source(const BlockExec& b, const Warp& w, const NvSassOperand& op, uint32_t mask, uint64_t* scratch);
// The predicate operand for the lanes in mask, as a lane mask (negated if the operand says).
uint32_t predicate_mask(const Warp& w, const NvSassOperand& op, uint32_t mask);
// Writes bit `lane` of `value_mask` into predicate p for the lanes in mask.
void write_predicate(Warp& w, uint32_t p, uint32_t value_mask, uint32_t mask);
// The text of one instruction as the warp trace and fault reports show it ("add.s32 r3, r1, r2").
std::string disassemble(const NvSassInstruction& in);

// The threadIdx of a block's linear thread index.
inline uint3 thread_index(unsigned linear, dim3 block) {
  return uint3{linear % block.x, (linear / block.x) % block.y, linear / (block.x * block.y)};
}

// Lanes of `mask`, lowest first: for_lanes(mask, [&](unsigned l) { ... }).
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (unsigned l = 0; l < kLanes; ++l) f(l);
    return;
  }
  while (mask != 0) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(mask));
    mask &= mask - 1;
    f(l);
  }
}

}  // namespace minicuda::gpu::simt
