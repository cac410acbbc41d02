// cu2cxx pass 7: `__device__` and `__constant__` variables. Contract: rewrites.h
// (find_module_variables, rewrite_module_variables); the design and why: docs/kernels.md,
// "__device__ and __constant__ variables".
//
// The variable as declared stays a host variable: it is the host shadow nvcc's host pass also
// keeps, whose address is the symbol the runtime calls take and whose static initializer is the
// image the loader copies to the device. Its storage is in device memory, which the kernels reach
// through a slot declared next to it, `NAME__device`, a pointer the loader sets when the module's
// globals load; in device-only bodies, each use of NAME reads `(*NAME__device)`.
#include <string>

#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

bool is_attribute_word(const Token& t) {
  const std::string_view s = t.text;
  return t.is_identifier() && (s == "alignas" || (s.size() > 4 && s.starts_with("__") && s.ends_with("__")));
}

// The namespace name of the `{` at `brace` ("a::b", "" for an anonymous namespace or `extern "C"`),
// or nullopt when the brace opens anything else (a class, a function, an initializer).
std::optional<std::string> namespace_of_brace(const Tokens& tokens, std::size_t brace) {
  if (brace >= 1 && tokens[brace - 1].kind == TokenKind::Literal && brace >= 2 && tokens[brace - 2].is_identifier("extern"))
    return std::string();
  std::string name;
  for (std::size_t k = brace; k-- > 0;) {
    const Token& t = tokens[k];
    if (t.is_identifier("namespace")) return name;
    if (t.is_identifier("inline")) continue;
    if (t.is_punct("::")) {
      name.insert(0, "::");
      continue;
    }
    if (!t.is_identifier()) return std::nullopt;
    name.insert(0, t.text);
  }
  return std::nullopt;
}

// Reads the declaration whose `__device__`/`__constant__` is at token k (namespace scope).
// Returns false for what is not a variable definition this pass handles: a function, a template,
// an `extern` declaration, a __managed__ or __shared__ variable; more than one declarator is
// reported in warnings.
bool read_variable(const Tokens& tokens, std::size_t k, const LineIndex& lines, ModuleVariableSite& out,
                   std::vector<Diagnostic>& warnings) {
  std::size_t start = k;
  while (start > 0 && !tokens[start - 1].is_punct(";") && !tokens[start - 1].is_punct("{") &&
         !tokens[start - 1].is_punct("}"))
    --start;
  std::optional<std::size_t> name;
  std::size_t j = start;
  for (; j < tokens.size() && !tokens[j].is_punct(";"); ++j) {
    const Token& t = tokens[j];
    for (std::string_view w : {"template", "extern", "__managed__", "__shared__", "__global__", "__host__", "typedef",
                               "using", "operator"})
      if (t.is_identifier(w)) return false;
    if (t.is_identifier("__constant__")) out.constant = true;
    if (is_attribute_word(t) && j + 1 < tokens.size() && tokens[j + 1].is_punct("(")) {
      const auto close = matching_close(tokens, j + 1);
      if (!close) return false;
      j = *close;
      continue;
    }
    if (t.is_punct("(") && !name) return false;  // a function declaration or definition
    if (!name && (t.is_punct("[") || t.is_punct("=") || t.is_punct("{")) && j > 0 && tokens[j - 1].is_identifier())
      name = j - 1;
    if (t.is_punct("(") || t.is_punct("[") || t.is_punct("{")) {
      const auto close = matching_close(tokens, j);
      if (!close) return false;
      j = *close;
      continue;
    }
    if (t.is_punct(",")) {
      warnings.push_back(Diagnostic{lines.line_of(t.begin), "a __device__ or __constant__ declaration with more than "
                                                            "one variable is not registered; declare one per line"});
      return false;
    }
  }
  if (j >= tokens.size()) return false;
  if (!name && tokens[j - 1].is_identifier()) name = j - 1;
  if (!name) return false;
  out.name = std::string(tokens[*name].text);
  out.semicolon = j;
  return true;
}

}  // namespace

std::vector<ModuleVariableSite> find_module_variables(const Tokens& tokens, const LineIndex& lines,
                                                      std::vector<Diagnostic>& warnings) {
  std::vector<ModuleVariableSite> found;
  std::vector<std::optional<std::string>> scopes;  // per open brace: its namespace, or nullopt
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.is_punct("{")) {
      scopes.push_back(namespace_of_brace(tokens, k));
    } else if (t.is_punct("}")) {
      if (!scopes.empty()) scopes.pop_back();
    } else if (t.is_identifier("__device__") || t.is_identifier("__constant__")) {
      std::string prefix = "::";
      bool at_namespace_scope = true;
      for (const auto& s : scopes) {
        if (!s) at_namespace_scope = false;
        else if (!s->empty()) prefix.append(*s).append("::");
      }
      ModuleVariableSite site;
      if (!at_namespace_scope || !read_variable(tokens, k, lines, site, warnings)) continue;
      site.qualified_name = prefix + site.name;
      k = site.semicolon;
      found.push_back(std::move(site));
    }
  }
  return found;
}

std::vector<Edit> rewrite_module_variables(const Tokens& tokens, const std::vector<ModuleVariableSite>& variables) {
  std::vector<Edit> edits;
  if (variables.empty()) return edits;
  for (const ModuleVariableSite& v : variables) {
    const std::size_t at = tokens[v.semicolon].end;
    edits.push_back(Edit{at, at, std::string(" static ") + (v.constant ? "const " : "") + "decltype(" + v.name + ")* " +
                                     v.name + "__device = nullptr;"});
  }
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k].is_punct("{") || in_function[k] || !opens_function_body(tokens, k)) continue;
    const auto close = matching_close(tokens, k);
    if (!close) continue;
    if (!declared_device_only(tokens, k)) {
      k = *close;
      continue;
    }
    for (std::size_t j = k + 1; j < *close; ++j) {
      if (!tokens[j].is_identifier()) continue;
      const Token& before = tokens[j - 1];
      if (before.is_punct("::") || before.is_punct(".") || (before.is_punct(">") && tokens[j - 2].is_punct("-")))
        continue;  // a member or a qualified name: not the module's variable
      if (tokens[j + 1].is_punct("::")) continue;
      for (const ModuleVariableSite& v : variables) {
        if (tokens[j].text != v.name) continue;
        edits.push_back(Edit{tokens[j].begin, tokens[j].end, "(*" + v.name + "__device)"});
        break;
      }
    }
    k = *close;
  }
  return edits;
}

}  // namespace minicuda::cu2cxx
