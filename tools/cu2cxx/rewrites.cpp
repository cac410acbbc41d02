// cu2cxx passes 1 and 2: kernel launches and dynamic shared-memory declarations. Contracts:
// rewrites.h. Pass 2 also tells function bodies from other braces (opens_function_body).
//
// Both passes pattern-match the token stream and copy the pieces they keep (the callee, the
// launch configuration, the arguments, the shared array's type) verbatim from the source, so
// comments and line breaks inside those pieces survive unchanged.
#include <algorithm>
#include <iterator>
#include <optional>

#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The source text from the start of token `first` to the end of token `last`.
std::string_view text_between(std::string_view source, const Token& first, const Token& last) {
  return source.substr(first.begin, last.end - first.begin);
}

// The source text strictly between two tokens (after `left`, before `right`).
std::string_view text_inside(std::string_view source, const Token& left, const Token& right) {
  return source.substr(left.end, right.begin - left.end);
}

// True when tokens k, k+1, k+2 are three adjacent `c` characters (`<<<` or `>>>`).
bool is_triple(const Tokens& tokens, std::size_t k, std::string_view c) {
  return k + 2 < tokens.size() && tokens[k].is_punct(c) && tokens[k + 1].is_punct(c) &&
         tokens[k + 2].is_punct(c) && adjacent(tokens[k], tokens[k + 1]) &&
         adjacent(tokens[k + 1], tokens[k + 2]);
}

// ---- pass 1: launches -----------------------------------------------------------------------

// Keywords that can precede a `::`-qualified callee without being part of it (`return ::k<<<`).
bool is_expression_keyword(const Token& t) {
  static constexpr std::string_view kKeywords[] = {"return", "throw",     "case",     "else",
                                                   "do",     "co_return", "co_yield", "co_await"};
  if (!t.is_identifier()) return false;
  return std::find(std::begin(kKeywords), std::end(kKeywords), t.text) != std::end(kKeywords);
}

// The index of the first token of the callee that ends at token `last` (the token right before
// `<<<`): an identifier, optionally with template arguments and `::` qualification
// (`k`, `k<float, 4>`, `ns::k`, `::k`, `Outer<T>::template k<U>`), scanned backwards; nullopt
// if `last` does not end such a name.
std::optional<std::size_t> callee_start(const Tokens& tokens, std::size_t last) {
  std::size_t k = last;
  while (true) {
    if (tokens[k].is_punct(">")) {  // template arguments: step over them to the template name
      const auto open = matching_angle_open(tokens, k);
      if (!open || *open == 0) return std::nullopt;
      k = *open - 1;
    }
    if (!tokens[k].is_identifier()) return std::nullopt;
    std::size_t start = k;
    if (k >= 2 && tokens[k - 1].is_identifier("template") && tokens[k - 2].is_punct("::")) {
      start = k - 1;  // `Outer::template k<T>`
    }
    if (start == 0 || !tokens[start - 1].is_punct("::")) return start;
    const std::size_t scope = start - 1;  // the `::` before the name
    if (scope == 0) return scope;
    const Token& qualifier_end = tokens[scope - 1];
    const bool qualifies = (qualifier_end.is_identifier() && !is_expression_keyword(qualifier_end)) ||
                           qualifier_end.is_punct(">");
    if (!qualifies) return scope;  // a leading `::`, as in `::k`
    k = scope - 1;
  }
}

// The end of a launch configuration: `close` is the index of the first `>` of its `>>>`.
struct ConfigEnd {
  std::size_t close;
  int arguments;  // comma-separated arguments at bracket depth 0
};

// Where the configuration starting at token `first` (just after `<<<`) ends: the first `>>>` at
// bracket depth 0. nullopt if a `;` or an unbalanced bracket comes first.
std::optional<ConfigEnd> config_end(const Tokens& tokens, std::size_t first) {
  int depth = 0;
  int commas = 0;
  for (std::size_t k = first; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (depth == 0 && is_triple(tokens, k, ">")) {
      return ConfigEnd{k, k == first ? 0 : commas + 1};
    }
    if (t.is_punct("(") || t.is_punct("[") || t.is_punct("{")) {
      ++depth;
    } else if (t.is_punct(")") || t.is_punct("]") || t.is_punct("}")) {
      if (--depth < 0) return std::nullopt;
    } else if (depth == 0 && t.is_punct(";")) {
      return std::nullopt;
    } else if (depth == 0 && t.is_punct(",")) {
      ++commas;
    }
  }
  return std::nullopt;
}

