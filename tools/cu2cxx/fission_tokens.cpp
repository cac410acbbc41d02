// cu2cxx region fission: the token-level predicates of fission.h, and what the file around the
// kernels tells the analysis (file_facts). Every predicate errs on the side that makes a kernel
// keep its fibers: a name it does not know is not a built-in, a use it cannot classify may modify.
#include <algorithm>
#include <iterator>

#include "fission.h"

namespace minicuda::cu2cxx::fission {
namespace {

template <std::size_t N>
bool among(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

constexpr std::string_view kPureBuiltins[] = {
    "min", "max", "abs", "fabs", "fabsf", "fminf", "fmaxf", "fmin", "fmax", "sqrt", "sqrtf", "rsqrtf", "cbrtf",
    "exp", "expf", "exp2f", "__expf", "log", "logf", "log2f", "log10f", "__logf", "pow", "powf", "__powf", "sin",
    "sinf", "cos", "cosf", "tan", "tanf", "__sinf", "__cosf", "tanh", "tanhf", "erff", "floor", "floorf", "ceil",
    "ceilf", "round", "roundf", "rintf", "truncf", "fmaf", "fma", "fmodf", "__fdividef", "__saturatef", "__popc",
    "__popcll", "__clz", "__ffs", "__brev", "__int_as_float", "__float_as_int", "__mul24", "__umul24",
    "static_cast", "reinterpret_cast", "const_cast", "make_int2", "make_int4", "make_uint3", "make_float2",
    "make_float3", "make_float4", "make_double2", "isnan", "isinf", "signbit", "copysignf"};

constexpr std::string_view kOtherBuiltins[] = {
    "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec", "atomicCAS",
    "atomicAnd", "atomicOr", "atomicXor", "atomicAdd_block", "atomicAdd_system", "atomicSub_block",
    "atomicSub_system", "atomicExch_block", "atomicExch_system", "atomicMin_block", "atomicMin_system",
    "atomicMax_block", "atomicMax_system", "atomicCAS_block", "atomicCAS_system", "printf", "assert", "__trap",
    "__ldg", "__threadfence", "__threadfence_block", "__threadfence_system", "memcpy", "memset", "__builtin_expect",
    "__builtin_trap", "__builtin_unreachable"};

constexpr std::string_view kTypeKeywords[] = {
    "int", "unsigned", "signed", "char", "short", "long", "float", "double", "bool", "size_t", "int8_t",
    "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint3", "dim3", "int2",
    "int4", "uint2", "uint4", "float2", "float3", "float4", "double2", "void"};

constexpr std::string_view kComparisonStarts[] = {"<", ">", "!", "="};

constexpr std::string_view kNonCallKeywords[] = {
    "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "noexcept", "static_assert",
    "alignas", "__attribute__", "__align__", "__launch_bounds__", "typeid", "constexpr", "defined", "catch"};

// The `=` at token k (or the operator ending there) is an assignment: `=` not part of `==`,
// `<=`, `>=`, `!=`; or a compound assignment `+=`, `<<=`, ...
bool is_assignment_at(const Tokens& tokens, std::size_t k) {
  if (k >= tokens.size()) return false;
  const Token& t = tokens[k];
  const bool next_is_eq = k + 1 < tokens.size() && tokens[k + 1].is_punct("=") && adjacent(t, tokens[k + 1]);
  if (t.is_punct("=")) return !next_is_eq;
  static constexpr std::string_view kCompound[] = {"+", "-", "*", "/", "%", "&", "|", "^"};
  if (t.kind == TokenKind::Punct && among(kCompound, t.text) && next_is_eq) return true;
  // `<<=` and `>>=`
  if ((t.is_punct("<") || t.is_punct(">")) && k + 2 < tokens.size() && tokens[k + 1].text == t.text &&
      adjacent(t, tokens[k + 1]) && tokens[k + 2].is_punct("=") && adjacent(tokens[k + 1], tokens[k + 2]))
    return true;
  return false;
}

// `++` or `--` as two adjacent tokens starting at k.
bool is_increment_at(const Tokens& tokens, std::size_t k) {
  return k + 1 < tokens.size() && (tokens[k].is_punct("+") || tokens[k].is_punct("-")) &&
         tokens[k + 1].text == tokens[k].text && adjacent(tokens[k], tokens[k + 1]);
}

// The callee of the call whose argument list encloses token k, or "" when no call encloses it
// (a grouping paren, a control statement's condition, a braced initializer); "for" inside a
// for statement's header.
std::string_view enclosing_callee(const Tokens& tokens, std::size_t k, std::size_t begin) {
  int depth = 0;
  for (std::size_t i = k; i-- > begin;) {
    const Token& t = tokens[i];
    if (t.is_punct(")") || t.is_punct("]") || t.is_punct("}")) {
      ++depth;
    } else if (t.is_punct("(") || t.is_punct("[") || t.is_punct("{")) {
      if (depth > 0) {
        --depth;
        continue;
      }
      if (!t.is_punct("(") || i == 0) return "";
      const Token& before = tokens[i - 1];
      if (before.is_punct(">")) {  // f<T>(x), static_cast<T>(x): the template's name
        const auto angle = matching_angle_open(tokens, i - 1);
        if (!angle || *angle == 0 || !tokens[*angle - 1].is_identifier()) return "<unknown>";
        return tokens[*angle - 1].text;
      }
      if (before.is_identifier("for")) return "for";
      if (!before.is_identifier() || is_non_call_keyword(before.text)) return "";
      return before.text;
    } else if (depth == 0 && t.is_punct(";")) {
      return "";
    }
  }
  return "";
}

// Does the `)` at token k close parentheses that hold a value, not a type (a cast)? Yes for a
// call's arguments (`f(x)`, `g<T>(x)`) and for parentheses that hold a number, a literal or an
// operator a type cannot contain (`(a | b)`, `(n + 1)`); no for `(T)`, `(const int*)`, `(x)`.
bool parenthesized_value(const Tokens& tokens, std::size_t k) {
  const auto open = matching_open(tokens, k);
  if (!open) return false;
  if (*open > 0) {
    const Token& before = tokens[*open - 1];
    if ((before.is_identifier() && !is_non_call_keyword(before.text)) || before.is_punct(">")) return true;
  }
  static constexpr std::string_view kTypePunct[] = {"*", "&", "::", "<", ">", ",", "(", ")", "[", "]"};
  for (std::size_t j = *open + 1; j < k; ++j) {
    const Token& t = tokens[j];
    if (t.kind == TokenKind::Number || t.kind == TokenKind::Literal) return true;
    if (t.kind == TokenKind::Punct && !among(kTypePunct, t.text)) return true;
  }
  return false;
}

// Does the `)` at token k close the condition of an `if`, `while`, `for` or `switch`? What
// follows it then starts a statement (`if (c) *p = v;`).
bool closes_condition(const Tokens& tokens, std::size_t k) {
  const auto open = matching_open(tokens, k);
  if (!open || *open == 0) return false;
  const Token& keyword = tokens[*open - 1];
  return keyword.is_identifier("if") || keyword.is_identifier("while") || keyword.is_identifier("for") ||
         keyword.is_identifier("switch");
}

// Can a macro whose replacement is `body` stand for the same value wherever it is used? Only
// numbers, literals, operators, type names, `sizeof`, and names in `constants`; a `*` or `&`
// only between two operands (after a number or a name: not `(T)*p`); no subscript, member
// access, assignment or increment.
bool constant_replacement(const Tokens& body, const std::set<std::string, std::less<>>& constants) {
  for (std::size_t k = 0; k < body.size(); ++k) {
    const Token& t = body[k];
    if (t.kind == TokenKind::Number) continue;
    if (t.kind == TokenKind::Literal) {
      if (t.text.find('\n') != std::string_view::npos) return false;
      continue;
    }
    if (t.is_identifier()) {
      if (is_type_keyword(t.text) || t.is_identifier("sizeof") || t.is_identifier("const") ||
          t.is_identifier("static_cast") || t.is_identifier("true") || t.is_identifier("false") ||
          constants.contains(t.text))
        continue;
      return false;
    }
    static constexpr std::string_view kRefused[] = {"[", ".", "=", "{", "}", ";"};
    if (among(kRefused, t.text)) {
      const bool comparison = t.is_punct("=") &&
                              ((k > 0 && among(kComparisonStarts, body[k - 1].text) && adjacent(body[k - 1], t)) ||
                               (k + 1 < body.size() && body[k + 1].is_punct("=") && adjacent(t, body[k + 1])));
      if (!comparison) return false;
      if (k + 1 < body.size() && body[k + 1].is_punct("=")) ++k;
      continue;
    }
    if (is_increment_at(body, k)) return false;
    if (t.is_punct("-") && k + 1 < body.size() && body[k + 1].is_punct(">") && adjacent(t, body[k + 1])) return false;
    if (t.is_punct("*") || t.is_punct("&")) {
      const bool logical = t.is_punct("&") && ((k + 1 < body.size() && body[k + 1].is_punct("&") && adjacent(t, body[k + 1])) ||
                                               (k > 0 && body[k - 1].is_punct("&") && adjacent(body[k - 1], t)));
      const bool binary = k > 0 && (body[k - 1].kind == TokenKind::Number || body[k - 1].is_identifier());
      if (!logical && !binary) return false;
    }
  }
  return true;
}

}  // namespace

bool is_warp_or_reduction_name(std::string_view n) {
  return n.starts_with("__shfl") || n.starts_with("__ballot") || n == "__any_sync" || n == "__all_sync" ||
         n == "__any" || n == "__all" || n.starts_with("__match") || n.starts_with("__reduce_") ||
         n.starts_with("__syncwarp") || n == "__activemask" || n.starts_with("__syncthreads_") ||
         n == "this_thread_block" || n == "cooperative_groups" || n == "tiled_partition" || n == "grid_group" ||
         n == "this_grid" || n == "__barrier_sync" || n == "bar_sync" || n == "coalesced_threads" ||
         n == "coalesced_group" || n == "thread_group" || n == "thread_block" || n == "thread_block_tile" ||
         n == "labeled_partition" || n == "binary_partition" || n == "this_cluster" || n == "cluster_group" ||
         n.starts_with("__cluster_barrier");
}

int barrier_reduction_op(std::string_view name) {
  if (name == "__syncthreads_count") return 0;
  if (name == "__syncthreads_and") return 1;
  if (name == "__syncthreads_or") return 2;
  return -1;
}

bool is_builtin_variable(std::string_view name) {
  return name == "threadIdx" || name == "blockIdx" || name == "blockDim" || name == "gridDim" || name == "warpSize";
}

bool binary_operator_at(const Tokens& tokens, std::size_t k, std::size_t begin,
                        const std::function<bool(std::string_view)>& is_value) {
  if (k <= begin) return false;
  const Token& before = tokens[k - 1];
  if (before.kind == TokenKind::Number) return true;
  if (before.is_identifier()) return true;  // a value, or `int*` in a cast's type: neither reads memory
  if (!before.is_punct(")")) return false;
  const auto open = matching_open(tokens, k - 1);
  if (!open || *open < begin) return false;
  if (*open > begin && (tokens[*open - 1].is_identifier() || tokens[*open - 1].is_punct(">"))) return true;  // a call
  bool value = false;
  for (std::size_t j = *open + 1; j + 1 < k; ++j) {
    const Token& inner = tokens[j];
    if (inner.is_identifier() && (is_type_keyword(inner.text) || inner.is_identifier("const") ||
                                  inner.is_identifier("volatile") || inner.is_identifier("struct")))
      return false;
    if (inner.kind == TokenKind::Number) value = true;
    if (inner.is_identifier() && is_value(inner.text)) value = true;
  }
  return value;
}

bool is_barrier_name(std::string_view name) { return name == "__syncthreads" || is_warp_or_reduction_name(name); }
bool is_pure_builtin(std::string_view name) { return among(kPureBuiltins, name) || is_type_keyword(name); }
bool is_builtin_function(std::string_view name) { return is_pure_builtin(name) || among(kOtherBuiltins, name); }
bool is_type_keyword(std::string_view name) { return among(kTypeKeywords, name); }
bool is_non_call_keyword(std::string_view name) { return among(kNonCallKeywords, name); }

bool is_variable_use(const Tokens& tokens, std::size_t k, std::string_view name) {
  if (!tokens[k].is_identifier(name)) return false;
  if (k == 0) return true;
  const Token& before = tokens[k - 1];
  if (before.is_punct(".") || before.is_punct("::")) return false;
  return !(before.is_punct(">") && k >= 2 && tokens[k - 2].is_punct("-") && adjacent(tokens[k - 2], before));
}

bool used_in(const Tokens& tokens, std::size_t begin, std::size_t end, std::string_view name) {
  for (std::size_t k = begin; k < end; ++k)
    if (is_variable_use(tokens, k, name)) return true;
  return false;
}

bool maybe_modified(const Tokens& tokens, std::size_t begin, std::size_t end, std::string_view name, bool pointer) {
  for (std::size_t k = begin; k < end; ++k) {
    if (!is_variable_use(tokens, k, name)) continue;
    // Before it: `++x`, `--x`, `&x` (not `a && x`), a range-for's `: x`.
    if (k >= 2 && is_increment_at(tokens, k - 2)) return true;
    if (k >= 1 && tokens[k - 1].is_punct("&") && !(k >= 2 && tokens[k - 2].is_punct("&") && adjacent(tokens[k - 2], tokens[k - 1]))) {
      // `a & x` is a bitwise and; after `)` the `&` may follow a cast (`(T)&x`): an address.
      const bool bitwise = k >= 2 && (tokens[k - 2].is_identifier() || tokens[k - 2].kind == TokenKind::Number ||
                                      tokens[k - 2].is_punct("]") ||
                                      (tokens[k - 2].is_punct(")") && parenthesized_value(tokens, k - 2)));
      if (!bitwise || tokens[k - 2].is_identifier("return")) return true;
    }
    if (k >= 1 && tokens[k - 1].is_punct(":") && enclosing_callee(tokens, k, 0) == "for") return true;  // range-for
    // `*p = v` writes what p points to (a unary `*`: no operand before it).
    if (pointer && k >= 1 && tokens[k - 1].is_punct("*")) {
      const bool unary = k < 2 || !(tokens[k - 2].is_identifier() || tokens[k - 2].kind == TokenKind::Number ||
                                    (tokens[k - 2].is_punct(")") && !closes_condition(tokens, k - 2)) ||
                                    tokens[k - 2].is_punct("]"));
      if (unary) {
        if (is_increment_at(tokens, k + 1)) return true;  // *p++
        continue;
      }
    }
    // After it: a chain of members and subscripts, then an assignment or an increment.
    std::size_t j = k + 1;
    bool through_member = false;
    while (j < end) {
      if (tokens[j].is_punct(".") && j + 1 < end && tokens[j + 1].is_identifier()) {
        through_member = true;
        j += 2;
        if (j < end && tokens[j].is_punct("(")) return true;  // a member function may change it
      } else if (tokens[j].is_punct("[")) {
        if (pointer && !through_member) break;  // p[i] = v writes what p points to
        const auto close = matching_close(tokens, j);
        if (!close) return true;
        j = *close + 1;
      } else {
        break;
      }
    }
    if (j < end && tokens[j].is_punct("-") && j + 1 < end && tokens[j + 1].is_punct(">") && adjacent(tokens[j], tokens[j + 1]))
      continue;  // x->m = v writes what x points to
    if (j < end && tokens[j].is_punct("[")) continue;  // the pointer case above
    if (is_assignment_at(tokens, j) || is_increment_at(tokens, j)) return true;
    // Passed whole to a function that might take it by reference.
    const bool whole_argument = k >= 1 && (tokens[k - 1].is_punct("(") || tokens[k - 1].is_punct(",")) && j < end &&
                                (tokens[j].is_punct(")") || tokens[j].is_punct(","));
    if (whole_argument) {
      const std::string_view callee = enclosing_callee(tokens, k, 0);
      // (The barrier reductions take an int by value.)
      if (!callee.empty() && !is_builtin_function(callee) && barrier_reduction_op(callee) < 0) return true;
    }
  }
  return false;
}

std::optional<std::size_t> matching_angle_close(const Tokens& tokens, std::size_t open, std::size_t limit) {
  int angles = 0;
  for (std::size_t k = open; k < limit; ++k) {
    const Token& t = tokens[k];
    if (t.is_punct("<")) {
      ++angles;
    } else if (t.is_punct(">")) {
      if (--angles == 0) return k;
    } else if (t.is_punct("(") || t.is_punct("[")) {
      const auto close = matching_close(tokens, k);
      if (!close) return std::nullopt;
      k = *close;
    } else if (t.is_punct(";") || t.is_punct("{") || t.is_punct("}") || t.is_punct(")") || t.is_punct("]")) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> statement_end(const Tokens& tokens, std::size_t k, std::size_t limit) {
  if (k >= limit) return std::nullopt;
  const Token& t = tokens[k];
  auto group_then_statement = [&](std::size_t open) -> std::optional<std::size_t> {
    if (open >= limit || !tokens[open].is_punct("(")) return std::nullopt;
    const auto close = matching_close(tokens, open);
    if (!close || *close >= limit) return std::nullopt;
    return statement_end(tokens, *close + 1, limit);
  };
  if (t.is_punct(";")) return k + 1;
  if (t.is_punct("{")) {
    const auto close = matching_close(tokens, k);
    if (!close || *close >= limit) return std::nullopt;
    return *close + 1;
  }
  if (t.is_identifier("if")) {
    const std::size_t open = k + 1 < limit && tokens[k + 1].is_identifier("constexpr") ? k + 2 : k + 1;
    const auto then_end = group_then_statement(open);
    if (!then_end) return std::nullopt;
    if (*then_end < limit && tokens[*then_end].is_identifier("else")) return statement_end(tokens, *then_end + 1, limit);
    return then_end;
  }
  if (t.is_identifier("for") || t.is_identifier("while") || t.is_identifier("switch")) return group_then_statement(k + 1);
  if (t.is_identifier("do")) {
    const auto body_end = statement_end(tokens, k + 1, limit);
    if (!body_end || *body_end + 1 >= limit || !tokens[*body_end].is_identifier("while")) return std::nullopt;
    const auto close = matching_close(tokens, *body_end + 1);
    if (!close || *close + 1 >= limit || !tokens[*close + 1].is_punct(";")) return std::nullopt;
    return *close + 2;
  }
  if (t.is_identifier("else") || t.is_identifier("try") || t.is_identifier("case") || t.is_identifier("default"))
    return std::nullopt;
  // An expression or declaration statement: through the `;` at bracket depth 0.
  for (std::size_t j = k; j < limit; ++j) {
    const Token& u = tokens[j];
    if (u.is_punct(";")) return j + 1;
    if (u.is_punct("(") || u.is_punct("[") || u.is_punct("{")) {
      const auto close = matching_close(tokens, j);
      if (!close || *close >= limit) return std::nullopt;
      j = *close;
    } else if (u.is_punct(")") || u.is_punct("]") || u.is_punct("}")) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string joined(const Tokens& tokens, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t k = begin; k < end; ++k) {
    if (k > begin && !adjacent(tokens[k - 1], tokens[k])) out += ' ';
    out.append(tokens[k].text);
  }
  return out;
}

void for_each_directive(std::string_view text, const std::function<void(std::string_view)>& f) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    while (end != std::string_view::npos && end > at && text[end - 1] == '\\') end = text.find('\n', end + 1);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '#') continue;
    std::string_view directive = line.substr(first + 1);
    directive.remove_prefix(std::min(directive.size(), directive.find_first_not_of(" \t")));
    f(directive);
  }
}

FileFacts file_facts(std::string_view source, const Tokens& tokens) {
  FileFacts facts;
  // Object-like macros, from the preprocessor lines the tokens skip; and whether any #define
  // mentions a barrier or a warp operation.
  std::vector<std::pair<std::string, Tokens>> object_macros;
  for_each_directive(source, [&](std::string_view directive) {
    if (!directive.starts_with("define")) return;
    Tokens words = tokenize(directive.substr(6));
    for (const Token& w : words)
      if (w.is_identifier() && is_barrier_name(w.text)) facts.macro_hides_barrier = true;
    if (!words.empty() && words[0].is_identifier() && !(words.size() > 1 && words[1].is_punct("(") && adjacent(words[0], words[1]))) {
      std::string name(words[0].text);
      words.erase(words.begin());
      object_macros.emplace_back(std::move(name), std::move(words));
    }
  });
  // Functions defined in the file, and const/constexpr variables outside every function.
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.is_identifier() && (t.text.find("__inl") != std::string_view::npos || t.text.starts_with("minicuda_result_")))
      facts.inline_names_taken = true;
    if (t.is_punct("{") && k > 0 && tokens[k - 1].is_punct(")")) {
      const auto open = matching_open(tokens, k - 1);
      if (open && *open > 0 && tokens[*open - 1].is_identifier() && !is_non_call_keyword(tokens[*open - 1].text))
        facts.functions.emplace_back(std::string(tokens[*open - 1].text), k);
    }
    if (!in_function[k] && (t.is_identifier("constexpr") || t.is_identifier("const"))) {
      for (std::size_t j = k + 1; j + 1 < tokens.size(); ++j) {
        if (tokens[j].is_punct(";") || tokens[j].is_punct("{") || tokens[j].is_punct("(")) break;
        if (tokens[j].is_punct("*") && t.is_identifier("const")) break;  // `const T* p`: p may change
        if (tokens[j].is_identifier() && (tokens[j + 1].is_punct("=") || tokens[j + 1].is_punct("{"))) {
          facts.constants.insert(std::string(tokens[j].text));
          break;
        }
      }
    }
  }
  // An object-like macro is a constant when its replacement reads no memory: numbers, literals,
  // arithmetic, type names and other constants (`#define N 256`, `#define M (2 * N)`); not
  // `#define V (*g)` or `#define X data[0]`. Macros may name macros defined later: iterate until
  // nothing changes.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, body] : object_macros)
      if (!facts.constants.contains(name) && constant_replacement(body, facts.constants)) {
        facts.constants.insert(name);
        grew = true;
      }
  }
  return facts;
}

}  // namespace minicuda::cu2cxx::fission
