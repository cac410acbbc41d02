// Memory layout of a parsed module: the kernel parameter block (the CUDA param ABI, as ptxas lays
// out constant bank 0's user parameters), the .shared and .local sizes of an entry, and the
// module-scope variables with their initializers.
#pragma once

#include <vector>

#include "ast.h"
#include "minicuda/ptx/ptx.h"

namespace minicuda::ptx {

// Bytes one declaration occupies: element size x vector width x every array dimension (a []
// dimension takes its length from the initializer).
uint64_t decl_size(const VarDecl& v);

// The declaration's alignment: .align if written, else its element size.
uint32_t decl_align(const VarDecl& v);

// Fills param_offsets/sizes/aligns, param_bytes and the launch bounds of `kernel` from `f`
// (the lowering adds the shared and local sizes, which depend on the functions `f` calls).
void layout_kernel(const Function& f, CompiledKernel& kernel);

// The module-scope .global and .const variables (not .extern), with their initial bytes.
std::vector<CompiledGlobal> layout_globals(const Module& m);

}  // namespace minicuda::ptx
