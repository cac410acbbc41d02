// minicuda::stat_start_time and process_start_time (support/include/minicuda/proc_stat.h): field
// 22 of /proc/PID/stat, counted after the name's last ')'.
#include "minicuda/proc_stat.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace minicuda {
namespace {

// fields 3..21 of a stat line, then 22 = 98765, then more.
constexpr const char* kAfterName = " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 98765 23 24\n";

TEST(ProcStat, Field22AfterTheName) {
  EXPECT_EQ(stat_start_time(std::string("42 (prog)") + kAfterName), 98765u);
}

TEST(ProcStat, ANameWithSpacesAndParentheses) {
  EXPECT_EQ(stat_start_time(std::string("42 (a ) b (c))") + kAfterName), 98765u);
}

TEST(ProcStat, ShortOrMalformedTextGivesZero) {
  EXPECT_EQ(stat_start_time(""), 0u);
  EXPECT_EQ(stat_start_time("42 prog S 1 2"), 0u);              // no ')'
  EXPECT_EQ(stat_start_time("42 (prog) S 1 2 3"), 0u);          // cut short
  EXPECT_EQ(stat_start_time("42 (prog) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 9x 23"), 0u);
}

TEST(ProcStat, ThisProcessAndAMissingOne) {
  const unsigned long long self = process_start_time("/proc/self/stat");
  EXPECT_GT(self, 0u);
  EXPECT_EQ(process_start_time("/proc/" + std::to_string(::getpid()) + "/stat"), self);
  EXPECT_EQ(process_start_time("/proc/no-such-process/stat"), 0u);
}

}  // namespace
}  // namespace minicuda
