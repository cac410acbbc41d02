// Tests of device_sim/src/mmu.cpp: the page table (map, unmap, translate, pte_count), the UVA
// window (vidmem mapped at a device address is host memory backed by VRAM), the refusals
// (misaligned, outside the window, beyond VRAM, overlapping) and the trace notes.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "minicuda/device.h"
#include "minicuda/trace.h"

namespace minicuda::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

// Can the host read the byte at va? write(2) from it into a pipe fails with EFAULT instead of
// raising SIGSEGV when the page is PROT_NONE, so the test needs no signal handler.
bool host_readable(uint64_t va) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  ssize_t n = write(fds[1], reinterpret_cast<const void*>(va), 1);
  close(fds[0]);
  close(fds[1]);
  return n == 1;
}

uint8_t* ptr(uint64_t va) { return reinterpret_cast<uint8_t*>(va); }

// A 64 MiB VRAM behind a 1 GiB UVA window.
class MmuTest : public ::testing::Test {
 protected:
  Vram vram_{64 * kMiB};
  Mmu mmu_{vram_, 1 * kGiB};
  uint64_t base() const { return mmu_.uva_base(); }
};

TEST_F(MmuTest, WindowIsReservedAndAligned) {
  EXPECT_EQ(mmu_.uva_size(), 1 * kGiB);
  EXPECT_EQ(base() % kBigPage, 0u);
  EXPECT_EQ(mmu_.pte_count(), 0u);
  EXPECT_FALSE(host_readable(base()));  // PROT_NONE until something is mapped
  EXPECT_EQ(mmu_.translate(base()), std::nullopt);
}

TEST_F(MmuTest, AnotherWindowIsDisjointAndMappable) {
  uint64_t second = mmu_.add_window();
  EXPECT_EQ(second % kBigPage, 0u);
  EXPECT_TRUE(second + mmu_.uva_size() <= base() || base() + mmu_.uva_size() <= second);
  EXPECT_TRUE(mmu_.in_window(second, kBigPage));
  EXPECT_TRUE(mmu_.in_window(base() + kBigPage, kBigPage));
  EXPECT_FALSE(mmu_.in_window(second + mmu_.uva_size(), kBigPage));
  // Both windows map VRAM independently: another VA space's pointers never collide.
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBigPage));
  ASSERT_TRUE(mmu_.map_vidmem(second, kBigPage, kBigPage));
  ptr(second)[0] = 7;
  EXPECT_EQ(ptr(base())[0], 0);
  EXPECT_EQ(mmu_.translate(second)->phys, kBigPage);
  EXPECT_EQ(mmu_.unmap(second, kBigPage), 1u);
  EXPECT_FALSE(host_readable(second));
}

TEST_F(MmuTest, VidmemIsReadableAndWritableFromTheHost) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, 2 * kBigPage));
  EXPECT_EQ(mmu_.pte_count(), 2u);
  ASSERT_TRUE(host_readable(base()));
  EXPECT_EQ(ptr(base())[0], 0);  // fresh VRAM reads zero
  std::memset(ptr(base()), 0xab, 2 * kBigPage);
  EXPECT_EQ(ptr(base())[2 * kBigPage - 1], 0xab);
}

TEST_F(MmuTest, TwoMappingsOfOneVramOffsetSeeTheSameBytes) {
  const uint64_t a = base();
  const uint64_t b = base() + 16 * kBigPage;
  ASSERT_TRUE(mmu_.map_vidmem(a, 6 * kMiB, kBigPage));
  ASSERT_TRUE(mmu_.map_vidmem(b, 6 * kMiB, kBigPage));
  std::strcpy(reinterpret_cast<char*>(ptr(a) + 100), "hello, VRAM");
  EXPECT_STREQ(reinterpret_cast<char*>(ptr(b) + 100), "hello, VRAM");

  // And the bytes are in the VRAM memfd at that FB offset.
  char back[12] = {};
  ASSERT_EQ(pread(vram_.backing_fd(), back, sizeof back, 6 * kMiB + 100),
            static_cast<ssize_t>(sizeof back));
  EXPECT_STREQ(back, "hello, VRAM");
}

