// The PTX verifier: what ptxas checks after parsing. Every register an instruction names is
// declared (or is a special register), every symbol is a label, parameter, variable or function,
// a branch targets a label, and the simple arithmetic instructions get operands of their type's
// size. Each problem becomes a Diagnostic with ptxas's wording.
#pragma once

#include <vector>

#include "ast.h"
#include "parser.h"

namespace minicuda::ptx {

// whole_program: a call of a function the module only declares is ptxas' "Unresolved extern
// function" (false for a link input, whose calls another input may resolve).
void verify(const Module& module, std::vector<Diagnostic>& diags, bool whole_program = true);

// True for %tid, %ctaid, %laneid, %clock64, ... (the special registers the front end knows).
bool is_special_register(const std::string& name);
// True for a modifier of ld, ldu or st other than its state space (a type, .volatile, .v4,
// .L2::cache_hint...): ptxas refuses any other as "Unknown modifier '.X'".
bool is_memory_modifier(const std::string& m);

// The device heap's functions a module may call without defining them, which the JIT resolves
// to the driver's heap (nv_sass.h HEAP): the NvSassHeapMode of `name` (malloc, free, and the
// device runtime's __cudaCDP2Malloc / __cudaCDP2Free behind cudaMalloc / cudaFree), or -1.
int heap_call_mode(const std::string& name);

}  // namespace minicuda::ptx
