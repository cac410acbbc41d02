// copy_from_user / copy_to_user: good pointers copy, bad ones are -EFAULT and never crash.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include "minicuda/kernel.h"

namespace k = minicuda::kernel;

TEST(Uaccess, CopiesValidMemory) {
  int src = 42, dst = 0;
  EXPECT_EQ(k::copy_from_user(&dst, &src, sizeof dst), 0);
  EXPECT_EQ(dst, 42);
  int out = 0;
  EXPECT_EQ(k::copy_to_user(&out, &src, sizeof out), 0);
  EXPECT_EQ(out, 42);
  EXPECT_EQ(k::copy_from_user(&dst, nullptr, 0), 0);  // zero bytes touch nothing
}

TEST(Uaccess, RefusesNullLowNonCanonicalAndWrappingPointers) {
  int dst = 0;
  EXPECT_EQ(k::copy_from_user(&dst, nullptr, 4), -k::kEFAULT);
  EXPECT_EQ(k::copy_from_user(&dst, reinterpret_cast<void*>(0x1000), 4), -k::kEFAULT);
  EXPECT_EQ(k::copy_from_user(&dst, reinterpret_cast<void*>(0xffff800000000000ull), 4), -k::kEFAULT);
  EXPECT_EQ(k::copy_to_user(reinterpret_cast<void*>(0x7ffffffffffeull), &dst, 4), -k::kEFAULT);
  EXPECT_EQ(k::copy_from_user(&dst, reinterpret_cast<void*>(~0ull - 1), 4), -k::kEFAULT);
}

TEST(Uaccess, RefusesUnmappedAndReadOnlyMemory) {
  long page = 4096;
  void* p = mmap(nullptr, page * 2, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  munmap(static_cast<char*>(p) + page, page);
  int dst = 0;
  EXPECT_EQ(k::copy_from_user(&dst, p, 4), 0);
  EXPECT_EQ(k::copy_to_user(p, &dst, 4), -k::kEFAULT);  // read-only page
  EXPECT_EQ(k::copy_from_user(&dst, static_cast<char*>(p) + page - 2, 4), -k::kEFAULT);  // runs off the end
  munmap(p, page);
}
