// Register allocation (regalloc.h): liveness, an interference graph, greedy colouring.
#include "regalloc.h"

namespace minicuda::ptx {

namespace {

// Instructions that write no register through operand[0].
bool writes_nothing(NvU16 op) {
  switch (op) {
    case NV_SASS_OP_ST: case NV_SASS_OP_RED: case NV_SASS_OP_BAR_SYNC: case NV_SASS_OP_BAR_ARRIVE:
    case NV_SASS_OP_BAR_WARP_SYNC: case NV_SASS_OP_MEMBAR: case NV_SASS_OP_BRA: case NV_SASS_OP_CALL:
    case NV_SASS_OP_RET: case NV_SASS_OP_EXIT: case NV_SASS_OP_TRAP: case NV_SASS_OP_BRKPT:
    case NV_SASS_OP_ASSERTFAIL: case NV_SASS_OP_NANOSLEEP: case NV_SASS_OP_PREFETCH: case NV_SASS_OP_NOP:
    case NV_SASS_OP_SUST:
      return true;
    default:
      return false;
  }
}

bool ends_flow(NvU16 op) {
  return op == NV_SASS_OP_EXIT || op == NV_SASS_OP_RET || op == NV_SASS_OP_TRAP || op == NV_SASS_OP_BRKPT;
}

}  // namespace

int defs_of(const NvSassInstruction& i) {
  if (writes_nothing(i.opcode)) return 0;
  if (i.opcode == NV_SASS_OP_LD || i.opcode == NV_SASS_OP_LDU) return i.vec > 1 ? i.vec : 1;
  if (i.opcode == NV_SASS_OP_UNPACK) return i.operand_count - 1;
  if (i.opcode == NV_SASS_OP_TEX || i.opcode == NV_SASS_OP_SULD) return 2;  // two register pairs
  return 1;
}

std::vector<uint32_t> allocate_registers(std::vector<NvSassInstruction>& code, const std::vector<uint32_t>& slot_bytes) {
  const size_t n = code.size(), v = slot_bytes.size();
  for (const auto& i : code)
    if (i.opcode == NV_SASS_OP_CALL) return slot_bytes;
  // Uses and definitions per instruction. A guarded write may not happen, so the old value
  // stays live through it: it counts as a use too.
  std::vector<std::vector<NvU32>> uses(n), defs(n);
  for (size_t k = 0; k < n; ++k) {
    const NvSassInstruction& i = code[k];
    int d = defs_of(i);
    for (int o = 0; o < i.operand_count; ++o) {
      if (i.operand[o].kind != NV_SASS_OPND_REG) continue;
      (o < d ? defs[k] : uses[k]).push_back(i.operand[o].index);
      if (o < d && i.guard != NV_SASS_PRED_TRUE) uses[k].push_back(i.operand[o].index);
    }
    if (i.addr.kind == NV_SASS_OPND_REG) uses[k].push_back(i.addr.index);
  }
  // live_in[k] = uses[k] + (live_out[k] - defs[k]); live_out[k] = union of the successors' live_in.
  std::vector<std::vector<bool>> live_in(n, std::vector<bool>(v)), live_out(n, std::vector<bool>(v));
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = n; k-- > 0;) {
      const NvSassInstruction& i = code[k];
      std::vector<bool> out(v);
      bool falls = !ends_flow(i.opcode) && !(i.opcode == NV_SASS_OP_BRA && i.guard == NV_SASS_PRED_TRUE);
      if (i.guard != NV_SASS_PRED_TRUE) falls = true;
      auto merge = [&](size_t s) { for (size_t r = 0; r < v; ++r) if (live_in[s][r]) out[r] = true; };
      if (falls && k + 1 < n) merge(k + 1);
      if (i.opcode == NV_SASS_OP_BRA && i.target < n) merge(i.target);
      std::vector<bool> in = out;
      for (NvU32 r : defs[k]) in[r] = false;
      for (NvU32 r : uses[k]) in[r] = true;
      if (in != live_in[k] || out != live_out[k]) {
        live_in[k] = std::move(in);
        live_out[k] = std::move(out);
        changed = true;
      }
    }
  }
  // Interference: a value written here conflicts with everything live after it, and (so that an
  // SM may write its results in any order) with every register the same instruction reads or writes.
  std::vector<std::vector<bool>> conflict(v, std::vector<bool>(v));
  auto clash = [&](NvU32 a, NvU32 b) { if (a != b) conflict[a][b] = conflict[b][a] = true; };
  for (size_t k = 0; k < n; ++k) {
    for (NvU32 d : defs[k]) {
      for (size_t r = 0; r < v; ++r) if (live_out[k][r]) clash(d, static_cast<NvU32>(r));
      for (NvU32 u : uses[k]) clash(d, u);
      for (NvU32 e : defs[k]) clash(d, e);
    }
  }
  // Registers live on entry (read before any write) hold their values together.
  for (size_t a = 0; n > 0 && a < v; ++a)
    for (size_t b = 0; b < v; ++b)
      if (live_in[0][a] && live_in[0][b]) clash(static_cast<NvU32>(a), static_cast<NvU32>(b));
  // Greedy colouring in slot order (the order of first use).
  std::vector<NvU32> colour(v, NV_SASS_REG_NONE);
  std::vector<uint32_t> widths;
  for (size_t a = 0; a < v; ++a) {
    std::vector<bool> taken(v);
    for (size_t b = 0; b < a; ++b) if (conflict[a][b]) taken[colour[b]] = true;
    NvU32 c = 0;
    while (taken[c]) ++c;
    colour[a] = c;
    if (c >= widths.size()) widths.resize(c + 1, 0);
    if (slot_bytes[a] > widths[c]) widths[c] = slot_bytes[a];
  }
  for (auto& i : code) {
    for (int o = 0; o < i.operand_count; ++o)
      if (i.operand[o].kind == NV_SASS_OPND_REG) i.operand[o].index = colour[i.operand[o].index];
    if (i.addr.kind == NV_SASS_OPND_REG) i.addr.index = colour[i.addr.index];
  }
  return widths;
}

}  // namespace minicuda::ptx
