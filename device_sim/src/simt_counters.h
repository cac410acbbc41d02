// simt_counters: what a kernel run by the SIMT executor did, counted per warp-instruction -
// the figures Nsight Compute shows, and the input of the work-aware cost model (cost_model.h).
//
// Who talks to it: the executor (simt.cpp) calls InstructionCounter::count once per
// warp-instruction, before the instruction runs; each host thread's counter merges into the
// grid's GridCounters when it runs out of blocks; the compute engine reads the totals.
//
// The model (docs/timing.md, "The work-aware model"):
// - Instructions by class; a warp-instruction counts once, its active lanes into thread
//   instructions (warp execution efficiency = thread / (32 x warp instructions)). An integer
//   div or rem counts as the sequence the GPU runs for it (no divider: kIntDivideInstructions).
// - Global memory: one request per warp-instruction; the 32-byte sectors and 128-byte lines its
//   active lanes touch after coalescing.
// - Shared memory: 32 banks of 4 bytes. Lanes that reach different 4-byte words of one bank
//   serialise: a request takes as many wavefronts as the most-loaded bank has distinct words
//   (the same word is a broadcast); bank conflicts = wavefronts - requests.
// - L1: per block (a block's loads hit the sectors that block loaded before). L2: the grid's
//   distinct sectors come from DRAM once; re-reads hit, unless the grid's footprint is larger
//   than the L2, when the share that does not fit misses again. Stores write their distinct
//   sectors back to DRAM once. Both depend only on which sectors were touched, never on the
//   order host threads ran blocks, so the figures are the same on every run and host.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "nv_sass.h"

namespace minicuda::gpu {

// The issue classes of the cost model.
enum class InstClass : uint8_t { IntFp32, Fp64, Fma, Sfu, Conversion, Control, Barrier, Memory, Count };
constexpr unsigned kInstClasses = static_cast<unsigned>(InstClass::Count);
const char* inst_class_name(InstClass c);
// Warp-instructions an integer div/rem costs: the H200 runs a software sequence (ncu counted
// about 18 more instructions per `t % (2 * s)` than for the same loop without it).
constexpr unsigned kIntDivideInstructions = 18;
// The class of one SASS instruction.
InstClass inst_class(const NvSassInstruction& in);

struct KernelCounters {
  uint64_t warp_instructions[kInstClasses] = {};
  uint64_t thread_instructions = 0;  // active lanes summed over warp-instructions
  uint64_t global_load_requests = 0, global_load_sectors = 0;
  uint64_t global_store_requests = 0, global_store_sectors = 0;  // atomics count as stores
  uint64_t global_partial_store_sectors = 0;  // store sectors the request writes only part of
  uint64_t global_wavefronts = 0;  // distinct 128-byte lines per request, summed
  uint64_t shared_requests = 0, shared_wavefronts = 0;
  uint64_t barrier_waits = 0;  // warps arriving at bar.sync / bar.red
  uint64_t l1_hit_sectors = 0;  // of global_load_sectors
  uint64_t blocks = 0, warps = 0;
  // Filled by GridCounters::finish:
  uint64_t l2_sectors = 0, l2_hit_sectors = 0;
  uint64_t dram_read_bytes = 0, dram_write_bytes = 0;

  uint64_t total_warp_instructions() const;
  uint64_t bank_conflicts() const { return shared_wavefronts - shared_requests; }
  void add(const KernelCounters& o);
};

// The sectors a host thread's blocks touched, per 128-byte line (masks of the 4 sectors read,
// written, and loaded by the current block). Lines live in pages of 64 consecutive lines, found
// through an open-addressing index of page numbers: a warp's requests walk memory line by line,
// so most lookups land in the page of the one before, and the memory a grid streams through
// stays together in the host's caches. clear() keeps the memory for the next grid.
class LineTable {
 public:
  struct Line {
    uint64_t block = 0;  // the block whose loads l1 holds (0: none)
    uint8_t read = 0, written = 0, l1 = 0;
  };
  Line& at(uint64_t line);
  // Forgets every line.
  void clear();
  // f(line address, const Line&) for every line of every page touched since clear(), untouched
  // lines of those pages (all masks 0) included.
  template <class F>
  void for_each(F&& f) const {
    for (const Page& p : pages_)
      for (unsigned i = 0; i < kPageLines; ++i) f((p.key - 1) * kPageLines + i, p.lines[i]);
  }

 private:
  static constexpr unsigned kPageLines = 64;
  struct Page {
    uint64_t key = 0;  // page number + 1
    Line lines[kPageLines];
  };
  uint32_t find_or_add(uint64_t key);
  void grow_index();
  std::vector<Page> pages_;                           // in the order first touched
  std::vector<uint32_t> index_ = std::vector<uint32_t>(256);  // -> pages_ index + 1 (0: empty)
  // The pages of the last lookups, most recent first (key 0: none): a kernel streams through a
  // few arrays at once, each request in the page of that array's request before.
  static constexpr unsigned kRecent = 4;
  uint64_t recent_key_[kRecent] = {};
  uint32_t recent_page_[kRecent] = {};
};

// One grid's totals, merged from every host thread that ran its blocks. Thread-safe.
class GridCounters {
 public:
  void merge(const KernelCounters& c, const LineTable& lines);
  // The totals, with the L2 and DRAM figures for an L2 of `l2_bytes`.
  KernelCounters finish(uint64_t l2_bytes) const;

 private:
  mutable std::mutex mutex_;
  KernelCounters totals_;  // guarded by mutex_
  LineTable lines_;        // guarded by mutex_: the union of the threads' sector masks
};

namespace simt {
class BlockExec;
struct Warp;

// One host thread's counter for the grid it is running (owned by its BlockExec).
class InstructionCounter {
 public:
  void begin_grid();
  void begin_block(uint64_t block, unsigned warps);
  // One warp-instruction: `group` the lanes that run it, `mask` those whose guard is true.
  void count(const BlockExec& b, const Warp& w, const NvSassInstruction& in, uint32_t group, uint32_t mask);
  // Hands this thread's counts to the grid and starts over.
  void end_grid(GridCounters& grid);
  const KernelCounters& counters() const { return counters_; }

 private:
  void global_access(const uint64_t* address, uint32_t mask, unsigned bytes, bool store);
  void shared_access(const uint64_t* offset, uint32_t mask, unsigned bytes);

  KernelCounters counters_;
  LineTable lines_;
  uint64_t block_ = 0;
};
}  // namespace simt

}  // namespace minicuda::gpu
