// Helpers of the tests of the shared libraries nvcc-built programs load (tests/abi): running a
// command, reading the "key value" lines the test programs print, finding nvcc, and laying out a
// fatbinary of PTX as nvcc does.
#pragma once

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fatbinary.h"

namespace minicuda::abi_testing {

struct CommandResult {
  int status = -1;  // the exit status, or -1 when the command did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs command through /bin/sh with stderr joined to stdout.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The "key value" lines of a test program's output (the value is the rest of the line).
inline std::map<std::string, std::string> key_values(const std::string& output) {
  std::map<std::string, std::string> m;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    if (space != std::string::npos && space > 0) m.emplace(line.substr(0, space), line.substr(space + 1));
  }
  return m;
}

// The lines of a data file, without blank lines and # comments.
inline std::vector<std::string> data_lines(const std::string& path) {
  std::vector<std::string> lines;
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return lines;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, f) != nullptr) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  std::fclose(f);
  return lines;
}

// The whole text of a file; empty when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::string text;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  std::fclose(f);
  return text;
}

// nvcc: /usr/local/cuda/bin/nvcc, else the first nvcc on PATH; empty when there is none.
inline std::string find_nvcc() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file("/usr/local/cuda/bin/nvcc", ec)) return "/usr/local/cuda/bin/nvcc";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / "nvcc";
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

// A fatbinary with one uncompressed PTX entry for compute_`sm`, as nvcc lays one out.
inline std::vector<uint64_t> ptx_fatbin(const std::string& ptx, uint32_t sm = 90) {
  const uint64_t padded = (ptx.size() + 1 + 7) / 8 * 8;
  fatbin::FatbinHeader header{fatbin::kFatbinMagic, 1, sizeof(fatbin::FatbinHeader), sizeof(fatbin::FatbinEntry) + padded};
  fatbin::FatbinEntry entry{};
  entry.kind = fatbin::kFatbinKindPtx;
  entry.version = 0x0101;
  entry.header_size = sizeof entry;
  entry.padded_payload_size = static_cast<uint32_t>(padded);
  entry.major = 9;
  entry.sm_version = sm;
  entry.flags = fatbin::kFatbinFlag64Bit | fatbin::kFatbinFlagLinux;
  std::vector<uint64_t> words((sizeof header + sizeof entry + padded) / 8, 0);
  auto* bytes = reinterpret_cast<char*>(words.data());
  std::memcpy(bytes, &header, sizeof header);
  std::memcpy(bytes + sizeof header, &entry, sizeof entry);
  std::memcpy(bytes + sizeof header + sizeof entry, ptx.data(), ptx.size());
  return words;
}

}  // namespace minicuda::abi_testing
