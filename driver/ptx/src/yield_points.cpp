// Yield points (yield_points.h): a backward slice, over each loop's instructions, from the
// conditions of its exits to the memory reads they depend on.
#include "yield_points.h"

#include <cstdint>
#include <set>

#include "regalloc.h"

namespace minicuda::ptx {

namespace {

// A register or a predicate, as one key.
uint64_t key_of(NvU8 kind, NvU32 index) { return (uint64_t{kind} << 32) | index; }

// A read whose value another thread can change while the loop runs.
bool reads_shared_state(const NvSassInstruction& i) {
  if (i.opcode == NV_SASS_OP_ATOM) return true;
  if (i.opcode != NV_SASS_OP_LD) return false;
  return (i.flags & NV_SASS_FLAG_VOLATILE) != 0 || i.sem == NV_SASS_SEM_RELAXED || i.sem == NV_SASS_SEM_ACQUIRE ||
         i.sem == NV_SASS_SEM_ACQ_REL || i.sem == NV_SASS_SEM_SC;
}

bool is_value(const NvSassOperand& o) { return o.kind == NV_SASS_OPND_REG || o.kind == NV_SASS_OPND_PRED; }

// Does the loop [head, back] (back is its backward branch) exit on a value read_shared_state read?
bool spins(const std::vector<NvSassInstruction>& code, uint32_t head, uint32_t back) {
  std::set<uint64_t> needed;
  auto need_guard = [&](const NvSassInstruction& i) {
    if (i.guard != NV_SASS_PRED_TRUE) needed.insert(key_of(NV_SASS_OPND_PRED, i.guard));
  };
  // The exits: the back edge's own condition, and every branch, exit or return that leaves.
  for (uint32_t k = head; k <= back; ++k) {
    const NvSassInstruction& i = code[k];
    const bool leaves = (i.opcode == NV_SASS_OP_BRA && (k == back || i.target < head || i.target > back + 1)) ||
                        i.opcode == NV_SASS_OP_EXIT || i.opcode == NV_SASS_OP_RET;
    if (leaves) need_guard(i);
  }
  if (needed.empty()) return false;
  // Walk the loop backwards, twice (a value the loop carries is written after it is read).
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t k = back + 1; k-- > head;) {
      const NvSassInstruction& i = code[k];
      const int defs = defs_of(i);
      bool writes_needed = i.pred_dst != NV_SASS_PRED_TRUE && needed.count(key_of(NV_SASS_OPND_PRED, i.pred_dst));
      for (int o = 0; o < defs && o < i.operand_count; ++o)
        if (is_value(i.operand[o]) && needed.count(key_of(i.operand[o].kind, i.operand[o].index))) writes_needed = true;
      if (!writes_needed) continue;
      if (reads_shared_state(i)) return true;
      for (int o = defs; o < i.operand_count; ++o)
        if (is_value(i.operand[o])) needed.insert(key_of(i.operand[o].kind, i.operand[o].index));
      if (i.addr.kind == NV_SASS_OPND_REG) needed.insert(key_of(NV_SASS_OPND_REG, i.addr.index));
      need_guard(i);
    }
  }
  return false;
}

}  // namespace

void mark_yield_points(std::vector<NvSassInstruction>& code) {
  for (uint32_t k = 0; k < code.size(); ++k) {
    NvSassInstruction& i = code[k];
    if (i.opcode == NV_SASS_OP_BRA && i.target <= k && spins(code, i.target, k)) i.flags |= NV_SASS_FLAG_YIELD;
  }
}

}  // namespace minicuda::ptx
