// fission_check: the differential check of region fission (MINICUDA_FISSION=check;
// docs/tools/cu2cxx.md, "The differential gate"). cu2cxx's block functions are a shortcut: a
// kernel split at its barriers runs each region as a loop over the block's threads instead of
// giving every thread a fiber. In this mode the compute engine runs each grid whose kernel has a
// block function twice over the same memory - first with fibers (the plain path), then as
// regions - and this unit makes the two runs comparable: it saves what the grid may write before
// the first run, keeps what the first run left and puts the saved bytes back before the second,
// and afterwards compares the two results bit for bit.
//
// What a grid may write, and so what is saved: every writable vidmem page the MMU maps, and the
// channel's printf buffer. Mapped pinned host memory is not saved: the host may write it while
// the grid runs (its pushbuffers and USERD live there too), so a kernel that writes host memory
// does so twice in this mode. Work of other channels on other engines' threads could write vidmem
// between the two runs; the suite's gate runs with MINICUDA_ENGINE_THREADS=0, where no engine
// runs beside the grid.
//
// Who talks to it: the compute engine (compute_engine.cpp), on the thread that runs the grid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "minicuda/device.h"

namespace minicuda::gpu {

class FissionCheck {
 public:
  // Saves every byte the grid may write.
  FissionCheck(const Mmu& mmu, uint8_t* printf_buffer, uint32_t printf_bytes);

  // After the run with fibers: keeps what it left, and writes the saved bytes back.
  void rewind();
  // After the run as regions: nothing if every byte equals what the fibers left, else the first
  // byte that differs, described for the trace and the kernel error.
  std::optional<std::string> first_difference() const;
  // How many bytes are compared.
  uint64_t bytes() const { return bytes_; }

 private:
  // What the grid may write, in chunks; a chunk of zeros is remembered as such, not copied.
  static constexpr uint64_t kChunkBytes = 64 * 1024;
  struct Range {
    uint8_t* at = nullptr;
    uint64_t length = 0;
    bool saved_zero = false, fibers_zero = false;
    std::vector<uint8_t> saved;   // before the first run (empty when saved_zero)
    std::vector<uint8_t> fibers;  // after the run with fibers (empty when fibers_zero)
  };
  std::vector<Range> ranges_;
  uint64_t bytes_ = 0;
};

// Counts a checked launch of `kernel` for the summary this process prints at exit
// ("minicuda: fission check: N launches of split kernels compared, M differed"), and, when
// MINICUDA_FISSION_CHECK_LOG names a file, appends "<kernel> same|different" to it (the suite's
// gate collects which kernels were checked). Thread-safe.
void record_fission_check(const std::string& kernel, bool same);

}  // namespace minicuda::gpu
