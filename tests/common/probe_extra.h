// Test support shared by the driver and runtime tests: the measurements recorded on an H200
// (tests/data/h200/probe_extra.txt, path passed as MINICUDA_PROBE_EXTRA) as key -> value.
#pragma once

#include <fstream>
#include <map>
#include <string>

namespace minicuda::testing {

// probe_extra.txt as key -> value ("prop.warpSize" -> "32"); the first occurrence of a key wins.
inline const std::map<std::string, std::string>& probe_extra() {
  static const std::map<std::string, std::string> values = [] {
    std::map<std::string, std::string> m;
    std::ifstream in(MINICUDA_PROBE_EXTRA);
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find(" = ");
      if (eq != std::string::npos) m.emplace(line.substr(0, eq), line.substr(eq + 3));
    }
    return m;
  }();
  return values;
}

}  // namespace minicuda::testing
