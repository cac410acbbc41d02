// Tests of device_sim/src/properties.cpp: the H200 preset reports exactly what a real H200
// reported to cudaGetDeviceProperties (shared/reference/h200-cuda13/probe.txt), the Teaching
// preset is a small H200, and parse_preset reads MINICUDA_DEVICE's values.
#include <gtest/gtest.h>

#include <cstring>

#include "minicuda/device.h"

namespace minicuda::gpu {
namespace {

TEST(Properties, H200MatchesProbe) {
  const DeviceProperties& p = preset_properties(Preset::H200);
  EXPECT_EQ(p.name, "NVIDIA H200");                     // prop.name
  EXPECT_EQ(p.pci_vendor_id, 0x10de);
  EXPECT_EQ(p.pci_device_id, 0x2335);
  EXPECT_EQ(p.major, 9);                                // prop.major.minor = 9.0
  EXPECT_EQ(p.minor, 0);
  EXPECT_EQ(p.total_global_mem, 150109880320ull);       // prop.totalGlobalMem
  EXPECT_EQ(p.shared_mem_per_block, 49152u);            // prop.sharedMemPerBlock
  EXPECT_EQ(p.regs_per_block, 65536);                   // prop.regsPerBlock
  EXPECT_EQ(p.warp_size, 32);                           // prop.warpSize
  EXPECT_EQ(p.max_threads_per_block, 1024);             // prop.maxThreadsPerBlock
  EXPECT_EQ(p.max_block_dim[0], 1024);                  // prop.maxThreadsDim
  EXPECT_EQ(p.max_block_dim[1], 1024);
  EXPECT_EQ(p.max_block_dim[2], 64);
  EXPECT_EQ(p.max_grid_dim[0], 2147483647);             // prop.maxGridSize
  EXPECT_EQ(p.max_grid_dim[1], 65535);
  EXPECT_EQ(p.max_grid_dim[2], 65535);
  EXPECT_EQ(p.multiprocessor_count, 132);               // prop.multiProcessorCount
  EXPECT_EQ(p.max_threads_per_sm, 2048);                // prop.maxThreadsPerMultiProcessor
  EXPECT_EQ(p.max_blocks_per_sm, 32);                   // prop.maxBlocksPerMultiProcessor
  EXPECT_EQ(p.shared_mem_per_sm, 233472u);              // prop.sharedMemPerMultiprocessor
  EXPECT_EQ(p.shared_mem_per_block_optin, 232448u);     // prop.sharedMemPerBlockOptin
  EXPECT_EQ(p.reserved_shared_mem_per_block, 1024u);
  EXPECT_EQ(p.regs_per_sm, 65536);                      // prop.regsPerMultiprocessor
  EXPECT_EQ(p.l2_cache_bytes, 62914560u);               // prop.l2CacheSize
  EXPECT_EQ(p.memory_bus_width, 6016);                  // prop.memoryBusWidth
  EXPECT_EQ(p.total_const_mem, 65536u);                 // prop.totalConstMem
  EXPECT_EQ(p.async_engine_count, 3);                   // prop.asyncEngineCount
  EXPECT_EQ(p.memory_clock_khz, 3201000);
  EXPECT_EQ(p.clock_khz, 1980000);
}

TEST(Properties, H200VramIsNvidiaSmiFigureAboveTotalGlobalMem) {
  const DeviceProperties& p = preset_properties(Preset::H200);
  EXPECT_EQ(p.vram_bytes, 143771ull << 20);  // nvidia-smi: 143771 MiB
  EXPECT_EQ(p.vram_bytes, 150754820096ull);
  EXPECT_GT(p.vram_bytes, p.total_global_mem);  // the driver keeps the difference
}

TEST(Properties, TeachingIsASmallH200) {
  const DeviceProperties& t = preset_properties(Preset::Teaching);
  const DeviceProperties& h = preset_properties(Preset::H200);
  EXPECT_EQ(t.name, "minicuda Teaching GPU");
  EXPECT_EQ(t.major, 9);
  EXPECT_EQ(t.minor, 0);
  EXPECT_EQ(t.multiprocessor_count, 4);
  EXPECT_EQ(t.vram_bytes, 256ull << 20);
  EXPECT_EQ(t.total_global_mem, (256ull - 16) << 20);
  EXPECT_EQ(t.async_engine_count, 1);
  EXPECT_EQ(t.warp_size, h.warp_size);
  EXPECT_EQ(t.max_threads_per_block, h.max_threads_per_block);
  EXPECT_EQ(t.max_threads_per_sm, h.max_threads_per_sm);
  EXPECT_EQ(t.shared_mem_per_block_optin, h.shared_mem_per_block_optin);
  EXPECT_EQ(t.regs_per_sm, h.regs_per_sm);
}

TEST(Properties, PresetsAreDeterministicAndDistinct) {
  const DeviceProperties& t = preset_properties(Preset::Teaching);
  const DeviceProperties& h = preset_properties(Preset::H200);
  EXPECT_EQ(&h, &preset_properties(Preset::H200));  // one object for the process
  EXPECT_NE(0, std::memcmp(t.uuid, h.uuid, sizeof h.uuid));
}

TEST(Properties, ParsePreset) {
  EXPECT_EQ(parse_preset("h200"), Preset::H200);
  EXPECT_EQ(parse_preset("H200"), Preset::H200);
  EXPECT_EQ(parse_preset("teaching"), Preset::Teaching);
  EXPECT_EQ(parse_preset("Teaching"), Preset::Teaching);
  EXPECT_EQ(parse_preset("TEACHING"), Preset::Teaching);
  EXPECT_EQ(parse_preset(""), std::nullopt);
  EXPECT_EQ(parse_preset("h100"), std::nullopt);
  EXPECT_EQ(parse_preset("h200 "), std::nullopt);
}

}  // namespace
}  // namespace minicuda::gpu
