// The PTX verifier (verify.h).
#include "verify.h"

#include "nv_sass.h"
#include "registers.h"

#include <map>
#include <set>
#include <string>

namespace minicuda::ptx {

namespace {

const char* const kSpecials[] = {
    "%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
    "%gridid", "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
    "%globaltimer_hi", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
    "%lanemask_gt", "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size",
    "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid",
    "%cluster_ctarank", "%cluster_nctarank", "%current_graph_exec"};

// The special registers that are vectors (read with .x/.y/.z).
bool is_vector_special(const std::string& n) {
  return n == "%tid" || n == "%ntid" || n == "%ctaid" || n == "%nctaid" || n == "%clusterid" ||
         n == "%nclusterid" || n == "%cluster_ctaid" || n == "%cluster_nctaid";
}

// The instructions whose register operands all have the instruction type's size (the destination
// of a .wide form twice that): ptxas's "Arguments mismatch" check, kept to the families where
// that rule holds without exception.
bool is_uniform_alu(const std::string& op) {
  static const std::set<std::string> ops = {"add", "sub", "mul", "mad", "min", "max", "and", "or",
                                            "xor", "not", "neg", "abs", "mov", "div", "rem"};
  return ops.count(op) > 0;
}

std::string instruction_type(const Instruction& in) {
  for (auto it = in.modifiers.rbegin(); it != in.modifiers.rend(); ++it)
    if (type_size(*it) > 0) return *it;
  return {};
}

struct Scope {
  RegisterDecls regs;
  std::set<std::string> symbols;            // params, variables, functions, prototypes
  std::set<std::string> labels;
  std::map<std::string, std::string> spaces;  // variable or parameter -> its state space
};

// The functions the driver provides to every module (device printf, assert, the device heap,
// graphs' cudaGraphSetConditional): calls of them need no body in the PTX.
bool is_system_function(const std::string& name) {
  return name == "vprintf" || name == "__assertfail" || name == "cudaGraphSetConditional" || heap_call_mode(name) >= 0;
}

}  // namespace

int heap_call_mode(const std::string& name) {
  if (name == "malloc") return NV_SASS_HEAP_MALLOC;
  if (name == "free") return NV_SASS_HEAP_FREE;
  if (name == "__cudaCDP2Malloc") return NV_SASS_HEAP_CDP_MALLOC;
  if (name == "__cudaCDP2Free") return NV_SASS_HEAP_CDP_FREE;
  return -1;
}

namespace {

class Verifier {
 public:
  Verifier(const Module& m, std::vector<Diagnostic>& d, bool whole_program)
      : m_(m), d_(d), whole_program_(whole_program) {}

  void run() {
    std::set<std::string> module_symbols, defined;
    std::map<std::string, std::string> module_spaces;
    for (const auto& g : m_.globals) {
      module_symbols.insert(g.name);
      module_spaces[g.name] = g.space;
    }
    for (const auto& f : m_.functions) {
      module_symbols.insert(f.name);
      // ptxas: a second body for a name, reported at the end of an entry's header and at a
      // function's opening brace (diag/duplicate_definition; probe_module.txt, ptx.duplicate_entry).
      if (f.has_body && !defined.insert(f.name).second)
        error(f.is_entry ? f.header_end_line : f.body_line, "Duplicate definition of function '" + f.name + "'");
    }
    std::string unresolved;
    for (const auto& f : m_.functions) {
      if (!f.has_body) continue;
      Scope s;
      s.symbols = module_symbols;
      s.spaces = module_spaces;
      for (const auto& p : f.params) declare(s, p);
      for (const auto& p : f.returns) declare(s, p);
      for (const auto& st : f.body) {
        if (st.kind == Statement::Kind::Decl) declare(s, st.decl);
        if (st.kind == Statement::Kind::Label) { s.labels.insert(st.label); s.symbols.insert(st.label); }
      }
      for (const auto& st : f.body) {
        if (st.kind != Statement::Kind::Instr) continue;
        instruction(s, st.instr);
        // ptxas links the module as a whole program: a called function needs a body.
        const Instruction& in = st.instr;
        if (in.opcode != "call" || !unresolved.empty() || !whole_program_) continue;
        for (const auto& o : in.operands) {
          if (o.kind == Operand::Kind::Vector) continue;
          if (o.kind == Operand::Kind::Symbol && module_symbols.count(o.name) && !defined.count(o.name) &&
              !is_system_function(o.name))
            unresolved = o.name;
          break;
        }
      }
    }
    if (!unresolved.empty() && d_.empty())
      d_.push_back({Diagnostic::Severity::Fatal, 0, "Unresolved extern function '" + unresolved + "'"});
  }

 private:
  void error(int line, std::string msg) { d_.push_back({Diagnostic::Severity::Error, line, std::move(msg)}); }

  static void declare(Scope& s, const VarDecl& v) {
    if (v.space != "reg") {
      s.symbols.insert(v.name);
      s.spaces[v.name] = v.space;
      return;
    }
    s.regs.declare(v);
  }

