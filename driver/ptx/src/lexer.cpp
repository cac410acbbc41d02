// The PTX lexer (lexer.h). Comments (// and /* */) are skipped; numbers follow the PTX ISA's
// forms: decimal, 0x hex, 0b binary, leading-0 octal, an optional U suffix, decimal floats, and
// the exact 0fXXXXXXXX (single) and 0dXXXXXXXXXXXXXXXX (double) bit patterns.
#include "lexer.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace minicuda::ptx {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

}  // namespace

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  int line = 1;
  const size_t n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    Token t;
    t.line = line;
    // .1d .2d .3d: the geometry modifiers of tex, suld and sust (a directive, not the number .1).
    const bool geometry = c == '.' && i + 3 <= n && s[i + 1] >= '1' && s[i + 1] <= '3' && s[i + 2] == 'd' &&
                          (i + 3 == n || !ident_char(s[i + 3]));
    if (geometry || (c == '.' && i + 1 < n && ident_start(s[i + 1]) && s[i + 1] != '%')) {
      size_t j = i + 1;
      while (j < n && ident_char(s[j])) ++j;
      t.kind = Token::Kind::Directive;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      i = j;
    } else if (ident_start(c)) {
      size_t j = i + 1;
      while (j < n && ident_char(s[j])) ++j;
      t.kind = Token::Kind::Ident;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t j = i;
      if (c == '0' && i + 1 < n && (s[i + 1] == 'f' || s[i + 1] == 'F' || s[i + 1] == 'd' || s[i + 1] == 'D')) {
        bool single = s[i + 1] == 'f' || s[i + 1] == 'F';
        j = i + 2;
        while (j < n && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
        t.kind = Token::Kind::Float;
        t.fhex = true;
        t.fsingle = single;
        t.fbits = std::strtoull(std::string(s.substr(i + 2, j - i - 2)).c_str(), nullptr, 16);
        if (single) {
          uint32_t b = static_cast<uint32_t>(t.fbits);
          float f;
          std::memcpy(&f, &b, 4);
          t.fvalue = f;
        } else {
          std::memcpy(&t.fvalue, &t.fbits, 8);
        }
      } else if (c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        j = i + 2;
        while (j < n && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
        t.kind = Token::Kind::Int;
        t.ivalue = std::strtoull(std::string(s.substr(i + 2, j - i - 2)).c_str(), nullptr, 16);
      } else if (c == '0' && i + 1 < n && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        j = i + 2;
        while (j < n && (s[j] == '0' || s[j] == '1')) ++j;
        t.kind = Token::Kind::Int;
        t.ivalue = std::strtoull(std::string(s.substr(i + 2, j - i - 2)).c_str(), nullptr, 2);
      } else {
        while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        bool is_float = false;
        if (j < n && s[j] == '.' && !(j + 1 < n && ident_start(s[j + 1]))) {
          is_float = true;
          ++j;
          while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
        if (j < n && (s[j] == 'e' || s[j] == 'E')) {
          size_t k = j + 1;
          if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
          if (k < n && std::isdigit(static_cast<unsigned char>(s[k]))) {
            is_float = true;
            j = k;
            while (j < n && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
          }
        }
        std::string num(s.substr(i, j - i));
        if (is_float) {
          t.kind = Token::Kind::Float;
          t.fvalue = std::strtod(num.c_str(), nullptr);
        } else {
          t.kind = Token::Kind::Int;
          bool octal = num.size() > 1 && num[0] == '0';
          t.ivalue = std::strtoull(num.c_str(), nullptr, octal ? 8 : 10);
        }
      }
      if (t.kind == Token::Kind::Int && j < n && (s[j] == 'U' || s[j] == 'u')) ++j;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n && s[j] != '"' && s[j] != '\n') ++j;
      t.kind = Token::Kind::String;
      t.text = std::string(s.substr(i + 1, j - i - 1));
      i = j < n ? j + 1 : j;
    } else {
      t.kind = Token::Kind::Punct;
      t.text = std::string(1, c);
      ++i;
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.kind = Token::Kind::End;
  end.line = line;
  out.push_back(end);
  return out;
}

}  // namespace minicuda::ptx
