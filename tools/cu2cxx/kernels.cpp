// cu2cxx pass 3: finds the kernels the appended registration block lists. Contract: rewrites.h
// (registrable_kernels).
//
// One forward walk over the tokens keeps a stack of the braces that enclose the current point:
// a namespace (named or anonymous), a linkage block (`extern "C" {`), or anything else (class,
// function, initializer). At each `__global__` the definition's name is read forwards and its
// template head, if any, backwards; the enclosing namespaces give the qualified name.
#include <algorithm>
#include <map>
#include <optional>

#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

struct Scope {
  enum class Kind { Namespace, Linkage, Other };
  Kind kind;
  std::string name;  // for a namespace: "a" or "a::b"; empty when anonymous
};

// A `__global__` function definition found in the file.
struct KernelDefinition {
  KernelSite site;
  bool is_template;  // site.template_keyword is its head's `template`
};

// Where defined_function_name found the definition.
struct FunctionTokens {
  std::string name;  // `k`, `a::b::k` or `::k`
  std::size_t name_token, params_open, params_close, body_open;
};

// Identifiers followed by a parenthesized argument list that decorate a declaration rather than
// name it: `__launch_bounds__(256, 2)`, `__attribute__((...))`, `alignas(16)`, and any other
// `__word__(...)` (`__maxnreg__`, `__cluster_dims__`, ...).
bool is_attribute_macro(const Token& t) {
  const std::string_view s = t.text;
  if (s == "alignas" || s == "__declspec") return true;
  return s.size() > 4 && s.starts_with("__") && s.ends_with("__");
}

// Tries to read `namespace [inline] a[::[inline] b...] {` at token k. On success pushes the scope
// and returns the index of its `{`; otherwise (an alias, `using namespace`) returns nullopt.
std::optional<std::size_t> open_namespace(const Tokens& tokens, std::size_t k,
                                          std::vector<Scope>& scopes) {
  std::string name;
  std::size_t j = k + 1;
  while (j < tokens.size()) {
    if (tokens[j].is_identifier("inline")) {
      ++j;
    } else if (tokens[j].is_identifier()) {
      if (!name.empty()) name += "::";
      name.append(tokens[j].text);
      ++j;
    } else if (tokens[j].is_punct("::")) {
      ++j;
    } else {
      break;
    }
  }
  if (j >= tokens.size() || !tokens[j].is_punct("{")) return std::nullopt;
  scopes.push_back(Scope{Scope::Kind::Namespace, std::move(name)});
  return j;
}

// The `template` token of the head of the `__global__` at token k, when it belongs to a
// template: walking backwards over the declaration's other specifiers and attributes (`static`,
// `__launch_bounds__(...)`, `[[...]]`, `extern "C"`) reaches a `template <...>` head before the
// previous declaration ends.
std::optional<std::size_t> template_head(const Tokens& tokens, std::size_t k) {
  std::size_t m = k;
  while (m > 0) {
    const Token& t = tokens[m - 1];
    if (t.is_identifier() || t.kind == TokenKind::Literal || t.is_punct("::")) {
      --m;
    } else if (t.is_punct(")") || t.is_punct("]")) {
      const auto open = matching_open(tokens, m - 1);
      if (!open) return std::nullopt;
      m = *open;
    } else if (t.is_punct(">")) {
      const auto open = matching_angle_open(tokens, m - 1);
      if (open && *open > 0 && tokens[*open - 1].is_identifier("template")) return *open - 1;
      return std::nullopt;
    } else {
      return std::nullopt;  // `;`, `}`, `{`, ...: the previous declaration or scope
    }
  }
  return std::nullopt;
}