TEST_F(MmuTest, TranslateVidmem) {
  ASSERT_TRUE(mmu_.map_vidmem(base() + kBigPage, 8 * kMiB, 2 * kBigPage, /*writable=*/false));
  std::optional<Pte> pte = mmu_.translate(base() + kBigPage + kBigPage + 12345);
  ASSERT_TRUE(pte.has_value());
  EXPECT_EQ(pte->aperture, Aperture::Vidmem);
  EXPECT_EQ(pte->phys, 8 * kMiB + kBigPage);  // the page's FB offset
  EXPECT_EQ(pte->page_size, kBigPage);
  EXPECT_FALSE(pte->writable);
  EXPECT_EQ(mmu_.translate(base()), std::nullopt);                    // before the range
  EXPECT_EQ(mmu_.translate(base() + 3 * kBigPage), std::nullopt);     // just after it
  EXPECT_EQ(mmu_.translate(base() + kBigPage - 1), std::nullopt);
}

TEST_F(MmuTest, MisalignedMapsAreRefused) {
  EXPECT_FALSE(mmu_.map_vidmem(base() + 4096, 0, kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base(), 4096, kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base(), 0, kMiB));
  EXPECT_FALSE(mmu_.map_vidmem(base(), 0, 0));
  EXPECT_EQ(mmu_.pte_count(), 0u);
  EXPECT_FALSE(host_readable(base()));
  EXPECT_FALSE(host_readable(base() + 4096));
}

TEST_F(MmuTest, MapsOutsideTheWindowOrVramAreRefused) {
  EXPECT_FALSE(mmu_.map_vidmem(base() - kBigPage, 0, kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base() + mmu_.uva_size(), 0, kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base() + mmu_.uva_size() - kBigPage, 0, 2 * kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base(), 64 * kMiB, kBigPage));       // VRAM is 64 MiB
  EXPECT_FALSE(mmu_.map_vidmem(base(), 62 * kMiB, 2 * kBigPage));
  EXPECT_EQ(mmu_.pte_count(), 0u);
  EXPECT_TRUE(mmu_.map_vidmem(base() + mmu_.uva_size() - kBigPage, 62 * kMiB, kBigPage));
  EXPECT_EQ(mmu_.pte_count(), 1u);
}

TEST_F(MmuTest, OverlappingMapsAreRefusedAndMapNothing) {
  ASSERT_TRUE(mmu_.map_vidmem(base() + 2 * kBigPage, 0, 2 * kBigPage));  // pages 2 and 3
  EXPECT_FALSE(mmu_.map_vidmem(base() + 3 * kBigPage, 8 * kMiB, 2 * kBigPage));  // 3 and 4
  EXPECT_FALSE(mmu_.map_vidmem(base(), 8 * kMiB, 3 * kBigPage));                 // 0, 1, 2
  EXPECT_FALSE(mmu_.map_sysmem(base() + 3 * kBigPage + 4096, 4096));
  EXPECT_EQ(mmu_.pte_count(), 2u);
  EXPECT_EQ(mmu_.translate(base() + 4 * kBigPage), std::nullopt);
  EXPECT_EQ(mmu_.translate(base()), std::nullopt);
  EXPECT_FALSE(host_readable(base() + 4 * kBigPage));
  EXPECT_FALSE(host_readable(base()));
  EXPECT_EQ(mmu_.translate(base() + 3 * kBigPage)->phys, kBigPage);  // unchanged
}

