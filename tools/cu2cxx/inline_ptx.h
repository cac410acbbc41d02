// cu2cxx: inline PTX in device code (docs/tools/cu2cxx.md, "Inline PTX").
//
// Contract of rewrite_inline_ptx: every GNU asm statement (`asm`, `__asm__`, `__asm`, optionally
// `volatile`/`__volatile__`) in the body of a `__global__` or `__device__` (not `__host__`)
// function becomes one C++ block on the same lines: its operands bound once to locals of the
// constraint's type (r u32, l u64, h u16, c u8, f float, d double, n an immediate; `=` output,
// `+` read-write), then one statement per PTX instruction of the template, then the outputs
// stored back. An instruction outside the supported subset, or a template the translator cannot
// read, is an error "inline PTX instruction '<text>' at <file>:<line> is not supported" (or says
// what it cannot read), never x86 asm for g++. Host code's asm is left alone. `translated` is set
// when at least one statement was rewritten (the generated file then includes
// minicuda/inline_ptx.h). Operand expressions are copied with `others` (the file's other
// rewrites, e.g. device variables) applied; those edits inside the statement are then dropped by
// apply_edits, which skips an edit that overlaps the statement's.
#pragma once

#include <string_view>
#include <vector>

#include "lexer.h"
#include "rewrites.h"
#include "translate.h"

namespace minicuda::cu2cxx {

std::vector<Edit> rewrite_inline_ptx(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                                     std::string_view path, const std::vector<Edit>& others,
                                     std::vector<Diagnostic>& errors, bool& translated);

}  // namespace minicuda::cu2cxx
