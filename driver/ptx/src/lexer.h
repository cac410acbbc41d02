// The PTX lexer: splits the text into tokens with their line numbers. Dotted names are split at
// each dot: "ld.global.u32" is the identifier "ld" followed by the directives ".global" and
// ".u32", so the parser reads opcodes, modifiers and directives the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::ptx {

struct Token {
  enum class Kind { Ident, Directive, Int, Float, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;     // as written (a Directive without its dot, a String without quotes)
  uint64_t ivalue = 0;  // Int
  double fvalue = 0;    // Float
  bool fsingle = false; // 0f form
  uint64_t fbits = 0;   // 0f / 0d bits
  bool fhex = false;    // written in 0f/0d form
  int line = 0;
};

// Tokenizes `text`. A character no token starts with becomes a Punct token of that character;
// the parser reports it as a syntax error.
std::vector<Token> lex(std::string_view text);

}  // namespace minicuda::ptx