TEST_F(MmuTest, UnmapRemovesPtesAndTheHostMapping) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, 3 * kBigPage));
  EXPECT_EQ(mmu_.unmap(base() + kBigPage, kBigPage), 1u);  // the middle page
  EXPECT_EQ(mmu_.pte_count(), 2u);
  EXPECT_EQ(mmu_.translate(base() + kBigPage), std::nullopt);
  EXPECT_FALSE(host_readable(base() + kBigPage));
  EXPECT_TRUE(host_readable(base()));
  EXPECT_TRUE(host_readable(base() + 2 * kBigPage));

  EXPECT_EQ(mmu_.unmap(base(), 3 * kBigPage), 2u);
  EXPECT_EQ(mmu_.pte_count(), 0u);
  EXPECT_EQ(mmu_.translate(base()), std::nullopt);
  EXPECT_FALSE(host_readable(base()));
  EXPECT_EQ(mmu_.unmap(base(), 3 * kBigPage), 0u);  // nothing left there

  // The range can be mapped again, to other VRAM.
  EXPECT_TRUE(mmu_.map_vidmem(base(), 4 * kMiB, kBigPage));
}

TEST_F(MmuTest, UnmapRemovesAPageThatOnlyPartlyOverlaps) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBigPage));
  EXPECT_EQ(mmu_.unmap(base() + 4096, 4096), 1u);
  EXPECT_EQ(mmu_.pte_count(), 0u);
}

TEST_F(MmuTest, SysmemPtesPointAtTheHostAddress) {
  const uint64_t length = 3 * kSmallPage;
  void* host = std::aligned_alloc(kSmallPage, length);
  ASSERT_NE(host, nullptr);
  const uint64_t va = reinterpret_cast<uint64_t>(host);
  ASSERT_TRUE(mmu_.map_sysmem(va, length));
  EXPECT_EQ(mmu_.pte_count(), 3u);

  std::optional<Pte> pte = mmu_.translate(va + kSmallPage + 5);
  ASSERT_TRUE(pte.has_value());
  EXPECT_EQ(pte->aperture, Aperture::Sysmem);
  EXPECT_EQ(pte->phys, va + kSmallPage);
  EXPECT_EQ(pte->page_size, kSmallPage);
  EXPECT_TRUE(pte->writable);
  EXPECT_EQ(mmu_.translate(va + length), std::nullopt);

  EXPECT_FALSE(mmu_.map_sysmem(va, kSmallPage));  // already mapped
  EXPECT_EQ(mmu_.unmap(va, length), 3u);
  EXPECT_EQ(mmu_.translate(va), std::nullopt);
  std::memset(host, 1, length);  // the host memory itself was not touched by unmap
  std::free(host);
}

// A second GPU's page table reaching this one's VRAM (pool access, nvidia-uvm's peer mapping):
// Peer PTEs at the owner's address, read-only if asked; taking them away leaves the owner's
// mapping, and so the host's, as it was.
TEST_F(MmuTest, PeerPtesReachTheOwnersVramAndLeaveItsMappingAlone) {
  Vram peer_vram{64 * kMiB};
  Mmu peer{peer_vram, 1 * kGiB};
  ASSERT_TRUE(mmu_.map_vidmem(base(), 4 * kMiB, 2 * kBigPage));
  ptr(base())[5] = 42;
  ASSERT_TRUE(peer.map_peer(base(), 0, 4 * kMiB, 2 * kBigPage, /*writable=*/false));
  EXPECT_EQ(peer.pte_count(), 2u);
  std::optional<Pte> pte = peer.translate(base() + kBigPage + 5);
  ASSERT_TRUE(pte.has_value());
  EXPECT_EQ(pte->aperture, Aperture::Peer);
  EXPECT_EQ(pte->peer_gpu, 0);
  EXPECT_EQ(pte->phys, 4 * kMiB + kBigPage);
  EXPECT_EQ(pte->page_size, kBigPage);
  EXPECT_FALSE(pte->writable);
  EXPECT_TRUE(peer.writable_vidmem().empty());  // not the peer's own VRAM
  EXPECT_FALSE(peer.map_peer(base(), 0, 4 * kMiB, kBigPage, true));      // already mapped
  EXPECT_FALSE(peer.map_peer(base() + 4096, 0, 4 * kMiB, kBigPage, true));  // misaligned
  EXPECT_FALSE(peer.map_peer(base() + 4 * kBigPage, 0, 0, 0, true));      // empty

  EXPECT_EQ(peer.unmap(base(), 2 * kBigPage), 2u);
  EXPECT_EQ(peer.translate(base()), std::nullopt);
  EXPECT_TRUE(host_readable(base()));  // the owner's mapping stays
  EXPECT_EQ(ptr(base())[5], 42);
  ASSERT_TRUE(mmu_.translate(base()).has_value());
  EXPECT_EQ(mmu_.translate(base())->aperture, Aperture::Vidmem);
}

