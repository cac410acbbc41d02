// The lowering: one verified .entry (and every .func it calls) to the simulator's SASS
// (hw/include/nv_sass.h).
//
// - Registers: each PTX register a kernel's code uses gets one 64-bit slot of the thread's
//   register file, numbered densely in order of first use; predicates get their own file.
// - Calls: a called .func is appended to the program once; its parameters and return values are
//   registers, and the caller's call block moves its .param values into them (so a CALL is a
//   jump with a return index, as nv_sass.h specifies). vprintf and __assertfail become PRINTF and
//   ASSERTFAIL.
// - Memory: the entry's parameters are PARAM-space offsets (the CUDA param ABI, cbank 0); .shared
//   variables get offsets in the block's shared window (static first, then the dynamic window at
//   the static size rounded up to 16); .local variables offsets in the thread's local window;
//   .global and .const variables are entries of the program's symbol table.
// - Labels resolve to instruction indices; each instruction keeps its PTX line and .loc line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ast.h"
#include "minicuda/ptx/ptx.h"
#include "parser.h"

namespace minicuda::ptx {

// Lowers `entry` of `module`. On success fills kernel.sass, symbols, num_regs,
// static_shared_bytes, local_bytes and max_call_depth and returns true. A construct the SASS
// cannot express yet appends an error naming it to `diags` and returns false.
bool lower_kernel(const Module& module, const Function& entry, const CompileOptions& options,
                  std::shared_ptr<const std::vector<std::string>> ptx_lines, CompiledKernel& kernel,
                  std::vector<Diagnostic>& diags);

}  // namespace minicuda::ptx
