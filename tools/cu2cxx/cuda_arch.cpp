// cu2cxx pass 5: `__CUDA_ARCH__` defined in device code only. Contract: rewrites.h
// (define_cuda_arch_in_device_bodies); the rule and why: docs/kernels.md.
//
// nvcc compiles a .cu twice: a device pass, where `__CUDA_ARCH__` holds the target's compute
// capability, and a host pass, where it is undefined. minicuda compiles it once, for a CPU that
// runs host and device code alike, so the translator defines the macro where only device code
// can be: inside the bodies of `__global__` and `__device__` functions. `__host__ __device__`
// functions have one body for both kinds of caller; it takes the host path, which runs anywhere.
#include <string>

#include "fission.h"  // for_each_directive
#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// The compute capability of the simulated GPU (an H200: 9.0), as nvcc's `-arch=sm_90` sets it.
constexpr std::string_view kCudaArch = "900";

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
  const std::vector<bool> in_function = inside_function_bodies(tokens);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    if (!tokens[k].is_punct("{") || in_function[k] || !opens_function_body(tokens, k)) continue;
    if (!declared_device_only(tokens, k)) continue;
    const auto close = matching_close(tokens, k);
    if (!close) continue;
    const std::string_view body = source.substr(tokens[k].end, tokens[*close].begin - tokens[k].end);
    if (!any_define_names_it && body.find("__CUDA_ARCH__") == std::string_view::npos) {
      k = *close;
      continue;
    }
    const std::string path = "\"" + std::string(line_path) + "\"\n";
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