// A peer's VRAM where the peer maps none of it (a VMM range whose chunk lives on a GPU given no
// access): with host_view, this page table maps the peer's pages at va in the host too, and its
// unmap returns the range to the reservation.
TEST_F(MmuTest, PeerPtesWithAHostViewMapThePeersVramInTheHost) {
  Vram peer_vram{64 * kMiB};
  EXPECT_FALSE(mmu_.map_peer(base() - kBigPage, 1, 0, kBigPage, true, &peer_vram));  // outside the window
  EXPECT_FALSE(mmu_.map_peer(base(), 1, 64 * kMiB, kBigPage, true, &peer_vram));     // beyond its VRAM
  ASSERT_TRUE(mmu_.map_peer(base(), 1, 2 * kMiB, kBigPage, true, &peer_vram));
  std::optional<Pte> pte = mmu_.translate(base() + 8);
  ASSERT_TRUE(pte.has_value());
  EXPECT_EQ(pte->aperture, Aperture::Peer);
  EXPECT_TRUE(pte->host_view);
  ptr(base())[3] = 77;  // lands in the peer's VRAM at offset 2 MiB
  Mmu owner{peer_vram, 1 * kGiB};
  ASSERT_TRUE(owner.map_vidmem(owner.uva_base(), 2 * kMiB, kBigPage));
  EXPECT_EQ(ptr(owner.uva_base())[3], 77);
  EXPECT_EQ(owner.unmap(owner.uva_base(), kBigPage), 1u);

  EXPECT_EQ(mmu_.unmap(base(), kBigPage), 1u);
  EXPECT_FALSE(host_readable(base()));  // back to the reservation
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBigPage));  // and mappable again
}

TEST_F(MmuTest, MisalignedSysmemIsRefused) {
  EXPECT_FALSE(mmu_.map_sysmem(0x10000 + 8, kSmallPage));
  EXPECT_FALSE(mmu_.map_sysmem(0x10000, 100));
  EXPECT_FALSE(mmu_.map_sysmem(0x10000, 0));
  EXPECT_FALSE(mmu_.map_sysmem(~0ull & ~(kSmallPage - 1), 2 * kSmallPage));  // wraps
  EXPECT_EQ(mmu_.pte_count(), 0u);
}

TEST_F(MmuTest, MapAndUnmapAreTraced) {
  trace::Recorder recorder;
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBigPage));
  EXPECT_FALSE(mmu_.map_vidmem(base() + 4096, 0, kBigPage));
  ASSERT_TRUE(mmu_.map_sysmem(0x7f0000000000, 2 * kSmallPage));
  EXPECT_EQ(mmu_.unmap(base(), kBigPage), 1u);

  std::vector<std::string> expected = {
      fmt::format("mmu: map {:#x}..+2 MiB -> VRAM+0x0, 1 PTE (2 MiB)", base()),
      fmt::format("mmu: map {:#x}..+2 MiB -> VRAM+0x0 refused: not 2 MiB aligned", base() + 4096),
      "mmu: map 0x7f0000000000..+8 KiB -> sysmem 0x7f0000000000, 2 PTEs (4 KiB)",
      fmt::format("mmu: unmap {:#x}..+2 MiB, 1 PTE", base()),
  };
  EXPECT_EQ(recorder.texts(trace::Layer::Gpu), expected);
}

