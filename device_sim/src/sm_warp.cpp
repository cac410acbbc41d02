// sm_warp: the warp operations of a block in fiber mode (see sm.h). Each is a barrier over the
// lanes its mask names: a lane that arrives records its value and waits; when the last live lane
// of the mask arrives (or the others have exited) every lane gets its result at once.
// __activemask (WarpOpKind::Converge) waits instead until no live lane of the warp can run: the
// lanes then waiting at the same call site are the ones a GPU would run together there.
#include <bit>

#include "sm_block.h"

namespace minicuda::gpu::sm {

uint64_t BlockRun::warp_op(WarpOpKind kind, unsigned mask, uint64_t value, int mode, int arg, int width,
                           uint64_t site, isa::WarpComputation complete) {
  if (region_mode_) {
    region_violation(kind == WarpOpKind::Sync       ? "__syncwarp"
                     : kind == WarpOpKind::Converge ? "__activemask"
                                                    : "a warp shuffle, vote, match or reduce");
  }
  // The caller's alignment check (off under SmCode; on for a shuffle when optimised), kept on
  // return. The first warp operation of a block builds its fibers with the check off.
  const bool under_check = alignment_check_is_on();
  if (!fiber_mode_) {
    alignment_check(false);
    demote();
    alignment_check(under_check);
  }
  const unsigned lane = current_ % kWarp;
  Warp& w = warps_[current_ / kWarp];
  mask |= 1u << lane;  // a lane always takes part in its own operation
  WarpOp* op = nullptr;
  for (WarpOp& o : w.pending) {
    if (o.kind != kind || (o.arrived & (1u << lane))) continue;
    if (kind == WarpOpKind::Converge ? o.site == site : o.mask == mask) op = &o;
  }
  if (op == nullptr) {
    w.pending.push_back(WarpOp{kind, mask, site, complete});
    op = &w.pending.back();
  }
  op->mode = mode, op->width = width;
  op->values[lane] = value;
  op->args[lane] = arg;
  op->arrived |= 1u << lane;
  slots_[current_].state = ThreadState::AtWarp;
  try_complete(w);
  if (slots_[current_].state == ThreadState::AtWarp) {
    switch_away();
    alignment_check(under_check);
  }
  return w.results[lane];
}

// Has every lane the operation waits for arrived? (Converge: can no live lane of the warp run?)
bool BlockRun::ready(const Warp& w, const WarpOp& op) const {
  const unsigned live = w.present & ~w.exited;
  if (op.kind != WarpOpKind::Converge) {
    const unsigned needed = op.mask & live;
    return (op.arrived & needed) == needed;
  }
  const unsigned base = static_cast<unsigned>(&w - warps_.data()) * kWarp;
  for (unsigned l = 0; l < kWarp; ++l)
    if ((live >> l) & 1 && slots_[base + l].state == ThreadState::Runnable) return false;
  return true;
}

namespace {
// The source lane of a shuffle, as PTX's shfl.sync defines it: b is the lane or delta (5 bits),
// the segment of `width` lanes bounds it; a source outside the segment gives the lane its own value.
unsigned shuffle_source(unsigned lane, int mode, int arg, int width) {
  const unsigned b = static_cast<unsigned>(arg) & 31, seg = kWarp - static_cast<unsigned>(width);
  const unsigned min_lane = lane & seg, max_lane = min_lane | (31 & ~seg);
  switch (mode) {
    case 0: return min_lane | (b & ~seg);
    case 1: return lane >= b && lane - b >= min_lane ? lane - b : lane;
    case 2: return lane + b <= max_lane ? lane + b : lane;
    default: return (lane ^ b) <= max_lane ? lane ^ b : lane;
  }
}
}  // namespace

// One lane's result of a complete operation.
uint64_t BlockRun::lane_result(const WarpOp& op, unsigned lane) {
  switch (op.kind) {
    case WarpOpKind::Sync: return 0;
    case WarpOpKind::Converge: return op.arrived;
    case WarpOpKind::Compute: return op.arrived;
    case WarpOpKind::Shuffle: {
      const unsigned src = shuffle_source(lane, op.mode, op.args[lane], op.width);
      // A source lane that did not take part gives an undefined value: the lane's own here.
      return ((op.arrived >> src) & 1) ? op.values[src] : op.values[lane];
    }
    case WarpOpKind::Vote: {
      unsigned ballot = 0;
      for (unsigned l = 0; l < kWarp; ++l)
        if ((op.arrived >> l) & 1 && op.values[l] != 0) ballot |= 1u << l;
      switch (static_cast<VoteMode>(op.mode)) {
        case VoteMode::Ballot: return ballot;
        case VoteMode::Any: return ballot != 0;
        case VoteMode::All: return ballot == op.arrived;
      }
      return 0;
    }
    case WarpOpKind::Match: {
      unsigned same = 0;
      for (unsigned l = 0; l < kWarp; ++l)
        if ((op.arrived >> l) & 1 && op.values[l] == op.values[lane]) same |= 1u << l;
      if (static_cast<MatchMode>(op.mode) == MatchMode::Any) return same;
      return same == op.arrived ? (uint64_t{1} << 32) | same : 0;  // bit 32: the predicate
    }
    case WarpOpKind::Reduce: {
      const auto mode = static_cast<ReduceMode>(op.mode);
      uint32_t acc = mode == ReduceMode::MinU || mode == ReduceMode::And ? ~0u
                     : mode == ReduceMode::MinS                          ? 0x7fffffffu
                     : mode == ReduceMode::MaxS                          ? 0x80000000u
                                                                         : 0u;
      for (unsigned l = 0; l < kWarp; ++l) {
        if (!((op.arrived >> l) & 1)) continue;
        const auto v = static_cast<uint32_t>(op.values[l]);
        switch (mode) {
          case ReduceMode::Add: acc += v; break;
          case ReduceMode::MinU: acc = std::min(acc, v); break;
          case ReduceMode::MaxU: acc = std::max(acc, v); break;
          case ReduceMode::MinS: acc = static_cast<uint32_t>(std::min(static_cast<int32_t>(acc), static_cast<int32_t>(v))); break;
          case ReduceMode::MaxS: acc = static_cast<uint32_t>(std::max(static_cast<int32_t>(acc), static_cast<int32_t>(v))); break;
          case ReduceMode::And: acc &= v; break;
          case ReduceMode::Or: acc |= v; break;
          case ReduceMode::Xor: acc ^= v; break;
        }
      }
      return acc;
    }
  }
  return 0;
}

// Completes every pending operation of the warp that is ready. A Converge is judged only when no
// other operation can complete (a lane waiting at one about to complete is not stuck), and then
// all of them at once: the sites reached by the two sides of a branch complete together.
void BlockRun::try_complete(Warp& w) {
  for (;;) {
    unsigned ready_ops = 0;  // bit i: pending[i] (at most 32 pending: one per lane)
    for (size_t i = 0; i < w.pending.size() && i < 32; ++i)
      if (w.pending[i].kind != WarpOpKind::Converge && ready(w, w.pending[i])) ready_ops |= 1u << i;
    if (ready_ops == 0) {
      for (size_t i = 0; i < w.pending.size() && i < 32; ++i)
        if (w.pending[i].kind == WarpOpKind::Converge && ready(w, w.pending[i])) ready_ops |= 1u << i;
    }
    if (ready_ops == 0) return;
    const unsigned base = static_cast<unsigned>(&w - warps_.data()) * kWarp;
    for (size_t i = w.pending.size(); i-- > 0;) {
      if (i >= 32 || !((ready_ops >> i) & 1)) continue;
      const WarpOp& op = w.pending[i];
      if (op.kind == WarpOpKind::Compute) op.complete(op.values, op.arrived);
      for (unsigned l = 0; l < kWarp; ++l) {
        if (!((op.arrived >> l) & 1)) continue;
        w.results[l] = lane_result(op, l);
        ThreadSlot& s = slots_[base + l];
        if (s.state == ThreadState::AtWarp) s.state = ThreadState::Runnable;
      }
      w.pending.erase(w.pending.begin() + static_cast<long>(i));
    }
  }
}

}  // namespace minicuda::gpu::sm
