// Address spaces: brk grows and shrinks the heap with real, usable pages; anonymous mmap is
// zero-filled and top-down; munmap gives pages back; bad arguments get Linux's errors.
#include <gtest/gtest.h>

#include <cstring>

#include "minicuda/kernel.h"

namespace k = minicuda::kernel;

namespace {
uint64_t u(void* p) { return reinterpret_cast<uint64_t>(p); }
}  // namespace

TEST(AddressSpace, BrkNullReportsTheStartAndGrowingMakesUsableMemory) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  uint64_t start = u(k::sys_brk(nullptr));
  EXPECT_EQ(start, p->mm().start_brk());
  EXPECT_EQ(start % k::kPageSize, 0u);
  uint64_t grown = u(k::sys_brk(reinterpret_cast<void*>(start + 0x21000)));
  EXPECT_EQ(grown, start + 0x21000);
  auto* bytes = reinterpret_cast<unsigned char*>(start);
  EXPECT_EQ(bytes[0x20fff], 0);  // fresh pages read as zero
  std::memset(bytes, 0xab, 0x21000);
  EXPECT_TRUE(p->mm().is_mapped(start, 0x21000, k::kProtRead | k::kProtWrite));
  EXPECT_FALSE(p->mm().is_mapped(start, 0x22000, k::kProtRead));
  // Shrinking gives the pages back: growing again shows zeros.
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start + 0x1000))), start + 0x1000);
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start + 0x21000))), start + 0x21000);
  EXPECT_EQ(bytes[0x1000], 0);
  EXPECT_EQ(bytes[0], 0xab);
}

TEST(AddressSpace, BrkBelowTheStartOrPastTheWindowFailsWithTheOldBreak) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  uint64_t start = u(k::sys_brk(nullptr));
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start - 4096))), start);
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start + p->mm().window_size() + 4096))), start);
}

TEST(AddressSpace, AnonymousMmapIsTopDownPageRoundedZeroedAndUnmappable) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  void* a = k::sys_mmap(nullptr, 200000, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  ASSERT_FALSE(k::mmap_failed(a));
  void* b = k::sys_mmap(nullptr, 4096, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  ASSERT_FALSE(k::mmap_failed(b));
  EXPECT_EQ(u(a) % k::kPageSize, 0u);
  EXPECT_EQ(u(a) + 200704, p->mm().window_base() + p->mm().window_size());
  EXPECT_EQ(u(b) + 4096, u(a));  // the next mapping goes just below
  auto* bytes = static_cast<unsigned char*>(a);
  EXPECT_EQ(bytes[200703], 0);
  bytes[0] = 7;
  k::Mapping m;
  ASSERT_TRUE(p->mm().find_mapping(u(a) + 100, &m));
  EXPECT_EQ(m.length, 200704u);
  EXPECT_EQ(k::sys_munmap(a, 200704), 0);
  EXPECT_FALSE(p->mm().is_mapped(u(a), 1, k::kProtRead));
  // The hole is reused and zero-filled again.
  void* c = k::sys_mmap(nullptr, 200000, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_EQ(c, a);
  EXPECT_EQ(static_cast<unsigned char*>(c)[0], 0);
}

TEST(AddressSpace, BadMmapAndMunmapArgumentsGetLinuxErrors) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  auto err = [](void* r) { return static_cast<long>(reinterpret_cast<intptr_t>(r)); };
  EXPECT_EQ(err(k::sys_mmap(nullptr, 0, k::kProtRead, k::kMapPrivate | k::kMapAnonymous, -1, 0)), -k::kEINVAL);
  EXPECT_EQ(err(k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapAnonymous, -1, 0)), -k::kEINVAL);
  EXPECT_EQ(err(k::sys_mmap(nullptr, 4096, k::kProtRead, k::kMapShared, 77, 0)), -k::kEBADF);
  EXPECT_EQ(err(k::sys_mmap(nullptr, 1ull << 40, k::kProtRead, k::kMapPrivate | k::kMapAnonymous, -1, 0)), -k::kENOMEM);
  EXPECT_EQ(k::sys_munmap(reinterpret_cast<void*>(0x1001), 4096), -k::kEINVAL);
  EXPECT_EQ(k::sys_munmap(nullptr, 0), -k::kEINVAL);
}

TEST(AddressSpace, HeapCannotGrowIntoAMapping) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  uint64_t start = u(k::sys_brk(nullptr));
  uint64_t size = p->mm().window_size();
  // Fill the top of the window down to 1 MiB above the heap with one big mapping.
  void* m = k::sys_mmap(nullptr, size - (1 << 20), k::kProtNone, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  ASSERT_FALSE(k::mmap_failed(m));
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start + (2 << 20)))), start);
  EXPECT_EQ(u(k::sys_brk(reinterpret_cast<void*>(start + (512 << 10)))), start + (512 << 10));
}

// A driver pin outlives munmap(): the process loses the range at once (lookups fail, munmap
// succeeds, the file reference goes), but the pages keep their bytes - the device may still be
// using them - and the range is not handed out again until the last pin is dropped.
TEST(AddressSpace, MunmapOfPinnedPagesKeepsThemUntilTheLastUnpin) {
  auto p = k::spawn_process();
  k::ProcessScope as(*p);
  constexpr uint64_t n = 3 * 4096;
  void* a = k::sys_mmap(nullptr, n, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  ASSERT_FALSE(k::mmap_failed(a));
  auto* bytes = static_cast<unsigned char*>(a);
  bytes[4096] = 0x5a;
  uint64_t before = p->mm().mapped_bytes();
  ASSERT_TRUE(p->mm().set_pinned(u(a), n, true));
  ASSERT_TRUE(p->mm().set_pinned(u(a) + 4096, 4096, true));  // pins nest

  EXPECT_EQ(k::sys_munmap(a, n), 0);
  EXPECT_FALSE(p->mm().is_mapped(u(a), 1, k::kProtRead));
  k::Mapping m;
  EXPECT_FALSE(p->mm().find_mapping(u(a), &m));
  EXPECT_EQ(p->mm().mapped_bytes(), before - n);
  EXPECT_FALSE(p->mm().set_pinned(u(a), n, true));  // nothing left to pin
  EXPECT_EQ(k::sys_munmap(a, n), 0);                // unmapping it again is a no-op, as on Linux
  EXPECT_EQ(k::sys_munmap(static_cast<char*>(a) + 4096, 4096), 0);  // so is any part of it
  EXPECT_EQ(bytes[4096], 0x5a);                     // what the device sees is intact

  void* b = k::sys_mmap(nullptr, n, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_NE(b, a);  // the pinned range is not reused
  EXPECT_EQ(k::sys_munmap(b, n), 0);

  EXPECT_TRUE(p->mm().set_pinned(u(a), n, false));
  EXPECT_EQ(bytes[4096], 0x5a);  // one pin left
  EXPECT_TRUE(p->mm().set_pinned(u(a), n, false));
  void* c = k::sys_mmap(nullptr, n, k::kProtRead | k::kProtWrite, k::kMapPrivate | k::kMapAnonymous, -1, 0);
  EXPECT_EQ(c, a);  // freed with the last pin: the hole is reused, zero-filled
  EXPECT_EQ(static_cast<unsigned char*>(c)[4096], 0);
}
