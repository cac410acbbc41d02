// Register allocation keeps every value: in the allocated program (-O4) each register read must
// be reached by exactly the same writes as the matching PTX register's read in the unallocated
// program (-O0, one register per PTX register). Reaching definitions are computed here on their
// own, forward over the branches, so the check does not reuse the allocator's liveness.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "minicuda/ptx/ptx.h"
#include "nv_sass.h"

namespace ptx = minicuda::ptx;

namespace {

std::string read(const std::string& rel) {
  std::ifstream f(std::string(MINICUDA_PTX_DATA_DIR) + "/" + rel);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Operands an instruction writes: operand[0] of every value-producing operation, all of a vector
// load's, all but the source of an unpack.
int writes(const NvSassInstruction& i) {
  switch (i.opcode) {
    case NV_SASS_OP_ST: case NV_SASS_OP_RED: case NV_SASS_OP_BAR_SYNC: case NV_SASS_OP_BAR_ARRIVE:
    case NV_SASS_OP_BAR_WARP_SYNC: case NV_SASS_OP_MEMBAR: case NV_SASS_OP_BRA: case NV_SASS_OP_CALL:
    case NV_SASS_OP_RET: case NV_SASS_OP_EXIT: case NV_SASS_OP_TRAP: case NV_SASS_OP_BRKPT:
    case NV_SASS_OP_ASSERTFAIL: case NV_SASS_OP_NANOSLEEP: case NV_SASS_OP_PREFETCH: case NV_SASS_OP_NOP:
      return 0;
    case NV_SASS_OP_LD: case NV_SASS_OP_LDU: return i.vec > 1 ? i.vec : 1;
    case NV_SASS_OP_UNPACK: return i.operand_count - 1;
    default: return 1;
  }
}

using Defs = std::vector<std::set<size_t>>;  // register -> instructions whose write may reach

// For each instruction, the writes that reach it, per register.
std::vector<Defs> reaching(const std::vector<NvSassInstruction>& code, size_t regs) {
  std::vector<Defs> in(code.size(), Defs(regs));
  std::vector<bool> seen(code.size());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < code.size(); ++k) {
      if (k != 0 && !seen[k]) continue;
      seen[k] = true;
      const NvSassInstruction& i = code[k];
      Defs out = in[k];
      for (int o = 0; o < writes(i); ++o) {
        if (i.operand[o].kind != NV_SASS_OPND_REG) continue;
        if (i.guard == NV_SASS_PRED_TRUE) out[i.operand[o].index].clear();
        out[i.operand[o].index].insert(k);
      }
      std::vector<size_t> next;
      bool ends = i.opcode == NV_SASS_OP_EXIT || i.opcode == NV_SASS_OP_RET || i.opcode == NV_SASS_OP_TRAP;
      if (i.opcode == NV_SASS_OP_BRA) next.push_back(i.target);
      if ((!ends && i.opcode != NV_SASS_OP_BRA) || i.guard != NV_SASS_PRED_TRUE) next.push_back(k + 1);
      for (size_t s : next) {
        if (s >= code.size()) continue;
        for (size_t r = 0; r < regs; ++r) {
          size_t before = in[s][r].size();
          in[s][r].insert(out[r].begin(), out[r].end());
          if (in[s][r].size() != before || !seen[s]) changed = true;
        }
        seen[s] = true;
      }
    }
  }
  return in;
}

std::vector<NvSassInstruction> code_of(const ptx::CompiledKernel& k, size_t& regs) {
  const auto* p = static_cast<const NvSassProgram*>(k.sass.get());
  regs = p->register_count;
  return {nv_sass_instructions(*p), nv_sass_instructions(*p) + p->instruction_count};
}

// Every register read: (instruction, operand position or -1 for the address base, register).
std::vector<std::tuple<size_t, int, NvU32>> reads(const std::vector<NvSassInstruction>& code) {
  std::vector<std::tuple<size_t, int, NvU32>> out;
  for (size_t k = 0; k < code.size(); ++k) {
    const NvSassInstruction& i = code[k];
    for (int o = writes(i); o < i.operand_count; ++o)
      if (i.operand[o].kind == NV_SASS_OPND_REG) out.emplace_back(k, o, i.operand[o].index);
    if (i.addr.kind == NV_SASS_OPND_REG) out.emplace_back(k, -1, i.addr.index);
  }
  return out;
}

TEST(PtxRegisterAllocation, EveryReadSeesTheSameWritesAsWithoutAllocation) {
  for (const char* name : {"corpus/vector_add.ptx", "corpus/matmul_tiled.ptx", "corpus/reduction.ptx", "corpus/scan.ptx",
                           "corpus/histogram.ptx", "corpus/transpose.ptx", "corpus/math_mix.ptx", "corpus/printf_assert.ptx"}) {
    ptx::CompileOptions o0;
    o0.opt_level = 0;
    ptx::CompileResult plain = ptx::compile(read(name), o0);
    ptx::CompileResult folded = ptx::compile(read(name), {});
    ASSERT_EQ(plain.status, ptx::Status::Ok) << name;
    ASSERT_EQ(folded.status, ptx::Status::Ok) << name;
    size_t plain_regs = 0, folded_regs = 0;
    std::vector<NvSassInstruction> a = code_of(plain.kernels.at(0), plain_regs);
    std::vector<NvSassInstruction> b = code_of(folded.kernels.at(0), folded_regs);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_LT(folded_regs, plain_regs) << name;
    EXPECT_LE(folded.kernels[0].num_regs, plain.kernels[0].num_regs) << name;
    std::vector<Defs> ra = reaching(a, plain_regs), rb = reaching(b, folded_regs);
    auto ra_reads = reads(a), rb_reads = reads(b);
    ASSERT_EQ(ra_reads.size(), rb_reads.size());
    for (size_t n = 0; n < ra_reads.size(); ++n) {
      auto [k, pos, va] = ra_reads[n];
      NvU32 vb = std::get<2>(rb_reads[n]);
      EXPECT_EQ(ra[k][va], rb[k][vb]) << name << ": instruction " << k << " operand " << pos;
    }
  }
}

TEST(PtxRegisterAllocation, ProgramsWithCallsKeepOneRegisterPerPtxRegister) {
  ptx::CompileOptions o0;
  o0.opt_level = 0;
  ptx::CompileResult plain = ptx::compile(read("corpus/divergence.ptx"), o0);
  ptx::CompileResult folded = ptx::compile(read("corpus/divergence.ptx"), {});
  ASSERT_EQ(folded.status, ptx::Status::Ok);
  EXPECT_EQ(folded.kernels.at(0).num_regs, plain.kernels.at(0).num_regs);
}

}  // namespace
