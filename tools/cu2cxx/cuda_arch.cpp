// cu2cxx pass 5: `__CUDA_ARCH__` defined in device code only. Contract: rewrites.h
// (define_cuda_arch_in_device_bodies); the rule and why: docs/kernels.md.
//
// nvcc compiles a .cu twice: a device pass, where `__CUDA_ARCH__` holds the target's compute
// capability, and a host pass, where it is undefined. minicuda compiles it once, for a CPU that
// runs host and device code alike, so the translator defines the macro where only device code
// can be: inside the bodies of `__global__` and `__device__` functions. `__host__ __device__`
// functions have one body for both kinds of caller; it takes the host path, which runs anywhere.
#include <algorithm>
#include <string>
#include <utility>

#include "directives.h"
#include "fission.h"  // for_each_directive
#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The compute capability of the simulated GPU (an H200: 9.0), as nvcc's `-arch=sm_90` sets it.
constexpr std::string_view kCudaArch = "900";

// Is every declaration among tokens [begin, end) (all at one brace depth) device-only: says
// __device__ or __global__, and not __host__, before its first `(`, `{` or `=`, and is there at
// least one? (A group without declarations, `#ifdef __CUDA_ARCH__ #error ...`, keeps the host
// view.) Declarations end at a `;` or at the `}` that closes one of their braces.
bool only_device_declarations(const Tokens& tokens, std::size_t begin, std::size_t end) {
  bool device = false, host = false, in_specifiers = true, any = false;
  int declarations = 0;
  for (std::size_t k = begin; k < end; ++k) {
    const Token& t = tokens[k];
    any = true;
    if (in_specifiers) {
      device = device || t.is_identifier("__device__") || t.is_identifier("__global__");
      host = host || t.is_identifier("__host__");
      if (t.is_punct("(") || t.is_punct("{") || t.is_punct("=")) in_specifiers = false;
    }
    bool ends = t.is_punct(";");
    if (t.is_punct("{") || t.is_punct("(") || t.is_punct("[")) {
      const auto close = matching_close(tokens, k);
      if (!close || *close >= end) return false;
      ends = t.is_punct("{") && (*close + 1 >= end || !tokens[*close + 1].is_punct(";"));
      k = *close;
      if (!ends) continue;
    }
    if (!ends) continue;
    if (!device || host) return false;
    ++declarations;
    device = host = any = false;
    in_specifiers = true;
  }
  return !any && declarations > 0;
}

// The file-scope conditional groups that choose between device code by `__CUDA_ARCH__`: an
// `#if`/`#ifdef`/`#ifndef` (or one of its `#elif`s) names the macro, it is outside every
// function body, and it declares only device code (only_device_declarations). As pairs of indices into
// `directives`: the opener and its `#endif`.
std::vector<std::pair<std::size_t, std::size_t>> device_arch_groups(const Tokens& tokens,
                                                                    const std::vector<Directive>& directives) {
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  const std::vector<std::size_t> closes = conditional_group_ends(directives);
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  auto first_token_after = [&](std::size_t offset) {
    return static_cast<std::size_t>(std::partition_point(tokens.begin(), tokens.end(),
                                                         [&](const Token& t) { return t.begin < offset; }) -
                                    tokens.begin());
  };
  for (std::size_t i = 0; i < directives.size(); ++i) {
    if (closes[i] == directives.size()) continue;
    bool names_it = false;
    for (std::size_t j = i; j < closes[i]; ++j) {
      const std::string_view n = directives[j].name;
      const bool condition = j == i || n == "elif" || n == "elifdef" || n == "elifndef";
      names_it = names_it || (condition && directives[j].rest.find("__CUDA_ARCH__") != std::string_view::npos);
    }
    if (!names_it) continue;
    const std::size_t first = first_token_after(directives[i].end);
    const std::size_t last = first_token_after(directives[closes[i]].begin);
    if ((first < tokens.size() && in_function[first]) || !only_device_declarations(tokens, first, last)) continue;
    groups.emplace_back(i, closes[i]);
    i = closes[i];
  }
  return groups;
}

}  // namespace

// Does the declaration that ends at the body `{` at `brace` say __global__ or __device__, and
// not __host__? It starts after the previous `;`, `{` or `}`.
bool declared_device_only(const Tokens& tokens, std::size_t brace) {
  bool device = false;
  for (std::size_t k = brace; k-- > 0;) {
    const Token& t = tokens[k];
    if (t.is_punct(";") || t.is_punct("{") || t.is_punct("}")) break;
    if (t.is_identifier("__host__")) return false;
    device = device || t.is_identifier("__global__") || t.is_identifier("__device__");
  }
  return device;
}

std::vector<Edit> define_cuda_arch_in_device_bodies(std::string_view source, const Tokens& tokens,
                                                    const LineIndex& lines, std::string_view line_path) {
  std::vector<Edit> edits;
  // Where nothing names the macro, defining it changes nothing: such bodies are left as they are
  // (so the generated file of an ordinary kernel does not change). A #define of the file that
  // names it may be expanded in any body.
  bool any_define_names_it = false;
  fission::for_each_directive(source, [&](std::string_view d) {
    any_define_names_it = any_define_names_it || (d.starts_with("define") && d.find("__CUDA_ARCH__") != d.npos);
  });
  const std::string path = "\"" + std::string(line_path) + "\"\n";
  // File-scope groups of device code chosen by the macro: defined around the whole group, so the
  // device branch is the one compiled (what nvcc's device pass keeps; its host pass has no use
  // for device-only declarations).
  const std::vector<Directive> directives = scan_directives(source);
  std::vector<std::pair<std::size_t, std::size_t>> wrapped;  // source ranges of those groups
  for (const auto& [open, close] : device_arch_groups(tokens, directives)) {
    const std::size_t begin = directives[open].begin, end = directives[close].end;
    edits.push_back(Edit{begin, begin,
                         "#define __CUDA_ARCH__ " + std::string(kCudaArch) + "\n#line " +
                             std::to_string(lines.line_of(begin)) + " " + path});
    edits.push_back(Edit{end, end, "\n#undef __CUDA_ARCH__\n#line " + std::to_string(lines.line_of(end) + 1) + " " +
                                       path.substr(0, path.size() - 1)});
    wrapped.emplace_back(begin, end);
  }
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k].is_punct("{") || in_function[k] || !opens_function_body(tokens, k)) continue;
    if (std::any_of(wrapped.begin(), wrapped.end(),
                    [&](const auto& r) { return r.first <= tokens[k].begin && tokens[k].begin < r.second; }))
      continue;  // the macro is defined around it already
    if (!declared_device_only(tokens, k)) continue;
    const auto close = matching_close(tokens, k);
    if (!close) continue;
    const std::string_view body = source.substr(tokens[k].end, tokens[*close].begin - tokens[k].end);
    if (!any_define_names_it && body.find("__CUDA_ARCH__") == std::string_view::npos) {
      k = *close;
      continue;
    }
    const std::size_t open_end = tokens[k].end, close_begin = tokens[*close].begin;
    edits.push_back(Edit{open_end, open_end,
                         "\n#define __CUDA_ARCH__ " + std::string(kCudaArch) + "\n#line " +
                             std::to_string(lines.line_of(open_end)) + " " + path});
    edits.push_back(Edit{close_begin, close_begin,
                         "\n#undef __CUDA_ARCH__\n#line " + std::to_string(lines.line_of(close_begin)) + " " + path});
    k = *close;
  }
  return edits;
}

}  // namespace minicuda::cu2cxx
