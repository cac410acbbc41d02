// cu2cxx: composes the scanner and the three passes into the generated file. Contracts:
// translate.h.
#include "translate.h"

#include <algorithm>

#include "fission.h"
#include "lexer.h"
#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

// What nvcc's host pass defines and includes before the .cu (docs/kernels.md, "__CUDACC__ and
// __CUDA_ARCH__"): the macro that says CUDA source is being compiled, CUDA 13.0's version, and
// the runtime header. Not __NVCC__: libraries read it as "the nvcc front end parses this" and
// work around that front end's limits (fmt turns constexpr off), which g++ does not have.
constexpr std::string_view kPrologue =
    "#define __CUDACC__ 1\n"
    "#define __CUDACC_VER_MAJOR__ 13\n"
    "#define __CUDACC_VER_MINOR__ 0\n"
    "#define __CUDACC_VER_BUILD__ 88\n"
    "#include \"cuda_runtime.h\"\n";

// `text` as the inside of a C string literal (for the #line path and the module name).
std::string escape_for_string_literal(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

// The last component of a path, '/' or '\\' separated.
std::string_view basename_of(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The appended block: a comment line and one MINICUDA_REGISTER_MODULE line; `kernels` are the
// MINICUDA_KERNEL(...) / MINICUDA_KERNEL_REGIONS(...) entries.
std::string registration_block(std::string_view module_name, const std::vector<std::string>& kernels) {
  std::string block =
      "// Appended by minicuda_cu2cxx: registers this file's kernels at start-up, as nvcc's host "
      "code does\n";
  block.append("MINICUDA_REGISTER_MODULE(\"").append(escape_for_string_literal(module_name)).append("\"");
  for (const std::string& k : kernels) block.append(", ").append(k);
  block.append(")\n");
  return block;
}

}  // namespace

std::vector<std::string> header_kernels_chosen_by_arguments(std::string_view header_source) {
  return kernels_chosen_by_arguments(tokenize(header_source));
}

Translation translate(std::string_view source, std::string_view input_path,
                      const std::vector<std::string>& header_kernels) {
  Translation result;
  const Tokens tokens = tokenize(source);
  const LineIndex lines(source);

  result.errors = find_dynamic_parallelism(tokens, lines);
  std::vector<std::string> chosen_by_arguments = kernels_chosen_by_arguments(tokens);
  chosen_by_arguments.insert(chosen_by_arguments.end(), header_kernels.begin(), header_kernels.end());
  std::vector<Edit> edits = rewrite_launches(source, tokens, lines, chosen_by_arguments, result.warnings);
  std::vector<Edit> shared = rewrite_dynamic_shared(source, tokens, lines, result.warnings);
  edits.insert(edits.end(), std::make_move_iterator(shared.begin()),
               std::make_move_iterator(shared.end()));
  std::vector<Edit> clock = rewrite_device_clock(tokens);
  edits.insert(edits.end(), std::make_move_iterator(clock.begin()), std::make_move_iterator(clock.end()));
  const std::vector<ModuleVariableSite> variables = find_module_variables(tokens, lines, result.warnings);
  std::vector<Edit> slots = rewrite_module_variables(tokens, variables);
  edits.insert(edits.end(), std::make_move_iterator(slots.begin()), std::make_move_iterator(slots.end()));
  std::stable_sort(result.warnings.begin(), result.warnings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });

  // Pass 4: a block function after each kernel that region fission can split (fission.h).
  const std::string line_path = escape_for_string_literal(input_path);
  const fission::FileContext file{source, tokens, lines, edits, line_path, fission::file_facts(source, tokens)};
  std::vector<std::string> entries;
  std::vector<Edit> block_functions;
  for (const KernelSite& site : registrable_kernel_sites(tokens)) {
    fission::KernelFission split = fission::split_kernel(file, site);
    result.kernels.push_back(site.qualified_name);
    entries.push_back(split.split ? "MINICUDA_KERNEL_REGIONS(" + site.qualified_name + ", " + split.block_function + ")"
                                  : "MINICUDA_KERNEL(" + site.qualified_name + ")");
    if (split.insertion) block_functions.push_back(std::move(*split.insertion));
    result.fission.push_back(FissionNote{site.qualified_name, split.split, std::move(split.reason)});
  }
  // Template kernels register at their first launch; a split one records its block function.
  for (const KernelSite& site : template_kernel_sites(tokens)) {
    fission::KernelFission split = fission::split_kernel(file, site);
    if (split.insertion) block_functions.push_back(std::move(*split.insertion));
    for (Edit& e : split.declarations) block_functions.push_back(std::move(e));
    result.fission.push_back(FissionNote{site.qualified_name, split.split, std::move(split.reason)});
  }
  std::string constant_total;
  for (const ModuleVariableSite& v : variables) {
    result.variables.push_back(v.qualified_name);
    entries.push_back("MINICUDA_VARIABLE(" + v.qualified_name + ", " + v.qualified_name + "__device, " +
                      (v.constant ? "1" : "0") + ")");
    if (v.constant) constant_total.append(constant_total.empty() ? "" : " + ").append("sizeof(" + v.qualified_name + ")");
  }
  edits.insert(edits.end(), std::make_move_iterator(block_functions.begin()),
               std::make_move_iterator(block_functions.end()));
  // Pass 5, first among equals: at a `{` that a launch follows at once, its #define goes first.
  std::vector<Edit> arch = define_cuda_arch_in_device_bodies(source, tokens, lines, line_path);
  edits.insert(edits.begin(), std::make_move_iterator(arch.begin()), std::make_move_iterator(arch.end()));

  result.text = kPrologue;
  result.text += "#line 1 \"";
  result.text.append(line_path).append("\"\n");
  result.text.append(apply_edits(source, 0, source.size(), std::move(edits)));
  if (!entries.empty()) {
    if (!result.text.ends_with('\n')) result.text += '\n';
    result.text.append(registration_block(basename_of(input_path), entries));
  }
  if (!constant_total.empty()) {
    // nvcc's ptxas refuses a module whose __constant__ data passes the 64 KiB bank; so does g++ here.
    result.text.append("static_assert(" + constant_total + " <= 65536, \"cu2cxx: the __constant__ variables of " +
                       escape_for_string_literal(basename_of(input_path)) +
                       " exceed the 64 KiB constant bank (nvcc rejects this file too)\");\n");
  }
  return result;
}

std::string format_warning(std::string_view path, const Diagnostic& diagnostic) {
  std::string out(path);
  out.append(":").append(std::to_string(diagnostic.line)).append(": warning: cu2cxx: ");
  out.append(diagnostic.message);
  return out;
}

std::string format_error(std::string_view path, const Diagnostic& diagnostic) {
  std::string out(path);
  out.append(":").append(std::to_string(diagnostic.line)).append(": error: cu2cxx: ");
  out.append(diagnostic.message);
  return out;
}

}  // namespace minicuda::cu2cxx
