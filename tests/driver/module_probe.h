// The H200's answers to module loads (tests/data/h200/module/probe_module.txt) for the libcuda
// module tests: each line "key = value" of the recording, by key, and the recorded images.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#ifndef MINICUDA_MODULE_DATA
#error "MINICUDA_MODULE_DATA (tests/data/h200/module) must be defined"
#endif

namespace minicuda::testing {

// The value of `key` in a recording of "key = value" lines at `path`; "" if absent.
inline std::string recorded_in(const std::string& path, const std::string& key) {
  static std::map<std::string, std::map<std::string, std::string>> files;
  auto [at, fresh] = files.try_emplace(path);
  if (fresh) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      size_t eq = line.find(" = ");
      if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
      at->second.emplace(line.substr(0, eq), line.substr(eq + 3));
    }
  }
  auto it = at->second.find(key);
  return it == at->second.end() ? std::string() : it->second;
}

// The recorded value of `key` in probe_module.txt ("200 CUDA_ERROR_INVALID_IMAGE", a quoted log, a number).
inline std::string recorded(const std::string& key) {
  return recorded_in(std::string(MINICUDA_MODULE_DATA) + "/probe_module.txt", key);
}

// The recorded CUresult of `key` (the number before its name).
inline int recorded_code(const std::string& key) { return std::stoi(recorded(key)); }

// A recorded log (the quoted value, its "\n" escapes turned back into newlines).
inline std::string recorded_log(const std::string& key) {
  std::string v = recorded(key);
  if (v.size() < 2) return v;
  v = v.substr(1, v.size() - 2);
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size() && v[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += v[i];
    }
  }
  return out;
}

// A file of the recorded images (img/vadd.ptx, ...) of `dir`, with a NUL after it.
inline std::string image_file(const std::string& name, const std::string& dir = MINICUDA_MODULE_DATA) {
  std::ifstream in(dir + "/img/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str() + std::string(1, '\0');
}

}  // namespace minicuda::testing