  // Collects the names of `o` (and its elements) that nothing declares.
  void unknowns(const Scope& s, const Operand& o, std::vector<std::string>& out, bool& in_address) const {
    switch (o.kind) {
      case Operand::Kind::Register:
        if (!s.regs.find(o.name) && !is_special_register(o.name)) out.push_back(o.name);
        if (!o.second.empty() && !s.regs.find(o.second)) out.push_back(o.second);
        break;
      case Operand::Kind::Symbol:
        if (!s.symbols.count(o.name)) out.push_back(o.name);
        break;
      case Operand::Kind::Address:
        if (o.name.empty()) break;
        if (o.name[0] == '%' ? !s.regs.find(o.name) : !s.symbols.count(o.name)) {
          out.push_back(o.name);
          in_address = true;
        }
        for (const auto& e : o.elements) unknowns(s, e, out, in_address);
        break;
      case Operand::Kind::Vector:
        for (const auto& e : o.elements) unknowns(s, e, out, in_address);
        break;
      default:
        break;
    }
  }

  void instruction(const Scope& s, const Instruction& in) {
    std::string shown = in.opcode + (in.has("wide") ? ".wide" : "");
    std::vector<std::string> missing;
    bool in_address = false;
    if (!in.guard.empty() && !s.regs.find(in.guard)) {
      error(in.line, "Predicate expression expected");
      missing.push_back(in.guard);
    }
    for (const auto& o : in.operands) unknowns(s, o, missing, in_address);
    for (const auto& o : in.operands) {
      if (o.kind == Operand::Kind::Register && is_vector_special(o.name) && !o.component.empty() &&
          o.component != "x" && o.component != "y" && o.component != "z") {
        error(in.line, "Unknown vector selector: '" + o.component + "'");
        return;
      }
    }
    if (in.opcode == "bra" && !in.operands.empty() && in.operands[0].kind == Operand::Kind::Symbol &&
        s.symbols.count(in.operands[0].name) && !s.labels.count(in.operands[0].name)) {
      error(in.line, "Label expected for argument 0 of instruction 'bra'");
      error(in.line, "Argument 0 of instruction 'bra': must be register");
      return;
    }
    if (!missing.empty()) {
      bool reg_missing = false;
      for (const auto& n : missing) reg_missing |= n[0] == '%' && n != in.guard;
      if (reg_missing && in.opcode != "bra" && in.opcode != "call")
        error(in.line, (in_address ? "Illegal operand type to instruction '" : "Arguments mismatch for instruction '") + shown + "'");
      for (const auto& n : missing) error(in.line, "Unknown symbol '" + n + "'");
      return;
    }
    if (in.opcode == "ld" || in.opcode == "ldu" || in.opcode == "st" || in.opcode == "atom" || in.opcode == "red") {
      const bool plain = in.opcode == "ld" || in.opcode == "ldu" || in.opcode == "st";
      std::string space;
      for (const auto& m : in.modifiers) {
        std::string b = m.substr(0, m.find("::"));
        if (b == "global" || b == "shared" || b == "local" || b == "const" || b == "param") space = b;
        else if (plain && !is_memory_modifier(m)) error(in.line, "Unknown modifier '." + m + "'");
      }
      for (const auto& o : in.operands) {
        if (o.kind != Operand::Kind::Address || o.name.empty() || o.name[0] == '%') continue;
        auto it = s.spaces.find(o.name);
        // A generic access may name a variable, never a parameter (ptxas, ld.parm in probe_module).
        if (it != s.spaces.end() && (space.empty() ? it->second == "param" : it->second != space)) {
          error(in.line, "State space mismatch between instruction and address in instruction '" + in.opcode + "'");
          return;
        }
      }
    }
    if (!is_uniform_alu(in.opcode)) return;
    std::string type = instruction_type(in);
    uint32_t size = type_size(type);
    if (size == 0) return;
    bool wide = in.has("wide");
    bool integer = type[0] != 'f';
    for (size_t i = 0; i < in.operands.size(); ++i) {
      const Operand& o = in.operands[i];
      uint32_t want = size;
      if (wide && (i == 0 || (in.opcode == "mad" && i == 3))) want = size * 2;
      bool bad = false;
      if (o.kind == Operand::Kind::Register && o.component.empty() && !is_special_register(o.name)) {
        const std::string* t = s.regs.find(o.name);
        bad = t && type_size(*t) != want;
      } else if (o.kind == Operand::Kind::FloatImmediate) {
        bad = integer && !(o.fimm_single && want == 4) && !(!o.fimm_single && o.fbits && want == 8);
      }
      if (bad) {
        error(in.line, "Arguments mismatch for instruction '" + shown + "'");
        return;
      }
    }
  }

  const Module& m_;
  std::vector<Diagnostic>& d_;
  const bool whole_program_;
};

}  // namespace

bool is_special_register(const std::string& name) {
  for (const char* s : kSpecials)
    if (name == s) return true;
  if (name.rfind("%envreg", 0) == 0 || name.rfind("%pm", 0) == 0 || name.rfind("%reserved_smem", 0) == 0) return true;
  return false;
}

bool is_memory_modifier(const std::string& m) {
  static const char* const kKnown[] = {
      "weak", "volatile", "relaxed", "acquire", "release", "mmio", "cta", "cluster", "gpu", "sys", "ca", "cg", "cs",
      "lu", "cv", "wb", "wt", "nc", "unified", "v2", "v4", "v8", "L1::evict_normal", "L1::evict_unchanged",
      "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first",
      "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B", "f16", "f16x2", "bf16", "bf16x2",
      "e4m3", "e5m2", "e4m3x2", "e5m2x2", "pred", "async", "bulk", "mbarrier::complete_tx::bytes"};
  for (const char* k : kKnown)
    if (m == k) return true;
  return type_size(m) != 0;
}

void verify(const Module& module, std::vector<Diagnostic>& diags, bool whole_program) {
  Verifier(module, diags, whole_program).run();
}

}  // namespace minicuda::ptx