// The launch whose `<<<` starts at token `open`, as an Edit, or a reason it cannot be rewritten.
struct LaunchMatch {
  std::optional<Edit> edit;
  std::string problem;        // set when edit is empty
  std::size_t resume = 0;     // token index to continue scanning from
};

LaunchMatch match_launch(std::string_view source, const Tokens& tokens, std::size_t open,
                         const LaunchTargets& targets) {
  const std::vector<std::string>& chosen_by_arguments = targets.chosen_by_arguments;
  LaunchMatch m;
  m.resume = open + 3;
  const auto start = open == 0 ? std::nullopt : callee_start(tokens, open - 1);
  if (!start) {
    m.problem = "'<<<' does not follow a kernel name; launch left unchanged";
    return m;
  }
  const auto config = config_end(tokens, open + 3);
  if (!config) {
    m.problem = "'<<<' has no matching '>>>'; launch left unchanged";
    return m;
  }
  const std::size_t close = config->close;
  m.resume = close + 3;
  if (config->arguments < 1 || config->arguments > 4) {
    m.problem = "a launch configuration takes 1 to 4 arguments (grid, block, shared bytes, "
                "stream), found " + std::to_string(config->arguments) + "; launch left unchanged";
    return m;
  }
  const std::size_t lparen = close + 3;
  if (lparen >= tokens.size() || !tokens[lparen].is_punct("(")) {
    m.problem = "'>>>' is not followed by '(' and the kernel arguments; launch left unchanged";
    return m;
  }
  const auto rparen = matching_close(tokens, lparen);
  if (!rparen || !tokens[*rparen].is_punct(")")) {
    m.problem = "the kernel arguments after '>>>' have no closing ')'; launch left unchanged";
    return m;
  }
  const std::string_view callee = text_between(source, tokens[*start], tokens[open - 1]);
  const std::string_view config_text = text_inside(source, tokens[open + 2], tokens[close]);
  const std::string_view args = text_inside(source, tokens[lparen], tokens[*rparen]);
  const bool has_template_arguments = tokens[open - 1].is_punct(">");
  std::string replacement = "(__cudaPushCallConfiguration(";
  replacement.append(config_text).append(") ? ");
  if (has_template_arguments) {
    // Named, never evaluated: instantiating it registers the instantiation at start-up.
    replacement.append("(void)&::minicuda::detail::start_up_registration<").append(callee).append("> : ");
  } else {
    replacement.append("(void)0 : ");
  }
  const std::string_view last_name = tokens[open - 1].text;
  const bool through_pointer = !has_template_arguments && *start == open - 1 &&
                               std::find(targets.pointers.begin(), targets.pointers.end(), last_name) !=
                                   targets.pointers.end();
  const bool with_defaults =
      !has_template_arguments &&
      std::any_of(targets.with_defaults.begin(), targets.with_defaults.end(), [&](const KernelWithDefaults& k) {
        return k.name == last_name && k.defined_after < tokens[*start].begin;
      });
  const bool by_arguments = !has_template_arguments &&
                            std::find(chosen_by_arguments.begin(), chosen_by_arguments.end(),
                                      tokens[open - 1].text) != chosen_by_arguments.end();
  if (through_pointer) {
    replacement.append("::minicuda::launch_through(").append(callee).append(")(").append(args).append("))");
  } else if (with_defaults) {
    replacement.append(callee).append("__minicuda_defaults(").append(args).append("))");
  } else if (by_arguments) {
    // A generic lambda that calls the kernel: the call deduces template arguments and picks the
    // overload; launch_deduced makes the lambda's call the launched kernel.
    const bool no_arguments = args.find_first_not_of(" \t\r\n") == std::string_view::npos;
    replacement.append("::minicuda::launch_deduced([](auto... minicuda_arguments) { ");
    replacement.append(callee).append("(minicuda_arguments...); }");
    if (!no_arguments) replacement.append(", ").append(args);
    replacement.append("))");
  } else {
    replacement.append("::minicuda::kernel_stub<").append(callee).append(">::launch(").append(args).append("))");
  }
  const std::size_t begin = tokens[*start].begin;
  const std::size_t end = tokens[*rparen].end;
  m.edit = Edit{begin, end, keep_line_count(source.substr(begin, end - begin), std::move(replacement))};
  m.resume = *rparen + 1;
  return m;
}

