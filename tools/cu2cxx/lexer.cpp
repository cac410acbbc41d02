// cu2cxx's scanner: splits CUDA source into code tokens, skipping comments, preprocessor lines
// and whitespace. Contracts: lexer.h.
//
// The scanner follows the C++ lexical rules only as far as the rewrites need: it knows where
// comments, literals and directives begin and end (line splices included), and otherwise emits
// identifiers, preprocessing numbers and single punctuation characters.
#include "lexer.h"

#include <algorithm>
#include <string>

namespace minicuda::cu2cxx {
namespace {

bool is_identifier_start(char c) {
  // Bytes >= 0x80 belong to UTF-8 encoded (extended) identifier characters.
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }

bool is_horizontal_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The encoding prefixes that may precede a string or character literal.
bool is_literal_prefix(std::string_view id) { return id == "u8" || id == "u" || id == "U" || id == "L"; }

// The prefixes that start a raw string literal when followed by `"`.
bool is_raw_prefix(std::string_view id) {
  return id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR";
}

// The scanner's position over the source and its skipping primitives. Each skip_* takes the
// offset of the construct's first character and returns the offset just past it.
class Scanner {
 public:
  explicit Scanner(std::string_view source) : s_(source) {}

  Tokens run();

 private:
  char at(std::size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  // Length of a line splice (backslash + newline, or backslash + CR LF) at i, or 0.
  std::size_t splice_length(std::size_t i) const {
    if (at(i) != '\\') return 0;
    if (at(i + 1) == '\n') return 2;
    if (at(i + 1) == '\r' && at(i + 2) == '\n') return 3;
    return 0;
  }

  // `// ...` up to (not including) the newline that ends it; a line splice continues it.
  std::size_t skip_line_comment(std::size_t i) const {
    std::size_t j = i + 2;
    while (j < s_.size() && s_[j] != '\n') {
      const std::size_t splice = splice_length(j);
      j += splice ? splice : 1;
    }
    return j;
  }

  // `/* ... */`, possibly spanning lines; an unterminated one runs to the end.
  std::size_t skip_block_comment(std::size_t i) const {
    const std::size_t close = s_.find("*/", i + 2);
    return close == std::string_view::npos ? s_.size() : close + 2;
  }

  // A "..." or '...' literal starting with the quote at i. Backslash escapes any character (a
  // line splice included); an unterminated literal ends before the newline.
  std::size_t skip_quoted(std::size_t i) const {
    const char quote = s_[i];
    std::size_t j = i + 1;
    while (j < s_.size()) {
      const char c = s_[j];
      if (c == '\\') {
        j += 2;
      } else if (c == quote) {
        return j + 1;
      } else if (c == '\n') {
        return j;
      } else {
        ++j;
      }
    }
    return s_.size();
  }

  // A raw string whose `"` is at i: `"delim( ... )delim"`. Returns nullopt when no valid
  // delimiter follows (then the caller treats it as an ordinary string).
  std::optional<std::size_t> skip_raw_string(std::size_t i) const {
    constexpr std::size_t kMaxDelimiter = 16;
    std::size_t j = i + 1;
    while (j < s_.size() && s_[j] != '(') {
      const char c = s_[j];
      if (c == ')' || c == '\\' || c == '"' || c == ' ' || c == '\t' || c == '\n' ||
          j - (i + 1) >= kMaxDelimiter) {
        return std::nullopt;
      }
      ++j;
    }
    if (j >= s_.size()) return std::nullopt;
    const std::string closing = ")" + std::string(s_.substr(i + 1, j - (i + 1))) + "\"";
    const std::size_t close = s_.find(closing, j + 1);
    return close == std::string_view::npos ? s_.size() : close + closing.size();
  }

  // A preprocessor directive whose `#` is at i, up to (not including) the newline that ends it.
  // Line splices continue it; a block comment inside it may span lines; quotes inside it are
  // skipped but never past the line's end (`#error don't` must not swallow the next lines).
  std::size_t skip_directive(std::size_t i) const {
    std::size_t j = i + 1;
    while (j < s_.size() && s_[j] != '\n') {
      if (const std::size_t splice = splice_length(j)) {
        j += splice;
      } else if (s_.substr(j, 2) == "/*") {
        j = skip_block_comment(j);
      } else if (s_.substr(j, 2) == "//") {
        return skip_line_comment(j);
      } else if (s_[j] == '"' || s_[j] == '\'') {
        j = skip_quoted(j);
      } else {
        ++j;
      }
    }
    return j;
  }

  // A preprocessing number starting at i (a digit, or `.` then a digit).
  std::size_t skip_number(std::size_t i) const {
    std::size_t j = i + 1;
    while (j < s_.size()) {
      const char c = s_[j];
      const char previous = s_[j - 1];
      if (is_identifier_char(c) || c == '.') {
        ++j;
      } else if ((c == '+' || c == '-') &&
                 (previous == 'e' || previous == 'E' || previous == 'p' || previous == 'P')) {
        ++j;
      } else if (c == '\'' && is_identifier_char(at(j + 1))) {
        j += 2;  // a digit separator
      } else {
        break;
      }
    }
    return j;
  }

  void emit(TokenKind kind, std::size_t begin, std::size_t end) {
    tokens_.push_back(Token{kind, begin, end, s_.substr(begin, end - begin)});
  }

  // An identifier at i, or the literal it prefixes (`u8"..."`, `R"(...)"`, `L'x'`).
  std::size_t scan_identifier_or_prefixed_literal(std::size_t i) {
    std::size_t j = i + 1;
    while (j < s_.size() && is_identifier_char(s_[j])) ++j;
    const std::string_view id = s_.substr(i, j - i);
    if (at(j) == '"' && is_raw_prefix(id)) {
      if (const auto end = skip_raw_string(j)) {
        emit(TokenKind::Literal, i, *end);
        return *end;
      }
    }
    const bool prefixes_string = at(j) == '"' && (is_literal_prefix(id) || is_raw_prefix(id));
    const bool prefixes_char = at(j) == '\'' && is_literal_prefix(id);
    if (prefixes_string || prefixes_char) {
      const std::size_t end = skip_quoted(j);
      emit(TokenKind::Literal, i, end);
      return end;
    }
    emit(TokenKind::Identifier, i, j);
    return j;
  }

  std::string_view s_;
  Tokens tokens_;
};

Tokens Scanner::run() {
  std::size_t i = 0;
  bool at_line_start = true;  // only whitespace and comments so far on this line
  while (i < s_.size()) {
    const char c = s_[i];
    if (c == '\n') {
      at_line_start = true;
      ++i;
    } else if (is_horizontal_space(c)) {
      ++i;
    } else if (const std::size_t splice = splice_length(i)) {
      i += splice;
    } else if (s_.substr(i, 2) == "//") {
      i = skip_line_comment(i);
    } else if (s_.substr(i, 2) == "/*") {
      i = skip_block_comment(i);
    } else if (c == '#' && at_line_start) {
      i = skip_directive(i);
    } else {
      at_line_start = false;
      if (is_identifier_start(c)) {
        i = scan_identifier_or_prefixed_literal(i);
      } else if (is_digit(c) || (c == '.' && is_digit(at(i + 1)))) {
        const std::size_t end = skip_number(i);
        emit(TokenKind::Number, i, end);
        i = end;
      } else if (c == '"' || c == '\'') {
        const std::size_t end = skip_quoted(i);
        emit(TokenKind::Literal, i, end);
        i = end;
      } else if (c == ':' && at(i + 1) == ':') {
        emit(TokenKind::Punct, i, i + 2);
        i += 2;
      } else {
        emit(TokenKind::Punct, i, i + 1);
        ++i;
      }
    }
  }
  return std::move(tokens_);
}

bool is_opener(const Token& t) { return t.is_punct("(") || t.is_punct("[") || t.is_punct("{"); }
bool is_closer(const Token& t) { return t.is_punct(")") || t.is_punct("]") || t.is_punct("}"); }

}  // namespace

Tokens tokenize(std::string_view source) { return Scanner(source).run(); }

std::optional<std::size_t> matching_close(const Tokens& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t k = open; k < tokens.size(); ++k) {
    if (is_opener(tokens[k])) {
      ++depth;
    } else if (is_closer(tokens[k])) {
      if (--depth == 0) return k;
      if (depth < 0) return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> matching_open(const Tokens& tokens, std::size_t close) {
  int depth = 0;
  for (std::size_t k = close + 1; k-- > 0;) {
    if (is_closer(tokens[k])) {
      ++depth;
    } else if (is_opener(tokens[k])) {
      if (--depth == 0) return k;
      if (depth < 0) return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> matching_angle_open(const Tokens& tokens, std::size_t close) {
  int angles = 0;
  for (std::size_t k = close + 1; k-- > 0;) {
    const Token& t = tokens[k];
    if (is_closer(t)) {
      const auto open = matching_open(tokens, k);
      if (!open) return std::nullopt;
      k = *open;  // skip the bracketed group; the loop steps past its opener
    } else if (is_opener(t) || t.is_punct(";")) {
      return std::nullopt;
    } else if (t.is_punct(">")) {
      ++angles;
    } else if (t.is_punct("<")) {
      if (--angles == 0) return k;
    }
  }
  return std::nullopt;
}

LineIndex::LineIndex(std::string_view source) {
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') newlines_.push_back(i);
  }
}

int LineIndex::line_of(std::size_t offset) const {
  const auto before = std::lower_bound(newlines_.begin(), newlines_.end(), offset);
  return static_cast<int>(before - newlines_.begin()) + 1;
}

std::size_t count_newlines(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace minicuda::cu2cxx
