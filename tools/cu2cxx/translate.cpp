// cu2cxx: composes the scanner and the three passes into the generated file. Contracts:
// translate.h.
#include "translate.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "directives.h"
#include "fission.h"
#include "inline_ptx.h"
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
// MINICUDA_KERNEL(...) / MINICUDA_KERNEL_REGIONS(...) entries, first the headers' entry macros
// (each expands to nothing or to entries followed by a comma, so none is separated by a comma
// of its own), then the file's own entries (without them the list may end with a comma).
// `uses_heap`: the file's device code uses the device heap (MINICUDA_REGISTER_MODULE_WITH_HEAP).
std::string registration_block(std::string_view module_name, const std::vector<std::string>& kernels, bool uses_heap) {
  std::string block =
      "// Appended by minicuda_cu2cxx: registers this file's kernels at start-up, as nvcc's host "
      "code does\n";
  block.append(uses_heap ? "MINICUDA_REGISTER_MODULE_WITH_HEAP(\"" : "MINICUDA_REGISTER_MODULE(\"").append(escape_for_string_literal(module_name)).append("\"");
  std::size_t k = 0;
  for (; k < kernels.size() && kernels[k].starts_with("MINICUDA_CU2CXX_ENTRIES_"); ++k)
    block.append(k == 0 ? ", " : " ").append(kernels[k]);
  for (std::size_t own_k = k; own_k < kernels.size(); ++own_k)
    block.append(own_k == 0 ? ", " : (own_k == k ? " " : ", ")).append(kernels[own_k]);
  block.append(")\n");
  return block;
}

}  // namespace

std::vector<std::string> header_kernels_chosen_by_arguments(std::string_view header_source) {
  return kernels_chosen_by_arguments(tokenize(header_source));
}