// ---- pass 2: extern __shared__ --------------------------------------------------------------

// True for the alignment specifiers dropped from a dynamic shared array's type.
bool is_alignment_specifier(const Token& t) {
  return t.is_identifier("__align__") || t.is_identifier("alignas");
}

}  // namespace

// True when the `{` at index `brace` opens a function body (a lambda's included). Read backwards
// from the brace: a function body follows the `)` of a parameter list, optionally with trailing
// specifiers in between (`const`, `noexcept(...)`, `override`, `mutable`, `__attribute__((...))`,
// `[[...]]`, `-> type`, `requires C<T>`); a lambda's body may also follow its `[...]` capture
// directly. Namespace, class, struct, union and enum braces follow a name, a base clause or
// `extern "C"`, and initializer braces follow `=`, a name or a `]`: none of these is a body.
// `if (...) {` and the like also count as bodies, which is harmless: they only occur inside one.
bool opens_function_body(const Tokens& tokens, std::size_t brace) {
  static constexpr std::string_view kClassKeys[] = {"namespace", "struct", "class", "union", "enum"};
  // Parenthesized groups that decorate a declaration rather than being its parameter list.
  static constexpr std::string_view kDecorations[] = {"noexcept", "throw",     "decltype", "alignas",
                                                      "__align__", "__attribute__", "__declspec"};
  std::size_t k = brace;
  while (k > 0) {
    const Token& t = tokens[k - 1];
    if (t.is_identifier()) {
      if (std::find(std::begin(kClassKeys), std::end(kClassKeys), t.text) != std::end(kClassKeys)) {
        return false;
      }
      --k;
    } else if (t.is_punct("::") || t.is_punct("*") || t.is_punct("&")) {
      --k;
    } else if (t.is_punct(">")) {
      if (k >= 2 && tokens[k - 2].is_punct("-") && adjacent(tokens[k - 2], t)) {
        k -= 2;  // the `->` of a trailing return type
        continue;
      }
      const auto open = matching_angle_open(tokens, k - 1);  // template arguments
      if (!open) return false;
      k = *open;
    } else if (t.is_punct(")")) {
      const auto open = matching_open(tokens, k - 1);
      if (!open || *open == 0) return false;
      const Token& before = tokens[*open - 1];
      const bool decoration =
          before.is_identifier() &&
          std::find(std::begin(kDecorations), std::end(kDecorations), before.text) != std::end(kDecorations);
      if (!decoration) return true;  // the parameter list
      k = *open - 1;
    } else if (t.is_punct("]")) {
      const auto open = matching_open(tokens, k - 1);
      if (!open) return false;
      const bool attribute = *open + 1 < tokens.size() && tokens[*open + 1].is_punct("[") &&
                             *open > 0 && tokens[*open - 1].kind != TokenKind::Identifier;
      if (attribute) {  // `[[...]]`: skip it
        k = *open;
        continue;
      }
      // `[captures] {` is a lambda; `name[] {` or `a[1][2] {` an array's initializer.
      if (*open == 0) return true;
      const Token& before = tokens[*open - 1];
      const bool subscript = (before.is_identifier() && !before.is_identifier("return")) ||
                             before.is_punct("]") || before.is_punct(")");
      return !subscript;
    } else {
      return false;  // `=`, `,`, `:`, `;`, `{`, `}`, a literal (`extern "C" {`), ...
    }
  }
  return false;
}

