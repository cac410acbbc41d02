// Shared by the managed-memory tests: what the trace says nvidia-uvm did.
#pragma once

#include <regex>
#include <string>

#include "minicuda/trace.h"

namespace minicuda::testing {

// Sums the first number captured by `pattern` over every trace note that matches it.
inline long sum_notes(const trace::Recorder& recorder, const std::string& pattern) {
  const std::regex re(pattern);
  long total = 0;
  for (const trace::Event& e : recorder.events()) {
    std::smatch m;
    if (std::regex_search(e.text, m, re)) total += m.size() > 1 ? std::stol(m[1].str()) : 1;
  }
  return total;
}

// How many trace notes match `pattern`.
inline long count_notes(const trace::Recorder& recorder, const std::string& pattern) {
  const std::regex re(pattern);
  long n = 0;
  for (const trace::Event& e : recorder.events()) n += std::regex_search(e.text, re) ? 1 : 0;
  return n;
}

}  // namespace minicuda::testing
