// cu2cxx's token-aware scanner.
//
// Contract: tokenize() returns the tokens of a CUDA source's *code* only. Comments (`//` and
// `/* */`), preprocessor lines (a `#` first on a line, through its backslash continuations) and
// whitespace produce no token, so nothing inside them is ever matched or rewritten. String and
// character literals (with any encoding prefix, raw strings `R"d(...)d"` included) are one opaque
// Literal token each. Every token records its byte range in the source; the source must outlive
// the tokens (Token::text is a view into it).
//
// Punctuation is split into single characters, except `::`, which is one token: `<<<` and `>>>`
// are therefore three adjacent `<` / `>` tokens (a `>>>` closing nested templates stays harmless),
// and `adjacent()` tells them apart from `< < <`.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace minicuda::cu2cxx {

enum class TokenKind {
  Identifier,  // keywords included: `namespace`, `extern`, `__global__`, ...
  Number,      // a preprocessing number: 42, 0x1p-3, 1'000'000, 1.5f
  Literal,     // a string or character literal, prefix and user-defined suffix excluded
  Punct,       // one punctuation character, or `::`
};

struct Token {
  TokenKind kind;
  std::size_t begin;      // byte offset of the first character in the source
  std::size_t end;        // byte offset one past the last character
  std::string_view text;  // source.substr(begin, end - begin)

  bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
  bool is_punct(std::string_view t) const { return is(TokenKind::Punct, t); }
  bool is_identifier() const { return kind == TokenKind::Identifier; }
  bool is_identifier(std::string_view t) const { return is(TokenKind::Identifier, t); }
};

using Tokens = std::vector<Token>;

// The code tokens of `source`, in order (see the contract above). Never fails: an unterminated
// comment or literal simply ends at the end of the source (or of its line, for literals).
Tokens tokenize(std::string_view source);

// True when token b starts exactly where token a ends (no whitespace or comment in between).
inline bool adjacent(const Token& a, const Token& b) { return a.end == b.begin; }

// For the opening bracket `(`, `[` or `{` at index `open`: the index of the bracket that closes
// it, counting all three kinds together; nullopt if the source ends first or a closer underflows.
std::optional<std::size_t> matching_close(const Tokens& tokens, std::size_t open);

// For the closing bracket `)`, `]` or `}` at index `close`: the index of its opening bracket,
// scanning backwards; nullopt if none.
std::optional<std::size_t> matching_open(const Tokens& tokens, std::size_t close);

// For the `>` at index `close` that ends a template argument list: the index of its `<`,
// scanning backwards over nested `<>` and skipping anything inside balanced brackets; nullopt if
// a `;` or an unbalanced bracket comes first.
std::optional<std::size_t> matching_angle_open(const Tokens& tokens, std::size_t close);

// Maps byte offsets to 1-based line numbers.
class LineIndex {
 public:
  explicit LineIndex(std::string_view source);
  int line_of(std::size_t offset) const;

 private:
  std::vector<std::size_t> newlines_;  // offsets of every '\n', ascending
};

// The number of '\n' characters in `text`.
std::size_t count_newlines(std::string_view text);

}  // namespace minicuda::cu2cxx
