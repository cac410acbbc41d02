// The lowering of each PTX instruction (lower.h): the opcode, its dotted modifiers and its
// operands to NvSassInstruction fields, in the operand order nv_sass.h gives per opcode.
#include <cstring>
#include <map>

#include "lowerer.h"
#include "verify.h"

namespace minicuda::ptx {

NvSassType sass_type(const std::string& t) {
  static const std::map<std::string, NvSassType> types = {
      {"pred", NV_SASS_TYPE_PRED}, {"b8", NV_SASS_TYPE_B8},   {"b16", NV_SASS_TYPE_B16},
      {"b32", NV_SASS_TYPE_B32},   {"b64", NV_SASS_TYPE_B64}, {"u8", NV_SASS_TYPE_U8},
      {"u16", NV_SASS_TYPE_U16},   {"u32", NV_SASS_TYPE_U32}, {"u64", NV_SASS_TYPE_U64},
      {"s8", NV_SASS_TYPE_S8},     {"s16", NV_SASS_TYPE_S16}, {"s32", NV_SASS_TYPE_S32},
      {"s64", NV_SASS_TYPE_S64},   {"f16", NV_SASS_TYPE_F16}, {"f16x2", NV_SASS_TYPE_F16X2},
      {"bf16", NV_SASS_TYPE_BF16}, {"f32", NV_SASS_TYPE_F32}, {"f64", NV_SASS_TYPE_F64},
      {"bf16x2", NV_SASS_TYPE_BF16X2}};
  auto it = types.find(t);
  return it == types.end() ? NV_SASS_TYPE_NONE : it->second;
}

namespace {

// The modifier of `in` found in `table`, or `none`.
template <typename T>
T pick(const Instruction& in, const std::map<std::string, T>& table, T none) {
  for (const auto& m : in.modifiers) {
    std::string base = m.substr(0, m.find("::"));
    if (auto it = table.find(base); it != table.end()) return it->second;
  }
  return none;
}

const std::map<std::string, NvU8> kRounding = {
    {"rn", NV_SASS_RND_RN}, {"rz", NV_SASS_RND_RZ}, {"rm", NV_SASS_RND_RM}, {"rp", NV_SASS_RND_RP},
    {"rni", NV_SASS_RND_RNI}, {"rzi", NV_SASS_RND_RZI}, {"rmi", NV_SASS_RND_RMI}, {"rpi", NV_SASS_RND_RPI}};
const std::map<std::string, NvU8> kCmp = {
    {"eq", NV_SASS_CMP_EQ}, {"ne", NV_SASS_CMP_NE}, {"lt", NV_SASS_CMP_LT}, {"le", NV_SASS_CMP_LE},
    {"gt", NV_SASS_CMP_GT}, {"ge", NV_SASS_CMP_GE}, {"lo", NV_SASS_CMP_LO}, {"ls", NV_SASS_CMP_LS},
    {"hi", NV_SASS_CMP_HI}, {"hs", NV_SASS_CMP_HS}, {"equ", NV_SASS_CMP_EQU}, {"neu", NV_SASS_CMP_NEU},
    {"ltu", NV_SASS_CMP_LTU}, {"leu", NV_SASS_CMP_LEU}, {"gtu", NV_SASS_CMP_GTU}, {"geu", NV_SASS_CMP_GEU},
    {"num", NV_SASS_CMP_NUM}, {"nan", NV_SASS_CMP_NAN}};
const std::map<std::string, NvU8> kBool = {{"and", NV_SASS_BOOL_AND}, {"or", NV_SASS_BOOL_OR}, {"xor", NV_SASS_BOOL_XOR}};
const std::map<std::string, NvSassSpace> kSpace = {
    {"global", NV_SASS_SPACE_GLOBAL}, {"shared", NV_SASS_SPACE_SHARED}, {"local", NV_SASS_SPACE_LOCAL},
    {"const", NV_SASS_SPACE_CONST}, {"param", NV_SASS_SPACE_PARAM}};
const std::map<std::string, NvU8> kAtom = {
    {"add", NV_SASS_ATOM_ADD}, {"min", NV_SASS_ATOM_MIN}, {"max", NV_SASS_ATOM_MAX}, {"inc", NV_SASS_ATOM_INC},
    {"dec", NV_SASS_ATOM_DEC}, {"and", NV_SASS_ATOM_AND}, {"or", NV_SASS_ATOM_OR}, {"xor", NV_SASS_ATOM_XOR},
    {"exch", NV_SASS_ATOM_EXCH}, {"cas", NV_SASS_ATOM_CAS}, {"popc", NV_SASS_ATOM_POPC}};
const std::map<std::string, NvU8> kCache = {
    {"ca", NV_SASS_CACHE_CA}, {"cg", NV_SASS_CACHE_CG}, {"cs", NV_SASS_CACHE_CS}, {"lu", NV_SASS_CACHE_LU},
    {"cv", NV_SASS_CACHE_CV}, {"wb", NV_SASS_CACHE_WB}, {"wt", NV_SASS_CACHE_WT}};
const std::map<std::string, NvU8> kScope = {
    {"cta", NV_SASS_SCOPE_CTA}, {"cluster", NV_SASS_SCOPE_CLUSTER}, {"gpu", NV_SASS_SCOPE_GPU},
    {"gl", NV_SASS_SCOPE_GPU}, {"sys", NV_SASS_SCOPE_SYS}};
const std::map<std::string, NvU8> kSem = {
    {"relaxed", NV_SASS_SEM_RELAXED}, {"acquire", NV_SASS_SEM_ACQUIRE}, {"release", NV_SASS_SEM_RELEASE},
    {"acq_rel", NV_SASS_SEM_ACQ_REL}, {"sc", NV_SASS_SEM_SC}, {"weak", NV_SASS_SEM_WEAK}};
const std::map<std::string, NvU8> kShfl = {
    {"up", NV_SASS_SHFL_UP}, {"down", NV_SASS_SHFL_DOWN}, {"bfly", NV_SASS_SHFL_BFLY}, {"idx", NV_SASS_SHFL_IDX}};
const std::map<std::string, NvU8> kVote = {
    {"all", NV_SASS_VOTE_ALL}, {"any", NV_SASS_VOTE_ANY}, {"uni", NV_SASS_VOTE_UNI}, {"ballot", NV_SASS_VOTE_BALLOT}};
const std::map<std::string, NvU8> kPrmt = {
    {"f4e", NV_SASS_PRMT_F4E}, {"b4e", NV_SASS_PRMT_B4E}, {"rc8", NV_SASS_PRMT_RC8}, {"ecl", NV_SASS_PRMT_ECL},
    {"ecr", NV_SASS_PRMT_ECR}, {"rc16", NV_SASS_PRMT_RC16}};
const std::map<std::string, NvU8> kTestp = {
    {"finite", NV_SASS_TESTP_FINITE}, {"infinite", NV_SASS_TESTP_INFINITE}, {"number", NV_SASS_TESTP_NUMBER},
    {"notanumber", NV_SASS_TESTP_NOTANUMBER}, {"normal", NV_SASS_TESTP_NORMAL}, {"subnormal", NV_SASS_TESTP_SUBNORMAL}};

// PTX opcodes that map one to one, operands in PTX order.
const std::map<std::string, NvU16> kSimple = {
    {"add", NV_SASS_OP_ADD}, {"addc", NV_SASS_OP_ADD}, {"sub", NV_SASS_OP_SUB}, {"subc", NV_SASS_OP_SUB},
    {"mul", NV_SASS_OP_MUL}, {"mad", NV_SASS_OP_MAD}, {"madc", NV_SASS_OP_MAD}, {"mul24", NV_SASS_OP_MUL24},
    {"mad24", NV_SASS_OP_MAD24}, {"sad", NV_SASS_OP_SAD}, {"fma", NV_SASS_OP_FMA}, {"div", NV_SASS_OP_DIV},
    {"rem", NV_SASS_OP_REM}, {"abs", NV_SASS_OP_ABS}, {"neg", NV_SASS_OP_NEG}, {"min", NV_SASS_OP_MIN},
    {"max", NV_SASS_OP_MAX}, {"copysign", NV_SASS_OP_COPYSIGN}, {"testp", NV_SASS_OP_TESTP},
    {"and", NV_SASS_OP_AND}, {"or", NV_SASS_OP_OR}, {"xor", NV_SASS_OP_XOR}, {"not", NV_SASS_OP_NOT},
    {"cnot", NV_SASS_OP_CNOT}, {"shl", NV_SASS_OP_SHL}, {"shr", NV_SASS_OP_SHR}, {"shf", NV_SASS_OP_SHF},
    {"lop3", NV_SASS_OP_LOP3}, {"prmt", NV_SASS_OP_PRMT}, {"bfe", NV_SASS_OP_BFE}, {"bfi", NV_SASS_OP_BFI},
    {"brev", NV_SASS_OP_BREV}, {"popc", NV_SASS_OP_POPC}, {"clz", NV_SASS_OP_CLZ}, {"bfind", NV_SASS_OP_BFIND},
    {"setp", NV_SASS_OP_SETP}, {"selp", NV_SASS_OP_SELP}, {"set", NV_SASS_OP_SET}, {"slct", NV_SASS_OP_SLCT},
    {"rcp", NV_SASS_OP_RCP}, {"sqrt", NV_SASS_OP_SQRT}, {"rsqrt", NV_SASS_OP_RSQRT}, {"sin", NV_SASS_OP_SIN},
    {"cos", NV_SASS_OP_COS}, {"ex2", NV_SASS_OP_EX2}, {"lg2", NV_SASS_OP_LG2}, {"tanh", NV_SASS_OP_TANH},
    {"cvt", NV_SASS_OP_CVT}, {"cvta", NV_SASS_OP_CVTA}, {"isspacep", NV_SASS_OP_ISSPACEP},
    {"activemask", NV_SASS_OP_ACTIVEMASK}, {"nanosleep", NV_SASS_OP_NANOSLEEP}, {"exit", NV_SASS_OP_EXIT},
    {"ret", NV_SASS_OP_RET}, {"trap", NV_SASS_OP_TRAP}, {"brkpt", NV_SASS_OP_BRKPT},
    {"membar", NV_SASS_OP_MEMBAR}, {"fence", NV_SASS_OP_MEMBAR}, {"shfl", NV_SASS_OP_SHFL},
    {"vote", NV_SASS_OP_VOTE}, {"match", NV_SASS_OP_MATCH}, {"redux", NV_SASS_OP_REDUX}};

std::vector<std::string> types_of(const Instruction& in) {
  std::vector<std::string> out;
  for (const auto& m : in.modifiers)
    if (sass_type(m) != NV_SASS_TYPE_NONE) out.push_back(m);
  return out;
}

}  // namespace

bool Lowerer::instruction(const Instruction& in) {
  // Another block's shared memory (distributed shared memory of a thread block cluster) is not
  // reachable from the SIMT executor; the bulk copies' shared::cluster destination is their own
  // block's (lower_async.cpp).
  if (in.opcode != "cp" && in.has("shared::cluster"))
    return unsupported(in.line, "'" + in.opcode + ".shared::cluster' (distributed shared memory)");
  NvSassInstruction i = base(in);
  if (!in.guard.empty()) {
    i.guard = pred(in.guard);
    i.guard_negate = in.guard_negated ? 1 : 0;
  }
  std::vector<std::string> types = types_of(in);
  i.type = types.empty() ? NV_SASS_TYPE_NONE : sass_type(types.size() > 1 && in.opcode != "cvt" && in.opcode != "set" && in.opcode != "slct" ? types.back() : types.front());
  if (types.size() > 1 && (in.opcode == "cvt" || in.opcode == "set" || in.opcode == "slct")) i.stype = sass_type(types.back());
  i.rounding = pick(in, kRounding, NvU8{NV_SASS_RND_NONE});
  if (in.has("sat")) i.flags |= NV_SASS_FLAG_SAT;
  if (in.has("ftz")) i.flags |= NV_SASS_FLAG_FTZ;
  if (in.has("approx")) i.flags |= NV_SASS_FLAG_APPROX;
  if (in.has("full")) i.flags |= NV_SASS_FLAG_FULL;
  if (in.has("uni") && (in.opcode == "bra" || in.opcode == "call")) i.flags |= NV_SASS_FLAG_UNI;
  if (in.has("aligned")) i.flags |= NV_SASS_FLAG_ALIGNED;
  if (in.has("volatile")) i.flags |= NV_SASS_FLAG_VOLATILE;
  if (in.has("nc")) i.flags |= NV_SASS_FLAG_NC;
  i.scope = pick(in, kScope, NvU8{NV_SASS_SCOPE_NONE});
  i.sem = pick(in, kSem, NvU8{NV_SASS_SEM_NONE});
  const std::string& op = in.opcode;
  // Modifiers that change a result and that the executor does not model.
  for (const char* m : {"relu", "NaN", "xorsign", "oob"})
    if (in.has(m)) return unsupported(in.line, "the modifier ." + std::string(m) + " of '" + op + "'");
  // Immediates are encoded in the type of the operand they stand for: the instruction's, except
  // a warp operation's membermask (b32), bar.warp.sync's mask (b32) and mad.wide's addend.
  const bool warp_op = op == "shfl" || op == "vote" || op == "match" || op == "redux";
  auto add_operand_typed = [&](const Operand& o, NvSassType t) -> bool {
    if (i.operand_count >= NV_SASS_MAX_OPERANDS) return unsupported(in.line, "'" + op + "' with this many operands");
    return value(o, t, i.operand[i.operand_count++], in.line);
  };
  auto add_operand = [&](const Operand& o) -> bool {
    NvSassType t = static_cast<NvSassType>(i.type);
    bool last = &o == &in.operands.back();
    if ((warp_op && last) || (op == "bar" && in.has("warp"))) t = NV_SASS_TYPE_B32;
    if ((op == "mad" || op == "mul") && in.has("wide") && i.operand_count == 3) t = NV_SASS_TYPE_B64;
    return add_operand_typed(o, t);
  };

  if (op == "ld" || op == "ldu" || op == "st") {
    NvSassSpace space = pick(in, kSpace, NV_SASS_SPACE_GENERIC);
    i.opcode = op == "ld" ? NV_SASS_OP_LD : op == "ldu" ? NV_SASS_OP_LDU : NV_SASS_OP_ST;
    i.cache = pick(in, kCache, NvU8{NV_SASS_CACHE_NONE});
    i.vec = in.has("v4") ? 4 : in.has("v2") ? 2 : 1;
    if (in.operands.size() != 2) return unsupported(in.line, "'" + op + "' without two operands");
    const Operand& addr = op == "st" ? in.operands[0] : in.operands[1];
    const Operand& data = op == "st" ? in.operands[1] : in.operands[0];
    // .param of a called .func or of a call block: a register move.
    if (space == NV_SASS_SPACE_PARAM && addr.kind == Operand::Kind::Address && local_param(addr.name)) {
      if (addr.imm != 0 || i.vec != 1) return unsupported(in.line, "a .param access at an offset or as a vector");
      NvU32 slot = params_.at(fn_->name + "/" + addr.name);
      i.opcode = NV_SASS_OP_MOV;
      i.vec = 0;
      i.cache = 0;
      NvSassOperand slot_op{};
      slot_op.kind = NV_SASS_OPND_REG;
      slot_op.index = slot;
      NvSassOperand data_op{};
      if (!value(data, static_cast<NvSassType>(i.type), data_op, in.line)) return false;
      i.operand[0] = op == "st" ? slot_op : data_op;
      i.operand[1] = op == "st" ? data_op : slot_op;
      i.operand_count = 2;
      emit(i);
      return true;
    }
    if (!address(addr, i.addr, space, in.line)) return false;
    i.space = space;
    if (data.kind == Operand::Kind::Vector) {
      for (const auto& e : data.elements)
        if (!add_operand(e)) return false;
    } else if (!add_operand(data)) {
      return false;
    }
    emit(i);
    return true;
  }
  if (op == "atom" || op == "red") {
    i.opcode = op == "atom" ? NV_SASS_OP_ATOM : NV_SASS_OP_RED;
    NvSassSpace space = pick(in, kSpace, NV_SASS_SPACE_GENERIC);
    i.atom = pick(in, kAtom, NvU8{NV_SASS_ATOM_NONE});
    size_t addr_at = op == "atom" ? 1 : 0;
    if (in.operands.size() <= addr_at) return unsupported(in.line, "'" + op + "' without an address");
    if (!address(in.operands[addr_at], i.addr, space, in.line)) return false;
    i.space = space;
    for (size_t k = 0; k < in.operands.size(); ++k)
      if (k != addr_at && !add_operand(in.operands[k])) return false;
    emit(i);
    return true;
  }
  if (op == "mov") {
    if (in.operands.size() != 2) return unsupported(in.line, "'mov' without two operands");
    const Operand& d = in.operands[0];
    const Operand& a = in.operands[1];
    if (d.kind == Operand::Kind::Vector || a.kind == Operand::Kind::Vector) {
      const Operand& vec = d.kind == Operand::Kind::Vector ? d : a;
      if (vec.elements.size() != 2 && vec.elements.size() != 4) return unsupported(in.line, "a vector of this size in 'mov'");
      i.opcode = d.kind == Operand::Kind::Vector ? NV_SASS_OP_UNPACK : NV_SASS_OP_PACK;
      uint32_t elem = type_size(types.empty() ? "" : types.back()) / static_cast<uint32_t>(vec.elements.size());
      i.type = elem == 1 ? NV_SASS_TYPE_B8 : elem == 2 ? NV_SASS_TYPE_B16 : elem == 4 ? NV_SASS_TYPE_B32 : NV_SASS_TYPE_B64;
      if (i.opcode == NV_SASS_OP_PACK) {
        if (!add_operand(d)) return false;
        for (const auto& e : a.elements) if (!add_operand(e)) return false;
      } else {
        for (const auto& e : d.elements) if (!add_operand(e)) return false;
        if (!add_operand(a)) return false;
      }
      emit(i);
      return true;
    }
    i.opcode = NV_SASS_OP_MOV;
    if (!add_operand(d) || !add_operand(a)) return false;
    emit(i);
    return true;
  }
  if (op == "bra") {
    i.opcode = NV_SASS_OP_BRA;
    if (in.operands.size() != 1 || in.operands[0].kind != Operand::Kind::Symbol)
      return unsupported(in.line, "an indirect branch");
    branch_fixups_.emplace_back(block_->data.code.size(), fn_->name + "/" + in.operands[0].name);
    emit(i);
    return true;
  }
  if (op == "call") return lower_call(in, i);
  if (op == "cp" || op == "mbarrier") return lower_async(in, i);
  if (op == "tex" || op == "tld4" || op == "txq" || op == "suld" || op == "sust" || op == "suq" || op == "sured")
    return lower_texture(in, i);
  if (op == "bar" || op == "barrier") {
    const std::string kind = in.modifiers.empty() ? "" : in.modifiers[0];
    i.opcode = kind == "sync" ? NV_SASS_OP_BAR_SYNC : kind == "arrive" ? NV_SASS_OP_BAR_ARRIVE
               : kind == "red" ? NV_SASS_OP_BAR_RED : kind == "warp" ? NV_SASS_OP_BAR_WARP_SYNC : NV_SASS_OP_NOP;
    if (i.opcode == NV_SASS_OP_NOP) return unsupported(in.line, "'" + op + "." + kind + "'");
    if (i.opcode == NV_SASS_OP_BAR_RED) {
      i.atom = in.has("popc") ? NV_SASS_ATOM_POPC : in.has("and") ? NV_SASS_ATOM_AND : NV_SASS_ATOM_OR;
      // d, a, [b,] c: b (the thread count) is absent from the three-operand form.
      const auto& o = in.operands;
      if (o.size() < 3) return unsupported(in.line, "'bar.red' without three operands");
      if (!add_operand(o[0]) || !add_operand(o[1])) return false;
      if (o.size() == 3) i.operand[i.operand_count++] = NvSassOperand{};
      for (size_t k = 2; k < o.size(); ++k) if (!add_operand(o[k])) return false;
    } else {
      for (const auto& o : in.operands) if (!add_operand(o)) return false;
      if (i.opcode != NV_SASS_OP_BAR_WARP_SYNC && i.operand_count == 1) i.operand[i.operand_count++] = NvSassOperand{};
    }
    emit(i);
    return true;
  }
  auto simple = kSimple.find(op);
  if (simple == kSimple.end()) return unsupported(in.line, "the instruction '" + op + "'");
  i.opcode = simple->second;
  if (op == "addc" || op == "subc" || op == "madc") i.flags |= NV_SASS_FLAG_CC_IN;
  if (in.has("cc")) i.flags |= NV_SASS_FLAG_CC_OUT;
  if (op == "mul" || op == "mad" || op == "mul24" || op == "mad24")
    i.mode = in.has("wide") ? NV_SASS_MUL_WIDE : in.has("hi") ? NV_SASS_MUL_HI : NV_SASS_MUL_LO;
  if (op == "mad" && (i.type == NV_SASS_TYPE_F32 || i.type == NV_SASS_TYPE_F64) && i.rounding != NV_SASS_RND_NONE)
    i.opcode = NV_SASS_OP_FMA;  // mad.rn.f32 is fma.rn.f32
  if (op == "setp" || op == "set" || op == "slct") {
    i.cmp = pick(in, kCmp, NvU8{NV_SASS_CMP_NONE});
    i.boolop = pick(in, kBool, NvU8{NV_SASS_BOOL_NONE});
    if (op == "setp" && !types.empty()) i.type = sass_type(types.back());
    if (op == "setp") i.stype = NV_SASS_TYPE_NONE;
  }
  if (op == "cvta") {
    i.mode = in.has("to") ? NV_SASS_CVTA_TO : NV_SASS_CVTA_FROM;
    i.space = pick(in, kSpace, NV_SASS_SPACE_GENERIC);
  }
  if (op == "isspacep") i.space = pick(in, kSpace, NV_SASS_SPACE_GENERIC);
  if (op == "shf") {
    i.mode = in.has("r") ? NV_SASS_SHF_R : NV_SASS_SHF_L;
    i.flags |= in.has("clamp") ? NV_SASS_FLAG_CLAMP : NV_SASS_FLAG_WRAP;
  }
  if (op == "bfind" && in.has("shiftamt")) i.flags |= NV_SASS_FLAG_SHIFTAMT;
  if (op == "prmt") i.mode = pick(in, kPrmt, NvU8{NV_SASS_PRMT_DEFAULT});
  if (op == "testp") i.mode = pick(in, kTestp, NvU8{NV_SASS_TESTP_FINITE});
  if (op == "shfl") i.mode = pick(in, kShfl, NvU8{NV_SASS_SHFL_IDX});
  if (op == "vote") i.mode = pick(in, kVote, NvU8{NV_SASS_VOTE_ALL});
  if (op == "match") i.mode = in.has("all") ? NV_SASS_MATCH_ALL : NV_SASS_MATCH_ANY;
  if (op == "redux") i.atom = pick(in, kAtom, NvU8{NV_SASS_ATOM_NONE});
  std::vector<Operand> ops = in.operands;
  if (op == "lop3") {
    if (ops.size() != 5 || ops[4].kind != Operand::Kind::Immediate) return unsupported(in.line, "'lop3' without an immediate table");
    i.mode = static_cast<NvU8>(ops[4].imm);
    ops.pop_back();
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    const Operand& o = in.operands[k];
    if (!add_operand(o)) return false;
    if (!o.second.empty()) i.pred_dst = pred(o.second);
  }
  emit(i);
  return true;
}

// call [(rets),] f, [(args)][, prototype]: moves the arguments into the callee's parameter
// registers, jumps, and moves the return values back into the call block's .param registers.
bool Lowerer::lower_call(const Instruction& in, NvSassInstruction i) {
  std::vector<Operand> rets, args;
  const Operand* callee = nullptr;
  for (const auto& o : in.operands) {
    if (o.kind == Operand::Kind::Vector) (callee ? args : rets) = o.elements;
    else if (!callee) callee = &o;
  }
  if (!callee || callee->kind != Operand::Kind::Symbol) return unsupported(in.line, "an indirect call");
  auto slot_of = [&](const Operand& o, NvSassOperand& out) -> bool {
    auto it = params_.find(fn_->name + "/" + o.name);
    if (it == params_.end()) return unsupported(in.line, "the call argument '" + o.name + "'");
    out = NvSassOperand{};
    out.kind = NV_SASS_OPND_REG;
    out.index = it->second;
    return true;
  };
  if (callee->name == "vprintf" || callee->name == "__assertfail") {
    bool printf = callee->name == "vprintf";
    i.opcode = printf ? NV_SASS_OP_PRINTF : NV_SASS_OP_ASSERTFAIL;
    // vprintf: d = status, a = format, b = argument buffer. __assertfail: operand[0..3] =
    // message, file, line, function (its fifth argument, the char size, is dropped).
    i.operand_count = printf ? 3 : 4;
    if (printf && !rets.empty() && !slot_of(rets[0], i.operand[0])) return false;
    size_t first = printf ? 1 : 0;
    for (size_t k = 0; k < args.size() && k + first < i.operand_count; ++k)
      if (!slot_of(args[k], i.operand[k + first])) return false;
    emit(i);
    return true;
  }
  if (callee->name == "cudaGraphSetConditional") {
    // The device runtime's cudaGraphSetConditional(handle, value): minicuda's handle is the device
    // address of the conditional variable (docs/graphs.md), so the call is a 32-bit global store.
    if (args.size() != 2) return unsupported(in.line, "a call of 'cudaGraphSetConditional' without two arguments");
    NvSassOperand handle{};
    if (!slot_of(args[0], handle) || !slot_of(args[1], i.operand[0])) return false;
    i.opcode = NV_SASS_OP_ST;
    i.type = NV_SASS_TYPE_U32;
    i.space = NV_SASS_SPACE_GLOBAL;
    i.vec = 1;
    i.addr = NvSassAddress{};
    i.addr.kind = NV_SASS_OPND_REG;
    i.addr.index = handle.index;
    i.operand_count = 1;
    emit(i);
    return true;
  }
  if (const int mode = heap_call_mode(callee->name); mode >= 0) {
    // The device heap's calls (nv_sass.h HEAP): d = the return value (none for free), a, b = the arguments.
    i.opcode = NV_SASS_OP_HEAP;
    i.mode = static_cast<NvU8>(mode);
    i.operand_count = 3;
    i.operand[0] = NvSassOperand{};
    i.operand[0].kind = NV_SASS_OPND_NONE;
    if (!rets.empty() && !slot_of(rets[0], i.operand[0])) return false;
    for (size_t k = 0; k < args.size() && k < 2; ++k)
      if (!slot_of(args[k], i.operand[k + 1])) return false;
    emit(i);
    return true;
  }
  const Function* f = function_named(callee->name);
  if (!f || !f->has_body) return unsupported(in.line, "a call of the external function '" + callee->name + "'");
  if (args.size() != f->params.size() || rets.size() != f->returns.size())
    return unsupported(in.line, "a call of '" + f->name + "' with a different parameter count");
  NvSassInstruction mov = i;
  mov.opcode = NV_SASS_OP_MOV;
  mov.type = NV_SASS_TYPE_B64;
  mov.operand_count = 2;
  mov.flags = 0;
  for (size_t k = 0; k < args.size(); ++k) {
    mov.operand[0] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, params_.at(f->name + "/" + f->params[k].name), 0};
    if (!slot_of(args[k], mov.operand[1])) return false;
    emit(mov);
  }
  i.opcode = NV_SASS_OP_CALL;
  if (reaches(*f, fn_->name)) {
    // A recursive call: the caller's registers live in a frame on the thread's call stack until
    // the callee returns (nv_sass.h CALL). The frame is charged its return address and link.
    if (f->returns.size() + 1 > NV_SASS_MAX_OPERANDS)
      return unsupported(in.line, "a recursive call of '" + f->name + "' with this many return values");
    i.flags |= NV_SASS_FLAG_SAVE_FRAME;
    i.operand[0] = NvSassOperand{NV_SASS_OPND_IMM, 0, 0, 0, kCallFrameBytes};
    i.operand_count = 1;
    for (const auto& r : f->returns)
      i.operand[i.operand_count++] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, params_.at(f->name + "/" + r.name), 0};
  }
  call_fixups_.emplace_back(block_->data.code.size(), f->name);
  emit(i);
  for (size_t k = 0; k < rets.size(); ++k) {
    if (!slot_of(rets[k], mov.operand[0])) return false;
    mov.operand[1] = NvSassOperand{NV_SASS_OPND_REG, 0, 0, params_.at(f->name + "/" + f->returns[k].name), 0};
    emit(mov);
  }
  return true;
}

}  // namespace minicuda::ptx
