// Yield points: the loops in which a diverged warp must let its other lanes run.
//
// Under independent thread scheduling (sm_70+) a lane that spins until another lane of its own warp
// acts - a lock taken with atom.cas, a flag read with ld.volatile - finishes on the GPU, because
// ptxas marks such loops with a YIELD and the warp scheduler then runs the warp's other paths
// (tests/data/h200/its: spin_sass.txt). Loops whose exit does not hang on such a read - counted
// loops, pointer chases with plain loads - get none, and there a diverged warp's lanes reconverge
// before any runs ahead: the H200 gives every lane the same clock when a 100000-iteration loop of
// half the warp ends.
#pragma once

#include <vector>

#include "nv_sass.h"

namespace minicuda::ptx {

// Sets NV_SASS_FLAG_YIELD on each backward BRA of `code` (branch targets resolved) whose loop can
// only be left through a value read, in the loop, by an atomic or by a volatile, relaxed or acquire
// load: the branch conditions of the loop's exits depend on such a read, through the loop's own
// instructions. Runs before register allocation, so that each PTX register is one slot.
void mark_yield_points(std::vector<NvSassInstruction>& code);

}  // namespace minicuda::ptx
