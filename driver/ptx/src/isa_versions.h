// PTX ISA versions: what each feature needs, checked against the module's .version as ptxas does.
//
// ptxas refuses a feature newer than the .version a module declares: "Feature 'cvta.to' requires
// PTX ISA .version 2.0 or later", one line per use, in the text's order, then "PTX .version 1.0
// does not support .target sm_90" (probe_module.txt, ptx.version_1_0). The table's entries, and
// their wording, quirks included, were measured with ptxas 13.0 on a kernel of each instruction
// declared .version 1.0 (docs/ptx.md).
#pragma once

#include <vector>

#include "ast.h"
#include "parser.h"

namespace minicuda::ptx {

// Appends an error for each feature of `m` its .version is too old for, then one for its .target.
void check_features(const Module& m, std::vector<Diagnostic>& diags);

}  // namespace minicuda::ptx
