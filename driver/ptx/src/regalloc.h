// Register allocation over a lowered program: the lowering gives every PTX register its own
// slot; this pass computes which slots are live at each instruction (backward dataflow over the
// branches) and folds slots whose live ranges never overlap onto one register, as ptxas does.
#pragma once

#include <cstdint>
#include <vector>

#include "nv_sass.h"

namespace minicuda::ptx {

// How many leading operands of `i` it writes (registers or predicates); a second predicate
// destination (pred_dst) is not counted.
int defs_of(const NvSassInstruction& i);

// Renumbers the REG operands and address bases of `code` (which uses `slot_bytes.size()` slots)
// onto as few registers as the live ranges allow; returns the new width of each register.
// Programs with CALL are left as they are (a callee's registers would need the caller's live
// set at each call): the result is then `slot_bytes` itself.
std::vector<uint32_t> allocate_registers(std::vector<NvSassInstruction>& code, const std::vector<uint32_t>& slot_bytes);

}  // namespace minicuda::ptx
