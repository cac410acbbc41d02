// Tests of device_sim/src/vram.cpp: VRAM is a sparse memfd. A full H200 arena costs no host
// memory, writing a page costs that page, and discard() gives it back and reads as zeros.
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "minicuda/device.h"

namespace minicuda::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

TEST(Vram, FullH200ArenaCostsNothingUntilTouched) {
  Vram vram(preset_properties(Preset::H200).vram_bytes);
  EXPECT_EQ(vram.size(), 150754820096ull);
  EXPECT_GE(vram.backing_fd(), 0);
  EXPECT_LT(vram.resident_bytes(), 1 * kMiB);
}

TEST(Vram, WritingOneBigPageCostsOneBigPage) {
  Vram vram(preset_properties(Preset::H200).vram_bytes);
  const uint64_t offset = 100ull << 30;  // 100 GiB into VRAM
  std::vector<char> page(kBigPage, 'x');
  ASSERT_EQ(pwrite(vram.backing_fd(), page.data(), page.size(), offset),
            static_cast<ssize_t>(page.size()));
  EXPECT_GE(vram.resident_bytes(), 2 * kMiB);
  EXPECT_LE(vram.resident_bytes(), 4 * kMiB);
}

TEST(Vram, DiscardGivesTheMemoryBackAndReadsZero) {
  Vram vram(64 * kMiB);
  std::vector<char> page(kBigPage, 'x');
  ASSERT_EQ(pwrite(vram.backing_fd(), page.data(), page.size(), 4 * kMiB),
            static_cast<ssize_t>(page.size()));
  ASSERT_GE(vram.resident_bytes(), 2 * kMiB);

  vram.discard(4 * kMiB, kBigPage);
  EXPECT_LT(vram.resident_bytes(), 1 * kMiB);
  std::vector<char> back(kBigPage, 'y');
  ASSERT_EQ(pread(vram.backing_fd(), back.data(), back.size(), 4 * kMiB),
            static_cast<ssize_t>(back.size()));
  EXPECT_EQ(back, std::vector<char>(kBigPage, 0));
}

TEST(Vram, DiscardOfZeroBytesDoesNothing) {
  Vram vram(4 * kMiB);
  char byte = 'z';
  ASSERT_EQ(pwrite(vram.backing_fd(), &byte, 1, 0), 1);
  vram.discard(0, 0);
  char back = 0;
  ASSERT_EQ(pread(vram.backing_fd(), &back, 1, 0), 1);
  EXPECT_EQ(back, 'z');
}

TEST(Vram, FreshVramReadsZero) {
  Vram vram(4 * kMiB);
  std::vector<char> back(4096, 'y');
  ASSERT_EQ(pread(vram.backing_fd(), back.data(), back.size(), 3 * kMiB),
            static_cast<ssize_t>(back.size()));
  EXPECT_EQ(back, std::vector<char>(4096, 0));
}

}  // namespace
}  // namespace minicuda::gpu
