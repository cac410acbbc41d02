// The JIT's error log against ptxas's own: each tests/data/ptx/diag/NAME.ptx has NAME.log, what
// ptxas 13.0 printed for it (regenerate.sh records it, the command in its first line). The log
// compile() writes must be the same, line for line, and the Status the one the driver maps to
// the CUresult the real driver returns for that kind of error.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "minicuda/ptx/ptx.h"

namespace ptx = minicuda::ptx;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// ptxas's output, without the header line that names the command.
std::string recorded_log(const std::string& name) {
  std::string log = read(std::string(MINICUDA_PTX_DATA_DIR) + "/diag/" + name + ".log");
  size_t nl = log.find('\n');
  return log.substr(nl + 1);
}

ptx::CompileResult compile_fixture(const std::string& name) {
  return ptx::compile(read(std::string(MINICUDA_PTX_DATA_DIR) + "/diag/" + name + ".ptx"), {});
}

struct Case {
  const char* name;
  ptx::Status status;
};

class PtxasDiagnostics : public ::testing::TestWithParam<Case> {};

TEST_P(PtxasDiagnostics, LogMatchesPtxasAndStatusIsTheDriversKind) {
  const Case& c = GetParam();
  ptx::CompileResult r = compile_fixture(c.name);
  std::string expected = recorded_log(c.name);
  // The driver's JIT writes nothing after an unsupported .version, where the ptxas command adds
  // its "aborted" line (the H200's driver: probe_module.txt ptx.version_99 and ptx.version_9_2).
  const std::string aborted = "ptxas fatal   : Ptx assembly aborted due to errors\n";
  if (std::string(c.name) == "unsupported_version" && expected.ends_with(aborted))
    expected.resize(expected.size() - aborted.size());
  EXPECT_EQ(r.error_log, expected);
  EXPECT_EQ(r.status, c.status) << ptx::status_name(r.status);
  EXPECT_TRUE(r.kernels.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Recorded, PtxasDiagnostics,
    ::testing::Values(Case{"syntax_error", ptx::Status::ParseError},
                      Case{"unknown_instruction", ptx::Status::ParseError},
                      Case{"undeclared_register", ptx::Status::ParseError},
                      Case{"undeclared_label", ptx::Status::ParseError},
                      Case{"undeclared_predicate", ptx::Status::ParseError},
                      Case{"type_mismatch", ptx::Status::ParseError},
                      Case{"wide_mismatch", ptx::Status::ParseError},
                      Case{"float_to_int", ptx::Status::ParseError},
                      Case{"address_unknown", ptx::Status::ParseError},
                      Case{"vector_selector", ptx::Status::ParseError},
                      Case{"branch_to_param", ptx::Status::ParseError},
                      Case{"unsupported_version", ptx::Status::UnsupportedVersion},
                      Case{"target_too_new", ptx::Status::UnsupportedTarget},
                      Case{"missing_version", ptx::Status::InvalidImage},
                      Case{"garbage", ptx::Status::InvalidImage},
                      Case{"empty", ptx::Status::InvalidImage},
                      Case{"unresolved_extern", ptx::Status::ParseError},
                      Case{"unknown_target", ptx::Status::ParseError},
                      Case{"state_space_mismatch", ptx::Status::ParseError},
                      Case{"param_space", ptx::Status::ParseError},
                      Case{"blank_lines", ptx::Status::InvalidImage},
                      Case{"duplicate_definition", ptx::Status::ParseError},
                      Case{"old_version", ptx::Status::ParseError},
                      Case{"unknown_modifier", ptx::Status::ParseError},
                      Case{"unsupported_target", ptx::Status::ParseError}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
