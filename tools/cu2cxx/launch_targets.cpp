// cu2cxx: what pass 1 needs to know about a launch's callee besides its name - whether it is a
// variable holding a kernel's address, and whether the kernel has default arguments. Contracts:
// rewrites.h (function_pointer_variables, default_argument_helpers).
#include <algorithm>
#include <set>
#include <string>

#include "fission.h"  // joined
#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The names declared `__global__` in the file: the identifier before the `(` of each declaration
// (from the previous `;`, `{` or `}`) that says __global__.
std::set<std::string, std::less<>> global_function_names(const Tokens& tokens) {
  std::set<std::string, std::less<>> names;
  bool global = false;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.is_punct(";") || t.is_punct("{") || t.is_punct("}")) {
      global = false;
    } else if (t.is_identifier("__global__")) {
      global = true;
    } else if (global && t.is_punct("(") && k > 0 && tokens[k - 1].is_identifier()) {
      names.emplace(tokens[k - 1].text);
      global = false;
    }
  }
  return names;
}

// Words that end a parameter's type, never its name.
bool is_type_word(std::string_view w) {
  static constexpr std::string_view kWords[] = {"int",      "float",  "double", "char",     "short",  "long",
                                                "unsigned", "signed", "bool",   "void",     "const",  "volatile",
                                                "auto",     "struct", "class",  "__restrict__", "size_t"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// The name declared by the parameter tokens [begin, end) (its default argument excluded), or
// empty when it has none: the last identifier, after any array bounds, if a type precedes it.
std::string parameter_name(const Tokens& tokens, std::size_t begin, std::size_t end) {
  std::size_t last = end;
  while (last > begin && tokens[last - 1].is_punct("]")) {
    const auto open = matching_open(tokens, last - 1);
    if (!open || *open < begin) return {};
    last = *open;
  }
  if (last <= begin + 1) return {};  // nothing before it: a type alone
  const Token& name = tokens[last - 1];
  const Token& before = tokens[last - 2];
  if (!name.is_identifier() || is_type_word(name.text) || before.is_punct("::") ||
      before.is_identifier("const") || before.is_identifier("volatile") || before.is_identifier("struct") ||
      before.is_identifier("unsigned") || before.is_identifier("signed") || before.is_punct("<") ||
      before.is_punct(","))
    return {};
  return std::string(name.text);
}

}  // namespace

std::vector<std::string> function_pointer_variables(const Tokens& tokens) {
  const std::set<std::string, std::less<>> kernels = global_function_names(tokens);
  std::set<std::string> found;
  for (std::size_t k = 0; k + 4 < tokens.size(); ++k) {
    // A declarator `(*NAME)(`: a pointer to a function.
    if (tokens[k].is_punct("(") && tokens[k + 1].is_punct("*") && tokens[k + 2].is_identifier() &&
        tokens[k + 3].is_punct(")") && tokens[k + 4].is_punct("(") && !kernels.contains(tokens[k + 2].text))
      found.emplace(tokens[k + 2].text);
  }
  for (std::size_t k = 0; k + 2 < tokens.size(); ++k) {
    // `NAME = K` or `NAME = &K`, K a kernel of the file: NAME holds its address.
    if (!tokens[k].is_identifier() || !tokens[k + 1].is_punct("=") || kernels.contains(tokens[k].text)) continue;
    if (k > 0 && (tokens[k - 1].is_punct(".") || tokens[k - 1].is_punct(">"))) continue;  // a member
    std::size_t value = k + 2;
    if (tokens[value].is_punct("&") && value + 1 < tokens.size()) ++value;
    if (tokens[value].is_identifier() && kernels.contains(tokens[value].text) &&
        (value + 1 == tokens.size() || tokens[value + 1].is_punct(";") || tokens[value + 1].is_punct(",")))
      found.emplace(tokens[k].text);
  }
  return {found.begin(), found.end()};
}

std::vector<Edit> default_argument_helpers(const Tokens& tokens, const std::vector<KernelSite>& sites,
                                           std::vector<KernelWithDefaults>& kernels) {
  std::vector<Edit> edits;
  for (const KernelSite& site : sites) {
    if (site.qualified_definition) continue;
    bool has_default = false;
    bool all_named = true;
    std::string names;
    std::size_t begin = site.params_open + 1;
    for (std::size_t k = begin; k <= site.params_close && all_named; ++k) {
      const Token& t = tokens[k];
      if (t.is_punct("(") || t.is_punct("[") || t.is_punct("{")) {
        k = matching_close(tokens, k).value_or(site.params_close);
        continue;
      }
      if (t.is_punct("<")) {  // template arguments in a parameter's type: step over them
        k = fission::matching_angle_close(tokens, k, site.params_close).value_or(k);
        continue;
      }
      if (!t.is_punct(",") && k != site.params_close) continue;
      std::size_t declarator_end = k;
      for (std::size_t j = begin; j < k; ++j) {
        if (tokens[j].is_punct("(") || tokens[j].is_punct("[") || tokens[j].is_punct("{")) {
          j = matching_close(tokens, j).value_or(k);
        } else if (tokens[j].is_punct("=")) {
          declarator_end = j;
          has_default = true;
          break;
        }
      }
      if (begin < k) {
        const std::string name = parameter_name(tokens, begin, declarator_end);
        all_named = !name.empty();
        names.append(names.empty() ? "" : ", ").append(name);
      }
      begin = k + 1;
    }
    if (!has_default || !all_named) continue;
    const std::string name(tokens[site.name].text);
    std::string helper = " [[maybe_unused]] static void " + name + "__minicuda_defaults(" +
                         fission::joined(tokens, site.params_open + 1, site.params_close) +
                         ") { ::minicuda::kernel_stub<&" + name + ">::launch(" + names + "); }";
    const std::size_t at = tokens[site.body_close].end;
    edits.push_back(Edit{at, at, std::move(helper)});
    kernels.push_back(KernelWithDefaults{name, tokens[site.body_close].begin});
  }
  return edits;
}

}  // namespace minicuda::cu2cxx