std::vector<bool> inside_function_bodies(const Tokens& tokens) {
  std::vector<bool> inside(tokens.size(), false);
  std::vector<bool> stack;  // for each open brace: whether the point inside it is in a function
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const bool here = !stack.empty() && stack.back();
    inside[k] = here;
    if (tokens[k].is_punct("{")) {
      stack.push_back(here || opens_function_body(tokens, k));
    } else if (tokens[k].is_punct("}")) {
      if (!stack.empty()) stack.pop_back();
    }
  }
  return inside;
}

namespace {

// The declaration `extern __shared__ ... ;` whose `extern` is at token `first` and `__shared__`
// at token `shared` (after `extern`, anywhere among the specifiers: `extern double __shared__
// s[];` is the same declaration), rewritten for function scope (`in_function`) or namespace
// scope, or a problem. `end` receives the index of its `;` (or of the token that stopped the
// match).
struct SharedMatch {
  std::optional<Edit> edit;
  std::string problem;
  std::size_t end = 0;
};

SharedMatch match_dynamic_shared(std::string_view source, const Tokens& tokens, std::size_t first,
                                 std::size_t shared, bool in_function) {
  SharedMatch m;
  std::vector<std::size_t> kept;  // the declaration's tokens minus __shared__ and alignment specifiers
  std::size_t k = first + 1;
  for (; k < tokens.size() && !tokens[k].is_punct(";"); ++k) {
    if (k == shared) continue;
    const Token& t = tokens[k];
    if (t.is_punct("{") || t.is_punct("}") || t.is_punct("=") || t.is_punct("(")) break;
    if (is_alignment_specifier(t) && k + 1 < tokens.size() && tokens[k + 1].is_punct("(")) {
      const auto close = matching_close(tokens, k + 1);
      if (!close) break;
      k = *close;
      continue;
    }
    kept.push_back(k);
  }
  m.end = k;
  const bool terminated = k < tokens.size() && tokens[k].is_punct(";");
  // Extents after the unsized bound (`T s[][N];`, an array of rows in function scope): the kept
  // tokens [n, kept.size()), their source text in `extents`.
  std::size_t n = kept.size();
  std::string_view extents;
  while (n >= 2 && tokens[kept[n - 1]].is_punct("]") && !tokens[kept[n - 2]].is_punct("[")) {
    std::size_t open = n - 1;
    for (int depth = 0; open-- > 0;) {
      if (tokens[kept[open]].is_punct("]")) ++depth;
      if (tokens[kept[open]].is_punct("[") && depth-- == 0) break;
    }
    if (open >= n) break;
    extents = source.substr(tokens[kept[open]].begin, tokens[kept.back()].end - tokens[kept[open]].begin);
    n = open;
  }
  const bool unsized_array = terminated && n >= 4 && tokens[kept[n - 1]].is_punct("]") &&
                             tokens[kept[n - 2]].is_punct("[") && tokens[kept[n - 3]].is_identifier();
  if (!unsized_array || (!extents.empty() && !in_function)) {
    m.problem = "'extern __shared__' is not of the form 'extern __shared__ TYPE NAME[];' (or 'NAME[][N]' in a "
                "function); left unchanged";
    return m;
  }
  // The type: the kept tokens before the name, separated by one space wherever the source
  // separated them (by whitespace, a comment or a dropped alignment specifier).
  std::string type;
  for (std::size_t i = 0; i + 3 < n; ++i) {
    const Token& t = tokens[kept[i]];
    if (i > 0 && !adjacent(tokens[kept[i - 1]], t)) type += ' ';
    type.append(t.text);
  }
  const std::string_view name = tokens[kept[n - 3]].text;
  std::string replacement;
  if (!extents.empty()) {  // T (* const name)[N] = reinterpret_cast<T (*)[N]>(dynamic_shared<T>());
    replacement = type + " (* const " + std::string(name) + ")" + std::string(extents) + " = reinterpret_cast<" + type +
                  " (*)" + std::string(extents) + ">(::minicuda::dynamic_shared<" + type + ">());";
  } else if (in_function) {
    replacement = type + "* const ";
    replacement.append(name).append(" = ::minicuda::dynamic_shared<").append(type).append(">();");
  } else {
    replacement = "::minicuda::DynamicShared<" + type + "> ";
    replacement.append(name).append(";");
  }
  const std::size_t begin = tokens[first].begin;
  const std::size_t end = tokens[k].end;
  m.edit = Edit{begin, end, keep_line_count(source.substr(begin, end - begin), std::move(replacement))};
  return m;
}

}  // namespace