namespace {

// What translating the headers a .cu includes shares (translate.h, "headers").
struct HeaderContext {
  const IncludeReader* read = nullptr;
  std::map<std::string, int> ids;             // header path -> its number in the generated names
  std::map<std::string, std::string> inlined;  // header path -> its translation, as inlined
  std::vector<std::string> stack;              // the headers being translated, outermost first
  std::vector<int> with_entries;               // headers whose kernels or variables are registered
  std::vector<KernelWithDefaults> with_defaults;  // their kernels with default arguments
  std::string constant_total;                  // `sizeof(::v) + ...` of their __constant__ variables
  bool inline_ptx = false;                     // some device code's asm was translated (inline_ptx.h)
  bool uses_heap = false;                      // some device code calls malloc/free/cudaMalloc/cudaFree
  Translation* result = nullptr;
};

// One file's translation: its text with every rewrite applied, and its registration entries.
struct Unit {
  std::string text;
  std::vector<std::string> entries;  // MINICUDA_KERNEL(...), MINICUDA_VARIABLE(...)
  bool pragma_once = false;
};

// Does the header need cu2cxx (CUDA code of its own, or a quoted include that does)? `seen`
// stops cycles.
bool needs_translation(const IncludedFile& file, const HeaderContext& ctx, std::set<std::string>& seen) {
  if (!seen.insert(file.path).second) return false;
  for (const std::string_view word : {"__global__", "__device__", "__shared__", "__constant__", "__managed__",
                                      "__CUDA_ARCH__", "<<<"})
    if (file.content.find(word) != std::string::npos) return true;
  for (const Directive& d : scan_directives(file.content)) {
    if (d.name != "include" || !d.rest.starts_with('"')) continue;
    const std::size_t close = d.rest.find('"', 1);
    if (close == std::string_view::npos) continue;
    const std::optional<IncludedFile> nested = (*ctx.read)(file.path, d.rest.substr(1, close - 1));
    if (nested && needs_translation(*nested, ctx, seen)) return true;
  }
  return false;
}

Unit translate_unit(std::string_view source, std::string_view input_path, const std::vector<std::string>& header_kernels,
                    HeaderContext& ctx, bool header);

// The text that replaces `#include "..."` of `file`: its translation between #line directives
// (the caller adds the one back to the includer), then the definition of its entries' macro.
std::string inline_header(const IncludedFile& file, const std::vector<std::string>& header_kernels, HeaderContext& ctx) {
  if (const auto done = ctx.inlined.find(file.path); done != ctx.inlined.end()) return done->second;
  const int id = ctx.ids.emplace(file.path, static_cast<int>(ctx.ids.size())).first->second;
  ctx.stack.push_back(file.path);
  Unit unit = translate_unit(file.content, file.path, header_kernels, ctx, true);
  ctx.stack.pop_back();
  const std::string n = std::to_string(id);
  std::string text;
  if (unit.pragma_once) text += "#ifndef MINICUDA_CU2CXX_ONCE_" + n + "\n#define MINICUDA_CU2CXX_ONCE_" + n + "\n";
  text += "#line 1 \"" + escape_for_string_literal(file.path) + "\"\n" + unit.text;
  if (!text.ends_with('\n')) text += '\n';
  if (!unit.entries.empty()) {
    // Defined where the header's definitions are compiled (not in a false #if branch, once per
    // include guard): the .cu's registration lists them through it.
    text += "#ifndef MINICUDA_CU2CXX_ENTRIES_" + n + "\n#define MINICUDA_CU2CXX_ENTRIES_" + n;
    for (const std::string& e : unit.entries) text += " " + e + ",";
    text += "\n#endif\n";
    ctx.with_entries.push_back(id);
  }
  if (unit.pragma_once) text += "#endif\n";
  ctx.inlined.emplace(file.path, text);
  return text;
}

// The Edits of the file's `#include "..."` directives (and `#pragma once`, in a header): a
// header that needs translation is inlined, translated; in a header, another found next to it is
// named by its absolute path, since the generated file is elsewhere.
std::vector<Edit> rewrite_includes(std::string_view source, const LineIndex& lines, std::string_view input_path,
                                   const std::vector<std::string>& header_kernels, HeaderContext& ctx, bool header,
                                   bool& pragma_once) {
  std::vector<Edit> edits;
  if (ctx.read == nullptr || !*ctx.read) return edits;
  for (const Directive& d : scan_directives(source)) {
    if (header && d.name == "pragma" && d.rest.starts_with("once")) {
      pragma_once = true;
      edits.push_back(Edit{d.begin, d.end, ""});
      continue;
    }
    if (d.name != "include" || !d.rest.starts_with('"')) continue;
    const std::size_t close = d.rest.find('"', 1);
    if (close == std::string_view::npos) continue;
    const std::optional<IncludedFile> file = (*ctx.read)(input_path, d.rest.substr(1, close - 1));
    if (!file || std::find(ctx.stack.begin(), ctx.stack.end(), file->path) != ctx.stack.end()) continue;
    std::set<std::string> seen;
    if (!needs_translation(*file, ctx, seen)) {
      if (header) edits.push_back(Edit{d.begin, d.end, "#include \"" + escape_for_string_literal(file->path) + "\""});
      continue;
    }
    std::string text = inline_header(*file, header_kernels, ctx);
    text += "#line " + std::to_string(lines.line_of(d.end) + 1) + " \"" + escape_for_string_literal(input_path) + "\"";
    edits.push_back(Edit{d.begin, d.end, std::move(text)});
  }
  return edits;
}

Unit translate_unit(std::string_view source, std::string_view input_path, const std::vector<std::string>& header_kernels,
                    HeaderContext& ctx, bool header) {
  Translation& result = *ctx.result;
  Unit unit;
  const Tokens tokens = tokenize(source);
  const LineIndex lines(source);
  std::vector<Diagnostic> warnings;

  // Headers first: their kernels with default arguments are launched from the includer.
  std::vector<Edit> includes = rewrite_includes(source, lines, input_path, header_kernels, ctx, header, unit.pragma_once);
  for (Diagnostic& e : find_dynamic_parallelism(tokens, lines)) {
    if (header) e.path = std::string(input_path);
    result.errors.push_back(std::move(e));
  }
  std::vector<std::string> chosen_by_arguments = kernels_chosen_by_arguments(tokens);
  chosen_by_arguments.insert(chosen_by_arguments.end(), header_kernels.begin(), header_kernels.end());
  const std::vector<KernelSite> sites = registrable_kernel_sites(tokens);
  LaunchTargets targets{std::move(chosen_by_arguments), function_pointer_variables(tokens), ctx.with_defaults};
  std::vector<KernelWithDefaults> own_defaults;
  std::vector<Edit> defaults_helpers = default_argument_helpers(tokens, sites, own_defaults);
  targets.with_defaults.insert(targets.with_defaults.end(), own_defaults.begin(), own_defaults.end());
  for (const KernelWithDefaults& k : own_defaults) ctx.with_defaults.push_back(KernelWithDefaults{k.name, 0});
  std::vector<Edit> edits = rewrite_launches(source, tokens, lines, targets, warnings);
  rewrite_device_runtime(tokens, edits);
  ctx.uses_heap = ctx.uses_heap || device_code_uses_heap(tokens);
  edits.insert(edits.end(), std::make_move_iterator(includes.begin()), std::make_move_iterator(includes.end()));
  std::vector<Edit> shared = rewrite_dynamic_shared(source, tokens, lines, warnings);
  edits.insert(edits.end(), std::make_move_iterator(shared.begin()),
               std::make_move_iterator(shared.end()));
  std::vector<Diagnostic> cluster_errors;
  ClusterDims cluster_dims = find_cluster_dims(source, tokens, lines, sites, cluster_errors);
  for (Diagnostic& e : cluster_errors) {
    if (header) e.path = std::string(input_path);
    result.errors.push_back(std::move(e));
  }
  edits.insert(edits.end(), std::make_move_iterator(cluster_dims.edits.begin()),
               std::make_move_iterator(cluster_dims.edits.end()));
  std::vector<Edit> aligned = rewrite_shared_alignment(source, tokens);
  edits.insert(edits.end(), std::make_move_iterator(aligned.begin()), std::make_move_iterator(aligned.end()));
  std::vector<Edit> clock = rewrite_device_clock(tokens);
  edits.insert(edits.end(), std::make_move_iterator(clock.begin()), std::make_move_iterator(clock.end()));
  const std::vector<ModuleVariableSite> variables = find_module_variables(tokens, lines, warnings);
  std::vector<Edit> slots = rewrite_module_variables(tokens, variables);
  edits.insert(edits.end(), std::make_move_iterator(slots.begin()), std::make_move_iterator(slots.end()));
  // Inline PTX last: its operand expressions carry the rewrites above (device variables, clock()).
  std::vector<Diagnostic> ptx_errors;
  std::vector<Edit> ptx = rewrite_inline_ptx(source, tokens, lines, input_path, edits, ptx_errors, ctx.inline_ptx);
  for (Diagnostic& e : ptx_errors) {
    if (header) e.path = std::string(input_path);
    result.errors.push_back(std::move(e));
  }
  edits.insert(edits.end(), std::make_move_iterator(ptx.begin()), std::make_move_iterator(ptx.end()));
  std::stable_sort(warnings.begin(), warnings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  for (Diagnostic& w : warnings) {
    if (header) w.path = std::string(input_path);
    result.warnings.push_back(std::move(w));
  }
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });

