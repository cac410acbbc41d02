// disassemble() and bind_symbols() (ptx.h): reading and relocating a lowered program.
#include <cinttypes>
#include <cstdio>

#include "minicuda/ptx/ptx.h"
#include "program.h"

namespace minicuda::ptx {

namespace {

const char* type_name(NvU8 t) {
  static const char* const names[] = {"", "pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8",
                                      "s16", "s32", "s64", "f16", "f16x2", "bf16", "f32", "f64", "bf16x2"};
  return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

const char* space_name(NvU8 s) {
  static const char* const names[] = {"", "global", "shared", "local", "const", "param"};
  return s < 6 ? names[s] : "?";
}

const char* cmp_name(NvU8 c) {
  static const char* const names[] = {"", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                      "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  return c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

const char* atom_name(NvU8 a) {
  static const char* const names[] = {"", "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas", "popc"};
  return a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

const char* sreg_name(NvU32 s) {
  static const char* const names[] = {
      "SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_NTID.X", "SR_NTID.Y", "SR_NTID.Z", "SR_CTAID.X",
      "SR_CTAID.Y", "SR_CTAID.Z", "SR_NCTAID.X", "SR_NCTAID.Y", "SR_NCTAID.Z", "SR_LANEID",
      "SR_WARPID", "SR_NWARPID", "SR_SMID", "SR_NSMID", "SR_GRIDID", "SR_LANEMASK_EQ",
      "SR_LANEMASK_LT", "SR_LANEMASK_LE", "SR_LANEMASK_GT", "SR_LANEMASK_GE", "SR_CLOCK",
      "SR_CLOCK_HI", "SR_CLOCK64", "SR_GLOBALTIMER", "SR_GLOBALTIMER_LO", "SR_GLOBALTIMER_HI",
      "SR_DYNAMIC_SMEM_SIZE", "SR_TOTAL_SMEM_SIZE", "SR_WARPSIZE",
      "SR_RESERVED_SMEM_BEGIN", "SR_RESERVED_SMEM_END", "SR_RESERVED_SMEM_CAP", "SR_RESERVED_SMEM_0",
      "SR_RESERVED_SMEM_1"};
  return s < sizeof(names) / sizeof(names[0]) ? names[s] : "SR_?";
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

std::string operand_text(const NvSassOperand& o, const ProgramData& d) {
  switch (o.kind) {
    case NV_SASS_OPND_REG: return "R" + std::to_string(o.index);
    case NV_SASS_OPND_PRED: return std::string((o.flags & NV_SASS_OPND_NEGATE) ? "!" : "") + "P" + std::to_string(o.index);
    case NV_SASS_OPND_IMM: return hex(o.imm);
    case NV_SASS_OPND_SREG: return sreg_name(o.index);
    case NV_SASS_OPND_SYMBOL: {
      std::string n = o.index < d.symbol_names.size() ? d.symbol_names[o.index] : "?";
      return n + (o.imm ? "+" + hex(o.imm) : "");
    }
    default: return "_";
  }
}

std::string address_text(const NvSassAddress& a, const ProgramData& d) {
  std::string base = a.kind == NV_SASS_OPND_REG ? "R" + std::to_string(a.index)
                     : a.kind == NV_SASS_OPND_SYMBOL && a.index < d.symbol_names.size() ? d.symbol_names[a.index]
                                                                                         : "";
  if (base.empty()) return "[" + hex(static_cast<uint64_t>(a.offset)) + "]";
  if (a.offset == 0) return "[" + base + "]";
  return "[" + base + (a.offset < 0 ? "-" + hex(static_cast<uint64_t>(-a.offset)) : "+" + hex(static_cast<uint64_t>(a.offset))) + "]";
}

// The PTX spelling of an instruction's mode, rounding and flags (".wide", ".rn", ".approx").
std::string modifiers(const NvSassInstruction& i) {
  std::string m;
  auto add = [&](const char* s) { m += "."; m += s; };
  switch (i.opcode) {
    case NV_SASS_OP_MUL: case NV_SASS_OP_MAD: case NV_SASS_OP_MUL24: case NV_SASS_OP_MAD24:
      if (i.type != NV_SASS_TYPE_F32 && i.type != NV_SASS_TYPE_F64) add(i.mode == NV_SASS_MUL_WIDE ? "wide" : i.mode == NV_SASS_MUL_HI ? "hi" : "lo");
      break;
    case NV_SASS_OP_CVTA:
      if (i.mode == NV_SASS_CVTA_TO) add("to");
      if (i.space) add(space_name(i.space));
      break;
    case NV_SASS_OP_SHFL: {
      static const char* const n[] = {"up", "down", "bfly", "idx"};
      if (i.mode < 4) add(n[i.mode]);
      break;
    }
    case NV_SASS_OP_VOTE: {
      static const char* const n[] = {"all", "any", "uni", "ballot"};
      if (i.mode < 4) add(n[i.mode]);
      break;
    }
    case NV_SASS_OP_MATCH: add(i.mode == NV_SASS_MATCH_ALL ? "all" : "any"); break;
    case NV_SASS_OP_SHF: add(i.mode == NV_SASS_SHF_R ? "r" : "l"); break;
    case NV_SASS_OP_LOP3: m += ".lut" + std::to_string(i.mode); break;
    case NV_SASS_OP_BAR_RED: add(atom_name(i.atom)); break;
    case NV_SASS_OP_TEX: case NV_SASS_OP_SULD: case NV_SASS_OP_SUST: {
      static const char* const shape[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
      static const char* const variant[] = {"", "level", "grad"};
      static const char* const boundary[] = {"trap", "clamp", "zero"};
      const NvU8 v = nv_sass_tex_variant(i.mode);
      if (i.opcode == NV_SASS_OP_TEX && v > 0 && v < 3) add(variant[v]);
      if (nv_sass_tex_shape(i.mode) < 7) add(shape[nv_sass_tex_shape(i.mode)]);
      if (i.opcode != NV_SASS_OP_TEX && v < 3) add(boundary[v]);
      break;
    }
    case NV_SASS_OP_HEAP: {
      static const char* const n[] = {"malloc", "free", "cdp_malloc", "cdp_free"};
      if (i.mode < 4) add(n[i.mode]);
      break;
    }
    default: break;
  }
  static const char* const rnd[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"};
  if (i.rounding && i.rounding < 9) add(rnd[i.rounding]);
  if (i.flags & NV_SASS_FLAG_APPROX) add("approx");
  if (i.flags & NV_SASS_FLAG_FULL) add("full");
  if (i.flags & NV_SASS_FLAG_FTZ) add("ftz");
  if (i.flags & NV_SASS_FLAG_SAT) add("sat");
  if (i.flags & NV_SASS_FLAG_UNI) add("uni");
  if (i.flags & NV_SASS_FLAG_NC) add("nc");
  if (i.flags & NV_SASS_FLAG_VOLATILE) add("volatile");
  if (i.flags & NV_SASS_FLAG_WRAP) add("wrap");
  if (i.flags & NV_SASS_FLAG_CLAMP) add("clamp");
  if (i.flags & NV_SASS_FLAG_YIELD) add("yield");
  static const char* const sem[] = {"", "relaxed", "acquire", "release", "acq_rel", "sc", "weak"};
  static const char* const scope[] = {"", "cta", "cluster", "gpu", "sys"};
  if (i.sem && i.sem < 7) add(sem[i.sem]);
  if (i.scope && i.scope < 5) add(scope[i.scope]);
  return m;
}

bool is_memory(NvU16 op) {
  return op == NV_SASS_OP_LD || op == NV_SASS_OP_ST || op == NV_SASS_OP_LDU || op == NV_SASS_OP_ATOM || op == NV_SASS_OP_RED;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

std::string disassemble(const CompiledKernel& kernel) {
  if (!kernel.sass) return {};
  const ProgramHead* h = head_of(kernel.sass);
  const ProgramData& d = *h->data;
  const NvSassProgram& p = h->program;
  std::string out = "// " + d.name + ": " + std::to_string(p.instruction_count) + " instructions, " +
                    std::to_string(p.register_count) + " registers, " + std::to_string(p.predicate_count) +
                    " predicates, " + std::to_string(p.param_bytes) + " bytes of parameters, " +
                    std::to_string(p.shared_bytes) + " bytes of shared memory, " + std::to_string(p.local_bytes) +
                    " bytes of local memory per thread\n";
  for (size_t n = 0; n < d.code.size(); ++n) {
    const NvSassInstruction& i = d.code[n];
    char idx[24];
    std::snprintf(idx, sizeof idx, "/*%04zx*/ ", n);
    std::string text;
    if (i.guard != NV_SASS_PRED_TRUE) text += std::string("@") + (i.guard_negate ? "!" : "") + "P" + std::to_string(i.guard) + " ";
    text += nv_sass_opcode_name(i.opcode);
    if (is_memory(i.opcode) && i.space) text += std::string(".") + space_name(i.space);
    if (i.atom && i.opcode != NV_SASS_OP_BAR_RED) text += std::string(".") + atom_name(i.atom);
    if (i.cmp) text += std::string(".") + cmp_name(i.cmp);
    text += modifiers(i);
    if (i.vec > 1) text += ".v" + std::to_string(i.vec);
    if (i.type) text += std::string(".") + type_name(i.type);
    if (i.stype) text += std::string(".") + type_name(i.stype);
    std::string ops;
    auto add = [&](const std::string& s) { ops += (ops.empty() ? " " : ", ") + s; };
    bool store = i.opcode == NV_SASS_OP_ST || i.opcode == NV_SASS_OP_RED;
    if (store && is_memory(i.opcode)) add(address_text(i.addr, d));
    const bool texture = i.opcode == NV_SASS_OP_TEX || i.opcode == NV_SASS_OP_SULD || i.opcode == NV_SASS_OP_SUST;
    if (texture) {
      // Register pairs: d01, d23, [handle, {c01, c23}] (sust: [handle, {c01, c23}], {v01, v23}).
      const NvU8 h = i.opcode == NV_SASS_OP_SUST ? 0 : 2;
      std::string at = "[" + operand_text(i.operand[h], d) + ", {" + operand_text(i.operand[h + 1], d);
      if (i.operand[h + 2].kind != NV_SASS_OPND_NONE) at += ", " + operand_text(i.operand[h + 2], d);
      at += "}]";
      const NvU8 v = i.opcode == NV_SASS_OP_SUST ? 3 : 0;
      std::string data = operand_text(i.operand[v], d);
      if (i.operand[v + 1].kind != NV_SASS_OPND_NONE) data += ", " + operand_text(i.operand[v + 1], d);
      if (i.opcode == NV_SASS_OP_SUST) data = "{" + data + "}";
      add(i.opcode == NV_SASS_OP_SUST ? at : data);
      add(i.opcode == NV_SASS_OP_SUST ? data : at);
    }
    for (NvU8 k = 0; k < i.operand_count && !texture; ++k) {
      std::string o = operand_text(i.operand[k], d);
      if (k == 0 && i.pred_dst != NV_SASS_PRED_TRUE) o += "|P" + std::to_string(i.pred_dst);
      add(o);
      if (k == 0 && is_memory(i.opcode) && !store && i.vec <= 1) add(address_text(i.addr, d));
      if (is_memory(i.opcode) && !store && i.vec > 1 && k + 1 == i.vec) add(address_text(i.addr, d));
    }
    if (i.opcode == NV_SASS_OP_BRA || i.opcode == NV_SASS_OP_CALL) {
      char t[16];
      std::snprintf(t, sizeof t, "/*%04x*/", i.target);
      add(t);
    }
    text = idx + text + ops + ";";
    if (text.size() < 56) text.resize(56, ' ');
    std::string ptx = d.ptx_lines && i.ptx_line > 0 && i.ptx_line <= d.ptx_lines->size() ? trim((*d.ptx_lines)[i.ptx_line - 1]) : "";
    text += " // " + std::to_string(i.ptx_line) + ": " + ptx;
    if (i.line > 0) {
      std::string file = i.file < d.file_names.size() ? d.file_names[i.file] : "?";
      size_t slash = file.find_last_of('/');
      text += "  [" + (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(i.line) + "]";
    }
    out += text + "\n";
  }
  return out;
}

std::shared_ptr<const void> bind_symbols(const CompiledKernel& kernel, const std::vector<uint64_t>& addresses) {
  if (!kernel.sass) return nullptr;
  const ProgramHead* h = head_of(kernel.sass);
  if (addresses.size() != h->data->symbol_names.size()) return nullptr;
  auto block = std::make_shared<ProgramBlock>();
  block->head.program = h->program;
  block->data = *h->data;
  block->data.symbol_addresses.assign(addresses.begin(), addresses.end());
  block->seal();
  return sass_pointer(block);
}

}  // namespace minicuda::ptx
