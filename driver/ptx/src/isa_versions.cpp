// PTX ISA versions (isa_versions.h): a table of features and the .version each needs.
#include "isa_versions.h"

#include <string>

namespace minicuda::ptx {

namespace {

// The version as one number: 2.3 -> 23.
constexpr int v(int major, int minor) { return major * 10 + minor; }

struct Need {
  std::string label;  // what ptxas calls it
  int version;
};

// The features instruction `in` uses, in the order ptxas reports them.
std::vector<Need> needs_of(const Instruction& in) {
  std::vector<Need> out;
  const std::string& op = in.opcode;
  auto has = [&](const char* m) { return in.has(m); };
  auto typed = [&](const char* t) { return in.has(t); };
  const bool f16 = typed("f16") || typed("f16x2");
  if (op == "cvta") out.push_back({has("to") ? "cvta.to" : "cvta", v(2, 0)});
  if (op == "fma" && typed("f32")) out.push_back({"fma.f32", v(2, 0)});
  if (op == "fma" && typed("f64")) out.push_back({"fma.f64", v(1, 4)});
  if (op == "red") out.push_back({"red", v(1, 2)});
  if (op == "shfl") out.push_back({"shfl", v(3, 0)});
  if (op == "shfl" && has("sync")) out.push_back({"shfl.sync", v(6, 0)});
  if (op == "vote") out.push_back({"1.2", v(1, 2)});  // ptxas' own label
  if (op == "vote" && has("ballot")) out.push_back({"vote.ballot", v(2, 0)});
  if (op == "vote" && has("sync")) out.push_back({"vote.sync", v(6, 0)});
  if (op == "match") out.push_back({"match", v(6, 0)});
  if (op == "redux") out.push_back({"redux", v(7, 0)});
  if (op == "activemask") out.push_back({"activemask", v(6, 2)});
  if (op == "bar" && has("warp")) out.push_back({"bar.warp", v(6, 0)});
  if (op == "bar" && has("red")) out.push_back({"bar.red", v(2, 0)});
  if (op == "barrier") out.push_back({"barrier", v(6, 0)});
  if (op == "nanosleep") out.push_back({"nanosleep", v(6, 2)});
  for (const char* bits : {"popc", "clz", "brev", "bfe", "bfi", "bfind", "prmt", "testp", "copysign", "isspacep",
                           "prefetch", "ldu"})
    if (op == bits) out.push_back({bits, v(2, 0)});
  if (op == "lop3") out.push_back({"lop3", v(4, 3)});
  if (op == "shf") out.push_back({has("l") ? "shf.l" : "shf.r", v(3, 1)});
  if (op == "dp4a" || op == "dp2a") out.push_back({op, v(5, 0)});
  if (op == "membar") out.push_back({"membar", v(1, 4)});
  if (op == "membar" && has("sys")) out.push_back({"membar.sys", v(2, 0)});
  if (op == "fence") out.push_back({"fence instruction", v(6, 0)});
  if (op == "fence" && has("acq_rel")) out.push_back({".acq_rel", v(6, 0)});
  if (op == "ld" || op == "st" || op == "atom" || op == "red") {
    if (has("acquire")) out.push_back({".acquire", v(6, 0)});
    if (has("release")) out.push_back({".release", v(6, 0)});
    if (has("relaxed")) out.push_back({".relaxed", v(6, 0)});
    if (has("volatile")) out.push_back({".volatile", v(1, 1)});
    if (has("nc")) out.push_back({".nc", v(3, 1)});
  }
  if (op == "div" && has("full")) out.push_back({"div.full", v(1, 4)});
  if (has("approx") && op != "div") out.push_back({".approx", v(1, 4)});
  if (has("ftz") && (op == "rcp" || op == "sqrt" || op == "rsqrt")) out.push_back({".ftz", v(1, 4)});
  if (op == "rcp" && has("approx") && typed("f64")) out.push_back({"rcp.approx.f64", v(2, 1)});
  if (f16 && (op == "add" || op == "sub" || op == "mul" || op == "fma" || op == "setp" || op == "neg" ||
              op == "abs" || op == "min" || op == "max" || op == "set"))
    out.push_back({"f16 arithemetic and compare instructions", v(4, 2)});  // sic: ptxas' spelling
  if (op == "ex2" && f16) out.push_back({"ex2.f16/f16x2", v(7, 0)});
  if (op == "tanh") out.insert(out.begin(), Need{"tanh", v(7, 0)});  // before its .approx
  if (op == "cp" && has("async")) out.push_back({"cp.async", v(7, 0)});
  if (op == "cp" && has("async") && (has("ca") || has("cg"))) out.push_back({"cache operation", v(2, 0)});
  if (op == "mbarrier" && !in.modifiers.empty()) out.push_back({"mbarrier." + in.modifiers.front(), v(7, 0)});
  if (op == "szext" || op == "bmsk") out.push_back({op, v(7, 6)});
  if (op == "elect") out.push_back({"elect", v(8, 0)});
  if (op == "griddepcontrol") out.push_back({"griddepcontrol", v(7, 8)});
  if (op == "mapa") out.push_back({"mapa", v(7, 8)});
  if (op == "add" || op == "sub") {
    if (has("cc")) out.push_back({".cc", v(1, 2)});
  }
  if (op == "addc" || op == "subc") out.push_back({"1.2", v(1, 2)});  // ptxas' own label
  if (op == "mad" && has("cc")) out.push_back({".cc", v(1, 2)}), out.push_back({"mad.cc", v(3, 0)});
  if (op == "madc") out.push_back({"madc", v(3, 0)});
  if (op == "fns") out.push_back({"fns", v(6, 0)});
  if (op == "alloca" || op == "stacksave" || op == "stackrestore") out.push_back({op, v(7, 3)});
  for (const Operand& o : in.operands) {
    if (o.kind != Operand::Kind::Register) continue;
    if (o.name == "%globaltimer" || o.name == "%globaltimer_lo" || o.name == "%globaltimer_hi")
      out.push_back({"%globaltimer", v(3, 1)});
    if (o.name == "%clock64") out.push_back({"%clock64", v(2, 0)});
    if (o.name == "%laneid") out.push_back({"%laneid", v(1, 3)});
  }
  return out;
}

// An atomic's own form: "Instruction 'atom.add.f32.global' requires ...".
int atom_needs(const Instruction& in, std::string* name) {
  if (in.opcode != "atom") return 0;
  std::string op, type, space;
  for (const auto& m : in.modifiers) {
    if (m == "global" || m == "shared" || m == "shared::cta") space = m;
    else if (type_size(m) != 0) type = m;
    else if (m == "add" || m == "min" || m == "max" || m == "exch" || m == "cas" || m == "inc" || m == "dec" ||
             m == "and" || m == "or" || m == "xor")
      op = m;
  }
  int need = 0;
  if (op == "add" && type == "f32") need = v(2, 0);
  if (op == "add" && type == "f64") need = v(5, 0);
  if ((type == "u64" || type == "s64" || type == "b64") && need == 0) need = v(1, 2);
  *name = "atom." + op + "." + type + (space.empty() ? "" : "." + space);
  return need;
}

// The first PTX ISA version with each target (ptxas 13.0: the lowest .version it accepts).
int target_needs(const std::string& target) {
  static const std::pair<const char*, int> kTargets[] = {
      {"sm_10", v(1, 0)}, {"sm_20", v(2, 0)}, {"sm_30", v(3, 0)}, {"sm_32", v(4, 0)}, {"sm_35", v(3, 1)},
      {"sm_37", v(4, 1)}, {"sm_50", v(4, 0)}, {"sm_52", v(4, 1)}, {"sm_53", v(4, 2)}, {"sm_60", v(5, 0)},
      {"sm_61", v(5, 0)}, {"sm_62", v(5, 0)}, {"sm_70", v(6, 0)}, {"sm_72", v(6, 1)}, {"sm_75", v(6, 3)},
      {"sm_80", v(7, 0)}, {"sm_86", v(7, 1)}, {"sm_87", v(7, 4)}, {"sm_88", v(7, 3)}, {"sm_89", v(7, 8)},
      {"sm_90", v(7, 8)}, {"sm_90a", v(8, 0)}};
  std::string t = target;
  if (t.rfind("compute_", 0) == 0) t = "sm_" + t.substr(8);
  for (const auto& [name, need] : kTargets)
    if (t == name) return need;
  return 0;
}

}  // namespace

void check_features(const Module& m, std::vector<Diagnostic>& diags) {
  const int have = v(m.version_major, m.version_minor);
  auto need = [&](int line, const std::string& label, int version) {
    if (have < version)
      diags.push_back({Diagnostic::Severity::Error, line,
                       "Feature '" + label + "' requires PTX ISA .version " + std::to_string(version / 10) + "." +
                           std::to_string(version % 10) + " or later"});
  };
  if (m.address_size_line > 0) need(m.address_size_line, ".address_size directive", v(2, 3));
  for (const Function& f : m.functions) {
    if (f.is_entry && !f.params.empty()) need(f.header_end_line, "kernel parameter list", v(1, 4));
    for (const Statement& st : f.body) {
      if (st.kind != Statement::Kind::Instr) continue;
      const Instruction& in = st.instr;
      std::string atom;
      if (int version = atom_needs(in, &atom); version > have)
        diags.push_back({Diagnostic::Severity::Error, in.line,
                         "Instruction '" + atom + "' requires PTX ISA .version " + std::to_string(version / 10) +
                             "." + std::to_string(version % 10) + " or later"});
      for (const Need& n : needs_of(in)) need(in.line, n.label, n.version);
    }
  }
  if (int version = target_needs(m.target); version > have)
    diags.push_back({Diagnostic::Severity::Error, m.target_line,
                     "PTX .version " + std::to_string(m.version_major) + "." + std::to_string(m.version_minor) +
                         " does not support .target " + m.target});
}

}  // namespace minicuda::ptx