  // Pass 4: a block function after each kernel that region fission can split (fission.h).
  const std::string line_path = escape_for_string_literal(input_path);
  const fission::FileContext file{source, tokens, lines, edits, line_path, fission::file_facts(source, tokens)};
  std::vector<Edit> block_functions;
  for (const KernelSite& site : sites) {
    fission::KernelFission split = fission::split_kernel(file, site);
    result.kernels.push_back(site.qualified_name);
    std::string entry = split.split ? "MINICUDA_KERNEL_REGIONS(" + site.qualified_name + ", " + split.block_function + ")"
                                    : "MINICUDA_KERNEL(" + site.qualified_name + ")";
    for (const auto& [kernel, args] : cluster_dims.shapes)
      if (kernel == site.qualified_name) entry = "::minicuda::detail::with_cluster_dims(" + entry + ", " + args + ")";
    unit.entries.push_back(std::move(entry));
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
  for (const ModuleVariableSite& v : variables) {
    result.variables.push_back(v.qualified_name);
    unit.entries.push_back("MINICUDA_VARIABLE(" + v.qualified_name + ", " + v.qualified_name + "__device, " +
                           (v.constant ? "1" : "0") + ")");
    if (v.constant) ctx.constant_total.append(ctx.constant_total.empty() ? "" : " + ").append("sizeof(" + v.qualified_name + ")");
  }
  edits.insert(edits.end(), std::make_move_iterator(block_functions.begin()),
               std::make_move_iterator(block_functions.end()));
  // After a kernel's block function, on the line of its `}`: its default-arguments launcher.
  edits.insert(edits.end(), std::make_move_iterator(defaults_helpers.begin()),
               std::make_move_iterator(defaults_helpers.end()));
  // Pass 5, first among equals: at a `{` that a launch follows at once, its #define goes first.
  std::vector<Edit> arch = define_cuda_arch_in_device_bodies(source, tokens, lines, line_path);
  edits.insert(edits.begin(), std::make_move_iterator(arch.begin()), std::make_move_iterator(arch.end()));
  unit.text = apply_edits(source, 0, source.size(), std::move(edits));
  return unit;
}

}  // namespace

