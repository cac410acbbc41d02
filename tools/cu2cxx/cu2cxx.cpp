// minicuda_cu2cxx: the command-line front end of the CUDA-to-C++ source translator.
//
// Contract: `minicuda_cu2cxx input.cu output.cpp` reads input.cu, writes its translation
// (translate.h) to output.cpp, creating output.cpp's directory if needed, and prints every
// warning to stderr as "<absolute input path>:<line>: warning: cu2cxx: ...". The #line directive
// names the input by its absolute path, so compiler messages and gdb find the .cu from anywhere.
// The output is written to a temporary file first and renamed into place, so a failed run never
// leaves a truncated output for the build to compile.
//
// With MINICUDA_CU2CXX_FISSION=1 in the environment it also prints, per kernel, whether region
// fission split it and why not ("<path>: note: cu2cxx: kernel ::k keeps fibers: <reason>").
//
// Quoted includes of headers next to the .cu (and next to those headers) that hold CUDA code are
// translated into the output too (translate.h, "Headers").
//
// Errors (device code minicuda cannot run: dynamic parallelism) are printed as
// "<path>:<line>: error: cu2cxx: ..." and no output is written.
//
// Exit status: 0 when the output was written (warnings included: g++ reports the errors they
// foretell), 1 when the input has errors, cannot be read or the output cannot be written, 2 on
// bad usage.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "translate.h"

namespace fs = std::filesystem;

namespace {

// The whole content of `path`, or nullopt if it cannot be read.
std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return content.str();
}

// Writes `text` to `path` through a temporary sibling file; false (with `error` set) on failure.
bool write_file_atomically(const fs::path& path, const std::string& text, std::string& error) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) {
    error = "cannot create " + path.parent_path().string() + ": " + ec.message();
    return false;
  }
  fs::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      error = "cannot write " + temporary.string();
      return false;
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    error = "cannot rename " + temporary.string() + " to " + path.string() + ": " + ec.message();
    fs::remove(temporary, ec);
    return false;
  }
  return true;
}

// The kernels that only a launch's arguments can select (translate.h) in the headers the .cu
// includes with `#include "name"` and that exist next to it (one level: not their own includes).
std::vector<std::string> kernels_of_included_headers(const std::string& source, const fs::path& input) {
  std::vector<std::string> names;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') continue;
    const std::size_t word = line.find_first_not_of(" \t", hash + 1);
    if (word == std::string::npos || line.compare(word, 7, "include") != 0) continue;
    const std::size_t open = line.find('"', word + 7);
    const std::size_t close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close == std::string::npos) continue;
    const std::optional<std::string> header = read_file(input.parent_path() / line.substr(open + 1, close - open - 1));
    if (!header) continue;
    for (std::string& n : minicuda::cu2cxx::header_kernels_chosen_by_arguments(*header)) names.push_back(std::move(n));
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: minicuda_cu2cxx input.cu output.cpp\n"
                 "Translates a CUDA source into C++ for minicuda's headers (docs/tools/cu2cxx.md).\n";
    return 2;
  }
  const fs::path input = argv[1];
  const fs::path output = argv[2];

  const std::optional<std::string> source = read_file(input);
  if (!source) {
    std::cerr << "minicuda_cu2cxx: cannot read " << input.string() << "\n";
    return 1;
  }
  const std::string input_path = fs::absolute(input).lexically_normal().string();
  // The project's own headers: found next to the file that includes them (docs/tools/cu2cxx.md).
  const minicuda::cu2cxx::IncludeReader read_include =
      [](std::string_view including, std::string_view spelled) -> std::optional<minicuda::cu2cxx::IncludedFile> {
    const fs::path path = (fs::path(including).parent_path() / fs::path(spelled)).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return std::nullopt;
    std::optional<std::string> content = read_file(path);
    if (!content) return std::nullopt;
    return minicuda::cu2cxx::IncludedFile{path.string(), std::move(*content)};
  };
  const minicuda::cu2cxx::Translation translation =
      minicuda::cu2cxx::translate(*source, input_path, kernels_of_included_headers(*source, input), read_include);
  for (const minicuda::cu2cxx::Diagnostic& w : translation.warnings) {
    std::cerr << minicuda::cu2cxx::format_warning(input_path, w) << "\n";
  }

  for (const minicuda::cu2cxx::Diagnostic& e : translation.errors) {
    std::cerr << minicuda::cu2cxx::format_error(input_path, e) << "\n";
  }
  if (!translation.errors.empty()) return 1;

  if (const char* notes = std::getenv("MINICUDA_CU2CXX_FISSION"); notes != nullptr && std::string(notes) == "1") {
    for (const minicuda::cu2cxx::FissionNote& n : translation.fission) {
      std::cerr << input_path << ": note: cu2cxx: kernel " << n.kernel
                << (n.split ? " split into regions" : " keeps fibers: " + n.reason) << "\n";
    }
  }
  std::string error;
  if (!write_file_atomically(output, translation.text, error)) {
    std::cerr << "minicuda_cu2cxx: " << error << "\n";
    return 1;
  }
  return 0;
}
