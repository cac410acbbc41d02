// cu2cxx region fission: reading a `__device__` function for inlining (fission_inline.h): its
// head (result type, parameters), the names its body declares, and the scope it is defined in.
// Anything not read with certainty is a reason to keep fibers.
#include "fission_inline.h"
#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {
namespace {

constexpr std::string_view kDroppedSpecifiers[] = {"static", "inline", "__inline__", "__device__", "__host__",
                                                    "__forceinline__", "__noinline__", "constexpr", "extern"};

bool is_dropped_specifier(std::string_view word) {
  for (std::string_view s : kDroppedSpecifiers)
    if (word == s) return true;
  return false;
}

// Statement words that start no declaration.
bool is_statement_word(std::string_view w) {
  static constexpr std::string_view kWords[] = {"return", "break", "continue", "if", "for", "while", "do", "switch",
                                                "sizeof", "static_assert", "else", "goto", "case", "default",
                                                "delete", "throw", "co_return", "asm", "__asm__", "true", "false"};
  for (std::string_view s : kWords)
    if (w == s) return true;
  return false;
}

// Reads the statement [b, e) as a declaration (e one past its `;`, or the end of a for-init or
// condition): its declarators' names into `names`. Returns false when it looks like a
// declaration but cannot be read; a statement that is no declaration adds nothing.
bool read_declaration(const Tokens& t, std::size_t b, std::size_t e, std::set<std::string, std::less<>>& names,
                      std::set<std::string, std::less<>>& flagged) {
  if (b >= e || !t[b].is_identifier() || is_statement_word(t[b].text)) return true;
  int words = 0;
  bool special = false;
  std::size_t k = b;
  for (; k < e; ++k) {
    const Token& w = t[k];
    if (w.is_punct("*") || w.is_punct("&")) break;
    if (w.is_punct("::")) continue;
    if (!w.is_identifier()) return words == 0;
    if (w.is_identifier("__shared__") || w.is_identifier("static") || w.is_identifier("extern") ||
        w.is_identifier("thread_local"))
      special = true;
    if (k + 1 >= e) return words == 0;
    const Token& next = t[k + 1];
    if (w.is_identifier("decltype") && next.is_punct("(")) {
      k = *matching_close(t, k + 1);
      ++words;
      continue;
    }
    if (next.is_punct(";") || next.is_punct(",") || next.is_punct("[") || next.is_punct("(") || next.is_punct("{") ||
        next.is_punct(":") || (next.is_punct("=") && !(k + 2 < e && t[k + 2].is_punct("="))))
      break;
    if (next.is_punct("<")) {
      const auto close = matching_angle_close(t, k + 1, e);
      if (!close) return words == 0;
      k = *close;
      ++words;
      continue;
    }
    if (next.is_punct("::")) continue;
    if (next.is_identifier() || next.is_punct("*") || next.is_punct("&")) {
      ++words;
      continue;
    }
    return words == 0;
  }
  if (words == 0) return true;  // an expression statement
  while (true) {
    bool reference = false;
    while (k < e && (t[k].is_punct("*") || t[k].is_punct("&") || t[k].is_identifier("const") ||
                     t[k].is_identifier("volatile") || t[k].is_identifier("__restrict__"))) {
      reference = reference || t[k].is_punct("&");
      ++k;
    }
    if (k >= e || !t[k].is_identifier()) return false;
    const std::string name(t[k].text);
    ++k;
    bool array = false;
    while (k < e && t[k].is_punct("[")) {
      array = true;
      k = *matching_close(t, k) + 1;
    }
    names.insert(name);
    if (reference || array || special) flagged.insert(name);
    if (k < e && t[k].is_punct("=")) {
      for (++k; k < e && !t[k].is_punct(",") && !t[k].is_punct(";"); ++k) {
        if (t[k].is_punct("<")) return false;  // `a < b, c` or template arguments: not read
        if (t[k].is_punct("(") || t[k].is_punct("[") || t[k].is_punct("{")) k = *matching_close(t, k);
      }
    } else if (k < e && (t[k].is_punct("(") || t[k].is_punct("{"))) {
      k = *matching_close(t, k) + 1;
    } else if (k < e && t[k].is_punct(":")) {
      return true;  // a range-for's declaration
    }
    if (k >= e || t[k].is_punct(";")) return true;
    if (!t[k].is_punct(",")) return false;
    ++k;
  }
}

}  // namespace