Translation translate(std::string_view source, std::string_view input_path,
                      const std::vector<std::string>& header_kernels, const IncludeReader& read_include) {
  Translation result;
  HeaderContext ctx;
  ctx.read = &read_include;
  ctx.result = &result;
  const Unit unit = translate_unit(source, input_path, header_kernels, ctx, false);

  result.text = kPrologue;
  if (ctx.inline_ptx) result.text += "#include \"minicuda/inline_ptx.h\"\n";
  result.text += "#line 1 \"";
  result.text.append(escape_for_string_literal(input_path)).append("\"\n");
  result.text.append(unit.text);
  if (!unit.entries.empty() || !ctx.with_entries.empty()) {
    if (!result.text.ends_with('\n')) result.text += '\n';
    std::vector<std::string> entries;
    for (const int id : ctx.with_entries) {
      // Empty where the header's text was not compiled.
      const std::string name = "MINICUDA_CU2CXX_ENTRIES_" + std::to_string(id);
      result.text += "#ifndef " + name + "\n#define " + name + "\n#endif\n";
      entries.push_back(name);
    }
    entries.insert(entries.end(), unit.entries.begin(), unit.entries.end());
    result.text.append(registration_block(basename_of(input_path), entries, ctx.uses_heap));
  }
  if (!ctx.constant_total.empty()) {
    // nvcc's ptxas refuses a module whose __constant__ data passes the 64 KiB bank; so does g++ here.
    result.text.append("static_assert(" + ctx.constant_total + " <= 65536, \"cu2cxx: the __constant__ variables of " +
                       escape_for_string_literal(basename_of(input_path)) +
                       " exceed the 64 KiB constant bank (nvcc rejects this file too)\");\n");
  }
  return result;
}

std::string format_warning(std::string_view path, const Diagnostic& diagnostic) {
  std::string out(diagnostic.path.empty() ? path : std::string_view(diagnostic.path));
  out.append(":").append(std::to_string(diagnostic.line)).append(": warning: cu2cxx: ");
  out.append(diagnostic.message);
  return out;
}

std::string format_error(std::string_view path, const Diagnostic& diagnostic) {
  std::string out(diagnostic.path.empty() ? path : std::string_view(diagnostic.path));
  out.append(":").append(std::to_string(diagnostic.line)).append(": error: cu2cxx: ");
  out.append(diagnostic.message);
  return out;
}

}  // namespace minicuda::cu2cxx