std::string apply_edits(std::string_view source, std::size_t begin, std::size_t end, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(end - begin + (end - begin) / 4);
  std::size_t copied = begin;  // source[begin, copied) is already in `out`
  for (const Edit& e : edits) {
    if (e.begin < copied || e.end > end) continue;
    out.append(source.substr(copied, e.begin - copied));
    out.append(e.replacement);
    copied = e.end;
  }
  out.append(source.substr(copied, end - copied));
  return out;
}

std::string keep_line_count(std::string_view original, std::string replacement) {
  const std::size_t wanted = count_newlines(original);
  const std::size_t have = count_newlines(replacement);
  if (wanted > have) replacement.append(wanted - have, '\n');
  return replacement;
}

std::vector<Edit> rewrite_launches(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                                   const LaunchTargets& targets, std::vector<Diagnostic>& warnings) {
  std::vector<Edit> edits;
  std::size_t k = 0;
  while (k < tokens.size()) {
    if (!is_triple(tokens, k, "<")) {
      ++k;
      continue;
    }
    LaunchMatch m = match_launch(source, tokens, k, targets);
    if (m.edit) {
      edits.push_back(std::move(*m.edit));
    } else {
      warnings.push_back(Diagnostic{lines.line_of(tokens[k].begin), std::move(m.problem)});
    }
    k = m.resume;
  }
  return edits;
}

std::vector<Edit> rewrite_shared_alignment(std::string_view source, const Tokens& tokens) {
  std::vector<Edit> edits;
  for (std::size_t k = 0; k + 2 < tokens.size(); ++k) {
    if (!tokens[k].is_identifier("__shared__") || !is_alignment_specifier(tokens[k + 1]) || !tokens[k + 2].is_punct("("))
      continue;
    bool is_extern = false;  // an `extern` among the specifiers before __shared__
    for (std::size_t j = k; j-- > 0 && !tokens[j].is_punct(";") && !tokens[j].is_punct("{") && !tokens[j].is_punct("}");)
      is_extern = is_extern || tokens[j].is_identifier("extern");
    const auto close = matching_close(tokens, k + 2);
    if (is_extern || !close) continue;
    const std::size_t begin = tokens[k].begin, end = tokens[*close].end;
    std::string moved(source.substr(tokens[k + 1].begin, end - tokens[k + 1].begin));
    moved.append(" __shared__");
    edits.push_back(Edit{begin, end, keep_line_count(source.substr(begin, end - begin), std::move(moved))});
    k = *close;
  }
  return edits;
}

std::vector<Edit> rewrite_dynamic_shared(std::string_view source, const Tokens& tokens,
                                         const LineIndex& lines, std::vector<Diagnostic>& warnings) {
  std::vector<Edit> edits;
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k + 1 < tokens.size(); ++k) {
    if (!tokens[k].is_identifier("extern")) continue;
    // __shared__ among the specifiers before the declarator's `[` (or anything that ends a
    // declaration's specifiers).
    std::size_t shared = k + 1;
    while (shared < tokens.size() && !tokens[shared].is_identifier("__shared__") &&
           (tokens[shared].is_identifier() || tokens[shared].is_punct("::")))
      ++shared;
    if (shared >= tokens.size() || !tokens[shared].is_identifier("__shared__")) continue;
    SharedMatch m = match_dynamic_shared(source, tokens, k, shared, in_function[k]);
    if (m.edit) {
      edits.push_back(std::move(*m.edit));
    } else {
      warnings.push_back(Diagnostic{lines.line_of(tokens[k].begin), std::move(m.problem)});
    }
    k = std::max(k, m.end);
  }
  return edits;
}

}  // namespace minicuda::cu2cxx
