// simt_warp: the SIMT executor's warp-synchronous instructions - shfl.sync, vote.sync,
// match.sync, redux.sync. The scheduler (simt.cpp) runs one only when every live lane of its
// membermask has reached it, so each is a computation across the lanes of `mask`. Lanes may
// have met at different instructions of the same kind (independent thread scheduling): each
// lane reads its operands from, and writes the result to, the registers its own instruction names.
#include "simt_values.h"

namespace minicuda::gpu::simt {

namespace {

using PerLane = const NvSassInstruction* const*;

// out[l] = operand i of lane l's instruction, for the lanes of mask.
void gather(const BlockExec& b, const Warp& w, PerLane in, uint32_t mask, unsigned i, uint64_t* out) {
  for (uint32_t left = mask; left != 0;) {
    const NvSassInstruction* first = in[__builtin_ctz(left)];
    uint32_t same = 0;
    for_lanes(left, [&](unsigned l) { same |= uint32_t{in[l] == first} << l; });
    uint64_t scratch[kLanes];
    const uint64_t* s = source(b, w, first->operand[i], same, scratch);
    for_lanes(same, [&](unsigned l) { out[l] = s[l]; });
    left &= ~same;
  }
}
uint32_t gather_predicate(const Warp& w, PerLane in, uint32_t mask, unsigned i) {
  uint32_t bits = 0;
  for (uint32_t left = mask; left != 0;) {
    const NvSassInstruction* first = in[__builtin_ctz(left)];
    uint32_t same = 0;
    for_lanes(left, [&](unsigned l) { same |= uint32_t{in[l] == first} << l; });
    bits |= predicate_mask(w, first->operand[i], same);
    left &= ~same;
  }
  return bits;
}
// mm[l] = the lanes of mask in lane l's own membermask (its instruction's last operand). Lanes
// may name different membermasks (cooperative groups' labeled_partition): each lane's result is
// computed over its own.
void membermasks(const BlockExec& b, const Warp& w, PerLane in, uint32_t mask, uint32_t* mm) {
  for (uint32_t left = mask; left != 0;) {
    const NvSassInstruction* first = in[__builtin_ctz(left)];
    uint32_t same = 0;
    for_lanes(left, [&](unsigned l) { same |= uint32_t{in[l] == first} << l; });
    uint64_t scratch[kLanes];
    const uint64_t* s = source(b, w, first->operand[first->operand_count - 1], same, scratch);
    for_lanes(same, [&](unsigned l) { mm[l] = static_cast<uint32_t>(s[l]) & mask; });
    left &= ~same;
  }
}

void write_register(Warp& w, const NvSassInstruction& in, unsigned lane, uint64_t v) {
  w.regs[size_t{in.operand[0].index} * kLanes + lane] = v;
}
void write_pred(Warp& w, uint32_t p, unsigned lane, bool v) { w.preds[size_t{p} * kLanes + lane] = v ? 1 : 0; }

void shuffle(BlockExec& b, Warp& w, PerLane in, uint32_t mask) {
  uint64_t value[kLanes] = {}, lane_arg[kLanes] = {}, clamp_arg[kLanes] = {};
  gather(b, w, in, mask, 1, value);
  gather(b, w, in, mask, 2, lane_arg);
  gather(b, w, in, mask, 3, clamp_arg);
  uint64_t result[kLanes] = {};
  uint32_t in_range = 0;
  for_lanes(mask, [&](unsigned lane) {
    const uint32_t bval = static_cast<uint32_t>(lane_arg[lane]) & 31;
    const uint32_t cval = static_cast<uint32_t>(clamp_arg[lane]) & 31;
    const uint32_t segmask = (static_cast<uint32_t>(clamp_arg[lane]) >> 8) & 31;
    const uint32_t max_lane = (lane & segmask) | (cval & ~segmask);
    const uint32_t min_lane = lane & segmask;
    uint32_t j = lane;
    bool ok = false;
    switch (in[lane]->mode) {
      case NV_SASS_SHFL_UP: j = lane - bval, ok = static_cast<int32_t>(j) >= static_cast<int32_t>(max_lane); break;
      case NV_SASS_SHFL_DOWN: j = lane + bval, ok = j <= max_lane; break;
      case NV_SASS_SHFL_BFLY: j = lane ^ bval, ok = j <= max_lane; break;
      default: j = min_lane | (bval & ~segmask), ok = j <= max_lane; break;
    }
    if (!ok) j = lane;
    result[lane] = value[j & 31] & 0xFFFFFFFFu;
    in_range |= uint32_t{ok} << lane;
  });
  for_lanes(mask, [&](unsigned l) {  // after every read: d may be another lane's source
    write_register(w, *in[l], l, result[l]);
    if (in[l]->pred_dst != NV_SASS_PRED_TRUE) write_pred(w, in[l]->pred_dst, l, (in_range >> l) & 1);
  });
}

void vote(const BlockExec& b, Warp& w, PerLane in, uint32_t mask) {
  const uint32_t all_p = gather_predicate(w, in, mask, 1);
  uint32_t mm[kLanes] = {};
  membermasks(b, w, in, mask, mm);
  for_lanes(mask, [&](unsigned l) {
    const uint32_t p = all_p & mm[l];
    switch (in[l]->mode) {
      case NV_SASS_VOTE_BALLOT: write_register(w, *in[l], l, p); break;
      case NV_SASS_VOTE_ALL: write_pred(w, in[l]->operand[0].index, l, p == mm[l]); break;
      case NV_SASS_VOTE_ANY: write_pred(w, in[l]->operand[0].index, l, p != 0); break;
      default: write_pred(w, in[l]->operand[0].index, l, p == mm[l] || p == 0); break;
    }
  });
}

void match(BlockExec& b, Warp& w, PerLane in, uint32_t mask) {
  uint64_t a[kLanes] = {};
  gather(b, w, in, mask, 1, a);
  uint32_t mm[kLanes] = {};
  membermasks(b, w, in, mask, mm);
  uint32_t equal[kLanes] = {};
  for_lanes(mask, [&](unsigned l) {
    const uint64_t keep = type_bits(in[l]->type) == 64 ? ~uint64_t{0} : 0xFFFFFFFFu;
    for_lanes(mm[l], [&](unsigned k) { equal[l] |= uint32_t{(a[k] & keep) == (a[l] & keep)} << k; });
  });
  for_lanes(mask, [&](unsigned l) {
    if (in[l]->mode == NV_SASS_MATCH_ANY) {
      write_register(w, *in[l], l, equal[l]);
      return;
    }
    const bool all = equal[l] == mm[l];
    write_register(w, *in[l], l, all ? mm[l] : 0);
    if (in[l]->pred_dst != NV_SASS_PRED_TRUE) write_pred(w, in[l]->pred_dst, l, all);
  });
}

uint32_t reduce_lanes(const NvSassInstruction& op, const uint64_t* a, uint32_t lanes);

void reduce(BlockExec& b, Warp& w, PerLane in, uint32_t mask) {
  uint64_t a[kLanes] = {};
  gather(b, w, in, mask, 1, a);
  uint32_t mm[kLanes] = {};
  membermasks(b, w, in, mask, mm);
  for_lanes(mask, [&](unsigned l) {  // each lane reduces over its own membermask
    const uint32_t r = reduce_lanes(*in[l], a, mm[l]);
    write_register(w, *in[l], l, r);
  });
}

uint32_t reduce_lanes(const NvSassInstruction& op, const uint64_t* a, uint32_t lanes) {
  const bool sgn = is_signed_type(op.type);
  uint32_t r = 0;
  bool first = true;
  for_lanes(lanes, [&](unsigned l) {
    const auto v = static_cast<uint32_t>(a[l]);
    if (first) {
      r = v;
      first = false;
      return;
    }
    switch (op.atom) {
      case NV_SASS_ATOM_ADD: r += v; break;
      case NV_SASS_ATOM_AND: r &= v; break;
      case NV_SASS_ATOM_OR: r |= v; break;
      case NV_SASS_ATOM_XOR: r ^= v; break;
      case NV_SASS_ATOM_MIN:
        r = sgn ? static_cast<uint32_t>(std::min(static_cast<int32_t>(r), static_cast<int32_t>(v))) : std::min(r, v);
        break;
      case NV_SASS_ATOM_MAX:
        r = sgn ? static_cast<uint32_t>(std::max(static_cast<int32_t>(r), static_cast<int32_t>(v))) : std::max(r, v);
        break;
      default: break;
    }
  });
  return r;
}

}  // namespace

void execute_warp_op(BlockExec& b, Warp& w, const NvSassInstruction* const in[kLanes], uint32_t mask) {
  switch (in[__builtin_ctz(mask)]->opcode) {
    case NV_SASS_OP_SHFL: shuffle(b, w, in, mask); return;
    case NV_SASS_OP_VOTE: vote(b, w, in, mask); return;
    case NV_SASS_OP_MATCH: match(b, w, in, mask); return;
    case NV_SASS_OP_REDUX: reduce(b, w, in, mask); return;
    default: return;  // bar.warp.sync: arriving together is all it does
  }
}

}  // namespace minicuda::gpu::simt