bool declared_names(const Tokens& t, std::size_t begin, std::size_t end, std::set<std::string, std::less<>>& names,
                    std::set<std::string, std::less<>>& flagged) {
  for (std::size_t k = begin; k < end;) {
    const auto e = statement_end(t, k, end);
    if (!e) return false;
    const Token& w = t[k];
    if (w.is_punct("{")) {
      if (!declared_names(t, k + 1, *e - 1, names, flagged)) return false;
    } else if (w.is_identifier("for") || w.is_identifier("while") || w.is_identifier("switch") || w.is_identifier("if")) {
      std::size_t open = k + 1;
      if (open < *e && t[open].is_identifier("constexpr")) ++open;
      if (open >= *e || !t[open].is_punct("(")) return false;
      const std::size_t close = *matching_close(t, open);
      // The init statement (`for (int i = 0; ...`) or a condition's declaration.
      std::size_t init_end = close;
      for (std::size_t j = open + 1; j < close; ++j) {
        if (t[j].is_punct("(") || t[j].is_punct("[") || t[j].is_punct("{")) j = *matching_close(t, j);
        else if (t[j].is_punct(";")) { init_end = j; break; }
      }
      if (!read_declaration(t, open + 1, init_end, names, flagged)) return false;
      // The body, or an if's then-statement and its else.
      const auto then_end = statement_end(t, close + 1, *e);
      if (!then_end || !declared_names(t, close + 1, *then_end, names, flagged)) return false;
      if (*then_end < *e && (!t[*then_end].is_identifier("else") || !declared_names(t, *then_end + 1, *e, names, flagged)))
        return false;
    } else if (w.is_identifier("do")) {
      if (!declared_names(t, k + 1, *e, names, flagged)) return false;
    } else if (!read_declaration(t, k, *e, names, flagged)) {
      return false;
    }
    k = *e;
  }
  return true;
}

std::optional<std::string> namespace_at(const Tokens& t, std::size_t at) {
  // One walk from the start: a stack of the braces open at each point, each a namespace (its
  // name), a linkage block ("" kept as is) or anything else (nullopt).
  std::vector<std::optional<std::string>> stack;
  for (std::size_t k = 0; k < at && k < t.size(); ++k) {
    if (t[k].is_punct("{")) {
      std::optional<std::string> scope;
      std::size_t j = k;
      std::string name;
      while (j > 0 && (t[j - 1].is_identifier() || t[j - 1].is_punct("::"))) --j;
      if (j > 0 && t[j - 1].kind == TokenKind::Literal && j > 1 && t[j - 2].is_identifier("extern") && j == k) {
        scope = std::string("\x01");  // extern "C" {
      } else if (t[j].is_identifier("namespace") || (j + 1 < k && t[j].is_identifier("inline") && t[j + 1].is_identifier("namespace"))) {
        for (std::size_t n = j; n < k; ++n)
          if (t[n].is_identifier() && !t[n].is_identifier("namespace") && !t[n].is_identifier("inline"))
            name.append(name.empty() ? "" : "::").append(t[n].text);
        scope = name;
      }
      stack.push_back(scope);
    } else if (t[k].is_punct("}")) {
      if (stack.empty()) return std::nullopt;
      stack.pop_back();
    }
  }
  std::string path;
  for (const auto& scope : stack) {
    if (!scope) return std::nullopt;
    if (*scope == "\x01") continue;
    path.append(path.empty() ? "" : "::").append(scope->empty() ? "(anonymous)" : *scope);
  }
  return path;
}

