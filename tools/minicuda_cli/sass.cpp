// minicuda sass: the simulator's `cuobjdump -sass`. Compiles a .ptx file with libcuda's JIT
// (minicuda::ptx::compile, the same call cuModuleLoadData makes) for one architecture and prints
// each kernel's SASS beside the PTX lines it came from (minicuda::ptx::disassemble).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "minicuda/ptx/ptx.h"

namespace minicuda::cli {

namespace {

// "sm_90", "sm_90a", "compute_90" -> 90; -1 for anything else.
int arch_number(const std::string& arch) {
  std::string digits;
  if (arch.rfind("sm_", 0) == 0) {
    digits = arch.substr(3);
  } else if (arch.rfind("compute_", 0) == 0) {
    digits = arch.substr(8);
  } else {
    return -1;
  }
  if (!digits.empty() && digits.back() == 'a') digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3) return -1;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
  }
  return std::stoi(digits);
}

}  // namespace

int sass(const SassOptions& options) {
  int sm = arch_number(options.arch);
  if (sm < 0) {
    std::fprintf(stderr, "minicuda sass: unknown --arch '%s'; use sm_XY, e.g. --arch sm_90\n", options.arch.c_str());
    return 2;
  }
  std::ifstream in(options.file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "minicuda sass: cannot read '%s'\n", options.file.c_str());
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();

  ptx::CompileOptions compile_options;
  compile_options.target_sm = sm;
  ptx::CompileResult result = ptx::compile(text.str(), compile_options);
  if (result.status != ptx::Status::Ok) {
    // What the JIT's error log buffer receives (CU_JIT_ERROR_LOG_BUFFER), as ptxas writes it.
    std::fputs(result.error_log.c_str(), stderr);
    if (!result.error_log.empty() && result.error_log.back() != '\n') std::fputc('\n', stderr);
    std::fprintf(stderr, "minicuda sass: %s does not compile for sm_%d (%s)\n", options.file.c_str(), sm,
                 ptx::status_name(result.status));
    return 1;
  }
  std::vector<const ptx::CompiledKernel*> chosen;
  for (const ptx::CompiledKernel& kernel : result.kernels) {
    if (options.kernel.empty() || kernel.name == options.kernel) chosen.push_back(&kernel);
  }
  if (chosen.empty()) {
    if (options.kernel.empty()) {
      std::fprintf(stderr, "minicuda sass: %s has no .entry\n", options.file.c_str());
    } else {
      std::string names;
      for (const ptx::CompiledKernel& kernel : result.kernels) names += (names.empty() ? "" : ", ") + kernel.name;
      std::fprintf(stderr, "minicuda sass: no kernel '%s' in %s; its kernels: %s\n", options.kernel.c_str(),
                   options.file.c_str(), names.empty() ? "(none)" : names.c_str());
    }
    return 1;
  }
  std::printf("// %s for sm_%d: the JIT's SASS (minicuda's own encoding), each line beside its PTX line\n",
              options.file.c_str(), sm);
  for (const ptx::CompiledKernel* kernel : chosen) {
    std::fputc('\n', stdout);
    std::fputs(ptx::disassemble(*kernel).c_str(), stdout);
  }
  return 0;
}

}  // namespace minicuda::cli
