// cu2cxx: `__cluster_dims__(x, y, z)` on a kernel (thread block clusters, docs/clusters.md).
// Contract: every `__cluster_dims__(...)` of the file is removed (host_defines.h turns one left in
// plain C++ into a compile error); the one in the declaration of a registrable kernel (a
// non-template __global__ definition) becomes its registration's cluster shape:
// `::minicuda::detail::with_cluster_dims(MINICUDA_KERNEL(k), x, y, z)`, the arguments as written.
// Any other (a template kernel, a declaration that is no definition) is an error: its kernel would
// otherwise run without the cluster it was written for.
#include "rewrites.h"

namespace minicuda::cu2cxx {

ClusterDims find_cluster_dims(std::string_view source, const Tokens& tokens, const LineIndex& lines,
                              const std::vector<KernelSite>& sites, std::vector<Diagnostic>& errors) {
  ClusterDims out;
  for (std::size_t k = 0; k + 1 < tokens.size(); ++k) {
    if (!tokens[k].is_identifier("__cluster_dims__") || !tokens[k + 1].is_punct("(")) continue;
    const auto close = matching_close(tokens, k + 1);
    if (!close) continue;
    const std::size_t args_begin = tokens[k + 1].end, args_end = tokens[*close].begin;
    std::string removed = "/* __cluster_dims__ */";
    removed.append(count_newlines(source.substr(tokens[k].begin, tokens[*close].end - tokens[k].begin)), '\n');
    out.edits.push_back(Edit{tokens[k].begin, tokens[*close].end, std::move(removed)});
    // The kernel whose head holds it: the first site named after it, with no `;`, `{` or `}` between.
    const KernelSite* owner = nullptr;
    for (const KernelSite& s : sites) {
      if (s.name <= *close || s.template_keyword != kNoTemplate) continue;
      bool same = true;
      for (std::size_t j = *close + 1; j < s.name && same; ++j)
        same = !(tokens[j].is_punct(";") || tokens[j].is_punct("{") || tokens[j].is_punct("}"));
      if (same) owner = &s;
      break;
    }
    if (owner == nullptr) {
      errors.push_back(Diagnostic{lines.line_of(tokens[k].begin),
                                  "__cluster_dims__ is supported on the definition of a non-template kernel only "
                                  "(minicuda); launch other kernels with cudaLaunchKernelEx and "
                                  "cudaLaunchAttributeClusterDimension"});
      continue;
    }
    std::string args(source.substr(args_begin, args_end - args_begin));
    for (char& c : args) c = c == '\n' ? ' ' : c;
    out.shapes.emplace_back(owner->qualified_name, std::move(args));
  }
  return out;
}

}  // namespace minicuda::cu2cxx