std::optional<std::string> read_callee(const FileContext& file, std::size_t body_open, const std::set<std::string>& cg,
                                       Callee& c) {
  const Tokens& t = file.tokens;
  const auto close = matching_close(t, body_open);
  if (!close || body_open < 3 || !t[body_open - 1].is_punct(")")) return "cu2cxx cannot read its definition";
  c.body_open = body_open, c.body_close = *close;
  c.params_close = body_open - 1;
  c.params_open = *matching_open(t, c.params_close);
  const std::size_t name = c.params_open - 1;
  c.name = std::string(t[name].text);
  if (name > 0 && (t[name - 1].is_punct("::") || t[name - 1].is_punct("~"))) return "it is defined with a qualified name";
  // The head: back to the end of the previous declaration.
  std::size_t head = name;
  while (head > 0 && !t[head - 1].is_punct(";") && !t[head - 1].is_punct("}") && !t[head - 1].is_punct("{")) --head;
  bool device = false;
  std::vector<std::size_t> type;
  for (std::size_t k = head; k < name; ++k) {
    const Token& w = t[k];
    if (w.is_identifier("template") || w.is_punct("<") || w.is_punct(">"))
      return "it is a template or returns a template type";
    if (w.is_identifier("__device__")) device = true;
    if (w.is_identifier() && is_dropped_specifier(w.text)) continue;
    if (w.is_punct("(") || w.is_punct("[") || w.is_punct("&") || w.is_identifier("auto") || w.is_identifier("decltype") ||
        w.is_identifier("volatile") || w.is_identifier("operator") || w.kind == TokenKind::Literal)
      return "cu2cxx cannot name its result type (" + joined(t, head, name) + ")";
    type.push_back(k);
  }
  if (!device) return "it is not declared __device__";
  if (type.empty()) return "cu2cxx cannot read its result type";
  bool pointer = false, all_keywords = true;
  for (std::size_t k : type) {
    if (t[k].is_punct("*")) {
      pointer = true;
    } else if (t[k].is_identifier("const")) {
      bool star_after = false;  // `const T*` is a pointer a local can hold; `const T` is not assignable
      for (std::size_t j : type) star_after = star_after || (j > k && t[j].is_punct("*"));
      if (!star_after) return "its result type is const";
    } else if (!t[k].is_identifier() || !is_type_keyword(t[k].text)) {
      all_keywords = false;
    }
  }
  std::string result;
  for (std::size_t k : type) result.append(result.empty() ? "" : " ").append(t[k].text);
  if (result != "void") {
    c.result_type = result;
    c.checked_result = !pointer && !all_keywords;
  }
  // Parameters.
  std::size_t k = c.params_open + 1;
  if (k + 1 == c.params_close && t[k].is_identifier("void")) k = c.params_close;
  while (k < c.params_close) {
    std::size_t e = k;
    for (; e < c.params_close && !t[e].is_punct(","); ++e) {
      if (t[e].is_punct("(") || t[e].is_punct("[") || t[e].is_punct("{") || t[e].is_punct("=") || t[e].is_punct(".") ||
          t[e].is_punct("<"))
        return "cu2cxx cannot read its parameter " + joined(t, k, e + 1) + " (an array, a default, a pack, a template)";
    }
    const std::size_t n = e - 1;
    if (n <= k || !t[n].is_identifier() || is_type_keyword(t[n].text) || t[n].is_identifier("const"))
      return "it has an unnamed parameter";
    CalleeParam p;
    p.name = std::string(t[n].text), p.first = k, p.name_token = n;
    int ampersands = 0;
    for (std::size_t j = k; j < n; ++j) ampersands += t[j].is_punct("&") ? 1 : 0;
    if (ampersands > 1) return "it takes an rvalue reference " + p.name;
    // `[const] NS::thread_block [&]`
    std::size_t j = k;
    if (t[j].is_identifier("const")) ++j;
    if (t[j].is_punct("::")) ++j;
    if (j + 2 < n && t[j].is_identifier() && cg.contains(std::string(t[j].text)) && t[j + 1].is_punct("::") &&
        t[j + 2].is_identifier("thread_block") && (j + 3 == n || (j + 4 == n && t[j + 3].is_punct("&")))) {
      p.kind = CalleeParam::Kind::BlockHandle;
    } else if (ampersands == 1) {
      // `T& p`, T one built-in type word (no class: a reference to a base could see other members).
      const bool simple = n == k + 2 && t[k].is_identifier() && is_type_keyword(t[k].text) && t[k + 1].is_punct("&");
      if (!simple) return "it takes " + p.name + " by a reference cu2cxx does not replace (" + joined(t, k, n + 1) + ")";
      p.kind = CalleeParam::Kind::Reference;
    }
    c.params.push_back(std::move(p));
    k = e + 1;
  }
  // The body: its declarations, and one return, its last statement.
  if (!declared_names(t, body_open + 1, c.body_close, c.locals, c.flagged))
    return "cu2cxx cannot read a declaration in its body";
  for (std::size_t j = body_open + 1; j < c.body_close; ++j)
    if (t[j].is_identifier("__shared__") || t[j].is_identifier("static")) c.holds_shared = true;
  std::size_t last = body_open + 1;
  for (std::size_t s = body_open + 1; s < c.body_close;) {
    const auto e = statement_end(t, s, c.body_close);
    if (!e) return "cu2cxx cannot delimit a statement of its body";
    last = s;
    s = *e;
  }
  for (std::size_t j = body_open + 1; j < c.body_close; ++j) {
    if (!t[j].is_identifier("return")) continue;
    if (j != last) return "it returns before its last statement";
    c.final_return = j;
  }
  if (!c.result_type.empty() && c.final_return == 0) return "it does not end with a return statement";
  if (c.result_type.empty() && c.final_return != 0 && !t[c.final_return + 1].is_punct(";"))
    return "cu2cxx cannot read its return statement";
  return std::nullopt;
}

}  // namespace minicuda::cu2cxx::fission
