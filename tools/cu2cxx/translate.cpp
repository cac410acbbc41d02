// cu2cxx: composes the scanner and the three passes into the generated file. Contracts:
// translate.h.
#include "translate.h"

#include <algorithm>

#include "lexer.h"
#include "rewrites.h"

namespace minicuda::cu2cxx {
namespace {

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

// `source` with `edits` applied. Edits from different passes are merged by position; one that
// overlaps an earlier edit is dropped (the passes never produce such pairs for valid CUDA).
std::string apply_edits(std::string_view source, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  out.reserve(source.size() + source.size() / 4);
  std::size_t copied = 0;  // source[0, copied) is already in `out`
  for (const Edit& e : edits) {
    if (e.begin < copied) continue;
    out.append(source.substr(copied, e.begin - copied));
    out.append(e.replacement);
    copied = e.end;
  }
  out.append(source.substr(copied));
  return out;
}

// The appended block: a comment line and one MINICUDA_REGISTER_MODULE line.
std::string registration_block(std::string_view module_name, const std::vector<std::string>& kernels) {
  std::string block =
      "// Appended by minicuda_cu2cxx: registers this file's kernels at start-up, as nvcc's host "
      "code does\n";
  block.append("MINICUDA_REGISTER_MODULE(\"").append(escape_for_string_literal(module_name)).append("\"");
  for (const std::string& k : kernels) block.append(", MINICUDA_KERNEL(").append(k).append(")");
  block.append(")\n");
  return block;
}

}  // namespace

Translation translate(std::string_view source, std::string_view input_path) {
  Translation result;
  const Tokens tokens = tokenize(source);
  const LineIndex lines(source);

  std::vector<Edit> edits = rewrite_launches(source, tokens, lines, result.warnings);
  std::vector<Edit> shared = rewrite_dynamic_shared(source, tokens, lines, result.warnings);
  edits.insert(edits.end(), std::make_move_iterator(shared.begin()),
               std::make_move_iterator(shared.end()));
  std::stable_sort(result.warnings.begin(), result.warnings.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  result.kernels = registrable_kernels(tokens);

  result.text = "#include \"cuda_runtime.h\"\n#line 1 \"";
  result.text.append(escape_for_string_literal(input_path)).append("\"\n");
  result.text.append(apply_edits(source, std::move(edits)));
  if (!result.kernels.empty()) {
    if (!result.text.ends_with('\n')) result.text += '\n';
    result.text.append(registration_block(basename_of(input_path), result.kernels));
  }
  return result;
}

std::string format_warning(std::string_view path, const Diagnostic& diagnostic) {
  std::string out(path);
  out.append(":").append(std::to_string(diagnostic.line)).append(": warning: cu2cxx: ");
  out.append(diagnostic.message);
  return out;
}

}  // namespace minicuda::cu2cxx
