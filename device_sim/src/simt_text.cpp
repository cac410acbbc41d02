// simt_text: one SASS instruction as text, in PTX's spelling - what the warp trace and fault
// reports show ("@!p0 ld.global.f32 r4, [r2+8]"). Registers are r<n>, predicates p<n>.
#include <string>

#include <fmt/format.h>

#include "simt.h"

namespace minicuda::gpu::simt {

namespace {

const char* type_name(uint8_t t) {
  static constexpr const char* names[] = {"",    "pred", "b8",  "b16",   "b32",  "b64", "u8",
                                          "u16", "u32",  "u64", "s8",    "s16",  "s32", "s64",
                                          "f16", "f16x2", "bf16", "f32", "f64", "bf16x2"};
  return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
const char* cmp_name(uint8_t c) {
  static constexpr const char* names[] = {"",   "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls", "hi",
                                          "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  return c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}
const char* space_name(uint8_t s) {
  static constexpr const char* names[] = {"", "global", "shared", "local", "const", "param"};
  return s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}
const char* atom_name(uint8_t a) {
  static constexpr const char* names[] = {"", "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas", "popc"};
  return a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}
const char* rounding_name(uint8_t r) {
  static constexpr const char* names[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
  return r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}
const char* sreg_name(uint32_t s) {
  static constexpr const char* names[] = {
      "%tid.x",        "%tid.y",        "%tid.z",        "%ntid.x",       "%ntid.y",           "%ntid.z",
      "%ctaid.x",      "%ctaid.y",      "%ctaid.z",      "%nctaid.x",     "%nctaid.y",         "%nctaid.z",
      "%laneid",       "%warpid",       "%nwarpid",      "%smid",         "%nsmid",            "%gridid",
      "%lanemask_eq",  "%lanemask_lt",  "%lanemask_le",  "%lanemask_gt",  "%lanemask_ge",      "%clock",
      "%clock_hi",     "%clock64",      "%globaltimer",  "%globaltimer_lo", "%globaltimer_hi", "%dynamic_smem_size",
      "%total_smem_size", "WARP_SZ", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
      "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%envreg1", "%envreg2"};
  static_assert(sizeof(names) / sizeof(names[0]) == NV_SASS_SR_COUNT);
  return s < NV_SASS_SR_COUNT ? names[s] : "%?";
}

std::string operand_text(const NvSassOperand& op, uint8_t type) {
  switch (op.kind) {
    case NV_SASS_OPND_REG: return fmt::format("r{}", op.index);
    case NV_SASS_OPND_PRED: return fmt::format("{}p{}", (op.flags & NV_SASS_OPND_NEGATE) ? "!" : "", op.index);
    case NV_SASS_OPND_SREG: return sreg_name(op.index);
    case NV_SASS_OPND_SYMBOL: return op.imm != 0 ? fmt::format("sym{}+{}", op.index, op.imm) : fmt::format("sym{}", op.index);
    case NV_SASS_OPND_IMM:
      if (type == NV_SASS_TYPE_F32) return fmt::format("0f{:08X}", static_cast<uint32_t>(op.imm));
      if (type == NV_SASS_TYPE_F64) return fmt::format("0d{:016X}", op.imm);
      if (static_cast<int64_t>(op.imm) > -65536 && static_cast<int64_t>(op.imm) < 65536)
        return fmt::format("{}", static_cast<int64_t>(op.imm));
      return fmt::format("{:#x}", op.imm);
    default: return "_";
  }
}

std::string address_text(const NvSassAddress& a) {
  std::string base = a.kind == NV_SASS_OPND_REG ? fmt::format("r{}", a.index)
                     : a.kind == NV_SASS_OPND_SYMBOL ? fmt::format("sym{}", a.index)
                                                     : "";
  if (base.empty()) return fmt::format("[{}]", a.offset);
  if (a.offset == 0) return fmt::format("[{}]", base);
  return fmt::format("[{}{:+}]", base, a.offset);
}

// "{r1, r2}" for vectors, "r1" otherwise.
std::string vector_text(const NvSassInstruction& in, unsigned first, unsigned count) {
  if (count <= 1) return operand_text(in.operand[first], in.type);
  std::string s = "{";
  for (unsigned i = 0; i < count; ++i) s += (i ? ", " : "") + operand_text(in.operand[first + i], in.type);
  return s + "}";
}

void add(std::string& s, const char* part) {
  if (*part != '\0') s += std::string(".") + part;
}

}  // namespace

std::string disassemble(const NvSassInstruction& in) {
  std::string s;
  if (in.guard != NV_SASS_PRED_TRUE) s = fmt::format("@{}p{} ", in.guard_negate ? "!" : "", in.guard);
  s += nv_sass_opcode_name(in.opcode);
  const unsigned vec = in.vec == 0 ? 1 : in.vec;
  std::string operands;
  auto list = [&](unsigned from) {
    for (unsigned i = from; i < in.operand_count; ++i) operands += (i > from ? ", " : "") + operand_text(in.operand[i], in.type);
  };
  switch (in.opcode) {
    case NV_SASS_OP_LD: case NV_SASS_OP_LDU: case NV_SASS_OP_ST:
      add(s, space_name(in.space));
      if (vec > 1) s += fmt::format(".v{}", vec);
      add(s, type_name(in.type));
      operands = in.opcode == NV_SASS_OP_ST ? address_text(in.addr) + ", " + vector_text(in, 0, vec)
                                            : vector_text(in, 0, vec) + ", " + address_text(in.addr);
      return s + " " + operands;
    case NV_SASS_OP_ATOM: case NV_SASS_OP_RED:
      add(s, space_name(in.space));
      add(s, atom_name(in.atom));
      add(s, type_name(in.type));
      if (in.opcode == NV_SASS_OP_ATOM) {
        operands = operand_text(in.operand[0], in.type) + ", " + address_text(in.addr);
        for (unsigned i = 1; i < in.operand_count; ++i) operands += ", " + operand_text(in.operand[i], in.type);
      } else {
        operands = address_text(in.addr) + ", " + operand_text(in.operand[0], in.type);
      }
      return s + " " + operands;
    case NV_SASS_OP_BRA: case NV_SASS_OP_CALL:
      return s + fmt::format(" {}", in.target);
    case NV_SASS_OP_SETP: case NV_SASS_OP_SET:
      add(s, cmp_name(in.cmp));
      if (in.boolop != NV_SASS_BOOL_NONE) add(s, in.boolop == NV_SASS_BOOL_AND ? "and" : in.boolop == NV_SASS_BOOL_OR ? "or" : "xor");
      add(s, type_name(in.type));
      if (in.opcode == NV_SASS_OP_SET) add(s, type_name(in.stype));
      operands = operand_text(in.operand[0], in.type);
      if (in.pred_dst != NV_SASS_PRED_TRUE) operands += fmt::format("|p{}", in.pred_dst);
      for (unsigned i = 1; i < in.operand_count; ++i)
        operands += ", " + operand_text(in.operand[i], in.opcode == NV_SASS_OP_SET ? in.stype : in.type);
      return s + " " + operands;
    case NV_SASS_OP_CVT: case NV_SASS_OP_CVTA:
      if (in.opcode == NV_SASS_OP_CVTA && in.mode == NV_SASS_CVTA_TO) s += ".to";
      if (in.opcode == NV_SASS_OP_CVTA) add(s, space_name(in.space));
      add(s, rounding_name(in.rounding));
      if (in.flags & NV_SASS_FLAG_FTZ) s += ".ftz";
      if (in.flags & NV_SASS_FLAG_SAT) s += ".sat";
      add(s, type_name(in.type));
      if (in.opcode == NV_SASS_OP_CVT) add(s, type_name(in.stype));
      operands = operand_text(in.operand[0], in.type) + ", " + operand_text(in.operand[1], in.stype);
      return s + " " + operands;
    case NV_SASS_OP_SHFL:
      add(s, in.mode == NV_SASS_SHFL_UP ? "up" : in.mode == NV_SASS_SHFL_DOWN ? "down" : in.mode == NV_SASS_SHFL_BFLY ? "bfly" : "idx");
      s += ".b32";
      operands = operand_text(in.operand[0], in.type);
      if (in.pred_dst != NV_SASS_PRED_TRUE) operands += fmt::format("|p{}", in.pred_dst);
      for (unsigned i = 1; i < in.operand_count; ++i) operands += ", " + operand_text(in.operand[i], NV_SASS_TYPE_B32);
      return s + " " + operands;
    case NV_SASS_OP_VOTE:
      add(s, in.mode == NV_SASS_VOTE_ALL ? "all" : in.mode == NV_SASS_VOTE_ANY ? "any" : in.mode == NV_SASS_VOTE_UNI ? "uni" : "ballot");
      s += in.mode == NV_SASS_VOTE_BALLOT ? ".b32" : ".pred";
      list(0);
      return s + " " + operands;
    case NV_SASS_OP_REDUX: case NV_SASS_OP_BAR_RED:
      add(s, atom_name(in.atom));
      add(s, type_name(in.type));
      list(0);
      return s + " " + operands;
    case NV_SASS_OP_MUL: case NV_SASS_OP_MAD:
      if (in.type != NV_SASS_TYPE_F32 && in.type != NV_SASS_TYPE_F64)
        add(s, in.mode == NV_SASS_MUL_HI ? "hi" : in.mode == NV_SASS_MUL_WIDE ? "wide" : "lo");
      break;
    case NV_SASS_OP_MATCH:
      add(s, in.mode == NV_SASS_MATCH_ALL ? "all" : "any");
      break;
    case NV_SASS_OP_SHF:
      add(s, in.mode == NV_SASS_SHF_L ? "l" : "r");
      add(s, (in.flags & NV_SASS_FLAG_CLAMP) ? "clamp" : "wrap");
      break;
    case NV_SASS_OP_TEX: case NV_SASS_OP_SULD: case NV_SASS_OP_SUST: {
      // Register pairs (nv_sass.h): d01, d23, [handle, {c01, c23}]; sust [handle, {c01, c23}], {v01, v23}.
      static const char* const shapes[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
      const unsigned v = nv_sass_tex_variant(in.mode);
      if (in.opcode == NV_SASS_OP_TEX && v == NV_SASS_TEX_LEVEL) s += ".level";
      if (in.opcode == NV_SASS_OP_TEX && v == NV_SASS_TEX_GRAD) s += ".grad";
      add(s, nv_sass_tex_shape(in.mode) < 7 ? shapes[nv_sass_tex_shape(in.mode)] : "?");
      if (in.opcode != NV_SASS_OP_TEX) add(s, v == NV_SASS_SURF_CLAMP ? "clamp" : v == NV_SASS_SURF_ZERO ? "zero" : "trap");
      if (vec > 1) s += fmt::format(".v{}", vec);
      add(s, type_name(in.type));
      if (in.opcode == NV_SASS_OP_TEX) add(s, type_name(in.stype));
      const unsigned h = in.opcode == NV_SASS_OP_SUST ? 0 : 2, d = in.opcode == NV_SASS_OP_SUST ? 3 : 0;
      auto pair = [&](unsigned k) {
        return operand_text(in.operand[k], NV_SASS_TYPE_B64) +
               (in.operand[k + 1].kind != NV_SASS_OPND_NONE ? ", " + operand_text(in.operand[k + 1], NV_SASS_TYPE_B64) : "");
      };
      const std::string at = "[" + operand_text(in.operand[h], NV_SASS_TYPE_B64) + ", {" + pair(h + 1) + "}]";
      return s + " " + (in.opcode == NV_SASS_OP_SUST ? at + ", {" + pair(d) + "}" : pair(d) + ", " + at);
    }
    case NV_SASS_OP_LOP3:
      s += fmt::format(".b32 {}, {:#04x}", [&] { list(0); return operands; }(), in.mode);
      return s;
    default:
      break;
  }
  add(s, rounding_name(in.rounding));
  if (in.flags & NV_SASS_FLAG_APPROX) s += ".approx";
  if (in.flags & NV_SASS_FLAG_FULL) s += ".full";
  if (in.flags & NV_SASS_FLAG_FTZ) s += ".ftz";
  if (in.flags & NV_SASS_FLAG_SAT) s += ".sat";
  if (in.flags & NV_SASS_FLAG_CC_OUT) s += ".cc";
  add(s, type_name(in.type));
  list(0);
  return operands.empty() ? s : s + " " + operands;
}

}  // namespace minicuda::gpu::simt
