// simt_calls: the frames of recursive calls (nv_sass.h CALL with SAVE_FRAME).
//
// A function's PTX registers have fixed registers in the program, so an activation of a recursive
// function would overwrite its caller's. A recursive call therefore saves the lane's registers and
// predicates in a frame on the lane's call stack, and the matching ret restores them, except the
// callee's return registers, which carry its result back. Each frame takes the call's frame size
// from the thread's stack (GridLaunch::stack_bytes, cudaLimitStackSize); a call past it stops the
// grid with a stack overflow (an MMU fault, cudaErrorIllegalAddress, as compute_engine.cpp reports one).
#include <algorithm>

#include <fmt/format.h>

#include "simt.h"

namespace minicuda::gpu::simt {

void BlockExec::push_frames(Warp& w, const NvSassInstruction& in, uint32_t pc, uint32_t mask) {
  const NvSassProgram& p = *program_;
  const uint64_t bytes = in.operand[0].imm;
  // The kernel's local variables come first; the driver gives it at least their size.
  const uint64_t stack = std::max<uint64_t>(launch_->stack_bytes, p.local_bytes);
  for_lanes(mask, [&](unsigned l) {
    if (p.local_bytes + w.stack_used[l] + bytes > stack) {
      fault_lane_ = l;
      raise(KernelErrorKind::StackOverflow,
            fmt::format("call stack overflow: a recursive call {} deep needs more than the {} bytes of stack "
                        "per thread (cudaLimitStackSize)",
                        w.frames[l].size() + 1, stack));
    }
    Warp::Frame f;
    f.return_pc = pc + 1;
    f.depth = static_cast<uint32_t>(w.call_stack[l].size());
    f.bytes = bytes;
    f.regs.resize(p.register_count);
    for (uint32_t r = 0; r < p.register_count; ++r) f.regs[r] = w.regs[size_t{r} * kLanes + l];
    f.preds.resize(p.predicate_count);
    for (uint32_t q = 0; q < p.predicate_count; ++q) f.preds[q] = w.preds[size_t{q} * kLanes + l];
    w.stack_used[l] += bytes;
    w.frames[l].push_back(std::move(f));
  });
}

void BlockExec::pop_frame(Warp& w, unsigned l) {
  Warp::Frame& f = w.frames[l].back();
  const NvSassInstruction& call = code_[f.return_pc - 1];
  for (uint32_t r = 0; r < f.regs.size(); ++r) {
    bool result = false;
    for (unsigned k = 1; k < call.operand_count; ++k)
      result = result || (call.operand[k].kind == NV_SASS_OPND_REG && call.operand[k].index == r);
    if (!result) w.regs[size_t{r} * kLanes + l] = f.regs[r];
  }
  for (uint32_t q = 0; q < f.preds.size(); ++q) w.preds[size_t{q} * kLanes + l] = f.preds[q];
  w.stack_used[l] -= f.bytes;
  w.frames[l].pop_back();
}

}  // namespace minicuda::gpu::simt
