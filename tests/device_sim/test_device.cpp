// Tests of device_sim/src/device.cpp: a Device is its preset's properties, a VRAM of the preset's
// size and a UVA window of twice the VRAM rounded up to a power of two (at least 4 GiB).
#include <gtest/gtest.h>

#include "minicuda/device.h"

namespace minicuda::gpu {
namespace {

TEST(Device, TeachingGpu) {
  Device device(Preset::Teaching);
  EXPECT_EQ(&device.properties(), &preset_properties(Preset::Teaching));
  EXPECT_EQ(device.vram().size(), 256ull << 20);
  EXPECT_EQ(device.mmu().uva_size(), 4ull << 30);  // 512 MiB, raised to the 4 GiB minimum
  EXPECT_EQ(device.mmu().uva_base() % kBigPage, 0u);
  EXPECT_EQ(device.mmu().pte_count(), 0u);
}

TEST(Device, H200) {
  Device device(Preset::H200);
  EXPECT_EQ(device.properties().name, "NVIDIA H200");
  EXPECT_EQ(device.vram().size(), 150754820096ull);
  EXPECT_EQ(device.mmu().uva_size(), 512ull << 30);  // 140.4 GiB -> 256 GiB -> x2
  EXPECT_LT(device.vram().resident_bytes(), 1ull << 20);
}

TEST(Device, TwoDevicesGetDisjointWindows) {
  Device a(Preset::Teaching);
  Device b(Preset::Teaching);
  uint64_t a_end = a.mmu().uva_base() + a.mmu().uva_size();
  uint64_t b_end = b.mmu().uva_base() + b.mmu().uva_size();
  EXPECT_TRUE(a_end <= b.mmu().uva_base() || b_end <= a.mmu().uva_base());
  // Each GPU's vidmem is its own.
  ASSERT_TRUE(a.mmu().map_vidmem(a.mmu().uva_base(), 0, kBigPage));
  ASSERT_TRUE(b.mmu().map_vidmem(b.mmu().uva_base(), 0, kBigPage));
  *reinterpret_cast<int*>(a.mmu().uva_base()) = 1;
  *reinterpret_cast<int*>(b.mmu().uva_base()) = 2;
  EXPECT_EQ(*reinterpret_cast<int*>(a.mmu().uva_base()), 1);
}

}  // namespace
}  // namespace minicuda::gpu
