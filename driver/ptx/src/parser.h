// The PTX parser: a hand-written recursive-descent parser over lexer.h's tokens that builds
// ast.h's Module. It stops at the first syntax error (ptxas's "fatal ... Parsing error") and
// records it in `diags`; every other problem is left to the verifier.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ast.h"

namespace minicuda::ptx {

// One diagnostic, as ptxas prints it: "ptxas <input>, line N; error   : message".
struct Diagnostic {
  enum class Severity { Error, Fatal };
  Severity severity = Severity::Error;
  int line = 0;           // 0: no line ("ptxas fatal   : message")
  std::string message;
  bool last_word = false;  // ptxas writes nothing after it (no "aborted" line): an unsupported .version
};

enum class ParseOutcome { Ok, SyntaxError, MissingVersion, UnsupportedVersion, MissingTarget };

// Parses `text` into `module`. `input_name` is the name ptxas gives the input in its messages
// ("application ptx input" in the driver's JIT). Stops at the first fatal problem: no .version
// first, a .version newer than kPtxIsaMajor.kPtxIsaMinor, no .target next, a syntax error.
ParseOutcome parse(std::string_view text, const std::string& input_name, Module& module,
                   std::vector<Diagnostic>& diags);

// The instruction names the front end knows (ld, st, add, ...), for "Not a name of any known
// instruction".
bool is_known_opcode(const std::string& name);

}  // namespace minicuda::ptx
