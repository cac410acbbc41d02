// The lowering of the asynchronous-copy and mbarrier families (lower.h): cp.async.ca/cg,
// cp.async.commit_group/wait_group/wait_all, cp.async.bulk from global to shared with an mbarrier's
// complete_tx, cp.async.mbarrier.arrive, and mbarrier.init/inval/arrive/arrive_drop/expect_tx/
// complete_tx/test_wait/try_wait(.parity). The forms these families have that the executor does
// not implement (bulk copies to global memory, tensor copies, .noComplete, pending_count, the
// ignore-src predicate) are refused by name.
#include "lowerer.h"

namespace minicuda::ptx {

namespace {

bool has_prefix(const Instruction& in, const std::string& prefix) {
  for (const auto& m : in.modifiers)
    if (m.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

// An address operand as a value operand: REG (the register + imm), IMM (a window offset or an
// absolute address) or SYMBOL (+ imm).
bool Lowerer::address_operand(const Operand& o, NvSassOperand& out, NvSassSpace& space, int line) {
  NvSassAddress a{};
  if (!address(o, a, space, line)) return false;
  out = NvSassOperand{};
  out.kind = a.kind == NV_SASS_OPND_REG ? NV_SASS_OPND_REG : a.kind == NV_SASS_OPND_SYMBOL ? NV_SASS_OPND_SYMBOL : NV_SASS_OPND_IMM;
  out.index = a.kind == NV_SASS_OPND_NONE ? 0 : a.index;
  out.imm = static_cast<NvU64>(a.offset);
  return true;
}

bool Lowerer::lower_async(const Instruction& in, NvSassInstruction i) {
  const std::string& op = in.opcode;
  const auto& o = in.operands;
  const std::string what = "'" + op + (in.modifiers.empty() ? "" : "." + in.modifiers[0]) + "'";
  // Operand 0 of the instructions that write nothing is NONE (nv_sass.h).
  auto none = [&]() { i.operand[i.operand_count++] = NvSassOperand{}; };
  auto val = [&](const Operand& x, NvSassType t) {
    return value(x, t, i.operand[i.operand_count++], in.line);
  };
  auto at = [&](const Operand& x, bool shared_only) -> bool {
    NvSassSpace space = in.has("shared") || has_prefix(in, "shared::") ? NV_SASS_SPACE_SHARED : NV_SASS_SPACE_GENERIC;
    if (shared_only) space = NV_SASS_SPACE_SHARED;
    if (!address(x, i.addr, space, in.line)) return false;
    i.space = space;
    return true;
  };
  // A trailing cache-policy operand (.L2::cache_hint) changes nothing the executor models.
  const size_t hint = has_prefix(in, "L2::cache_hint") ? 1 : 0;

  if (op == "cp") {
    if (!in.has("async")) return unsupported(in.line, "the instruction 'cp'");
    if (in.has("commit_group") || in.has("wait_group") || in.has("wait_all")) {
      if (in.has("bulk")) return unsupported(in.line, "'cp.async.bulk' groups");
      i.opcode = NV_SASS_OP_CP_ASYNC_GROUP;
      i.type = NV_SASS_TYPE_U32;
      none();
      if (in.has("wait_group")) {
        if (o.size() != 1) return unsupported(in.line, "'cp.async.wait_group' without a count");
        i.mode = NV_SASS_CP_ASYNC_WAIT;
        if (!val(o[0], NV_SASS_TYPE_U32)) return false;
      } else if (in.has("wait_all")) {  // commit, then wait for none to be pending
        i.mode = NV_SASS_CP_ASYNC_COMMIT;
        emit(i);
        i.mode = NV_SASS_CP_ASYNC_WAIT;
        i.operand[i.operand_count++] = NvSassOperand{NV_SASS_OPND_IMM, 0, 0, 0, 0};
      } else {
        i.mode = NV_SASS_CP_ASYNC_COMMIT;
      }
      emit(i);
      return true;
    }
    if (in.has("mbarrier") && in.has("arrive")) {  // cp.async.mbarrier.arrive[.noinc][.shared].b64 [bar]
      if (o.size() != 1) return unsupported(in.line, "'cp.async.mbarrier.arrive' without one address");
      i.opcode = NV_SASS_OP_MBARRIER;
      i.mode = NV_SASS_MBAR_CP_ASYNC_ARRIVE;
      i.type = NV_SASS_TYPE_B64;
      if (in.has("noinc")) i.flags |= NV_SASS_FLAG_NOINC;
      none();
      if (!at(o[0], false)) return false;
      emit(i);
      return true;
    }
    i.opcode = NV_SASS_OP_CP_ASYNC;
    i.type = NV_SASS_TYPE_U32;
    NvSassSpace src_space = NV_SASS_SPACE_GLOBAL;
    if (in.has("bulk")) {
      // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [bar]
      if (!has_prefix(in, "mbarrier::complete_tx") || !has_prefix(in, "shared::") || !in.has("global") ||
          in.has("tensor") || has_prefix(in, "multicast") || o.size() != 4 + hint)
        return unsupported(in.line, "this form of 'cp.async.bulk'");
      i.mode = NV_SASS_CP_ASYNC_BULK;
      none();
      if (!at(o[0], true) || !address_operand(o[1], i.operand[i.operand_count++], src_space, in.line) ||
          !val(o[2], NV_SASS_TYPE_U32))
        return false;
      NvSassSpace bar_space = NV_SASS_SPACE_SHARED;
      if (!address_operand(o[3], i.operand[i.operand_count++], bar_space, in.line)) return false;
      emit(i);
      return true;
    }
    // cp.async.ca/cg.shared.global [dst], [src], cp-size[, src-size][, policy]
    i.mode = in.has("cg") ? NV_SASS_CP_ASYNC_CG : NV_SASS_CP_ASYNC_CA;
    if (!in.has("ca") && !in.has("cg")) return unsupported(in.line, "this form of 'cp.async'");
    if (o.size() < 3 + hint || o.size() > 4 + hint) return unsupported(in.line, "'cp.async' with this many operands");
    if (o[2].kind != Operand::Kind::Immediate || (o[2].imm != 4 && o[2].imm != 8 && o[2].imm != 16) ||
        (i.mode == NV_SASS_CP_ASYNC_CG && o[2].imm != 16))
      return unsupported(in.line, "'cp.async' of this size");
    none();
    if (!at(o[0], true) || !address_operand(o[1], i.operand[i.operand_count++], src_space, in.line) ||
        !val(o[2], NV_SASS_TYPE_U32))
      return false;
    if (o.size() == 4 + hint) {
      if (o[3].kind == Operand::Kind::Register && is_pred(o[3].name))
        return unsupported(in.line, "'cp.async' with an ignore-src predicate");
      if (!val(o[3], NV_SASS_TYPE_U32)) return false;
    }
    emit(i);
    return true;
  }

  // mbarrier.
  i.opcode = NV_SASS_OP_MBARRIER;
  i.type = NV_SASS_TYPE_B64;
  if (in.has("init") || in.has("expect_tx") || in.has("complete_tx")) {
    bool arrive = in.has("arrive");
    if (arrive) {  // mbarrier.arrive.expect_tx state, [bar], tx
      if (o.size() != 3) return unsupported(in.line, "'mbarrier.arrive.expect_tx' without three operands");
      i.mode = NV_SASS_MBAR_ARRIVE_EXPECT_TX;
      if (!val(o[0], NV_SASS_TYPE_B64) || !at(o[1], false) || !val(o[2], NV_SASS_TYPE_U32)) return false;
      emit(i);
      return true;
    }
    if (o.size() != 2) return unsupported(in.line, what + " without two operands");
    i.mode = in.has("init") ? NV_SASS_MBAR_INIT : in.has("expect_tx") ? NV_SASS_MBAR_EXPECT_TX : NV_SASS_MBAR_COMPLETE_TX;
    none();
    if (!at(o[0], false) || !val(o[1], NV_SASS_TYPE_U32)) return false;
    emit(i);
    return true;
  }
  if (in.has("inval")) {
    if (o.size() != 1) return unsupported(in.line, "'mbarrier.inval' without one address");
    i.mode = NV_SASS_MBAR_INVAL;
    none();
    if (!at(o[0], false)) return false;
    emit(i);
    return true;
  }
  if (in.has("arrive") || in.has("arrive_drop")) {
    if (in.has("noComplete")) return unsupported(in.line, "'mbarrier.arrive.noComplete'");
    if (o.size() != 2 && o.size() != 3) return unsupported(in.line, what + " with this many operands");
    i.mode = in.has("arrive_drop") ? NV_SASS_MBAR_ARRIVE_DROP : NV_SASS_MBAR_ARRIVE;
    if (!val(o[0], NV_SASS_TYPE_B64) || !at(o[1], false)) return false;
    if (o.size() == 3 && !val(o[2], NV_SASS_TYPE_U32)) return false;
    emit(i);
    return true;
  }
  if (in.has("test_wait") || in.has("try_wait")) {
    // waitComplete, [bar], state-or-parity[, suspendTimeHint]
    if (o.size() != 3 && o.size() != 4) return unsupported(in.line, what + " with this many operands");
    const bool parity = in.has("parity");
    i.mode = parity ? NV_SASS_MBAR_TEST_WAIT_PARITY : NV_SASS_MBAR_TEST_WAIT;
    if (!val(o[0], NV_SASS_TYPE_PRED) || !at(o[1], false) || !val(o[2], parity ? NV_SASS_TYPE_U32 : NV_SASS_TYPE_B64))
      return false;
    if (i.operand[0].kind != NV_SASS_OPND_PRED) return unsupported(in.line, what + " without a predicate result");
    emit(i);
    return true;
  }
  return unsupported(in.line, "the instruction " + what);
}

}  // namespace minicuda::ptx
