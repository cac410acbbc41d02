// A process's start time, in clock ticks since boot: field 22 of /proc/PID/stat (proc(5)). A
// pid alone does not tell a live process from a later one that reuses it; the pid with its
// start time does (nvidia.ko's status file records it, `minicuda smi` checks it).
#pragma once

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace minicuda {

// Field 22 of the text of a /proc/PID/stat file; 0 if the text does not have it. The second
// field, the command's name in parentheses, may itself hold spaces and parentheses: the fields
// after it are counted from its last ')'.
inline unsigned long long stat_start_time(std::string_view stat) {
  const size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return 0;
  size_t pos = close + 1;
  for (int field = 3; field <= 22; ++field) {
    while (pos < stat.size() && stat[pos] == ' ') ++pos;
    const size_t end = std::min(stat.find(' ', pos), stat.size());
    if (pos >= end) return 0;
    if (field == 22) {
      const std::string digits(stat.substr(pos, end - pos));
      char* last = nullptr;
      const unsigned long long value = std::strtoull(digits.c_str(), &last, 10);
      return *last == '\0' || *last == '\n' ? value : 0;
    }
    pos = end;
  }
  return 0;
}

// The start time of the process whose stat file is `path` ("/proc/self/stat", "/proc/42/stat");
// 0 if it is gone or the file is unreadable.
inline unsigned long long process_start_time(const std::string& path) {
  std::ifstream in(path);
  const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return stat_start_time(stat);
}

}  // namespace minicuda