// The function declared by the `__global__` at token k: its (possibly `::`-qualified) name, read
// forwards past the return type and attribute macros, when the declaration is a definition (its
// parameter list is followed by a body). nullopt for a declaration, an explicit specialization
// or instantiation (`k<int>(`), or anything unrecognized.
std::optional<FunctionTokens> defined_function_name(const Tokens& tokens, std::size_t k) {
  for (std::size_t j = k + 1; j < tokens.size(); ++j) {
    const Token& t = tokens[j];
    if (t.is_punct("[")) {  // a [[standard attribute]]
      const auto close = matching_close(tokens, j);
      if (!close) return std::nullopt;
      j = *close;
      continue;
    }
    if (!t.is_identifier()) {
      if (t.is_punct("*") || t.is_punct("&") || t.is_punct("::")) continue;
      return std::nullopt;  // `;`, `{`, `(`, `<`, ...
    }
    if (j + 1 >= tokens.size() || !tokens[j + 1].is_punct("(")) continue;  // `void`, `static`, ...
    const auto close = matching_close(tokens, j + 1);
    if (!close) return std::nullopt;
    if (is_attribute_macro(t)) {
      j = *close;
      continue;
    }
    // The name: `k`, or `a::b::k` when defined outside its namespace.
    std::size_t first = j;
    while (first >= 2 && tokens[first - 1].is_punct("::") && tokens[first - 2].is_identifier()) {
      first -= 2;
    }
    std::string name;
    for (std::size_t i = first; i <= j; i += 2) {
      if (!name.empty()) name += "::";
      name.append(tokens[i].text);
    }
    if (first >= 1 && tokens[first - 1].is_punct("::")) name.insert(0, "::");  // `void ::k()`
    // A definition has a body after the parameters (and any trailing specifiers).
    for (std::size_t m = *close + 1; m < tokens.size(); ++m) {
      const Token& after = tokens[m];
      if (after.is_punct("{")) return FunctionTokens{name, j, j + 1, *close, m};
      if (after.is_punct(";") || after.is_punct("=") || after.is_punct(",") || after.is_punct("}")) {
        return std::nullopt;
      }
      if (after.is_punct("(") || after.is_punct("[")) {
        const auto group_end = matching_close(tokens, m);
        if (!group_end) return std::nullopt;
        m = *group_end;
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// "::" plus the names of the enclosing named namespaces, or nullopt when a class, function or
// other non-namespace brace encloses the point (no kernel can be defined there).
std::optional<std::string> namespace_prefix(const std::vector<Scope>& scopes) {
  std::string prefix = "::";
  for (const Scope& s : scopes) {
    if (s.kind == Scope::Kind::Other) return std::nullopt;
    if (s.kind == Scope::Kind::Namespace && !s.name.empty()) prefix.append(s.name).append("::");
  }
  return prefix;
}

// Every `__global__` function definition in the file, in source order.
std::vector<KernelDefinition> kernel_definitions(const Tokens& tokens) {
  std::vector<KernelDefinition> found;
  std::vector<Scope> scopes;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.is_identifier("namespace")) {
      if (const auto brace = open_namespace(tokens, k, scopes)) k = *brace;
    } else if (t.is_identifier("extern") && k + 2 < tokens.size() &&
               tokens[k + 1].kind == TokenKind::Literal && tokens[k + 2].is_punct("{")) {
      scopes.push_back(Scope{Scope::Kind::Linkage, {}});
      k += 2;
    } else if (t.is_punct("{")) {
      scopes.push_back(Scope{Scope::Kind::Other, {}});
    } else if (t.is_punct("}")) {
      if (!scopes.empty()) scopes.pop_back();
    } else if (t.is_identifier("__global__")) {
      const auto prefix = namespace_prefix(scopes);
      const auto name = prefix ? defined_function_name(tokens, k) : std::nullopt;
      if (!name) continue;
      const std::string qualified = name->name.starts_with("::") ? name->name : *prefix + name->name;
      const auto body_close = matching_close(tokens, name->body_open);
      if (!body_close) continue;
      const bool outside = name->name.find("::") != std::string::npos;
      const auto head = template_head(tokens, k);
      found.push_back(KernelDefinition{KernelSite{qualified, name->name_token, name->params_open, name->params_close,
                                                  name->body_open, *body_close, outside, head.value_or(kNoTemplate)},
                                       head.has_value()});
    }
  }
  return found;
}

}  // namespace

std::vector<KernelSite> registrable_kernel_sites(const Tokens& tokens) {
  const std::vector<KernelDefinition> definitions = kernel_definitions(tokens);
  // Overloads (templates included) share a name that MINICUDA_KERNEL could not resolve.
  std::map<std::string, int> definitions_per_name;
  for (const KernelDefinition& d : definitions) ++definitions_per_name[d.site.qualified_name];
  std::vector<KernelSite> sites;
  for (const KernelDefinition& d : definitions) {
    if (!d.is_template && definitions_per_name[d.site.qualified_name] == 1) sites.push_back(d.site);
  }
  return sites;
}

std::vector<KernelSite> template_kernel_sites(const Tokens& tokens) {
  const std::vector<KernelDefinition> definitions = kernel_definitions(tokens);
  std::map<std::string, int> definitions_per_name;
  for (const KernelDefinition& d : definitions) ++definitions_per_name[d.site.qualified_name];
  std::vector<KernelSite> sites;
  for (const KernelDefinition& d : definitions) {
    if (d.is_template && definitions_per_name[d.site.qualified_name] == 1) sites.push_back(d.site);
  }
  return sites;
}

std::vector<std::string> kernels_chosen_by_arguments(const Tokens& tokens) {
  const std::vector<KernelDefinition> definitions = kernel_definitions(tokens);
  std::map<std::string, int> definitions_per_name;
  for (const KernelDefinition& d : definitions) ++definitions_per_name[d.site.qualified_name];
  std::vector<std::string> names;
  for (const KernelDefinition& d : definitions) {
    if (!d.is_template && definitions_per_name[d.site.qualified_name] == 1) continue;
    const std::string& q = d.site.qualified_name;
    const std::size_t colon = q.rfind("::");
    std::string last = colon == std::string::npos ? q : q.substr(colon + 2);
    if (std::find(names.begin(), names.end(), last) == names.end()) names.push_back(std::move(last));
  }
  return names;
}

std::vector<std::string> registrable_kernels(const Tokens& tokens) {
  std::vector<std::string> names;
  for (const KernelSite& site : registrable_kernel_sites(tokens)) names.push_back(site.qualified_name);
  return names;
}

}  // namespace minicuda::cu2cxx
