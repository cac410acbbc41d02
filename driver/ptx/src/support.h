// support: what minicuda's SIMT executor (device_sim/src/simt*.cpp) runs exactly. The lowering
// refuses every other instruction at load, naming it, so that no kernel runs one as a no-op or
// with an answer that differs from the C++ kernels' (docs/ptx.md "What the JIT refuses").
#pragma once

#include <string>

#include "nv_sass.h"

namespace minicuda::ptx {

// Why the executor cannot run `i` as PTX defines it ("" when it can).
std::string executor_gap(const NvSassInstruction& i);

}  // namespace minicuda::ptx
