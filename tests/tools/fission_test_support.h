// Helpers of the tests of cu2cxx's region fission (test_cu2cxx_fission*.cpp): the translation
// of a source, the fission note of its only kernel, and the expectations that it is split or
// keeps fibers for a given reason.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "translate.h"

namespace minicuda::cu2cxx::testing {

inline Translation run(std::string_view source) { return translate(source, "/src/f.cu"); }

// The fission note of the file's only kernel.
inline minicuda::cu2cxx::FissionNote note_of(std::string_view source) {
  const Translation t = run(source);
  EXPECT_EQ(t.fission.size(), 1u) << t.text;
  return t.fission.empty() ? minicuda::cu2cxx::FissionNote{} : t.fission[0];
}

// The translation of `source`, whose only kernel must be split.
inline Translation split(std::string_view source) {
  Translation t = run(source);
  EXPECT_EQ(t.fission.size(), 1u);
  EXPECT_TRUE(!t.fission.empty() && t.fission[0].split) << (t.fission.empty() ? "" : t.fission[0].reason);
  return t;
}

// Expects the kernel in `source` to keep fibers for a reason that mentions `why`.
inline void expect_not_split(std::string_view source, std::string_view why) {
  const minicuda::cu2cxx::FissionNote n = note_of(source);
  EXPECT_FALSE(n.split) << source;
  EXPECT_NE(n.reason.find(why), std::string::npos) << "reason: " << n.reason;
  EXPECT_EQ(run(source).text.find("__regions"), std::string::npos);
}

}  // namespace minicuda::cu2cxx::testing