// The TLB is a shortcut over the page walk: after any sequence of maps and unmaps, translate()
// must answer exactly what walk() answers, for every address, including pages the thread's TLB
// held before they were unmapped or remapped read-only elsewhere.
bool same(const std::optional<Pte>& a, const std::optional<Pte>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->aperture == b->aperture && a->phys == b->phys && a->page_size == b->page_size &&
                a->writable == b->writable);
}

TEST_F(MmuTest, TranslateThroughTheTlbAgreesWithTheWalkAfterRandomMapsAndUnmaps) {
  constexpr uint64_t kSlots = 16;  // 2 MiB slots of the window, mapped and unmapped at random
  constexpr uint64_t kSysBase = 0x7e0000000000;
  std::srand(7);
  uint64_t checked = 0, mapped_hits = 0;
  for (int step = 0; step < 3000; ++step) {
    const uint64_t slot = static_cast<uint64_t>(std::rand()) % kSlots;
    switch (std::rand() % 4) {
      case 0: (void)mmu_.map_vidmem(base() + slot * kBigPage, (slot % 8) * kBigPage, kBigPage, std::rand() % 2); break;
      case 1: (void)mmu_.map_sysmem(kSysBase + slot * kSmallPage, kSmallPage, std::rand() % 2); break;
      case 2: (void)mmu_.unmap(base() + slot * kBigPage, kBigPage); break;
      default: (void)mmu_.unmap(kSysBase + slot * kSmallPage, kSmallPage); break;
    }
    // Translate a few addresses twice (the second time from the TLB, if it kept them).
    for (int probe = 0; probe < 6; ++probe) {
      const uint64_t s = static_cast<uint64_t>(std::rand()) % kSlots;
      const uint64_t va = probe % 2 ? base() + s * kBigPage + static_cast<uint64_t>(std::rand()) % kBigPage
                                    : kSysBase + s * kSmallPage + static_cast<uint64_t>(std::rand()) % kSmallPage;
      for (int again = 0; again < 2; ++again) {
        ASSERT_TRUE(same(mmu_.translate(va), mmu_.walk(va))) << "step " << step << ", va " << std::hex << va;
        ++checked;
      }
      mapped_hits += mmu_.walk(va).has_value();
    }
  }
  EXPECT_EQ(checked, 36000u);
  EXPECT_GT(mapped_hits, 3000u);  // the sequence mapped something much of the time
}

TEST_F(MmuTest, AnUnmapInvalidatesTheTlbOfAnotherThread) {
  ASSERT_TRUE(mmu_.map_vidmem(base(), 0, kBigPage));
  std::atomic<int> phase{0};
  std::optional<Pte> before, after;
  std::thread engine([&] {
    before = mmu_.translate(base() + 64);  // fills this thread's TLB
    phase = 1;
    while (phase.load() != 2) std::this_thread::yield();
    after = mmu_.translate(base() + 64);
  });
  while (phase.load() != 1) std::this_thread::yield();
  ASSERT_EQ(mmu_.unmap(base(), kBigPage), 1u);
  phase = 2;
  engine.join();
  EXPECT_TRUE(before.has_value());
  EXPECT_FALSE(after.has_value());
}

TEST(MmuTlb, AnMmuBuiltWhereAnotherWasNeverHitsItsEntries) {
  Vram vram{16 * kMiB};
  auto first = std::make_unique<Mmu>(vram, 64 * kMiB);
  const uint64_t va = first->uva_base();
  ASSERT_TRUE(first->map_vidmem(va, 0, kBigPage));
  ASSERT_TRUE(first->translate(va).has_value());
  first.reset();
  // Placement at the same object address is likely but not certain; either way, nothing stale.
  auto second = std::make_unique<Mmu>(vram, 64 * kMiB);
  EXPECT_FALSE(second->translate(va).has_value());
  EXPECT_FALSE(second->translate(second->uva_base()).has_value());
}

}  // namespace
}  // namespace minicuda::gpu
