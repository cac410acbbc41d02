// The registers a function declares: single names (.reg .b32 %x) and ranges (.reg .b32 %r<N>,
// which declares %r0 .. %r(N-1)). A range is kept as its prefix and count, not expanded, so a
// declaration of millions of registers costs nothing until one is used.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "ast.h"

namespace minicuda::ptx {

class RegisterDecls {
 public:
  void declare(const VarDecl& v) {
    if (v.is_range) ranges_[v.name] = {v.range, v.type};
    else singles_[v.name] = v.type;
  }

  // The declared type of register `name`, or null when nothing declares it.
  const std::string* find(const std::string& name) const {
    if (auto it = singles_.find(name); it != singles_.end()) return &it->second;
    size_t digits = name.find_last_not_of("0123456789") + 1;
    if (digits == 0 || digits == name.size()) return nullptr;
    std::string number = name.substr(digits);
    if ((number.size() > 1 && number[0] == '0') || number.size() > 10) return nullptr;
    uint64_t index = std::stoull(number);
    auto it = ranges_.find(name.substr(0, digits));
    if (it == ranges_.end() || index >= it->second.first) return nullptr;
    return &it->second.second;
  }

 private:
  std::map<std::string, std::string> singles_;                     // name -> type
  std::map<std::string, std::pair<uint64_t, std::string>> ranges_; // prefix -> (count, type)
};

}  // namespace minicuda::ptx
