// cu2cxx: the preprocessor directives of a source, located (the lexer skips them).
//
// Contract: scan_directives(source) returns every line whose first non-blank character is `#`
// and that is not inside a comment or a literal, in order. A directive runs through its
// backslash continuations; `end` is the offset of the newline that ends it (or the source's size).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace minicuda::cu2cxx {

struct Directive {
  std::size_t begin;      // offset of the start of its (first) line
  std::size_t end;        // offset of the newline that ends it, or source.size()
  std::string_view name;  // "if", "ifdef", "endif", "include", "pragma", ... (empty for a lone `#`)
  std::string_view rest;  // what follows the name, leading blanks removed
};

std::vector<Directive> scan_directives(std::string_view source);

// For the conditional directives of `directives` (if, ifdef, ifndef, elif, elifdef, elifndef,
// else, endif): the index of the directive that closes the group each `#if`/`#ifdef`/`#ifndef`
// at index i opens, in closes[i] (directives.size() when unclosed or not an opener).
std::vector<std::size_t> conditional_group_ends(const std::vector<Directive>& directives);

}  // namespace minicuda::cu2cxx
