// The lowering to the simulator's SASS (hw/include/nv_sass.h) and the disassembler: register
// allocation, parameter offsets, label and call resolution, shared/local windows, symbols and
// their binding, immediates in the operand's type, .loc lines, and a golden listing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

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

const NvSassProgram& program(const ptx::CompiledKernel& k) {
  return *static_cast<const NvSassProgram*>(k.sass.get());
}

const NvSassInstruction& at(const ptx::CompiledKernel& k, size_t n) {
  return nv_sass_instructions(program(k))[n];
}

// The first instruction lowered from PTX line `line`.
const NvSassInstruction* from_line(const ptx::CompiledKernel& k, uint32_t line) {
  for (NvU32 n = 0; n < program(k).instruction_count; ++n)
    if (at(k, n).ptx_line == line) return &at(k, n);
  return nullptr;
}

TEST(PtxLowering, VectorAddListingMatchesGolden) {
  ptx::CompileResult r = ptx::compile(read("corpus/vector_add.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  std::string listing = ptx::disassemble(r.kernels.at(0));
  std::string golden = read("golden/vector_add.sass");
  EXPECT_EQ(listing, golden);
}

TEST(PtxLowering, VectorAddProgramHeaderAndRegisters) {
  ptx::CompileResult r = ptx::compile(read("corpus/vector_add.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok);
  const ptx::CompiledKernel& k = r.kernels.at(0);
  const NvSassProgram& p = program(k);
  EXPECT_EQ(p.magic, NV_SASS_PROGRAM_MAGIC);
  EXPECT_EQ(p.version, NV_SASS_VERSION);
  EXPECT_STREQ(nv_sass_name(p), "vector_add");
  EXPECT_EQ(p.instruction_count, 22u);
  // 18 PTX registers fold onto 8 (their live ranges allow it), and one predicate. In 32-bit
  // registers (ptxas's unit) each register that ever holds a 64-bit value counts twice: R0..R4
  // hold pointers, R5..R7 only 32-bit values: 5 * 2 + 3.
  EXPECT_EQ(p.register_count, 8u);
  EXPECT_EQ(p.predicate_count, 1u);
  EXPECT_EQ(k.num_regs, 13u);
  EXPECT_EQ(p.param_bytes, 28u);
  EXPECT_EQ(p.target_sm, 90u);
  EXPECT_EQ(p.max_call_depth, 0u);
  // ld.param.u32 %r2, [vector_add_param_3]: cbank 0 offset 24.
  const NvSassInstruction& ld = at(k, 3);
  EXPECT_EQ(ld.opcode, NV_SASS_OP_LD);
  EXPECT_EQ(ld.space, NV_SASS_SPACE_PARAM);
  EXPECT_EQ(ld.type, NV_SASS_TYPE_U32);
  EXPECT_EQ(ld.addr.kind, NV_SASS_OPND_NONE);
  EXPECT_EQ(ld.addr.offset, 24);
  // @%p1 bra $L__BB0_2: resolved to the index of ret; the .loc line is the source's line 4.
  const NvSassInstruction& bra = at(k, 9);
  EXPECT_EQ(bra.opcode, NV_SASS_OP_BRA);
  EXPECT_EQ(bra.guard, 0);
  EXPECT_EQ(bra.guard_negate, 0);
  EXPECT_EQ(bra.target, 21u);
  EXPECT_EQ(at(k, 21).opcode, NV_SASS_OP_RET);
  EXPECT_EQ(bra.line, 4u);
  ASSERT_LT(bra.file, p.file_count);
  EXPECT_NE(std::string(nv_p64_to_ptr<const char* const>(p.files)[bra.file]).find("vector_add.cu"), std::string::npos);
  // mov.u32 %r5, %tid.x
  EXPECT_EQ(at(k, 6).operand[1].kind, NV_SASS_OPND_SREG);
  EXPECT_EQ(at(k, 6).operand[1].index, NV_SASS_SR_TID_X);
  // mul.wide.s32 %rd5, %r1, 4
  EXPECT_EQ(at(k, 11).opcode, NV_SASS_OP_MUL);
  EXPECT_EQ(at(k, 11).mode, NV_SASS_MUL_WIDE);
  EXPECT_EQ(at(k, 11).type, NV_SASS_TYPE_S32);
}

TEST(PtxLowering, LineInfoOffLeavesNoSourceLines) {
  ptx::CompileOptions o;
  o.generate_line_info = false;
  ptx::CompileResult r = ptx::compile(read("corpus/vector_add.ptx"), o);
  ASSERT_EQ(r.status, ptx::Status::Ok);
  EXPECT_EQ(at(r.kernels[0], 9).line, 0u);
  EXPECT_EQ(at(r.kernels[0], 9).file, 0xFFFF);
  EXPECT_GT(at(r.kernels[0], 9).ptx_line, 0u);
}

TEST(PtxLowering, HandwrittenFamiliesLowerToTheirOperations) {
  ptx::CompileResult r = ptx::compile(read("handwritten/families.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  ASSERT_EQ(r.kernels.size(), 1u);
  const ptx::CompiledKernel& k = r.kernels[0];
  // Parameters: u64 at 0, a 16-byte .align 8 aggregate at 8, f64 at 24.
  EXPECT_EQ(k.param_offsets, (std::vector<uint32_t>{0, 8, 24}));
  EXPECT_EQ(k.param_bytes, 32u);
  EXPECT_EQ(k.max_ntid, 256u);
  EXPECT_EQ(k.min_ctas_per_sm, 2u);
  EXPECT_EQ(k.static_shared_bytes, 64u);
  EXPECT_EQ(k.local_bytes, 16u);
  EXPECT_EQ(k.max_call_depth, 1u);
  EXPECT_EQ(k.symbols, (std::vector<std::string>{"scale", "table"}));

  // ld.param.u32 %r1, [families_param_1+4] (line 57): offset folded to 12.
  EXPECT_EQ(from_line(k, 57)->addr.offset, 12);
  // ldu.global.u32 %r9, [%rd2+-8] (70): a negative offset on a register base.
  EXPECT_EQ(from_line(k, 70)->addr.kind, NV_SASS_OPND_REG);
  EXPECT_EQ(from_line(k, 70)->addr.offset, -8);
  // ld.global.u64 %rd5, [table+8] (73): symbol 1 plus 8.
  EXPECT_EQ(from_line(k, 73)->addr.kind, NV_SASS_OPND_SYMBOL);
  EXPECT_EQ(from_line(k, 73)->addr.index, 1u);
  EXPECT_EQ(from_line(k, 73)->addr.offset, 8);
  // st.shared.u32 [dyn], %r9 (75): the dynamic window starts at the 64 static bytes.
  EXPECT_EQ(from_line(k, 75)->addr.offset, 64);
  // ld.global.nc.v4.f32 (68): four destinations, NC.
  EXPECT_EQ(from_line(k, 68)->vec, 4);
  EXPECT_EQ(from_line(k, 68)->operand_count, 4);
  EXPECT_TRUE(from_line(k, 68)->flags & NV_SASS_FLAG_NC);
  // mov.b64 %rd6, {%r8, %r9} (76) packs b32 halves.
  EXPECT_EQ(from_line(k, 76)->opcode, NV_SASS_OP_PACK);
  EXPECT_EQ(from_line(k, 76)->type, NV_SASS_TYPE_B32);
  EXPECT_EQ(from_line(k, 77)->opcode, NV_SASS_OP_UNPACK);
  // atom.shared.cas.b32 (81): window offset 0, compare and swap operands.
  const NvSassInstruction* cas = from_line(k, 81);
  EXPECT_EQ(cas->atom, NV_SASS_ATOM_CAS);
  EXPECT_EQ(cas->space, NV_SASS_SPACE_SHARED);
  EXPECT_EQ(cas->operand_count, 3);
  EXPECT_EQ(cas->operand[2].imm, 5u);
  // shfl.sync.up.b32 %r18|%p1, %r2, 1, 0, -1 (88): the membermask is a b32 immediate.
  const NvSassInstruction* shfl = from_line(k, 88);
  EXPECT_EQ(shfl->mode, NV_SASS_SHFL_UP);
  EXPECT_NE(shfl->pred_dst, NV_SASS_PRED_TRUE);
  EXPECT_EQ(shfl->operand[4].imm, 0xFFFFFFFFu);
  // vote.sync.uni.pred %p3, !%p1, -1 (91): a negated predicate source.
  EXPECT_EQ(from_line(k, 91)->mode, NV_SASS_VOTE_UNI);
  EXPECT_EQ(from_line(k, 91)->operand[1].flags, NV_SASS_OPND_NEGATE);
  EXPECT_EQ(from_line(k, 91)->operand[2].imm, 0xFFFFFFFFu);
  // lop3 (101): the truth table in mode, three sources.
  EXPECT_EQ(from_line(k, 101)->mode, 0x96);
  EXPECT_EQ(from_line(k, 101)->operand_count, 4);
  // setp.lt.and.s32 %p5|%p6 (107)
  EXPECT_EQ(from_line(k, 107)->cmp, NV_SASS_CMP_LT);
  EXPECT_EQ(from_line(k, 107)->boolop, NV_SASS_BOOL_AND);
  // cvt.rni.sat.s32.f32 (112)
  EXPECT_EQ(from_line(k, 112)->type, NV_SASS_TYPE_S32);
  EXPECT_EQ(from_line(k, 112)->stype, NV_SASS_TYPE_F32);
  EXPECT_EQ(from_line(k, 112)->rounding, NV_SASS_RND_RNI);
  EXPECT_TRUE(from_line(k, 112)->flags & NV_SASS_FLAG_SAT);
  // max.f64 with 0d3FF0000000000000 (129) and setp with 0f3F800000 (108): the bits as written.
  EXPECT_EQ(from_line(k, 129)->operand[2].imm, 0x3FF0000000000000u);
  EXPECT_EQ(from_line(k, 108)->operand[2].imm, 0x3F800000u);
  // barrier.sync.aligned 1, 64 (97)
  EXPECT_EQ(from_line(k, 97)->opcode, NV_SASS_OP_BAR_SYNC);
  EXPECT_EQ(from_line(k, 97)->operand[1].imm, 64u);
  // fence.acq_rel.gpu (100)
  EXPECT_EQ(from_line(k, 100)->opcode, NV_SASS_OP_MEMBAR);
  EXPECT_EQ(from_line(k, 100)->scope, NV_SASS_SCOPE_GPU);
}

TEST(PtxLowering, CallsMoveArgumentsIntoTheCalleesRegisters) {
  ptx::CompileResult r = ptx::compile(read("handwritten/families.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok);
  const ptx::CompiledKernel& k = r.kernels[0];
  const NvSassProgram& p = program(k);
  const NvSassInstruction* call = nullptr;
  NvU32 call_at = 0;
  for (NvU32 n = 0; n < p.instruction_count; ++n)
    if (at(k, n).opcode == NV_SASS_OP_CALL) { call = &at(k, n); call_at = n; }
  ASSERT_NE(call, nullptr);
  // The argument move before the call writes the register the callee's first instruction reads
  // (ld.param.b32 %r1, [x] in twice, PTX line 16).
  const NvSassInstruction& arg = at(k, call_at - 1);
  const NvSassInstruction& first = at(k, call->target);
  EXPECT_EQ(arg.opcode, NV_SASS_OP_MOV);
  EXPECT_EQ(first.ptx_line, 16u);
  EXPECT_EQ(first.opcode, NV_SASS_OP_MOV);
  EXPECT_EQ(first.operand[1].kind, NV_SASS_OPND_REG);
  EXPECT_EQ(first.operand[1].index, arg.operand[0].index);
  // After the callee's ret, the return value moves back: from the register st.param [ret] wrote.
  const NvSassInstruction& back = at(k, call_at + 1);
  EXPECT_EQ(back.opcode, NV_SASS_OP_MOV);
  EXPECT_EQ(at(k, p.instruction_count - 2).operand[0].index, back.operand[1].index);
  EXPECT_EQ(at(k, p.instruction_count - 1).opcode, NV_SASS_OP_RET);
}

TEST(PtxLowering, BindSymbolsFillsTheSymbolTable) {
  ptx::CompileResult r = ptx::compile(read("handwritten/families.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok);
  const ptx::CompiledKernel& k = r.kernels[0];
  EXPECT_EQ(nv_p64_to_ptr<const NvU64>(program(k).symbols)[0], 0u);
  std::shared_ptr<const void> bound = ptx::bind_symbols(k, {0x7f0000001000, 0x7f0000002000});
  ASSERT_NE(bound, nullptr);
  const auto* p = static_cast<const NvSassProgram*>(bound.get());
  ASSERT_EQ(p->symbol_count, 2u);
  EXPECT_EQ(nv_p64_to_ptr<const NvU64>(p->symbols)[1], 0x7f0000002000u);
  EXPECT_EQ(p->instruction_count, program(k).instruction_count);
  EXPECT_NE(p->instructions, program(k).instructions);
  EXPECT_EQ(ptx::bind_symbols(k, {1}), nullptr);  // one address for two symbols
}

TEST(PtxLowering, AnInstructionWithoutSassIsNotSupported) {
  std::string text = read("corpus/vector_add.ptx");
  size_t at_ret = text.find("\tret;");
  ASSERT_NE(at_ret, std::string::npos);
  text.insert(at_ret, "\tdp4a.u32.u32 \t%r1, %r2, %r3, %r4;\n");
  ptx::CompileResult r = ptx::compile(text, {});
  EXPECT_EQ(r.status, ptx::Status::NotSupported);
  EXPECT_NE(r.error_log.find("error   : the instruction 'dp4a' is not supported by minicuda's JIT"), std::string::npos)
      << r.error_log;
  EXPECT_TRUE(r.kernels.empty());
}

// CU_JIT_MAX_REGISTERS below ptxas' lower bound of 24 is raised to it, with ptxas' warning: vector_add's
// 13 registers fit (tests/data/h200/jit_options/).
TEST(PtxLowering, MaxRegistersBelow24AreRaisedTo24) {
  ptx::CompileOptions o;
  o.max_registers = 12;
  ptx::CompileResult r = ptx::compile(read("corpus/vector_add.ptx"), o);
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels.at(0).num_regs, 13u);
  EXPECT_EQ(r.kernels.at(0).local_bytes, 0u);
  EXPECT_NE(r.info_log.find("ptxas warning : For profile sm_90a adjusting per thread register count of 12 to lower "
                            "bound of 24"),
            std::string::npos)
      << r.info_log;
  EXPECT_NE(r.info_log.find("Overriding maximum register limit 256 for 'vector_add' with  24 of maxrregcount option"),
            std::string::npos)
      << r.info_log;
}

TEST(PtxLowering, InfoLogNamesEachEntry) {
  ptx::CompileResult r = ptx::compile(read("corpus/matmul_tiled.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok);
  EXPECT_NE(r.info_log.find("ptxas info    : Compiling entry function 'matmul_tiled' for 'sm_90'"), std::string::npos);
  EXPECT_NE(r.info_log.find("2048 bytes smem"), std::string::npos) << r.info_log;
}

TEST(PtxLowering, EveryCorpusKernelIsLowered) {
  for (const char* name : {"vector_add", "matmul_tiled", "reduction", "scan", "histogram", "transpose", "divergence", "math_mix", "printf_assert"}) {
    ptx::CompileResult r = ptx::compile(read(std::string("corpus/") + name + ".ptx"), {});
    ASSERT_EQ(r.status, ptx::Status::Ok) << name << "\n" << r.error_log;
    for (const auto& k : r.kernels) {
      ASSERT_NE(k.sass, nullptr) << name;
      EXPECT_GT(program(k).instruction_count, 0u);
      EXPECT_FALSE(ptx::disassemble(k).empty());
    }
  }
}

}  // namespace

namespace {

TEST(PtxLowering, PrintfAndAssertBecomeTheirOwnInstructions) {
  ptx::CompileResult r = ptx::compile(read("corpus/printf_assert.ptx"), {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  const ptx::CompiledKernel& k = r.kernels.at(0);
  const NvSassInstruction* printf_op = nullptr;
  const NvSassInstruction* assert_op = nullptr;
  for (NvU32 n = 0; n < program(k).instruction_count; ++n) {
    if (at(k, n).opcode == NV_SASS_OP_PRINTF) printf_op = &at(k, n);
    if (at(k, n).opcode == NV_SASS_OP_ASSERTFAIL) assert_op = &at(k, n);
    EXPECT_NE(at(k, n).opcode, NV_SASS_OP_CALL);  // no call of an external function remains
  }
  ASSERT_NE(printf_op, nullptr);
  ASSERT_NE(assert_op, nullptr);
  EXPECT_EQ(printf_op->operand_count, 3);
  EXPECT_EQ(printf_op->operand[1].kind, NV_SASS_OPND_REG);
  EXPECT_EQ(assert_op->operand_count, 4);
  EXPECT_EQ(k.local_bytes, 8u);  // the printf argument buffer
  // The format string is a module variable with its bytes and a zero fill to its declared size.
  bool found = false;
  for (const auto& g : r.globals) {
    if (g.name != "$str$2") continue;
    found = true;
    ASSERT_EQ(g.initializer.size(), 14u);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(g.initializer.data())), "v[0]=%d n=%d\n");
  }
  EXPECT_TRUE(found);
  EXPECT_NE(std::find(k.symbols.begin(), k.symbols.end(), "$str$2"), k.symbols.end());
}

}  // namespace

// Thread block clusters in PTX are not run by the SIMT executor (docs/clusters.md): the cluster
// special registers, the cluster barrier, mapa and the shared::cluster window are refused at load,
// each by name, never run as something else.
TEST(PtxLowering, ClusterInstructionsAreRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"mov.u32 \t%r1, %cluster_ctarank;", "the special register %cluster_ctarank"},
      {"mov.u32 \t%r1, %cluster_nctarank;", "the special register %cluster_nctarank"},
      {"mov.u32 \t%r1, %clusterid.x;", "the special register %clusterid.x"},
      {"mov.u32 \t%r1, %nclusterid.y;", "the special register %nclusterid.y"},
      {"mov.u32 \t%r1, %cluster_ctaid.z;", "the special register %cluster_ctaid.z"},
      {"mov.u32 \t%r1, %cluster_nctaid.x;", "the special register %cluster_nctaid.x"},
      {"mov.pred \t%p1, %is_explicit_cluster;", "the special register %is_explicit_cluster"},
      {"barrier.cluster.arrive;", "'barrier.cluster'"},
      {"barrier.cluster.wait;", "'barrier.cluster'"},
      {"mapa.shared::cluster.u32 \t%r1, %r2, %r3;", "'mapa.shared::cluster'"},
      {"mapa.u32 \t%r1, %r2, %r3;", "'mapa'"},
      {"ld.shared::cluster.u32 \t%r1, [%r2];", "shared::cluster"},
      {"st.shared::cluster.u32 \t[%r2], %r1;", "shared::cluster"},
  };
  for (const auto& [line, named] : cases) {
    std::string text = read("corpus/vector_add.ptx");
    const size_t at_ret = text.find("\tret;");
    ASSERT_NE(at_ret, std::string::npos);
    text.insert(at_ret, std::string("\t") + line + "\n");
    ptx::CompileResult r = ptx::compile(text, {});
    EXPECT_EQ(r.status, ptx::Status::NotSupported) << line << "\n" << r.error_log;
    EXPECT_NE(r.error_log.find(named), std::string::npos) << line << "\n" << r.error_log;
    EXPECT_NE(r.error_log.find("is not supported by minicuda's JIT"), std::string::npos) << line << "\n" << r.error_log;
  }
}

// .reqnctapercluster is the kernel's required cluster shape (the launch checks it, cluster.cpp).
TEST(PtxLowering, RequiredClusterShapeIsKept) {
  std::string text = read("corpus/vector_add.ptx");
  const size_t body = text.find("\n{", text.find(".entry"));
  ASSERT_NE(body, std::string::npos);
  text.insert(body, "\n.reqnctapercluster 2, 1, 1");
  ptx::CompileResult r = ptx::compile(text, {});
  ASSERT_EQ(r.status, ptx::Status::Ok) << r.error_log;
  EXPECT_EQ(r.kernels[0].req_cluster[0], 2u);
  EXPECT_EQ(r.kernels[0].req_cluster[1], 1u);
  EXPECT_EQ(r.kernels[0].req_cluster[2], 1u);
}
