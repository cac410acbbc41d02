// properties: what the simulated GPU is. The real driver learns these from PCI config space, the
// fuses and the VBIOS; here they are constants. The H200 values are the ones measured on a real
// H200 with CUDA 13 (shared/reference/h200-cuda13/probe.txt); the Teaching GPU is a small H200
// (4 SMs, 256 MiB) whose traces and page tables fit on a screen.
//
// Who talks to it: Device (device.cpp) picks its preset here; nvidia.ko reads the properties
// when it probes the GPU; parse_preset reads the MINICUDA_DEVICE environment variable's value.
#include <cctype>

#include "minicuda/device.h"

namespace minicuda::gpu {

namespace {

constexpr uint64_t kMiB = 1ull << 20;

// An H200 SXM as probe.txt measured it. vram_bytes is nvidia-smi's 143771 MiB: the driver keeps
// the difference to total_global_mem (about 616 MiB) for itself, as the real one does.
DeviceProperties make_h200() {
  DeviceProperties p{};
  p.name = "NVIDIA H200";
  p.pci_vendor_id = 0x10de;
  p.pci_device_id = 0x2335;
  p.major = 9;
  p.minor = 0;
  p.vram_bytes = 143771 * kMiB;        // 150754820096
  p.total_global_mem = 150109880320;   // prop.totalGlobalMem
  p.multiprocessor_count = 132;
  p.warp_size = 32;
  p.max_threads_per_block = 1024;
  p.max_block_dim[0] = 1024;
  p.max_block_dim[1] = 1024;
  p.max_block_dim[2] = 64;
  p.max_grid_dim[0] = 2147483647;
  p.max_grid_dim[1] = 65535;
  p.max_grid_dim[2] = 65535;
  p.max_threads_per_sm = 2048;
  p.max_blocks_per_sm = 32;
  p.regs_per_block = 65536;
  p.regs_per_sm = 65536;
  p.shared_mem_per_block = 49152;
  p.shared_mem_per_block_optin = 232448;
  p.shared_mem_per_sm = 233472;
  p.reserved_shared_mem_per_block = 1024;
  p.total_const_mem = 65536;
  p.l2_cache_bytes = 62914560;
  p.memory_bus_width = 6016;
  p.memory_clock_khz = 3201000;
  p.clock_khz = 1980000;
  p.async_engine_count = 3;
  p.pci_domain = 0;
  p.pci_bus_id = 0x00;  // measured: CARD_INFO and cudaDeviceProp report 0000:00:06.0
  p.pci_device = 6;
  // A fixed, made-up UUID (GPU-6d696e69-6375-6461-8200-000000000001: "minicuda", H200, #1) so
  // that traces and tests are the same on every run.
  const uint8_t uuid[16] = {0x6d, 0x69, 0x6e, 0x69, 0x63, 0x75, 0x64, 0x61,
                            0x82, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
  for (int i = 0; i < 16; ++i) p.uuid[i] = uuid[i];
  return p;
}

// The Teaching GPU: an H200 cut down to 4 SMs, 256 MiB of VRAM (16 MiB kept by the driver) and
// one copy engine. Every per-SM and per-block limit is the H200's, so code tuned here behaves
// the same way on the big preset.
DeviceProperties make_teaching() {
  DeviceProperties p = make_h200();
  p.name = "minicuda Teaching GPU";
  p.vram_bytes = 256 * kMiB;
  p.total_global_mem = 256 * kMiB - 16 * kMiB;
  p.multiprocessor_count = 4;
  p.async_engine_count = 1;
  p.pci_bus_id = 0x01;
  p.uuid[8] = 0x7e;  // ...-7e00-...: the Teaching GPU
  return p;
}

}  // namespace

// Returns the properties of preset; the reference stays valid for the life of the process.
const DeviceProperties& preset_properties(Preset preset) {
  static const DeviceProperties h200 = make_h200();
  static const DeviceProperties teaching = make_teaching();
  switch (preset) {
    case Preset::H200:
      return h200;
    case Preset::Teaching:
      return teaching;
  }
  return h200;  // not reached: every Preset is handled above
}

// Parses a preset name, ignoring case: "h200" -> H200, "teaching" -> Teaching; nullopt for any
// other string (including the empty one).
std::optional<Preset> parse_preset(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "h200") return Preset::H200;
  if (lower == "teaching") return Preset::Teaching;
  return std::nullopt;
}

}  // namespace minicuda::gpu
