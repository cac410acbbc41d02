// simt_counters: counting a SASS kernel's work, warp-instruction by warp-instruction (see
// simt_counters.h for the model).
#include "simt_counters.h"

#include <algorithm>

#include "simt.h"
#include "simt_values.h"

namespace minicuda::gpu {

namespace {
constexpr unsigned kSectorBytes = 32, kLineBytes = 128, kBanks = 32;

uint64_t hash_line(uint64_t line) {
  line ^= line >> 31;
  line *= 0x9e3779b97f4a7c15ull;
  return line ^ (line >> 29);
}

unsigned popcount8(uint8_t m) { return static_cast<unsigned>(__builtin_popcount(m)); }
}  // namespace

const char* inst_class_name(InstClass c) {
  switch (c) {
    case InstClass::IntFp32: return "int/fp32";
    case InstClass::Fp64: return "fp64";
    case InstClass::Fma: return "fma";
    case InstClass::Sfu: return "sfu";
    case InstClass::Conversion: return "conversion";
    case InstClass::Control: return "control";
    case InstClass::Barrier: return "barrier";
    case InstClass::Memory: return "memory";
    default: return "?";
  }
}

InstClass inst_class(const NvSassInstruction& in) {
  switch (in.opcode) {
    case NV_SASS_OP_LD: case NV_SASS_OP_ST: case NV_SASS_OP_LDU: case NV_SASS_OP_ATOM: case NV_SASS_OP_RED:
    case NV_SASS_OP_PREFETCH: case NV_SASS_OP_PRINTF: case NV_SASS_OP_ASSERTFAIL: case NV_SASS_OP_SHFL:
    case NV_SASS_OP_VOTE: case NV_SASS_OP_MATCH: case NV_SASS_OP_REDUX:
    case NV_SASS_OP_TEX: case NV_SASS_OP_SULD: case NV_SASS_OP_SUST: case NV_SASS_OP_HEAP:
      return InstClass::Memory;
    case NV_SASS_OP_BRA: case NV_SASS_OP_CALL: case NV_SASS_OP_RET: case NV_SASS_OP_EXIT: case NV_SASS_OP_TRAP:
    case NV_SASS_OP_BRKPT: case NV_SASS_OP_NOP: case NV_SASS_OP_NANOSLEEP:
      return InstClass::Control;
    case NV_SASS_OP_BAR_SYNC: case NV_SASS_OP_BAR_ARRIVE: case NV_SASS_OP_BAR_RED: case NV_SASS_OP_BAR_WARP_SYNC:
    case NV_SASS_OP_MEMBAR:
      return InstClass::Barrier;
    case NV_SASS_OP_CVT:
      return InstClass::Conversion;
    default:
      break;
  }
  if (in.type == NV_SASS_TYPE_F64) return InstClass::Fp64;
  switch (in.opcode) {
    case NV_SASS_OP_FMA:
      return InstClass::Fma;
    case NV_SASS_OP_MAD:
      return in.type == NV_SASS_TYPE_F32 ? InstClass::Fma : InstClass::IntFp32;
    case NV_SASS_OP_RCP: case NV_SASS_OP_SQRT: case NV_SASS_OP_RSQRT: case NV_SASS_OP_SIN: case NV_SASS_OP_COS:
    case NV_SASS_OP_EX2: case NV_SASS_OP_LG2: case NV_SASS_OP_TANH: case NV_SASS_OP_DIV:
      return in.type == NV_SASS_TYPE_F32 ? InstClass::Sfu : InstClass::IntFp32;
    default:
      return InstClass::IntFp32;
  }
}

uint64_t KernelCounters::total_warp_instructions() const {
  uint64_t n = 0;
  for (uint64_t c : warp_instructions) n += c;
  return n;
}

void KernelCounters::add(const KernelCounters& o) {
  for (unsigned i = 0; i < kInstClasses; ++i) warp_instructions[i] += o.warp_instructions[i];
  thread_instructions += o.thread_instructions;
  global_load_requests += o.global_load_requests;
  global_load_sectors += o.global_load_sectors;
  global_store_requests += o.global_store_requests;
  global_store_sectors += o.global_store_sectors;
  global_partial_store_sectors += o.global_partial_store_sectors;
  global_wavefronts += o.global_wavefronts;
  shared_requests += o.shared_requests;
  shared_wavefronts += o.shared_wavefronts;
  barrier_waits += o.barrier_waits;
  l1_hit_sectors += o.l1_hit_sectors;
  blocks += o.blocks;
  warps += o.warps;
}

// --- LineTable ---------------------------------------------------------------------------------

LineTable::Line& LineTable::at(uint64_t line) {
  const uint64_t key = line / kPageLines + 1;
  unsigned r = 0;
  while (r < kRecent && recent_key_[r] != key) ++r;
  const uint32_t page = r < kRecent ? recent_page_[r] : find_or_add(key);
  for (unsigned i = std::min(r, kRecent - 1); i > 0; --i) {
    recent_key_[i] = recent_key_[i - 1];
    recent_page_[i] = recent_page_[i - 1];
  }
  recent_key_[0] = key;
  recent_page_[0] = page;
  return pages_[page].lines[line % kPageLines];
}

uint32_t LineTable::find_or_add(uint64_t key) {
  if ((pages_.size() + 1) * 2 > index_.size()) grow_index();
  const size_t mask = index_.size() - 1;
  for (size_t i = hash_line(key) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = index_[i];
    if (slot == 0) {
      pages_.emplace_back();
      pages_.back().key = key;
      index_[i] = static_cast<uint32_t>(pages_.size());
      return static_cast<uint32_t>(pages_.size() - 1);
    }
    if (pages_[slot - 1].key == key) return slot - 1;
  }
}

void LineTable::grow_index() {
  index_.assign(index_.size() * 2, 0);
  const size_t mask = index_.size() - 1;
  for (size_t p = 0; p < pages_.size(); ++p) {
    size_t i = hash_line(pages_[p].key) & mask;
    while (index_[i] != 0) i = (i + 1) & mask;
    index_[i] = static_cast<uint32_t>(p + 1);
  }
}

void LineTable::clear() {
  pages_.clear();
  std::fill(index_.begin(), index_.end(), 0u);
  std::fill(std::begin(recent_key_), std::end(recent_key_), uint64_t{0});
}

// --- GridCounters ------------------------------------------------------------------------------

void GridCounters::merge(const KernelCounters& c, const LineTable& lines) {
  std::lock_guard lock(mutex_);
  totals_.add(c);
  lines.for_each([&](uint64_t line, const LineTable::Line& e) {
    if ((e.read | e.written) == 0) return;
    LineTable::Line& t = lines_.at(line);
    t.read |= e.read;
    t.written |= e.written;
  });
}

KernelCounters GridCounters::finish(uint64_t l2_bytes) const {
  std::lock_guard lock(mutex_);
  KernelCounters c = totals_;
  uint64_t read_only = 0, written = 0, footprint = 0;
  lines_.for_each([&](uint64_t, const LineTable::Line& e) {
    read_only += popcount8(static_cast<uint8_t>(e.read & ~e.written));
    written += popcount8(e.written);
    footprint += popcount8(static_cast<uint8_t>(e.read | e.written));
  });
  const uint64_t l2_reads = c.global_load_sectors - c.l1_hit_sectors;
  c.l2_sectors = l2_reads + c.global_store_sectors;
  // Distinct sectors read (and not written first) come from DRAM once; when the footprint is
  // larger than the L2, re-reads miss in the proportion that does not fit.
  uint64_t dram_reads = std::min(read_only, l2_reads);
  const uint64_t footprint_bytes = footprint * kSectorBytes;
  if (footprint_bytes > l2_bytes && l2_reads > dram_reads) {
    const double miss = 1.0 - static_cast<double>(l2_bytes) / static_cast<double>(footprint_bytes);
    dram_reads += static_cast<uint64_t>(static_cast<double>(l2_reads - dram_reads) * miss);
  }
  c.dram_read_bytes = dram_reads * kSectorBytes;
  c.dram_write_bytes = written * kSectorBytes;
  c.l2_hit_sectors = c.l2_sectors - std::min(c.l2_sectors, dram_reads + written);
  return c;
}

// --- InstructionCounter ------------------------------------------------------------------------

namespace simt {

void InstructionCounter::begin_grid() {
  counters_ = KernelCounters{};
  lines_.clear();
}

void InstructionCounter::begin_block(uint64_t block, unsigned warps) {
  block_ = block + 1;  // 0 marks "no block" in the table
  counters_.blocks += 1;
  counters_.warps += warps;
}

void InstructionCounter::end_grid(GridCounters& grid) {
  grid.merge(counters_, lines_);
  begin_grid();
}

void InstructionCounter::count(const BlockExec& b, const Warp& w, const NvSassInstruction& in, uint32_t group,
                               uint32_t mask) {
  const InstClass cls = inst_class(in);
  const bool int_divide = (in.opcode == NV_SASS_OP_DIV || in.opcode == NV_SASS_OP_REM) &&
                          in.type != NV_SASS_TYPE_F32 && in.type != NV_SASS_TYPE_F64;
  const unsigned weight = int_divide ? kIntDivideInstructions : 1;
  counters_.warp_instructions[static_cast<unsigned>(cls)] += weight;
  counters_.thread_instructions += uint64_t{weight} * static_cast<uint64_t>(__builtin_popcount(group));
  if (mask == 0) return;
  if (cls == InstClass::Barrier) {
    if (in.opcode == NV_SASS_OP_BAR_SYNC || in.opcode == NV_SASS_OP_BAR_RED) counters_.barrier_waits += 1;
    return;
  }
  if (cls != InstClass::Memory) return;
  const bool store = in.opcode == NV_SASS_OP_ST || in.opcode == NV_SASS_OP_ATOM || in.opcode == NV_SASS_OP_RED;
  if (!store && in.opcode != NV_SASS_OP_LD && in.opcode != NV_SASS_OP_LDU) return;
  if (in.space == NV_SASS_SPACE_PARAM || in.space == NV_SASS_SPACE_LOCAL || in.space == NV_SASS_SPACE_CONST) return;
  // The lanes' addresses, as the executor forms them (simt_memory.cpp): base + offset.
  uint64_t base = 0;
  if (in.addr.kind == NV_SASS_OPND_SYMBOL) {
    const NvSassProgram& p = b.program();
    base = in.addr.index < p.symbol_count ? nv_p64_to_ptr<const NvU64>(p.symbols)[in.addr.index] : 0;
  }
  const uint64_t offset = base + static_cast<uint64_t>(in.addr.offset);
  uint64_t address[kLanes];
  if (in.addr.kind == NV_SASS_OPND_REG) {
    const uint64_t* r = w.regs + size_t{in.addr.index} * kLanes;
    for_lanes(mask, [&](unsigned l) { address[l] = r[l] + offset; });
  } else {
    for_lanes(mask, [&](unsigned l) { address[l] = offset; });
  }
  const unsigned bytes = std::max(1u, type_bits(in.type) / 8) * (in.vec == 0 ? 1u : in.vec);
  if (in.space == NV_SASS_SPACE_SHARED) {
    shared_access(address, mask, bytes);
    return;
  }
  if (in.space == NV_SASS_SPACE_GENERIC) {  // a shared window address goes to the banks
    const uint64_t shared = reinterpret_cast<uint64_t>(const_cast<BlockExec&>(b).shared());
    uint32_t in_shared = 0;
    for_lanes(mask, [&](unsigned l) {
      if (address[l] - shared < b.shared_size()) in_shared |= 1u << l;
    });
    if (in_shared != 0) {
      for_lanes(in_shared, [&](unsigned l) { address[l] -= shared; });
      shared_access(address, in_shared, bytes);
      mask &= ~in_shared;
      if (mask == 0) return;
    }
  }
  global_access(address, mask, bytes, store);
}

// One global request: the distinct sectors its lanes touch, line by line through the table.
void InstructionCounter::global_access(const uint64_t* address, uint32_t mask, unsigned bytes, bool store) {
  uint64_t sectors[kLanes * 2];
  unsigned n = 0;
  for_lanes(mask, [&](unsigned l) {
    const uint64_t first = address[l] / kSectorBytes, last = (address[l] + bytes - 1) / kSectorBytes;
    sectors[n++] = first;
    if (last != first && n < kLanes * 2) sectors[n++] = last;
  });
  if (!std::is_sorted(sectors, sectors + n)) std::sort(sectors, sectors + n);  // lanes mostly ascend
  if (store) {  // a sector whose lanes write fewer than its 32 bytes is a partial write
    for (unsigned i = 0; i < n;) {
      unsigned j = i;
      while (j < n && sectors[j] == sectors[i]) ++j;
      if ((j - i) * bytes < kSectorBytes) counters_.global_partial_store_sectors += 1;
      i = j;
    }
  }
  n = static_cast<unsigned>(std::unique(sectors, sectors + n) - sectors);
  if (store) {
    counters_.global_store_requests += 1;
    counters_.global_store_sectors += n;
  } else {
    counters_.global_load_requests += 1;
    counters_.global_load_sectors += n;
  }
  constexpr uint64_t kSectorsPerLine = kLineBytes / kSectorBytes;
  for (unsigned i = 0; i < n;) {
    const uint64_t line = sectors[i] / kSectorsPerLine;
    uint8_t touched = 0;
    for (; i < n && sectors[i] / kSectorsPerLine == line; ++i)
      touched |= static_cast<uint8_t>(1u << (sectors[i] % kSectorsPerLine));
    counters_.global_wavefronts += 1;
    LineTable::Line& e = lines_.at(line);
    if (store) {
      e.written |= touched;
      continue;
    }
    if (e.block != block_) {
      e.block = block_;
      e.l1 = 0;
    }
    counters_.l1_hit_sectors += popcount8(static_cast<uint8_t>(e.l1 & touched));
    e.l1 |= touched;
    e.read |= touched;
  }
}

// One shared request: as many wavefronts as the busiest bank has distinct 4-byte words.
void InstructionCounter::shared_access(const uint64_t* offset, uint32_t mask, unsigned bytes) {
  uint64_t words[kLanes * 4];
  unsigned n = 0;
  const unsigned per_lane = std::min(4u, std::max(1u, bytes / 4));
  for_lanes(mask, [&](unsigned l) {
    for (unsigned k = 0; k < per_lane; ++k) words[n++] = offset[l] / 4 + k;
  });
  if (!std::is_sorted(words, words + n)) std::sort(words, words + n);
  n = static_cast<unsigned>(std::unique(words, words + n) - words);
  unsigned per_bank[kBanks] = {};
  unsigned busiest = 0;
  for (unsigned i = 0; i < n; ++i) busiest = std::max(busiest, ++per_bank[words[i] % kBanks]);
  counters_.shared_requests += 1;
  counters_.shared_wavefronts += std::max(1u, busiest);
}

}  // namespace simt
}  // namespace minicuda::gpu
