// minicuda::gpu: the simulated GPU, the one public header of device_sim/.
//
// This is the hardware. Only the kernel module (driver/nvidia_ko) programs it, the way nvidia.ko
// programs a real GPU through its registers: it reads the device's fixed properties (what the
// real driver reads from PCI config space, fuses and the VBIOS), owns the VRAM arena (physical
// memory) and writes the MMU's page tables.
//
// Units (one file each under src/):
//   properties  the measured properties of an H200 (probe.txt) and a small teaching GPU
//   vram        physical video memory: a sparse memfd, so a 141 GB arena costs host memory only
//               where it was touched
//   mmu         the GPU page tables: GPU virtual address -> VRAM (2 MiB pages) or pinned host
//               memory (4 KiB pages). Mapping vidmem also maps those VRAM pages at the same
//               virtual address in the host process (UVA): device pointers are host addresses
//               that host code, C++ kernels and gdb can dereference.
//
// Thread safety: every public member may be called from any thread; each unit guards its own
// state with a mutex (named per member below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

namespace minicuda::gpu {

inline constexpr uint64_t kSmallPage = 4096;          // sysmem PTEs
inline constexpr uint64_t kBigPage = 2ull << 20;      // vidmem PTEs (2 MiB)

// What the device is; the values of an H200 are measured (shared/reference/h200-cuda13/probe.txt).
struct DeviceProperties {
  std::string name;              // "NVIDIA H200"
  uint16_t pci_vendor_id;        // 0x10de
  uint16_t pci_device_id;        // 0x2335 (H200 SXM)
  int major, minor;              // compute capability 9.0
  uint64_t vram_bytes;           // size of the VRAM arena
  uint64_t total_global_mem;     // what cudaGetDeviceProperties reports (150109880320 on H200)
  int multiprocessor_count;      // 132
  int warp_size;                 // 32
  int max_threads_per_block;     // 1024
  int max_block_dim[3];          // 1024 1024 64
  int max_grid_dim[3];           // 2147483647 65535 65535
  int max_threads_per_sm;        // 2048
  int max_blocks_per_sm;         // 32
  int regs_per_block;            // 65536
  int regs_per_sm;               // 65536
  uint64_t shared_mem_per_block; // 49152
  uint64_t shared_mem_per_block_optin;  // 232448
  uint64_t shared_mem_per_sm;    // 233472
  uint64_t reserved_shared_mem_per_block;  // 1024
  uint64_t total_const_mem;      // 65536
  uint64_t l2_cache_bytes;       // 62914560
  int memory_bus_width;          // 6016
  int memory_clock_khz;          // 3201000 (HBM3e)
  int clock_khz;                 // 1980000
  int async_engine_count;        // 3 copy engines
  int pci_bus_id, pci_device, pci_domain;
  uint8_t uuid[16];              // GPU-... uuid
};

enum class Preset { H200, Teaching };

// The properties of a preset. Teaching: "minicuda Teaching GPU", cc 9.0, 4 SMs, 256 MiB VRAM.
const DeviceProperties& preset_properties(Preset preset);
// Parses "h200" / "teaching" (the MINICUDA_DEVICE environment variable); nullopt if unknown.
std::optional<Preset> parse_preset(std::string_view name);

// Physical video memory. Offsets are byte addresses in VRAM ("FB offsets").
class Vram {
 public:
  explicit Vram(uint64_t bytes);
  ~Vram();
  Vram(const Vram&) = delete;
  Vram& operator=(const Vram&) = delete;

  uint64_t size() const { return bytes_; }
  // The memfd that backs VRAM; the MMU maps slices of it into the host address space.
  int backing_fd() const { return fd_; }
  // Gives the host memory of [offset, offset+length) back (fallocate PUNCH_HOLE): the next read
  // sees zeros, as freed-then-reallocated VRAM would not be guaranteed to hold old data.
  void discard(uint64_t offset, uint64_t length);
  // Host bytes currently backing VRAM (pages touched and not discarded).
  uint64_t resident_bytes() const;

 private:
  uint64_t bytes_;
  int fd_ = -1;
};

enum class Aperture : uint8_t { Vidmem, Sysmem };

// One page-table entry (one page of kBigPage or kSmallPage bytes).
struct Pte {
  Aperture aperture;
  uint64_t phys;       // VRAM offset (Vidmem) or host address (Sysmem)
  uint64_t page_size;  // kBigPage or kSmallPage
  bool writable;
};

// The GPU MMU for one GPU virtual address space (one FERMI_VASPACE_A).
// The device part of the address space [uva_base, uva_base+uva_size) is reserved in the host
// process at construction (PROT_NONE, MAP_NORESERVE) so that vidmem mapped there is reachable
// at the same address from the host.
class Mmu {
 public:
  Mmu(Vram& vram, uint64_t uva_size);
  ~Mmu();
  Mmu(const Mmu&) = delete;
  Mmu& operator=(const Mmu&) = delete;

  uint64_t uva_base() const { return uva_base_; }
  uint64_t uva_size() const { return uva_size_; }

  // Reserves one more window of uva_size() bytes, for another GPU virtual address space: every
  // simulated process has its own VA space, but all of them live in the one host process, so
  // their device pointers must not collide. Returns its base (2 MiB aligned, host-chosen).
  uint64_t add_window();
  // Is [va, va+length) inside one window?
  bool in_window(uint64_t va, uint64_t length) const;

  // Maps [va, va+length) to VRAM [vram_offset, ...) with 2 MiB PTEs. va, vram_offset and length
  // must be 2 MiB aligned and va inside the UVA window; returns false (nothing mapped) otherwise
  // or if any page is already mapped. Also maps the VRAM pages at va in the host (MAP_SHARED of
  // the VRAM memfd, MAP_FIXED).
  bool map_vidmem(uint64_t va, uint64_t vram_offset, uint64_t length, bool writable = true);
  // Maps [va, va+length) to pinned host memory at the same address (UVA) with 4 KiB PTEs.
  // va and length must be 4 KiB aligned; returns false otherwise or if any page is mapped.
  bool map_sysmem(uint64_t va, uint64_t length, bool writable = true);
  // Removes the PTEs of [va, va+length); vidmem pages become PROT_NONE again in the host.
  // Returns the number of pages unmapped.
  uint64_t unmap(uint64_t va, uint64_t length);
  // Walks the page table (what the hardware does on every access).
  std::optional<Pte> translate(uint64_t va) const;
  // Number of valid PTEs.
  uint64_t pte_count() const;

 private:
  Vram& vram_;
  uint64_t uva_base_ = 0;
  uint64_t uva_size_ = 0;
  mutable std::mutex mutex_;
  std::vector<uint64_t> extra_windows_;  // bases of add_window() windows; guarded by mutex_
  bool in_window_locked(uint64_t va, uint64_t length) const;
  std::map<uint64_t, Pte> ptes_;  // page VA -> PTE; guarded by mutex_
};

// One simulated GPU: its properties, its VRAM and its MMU.
class Device {
 public:
  explicit Device(Preset preset);
  const DeviceProperties& properties() const { return *props_; }
  Vram& vram() { return vram_; }
  Mmu& mmu() { return mmu_; }

 private:
  const DeviceProperties* props_;
  Vram vram_;
  Mmu mmu_;
};

}  // namespace minicuda::gpu
