// The shared libraries an nvcc-built program loads (abi/CMakeLists.txt): their sonames, their
// dependency, the version node of libcudart.so.13, every name nvcc's programs import
// (tests/data/abi/*.txt, recorded with nvcc 13), the whole API of the CUDA 13 headers
// (abi/cuda13_*_api.txt), and no C++ internals beyond the ones the two
// libraries share (abi/*.map). Read with readelf and nm, as a linker or ld.so sees them.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "abi_test_support.h"

namespace minicuda::abi_testing {
namespace {

const std::string kLibcudart = MINICUDA_ABI_LIBCUDART;
const std::string kLibcuda = MINICUDA_ABI_LIBCUDA;
const std::string kData = MINICUDA_ABI_DATA;
const std::string kApiLists = MINICUDA_ABI_API_LISTS;

// The defined dynamic symbols of a library, as nm -D prints them: "name" or "name@@version".
std::set<std::string> defined_symbols(const std::string& library) {
  CommandResult r = run_command("nm -D --defined-only '" + library + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  std::set<std::string> names;
  std::istringstream in(r.output);
  std::string address, type, name;
  while (in >> address >> type >> name) names.insert(name);
  return names;
}

std::string dynamic_section(const std::string& library) {
  CommandResult r = run_command("readelf -d '" + library + "'");
  EXPECT_EQ(r.status, 0) << r.output;
  return r.output;
}

TEST(AbiLibraries, SonamesAndLinkNames) {
  namespace fs = std::filesystem;
  EXPECT_EQ(fs::path(kLibcudart).filename(), "libcudart.so.13");
  EXPECT_EQ(fs::path(kLibcuda).filename(), "libcuda.so.1");
  EXPECT_NE(dynamic_section(kLibcudart).find("Library soname: [libcudart.so.13]"), std::string::npos);
  EXPECT_NE(dynamic_section(kLibcuda).find("Library soname: [libcuda.so.1]"), std::string::npos);
  // As on the real stack, the runtime needs the driver.
  EXPECT_NE(dynamic_section(kLibcudart).find("Shared library: [libcuda.so.1]"), std::string::npos);
  // The link names -lcudart and -lcuda find.
  const fs::path dir = fs::path(kLibcudart).parent_path();
  EXPECT_EQ(fs::read_symlink(dir / "libcudart.so"), "libcudart.so.13");
  EXPECT_EQ(fs::read_symlink(dir / "libcuda.so"), "libcuda.so.1");
}

TEST(AbiLibraries, LibcudartDefinesTheVersionNode) {
  CommandResult r = run_command("readelf -V '" + kLibcudart + "'");
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.find("Version definition section");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Name: libcudart.so.13", at), std::string::npos) << r.output;
}

TEST(AbiLibraries, LibcudartExportsWhatNvccProgramsImport) {
  const std::vector<std::string> imports = data_lines(kData + "/nvcc_runtime_imports.txt");
  ASSERT_GE(imports.size(), 20u);
  const std::set<std::string> defined = defined_symbols(kLibcudart);
  for (const std::string& import : imports) {
    const size_t at = import.find('@');
    ASSERT_NE(at, std::string::npos) << import;
    ASSERT_EQ(import.substr(at + 1), "libcudart.so.13") << import;
    // A program's name@libcudart.so.13 binds to the default version name@@libcudart.so.13.
    EXPECT_TRUE(defined.count(import.substr(0, at) + "@@libcudart.so.13")) << import << " is not exported";
  }
}

TEST(AbiLibraries, LibcudaExportsWhatDriverProgramsImport) {
  const std::vector<std::string> imports = data_lines(kData + "/nvcc_driver_imports.txt");
  ASSERT_GE(imports.size(), 15u);
  const std::set<std::string> defined = defined_symbols(kLibcuda);
  for (const std::string& name : imports) {
    ASSERT_EQ(name.find('@'), std::string::npos) << name;
    EXPECT_TRUE(defined.count(name)) << name << " is not exported";
  }
  EXPECT_TRUE(defined.count("cuInit"));
  EXPECT_TRUE(defined.count("cuLaunchKernel"));
}

// Every function of CUDA 13's APIs that returns an error code is exported, so that any program
// nvcc builds loads; the ones minicuda does not build answer 801 (test_not_supported.cpp).
TEST(AbiLibraries, LibcudartExportsTheWholeRuntimeApi) {
  const std::vector<std::string> names = data_lines(kApiLists + "/cuda13_runtime_api.txt");
  ASSERT_GE(names.size(), 300u);
  const std::set<std::string> defined = defined_symbols(kLibcudart);
  for (const std::string& name : names)
    EXPECT_TRUE(defined.count(name + "@@libcudart.so.13")) << name << " is not exported";
}

TEST(AbiLibraries, LibcudaExportsTheWholeDriverApi) {
  const std::vector<std::string> names = data_lines(kApiLists + "/cuda13_driver_api.txt");
  ASSERT_GE(names.size(), 400u);
  const std::set<std::string> defined = defined_symbols(kLibcuda);
  for (const std::string& name : names) EXPECT_TRUE(defined.count(name)) << name << " is not exported";
}

// Every export is API (cuda*, __cuda*, cu*, CU_ETID_*) or one of the internal interfaces the two
// libraries share in one process (mangled under minicuda::trace, minicuda::kernel's system
// calls, minicuda::gpu::isa::in_kernel_code); nothing of std, fmt or the simulator leaks.
TEST(AbiLibraries, ExportOnlyTheApiAndTheSharedInternals) {
  // Mangled: minicuda::trace::*, minicuda::kernel::sys_* / vdso_*, minicuda::gpu::isa::in_kernel_code().
  const std::regex internal("_ZN?K?8minicuda5trace.*|_ZT[ISV]N8minicuda5trace.*|"
                            "_ZN8minicuda6kernel[0-9]+(sys_|vdso_).*|_ZN8minicuda3gpu3isa14in_kernel_codeEv");
  auto shared_internal = [&](const std::string& name) { return std::regex_match(name, internal); };
  for (const std::string& name : defined_symbols(kLibcudart)) {
    const std::string base = name.substr(0, name.find('@'));
    if (base == "libcudart.so.13") continue;  // the version node's own symbol
    EXPECT_TRUE(base.rfind("cuda", 0) == 0 || base.rfind("__cuda", 0) == 0 || shared_internal(base))
        << "libcudart.so.13 exports " << name;
    EXPECT_NE(name.find("@@libcudart.so.13"), std::string::npos) << name << " is outside the version node";
  }
  for (const std::string& name : defined_symbols(kLibcuda)) {
    EXPECT_TRUE(name.rfind("cu", 0) == 0 || name.rfind("CU_ETID_", 0) == 0 || shared_internal(name))
        << "libcuda.so.1 exports " << name;
  }
}

}  // namespace
}  // namespace minicuda::abi_testing
