// The lowering's driver (lower.h): which functions go into the program, where every name lives
// (register slots, predicates, parameter offsets, shared/local windows, symbols), operands, and
// the final resolution of labels and calls.
#include "lower.h"

#include <algorithm>
#include <cstring>

#include "layout.h"
#include "lowerer.h"
#include "minicuda/round_up.h"
#include "regalloc.h"
#include "yield_points.h"
#include "support.h"
#include "verify.h"

namespace minicuda::ptx {

namespace {

// The callee named by a call instruction: call (rets), f, (args) / call f, (args) / call f.
const Operand* callee_operand(const Instruction& in) {
  for (const auto& o : in.operands)
    if (o.kind != Operand::Kind::Vector) return &o;
  return nullptr;
}

// The functions `f` calls directly, by name.
std::vector<std::string> callees(const Function& f) {
  std::vector<std::string> out;
  for (const auto& st : f.body)
    if (st.kind == Statement::Kind::Instr && st.instr.opcode == "call")
      if (const Operand* c = callee_operand(st.instr); c && c->kind == Operand::Kind::Symbol) out.push_back(c->name);
  return out;
}

}  // namespace

const Function* Lowerer::function_named(const std::string& name) const {
  const Function* decl = nullptr;
  for (const auto& f : m_.functions) {
    if (f.name != name) continue;
    if (f.has_body) return &f;
    decl = &f;
  }
  return decl;
}

const VarDecl* Lowerer::module_var(const std::string& name) const {
  for (const auto& g : m_.globals)
    if (g.name == name) return &g;
  return nullptr;
}

bool Lowerer::unsupported(int line, const std::string& what) {
  diags_.push_back({Diagnostic::Severity::Error, line, what + " is not supported by minicuda's JIT"});
  return false;
}

bool Lowerer::is_pred(const std::string& r) const {
  auto decls = reg_types_.find(fn_->name);
  const std::string* t = decls == reg_types_.end() ? nullptr : decls->second.find(r);
  return t && *t == "pred";
}

NvU32 Lowerer::reg(const std::string& name) {
  std::string key = fn_->name + "/" + name;
  auto it = regs_.find(key);
  if (it != regs_.end()) return it->second;
  NvU32 slot = static_cast<NvU32>(slot_bytes_.size());
  const std::string* t = reg_types_[fn_->name].find(name);
  slot_bytes_.push_back(t ? std::max<uint32_t>(type_size(*t), 4) : 8);
  regs_[key] = slot;
  return slot;
}

NvU16 Lowerer::pred(const std::string& name) {
  std::string key = fn_->name + "/" + name;
  auto it = preds_.find(key);
  if (it != preds_.end()) return it->second;
  NvU16 p = static_cast<NvU16>(preds_.size());
  preds_[key] = p;
  return p;
}

NvU32 Lowerer::param_slot(const std::string& function, const std::string& name, uint32_t size) {
  std::string key = function + "/" + name;
  auto it = params_.find(key);
  if (it != params_.end()) return it->second;
  NvU32 slot = static_cast<NvU32>(slot_bytes_.size());
  slot_bytes_.push_back(std::max<uint32_t>(size, 4));
  params_[key] = slot;
  return slot;
}

bool Lowerer::local_param(const std::string& name) const {
  return params_.count(fn_->name + "/" + name) > 0;
}

// Registers, predicates, special registers, immediates and variable names as source operands.
bool Lowerer::value(const Operand& o, NvSassType type, NvSassOperand& out, int line) {
  out = NvSassOperand{};
  switch (o.kind) {
    case Operand::Kind::Sink:
      out.kind = NV_SASS_OPND_NONE;
      return true;
    case Operand::Kind::Register: {
      if (is_special_register(o.name)) {
        static const char* const names[] = {
            "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
            "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid",
            "%smid", "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
            "%lanemask_gt", "%lanemask_ge", "%clock", "%clock_hi", "%clock64", "%globaltimer",
            "%globaltimer_lo", "%globaltimer_hi", "%dynamic_smem_size", "%total_smem_size", "WARP_SZ",
            "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
            "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%envreg1", "%envreg2"};
        static_assert(sizeof(names) / sizeof(names[0]) == NV_SASS_SR_COUNT);
        std::string full = o.component.empty() ? o.name : o.name + "." + o.component;
        for (NvU32 i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
          if (full == names[i]) {
            out.kind = NV_SASS_OPND_SREG;
            out.index = i;
            return true;
          }
        }
        return unsupported(line, "the special register " + full);
      }
      if (is_pred(o.name)) {
        out.kind = NV_SASS_OPND_PRED;
        out.index = pred(o.name);
        out.flags = o.negated ? NV_SASS_OPND_NEGATE : 0;
        return true;
      }
      out.kind = NV_SASS_OPND_REG;
      out.index = reg(o.name);
      return true;
    }
    case Operand::Kind::Immediate:
      out.kind = NV_SASS_OPND_IMM;
      out.imm = static_cast<NvU64>(o.imm);
      // The value's bits in the instruction's type: -1 in a 32-bit operation is 0xffffffff.
      if (type == NV_SASS_TYPE_PRED) out.imm &= 1;
      if (type == NV_SASS_TYPE_B8 || type == NV_SASS_TYPE_U8 || type == NV_SASS_TYPE_S8) out.imm &= 0xFFu;
      if (type == NV_SASS_TYPE_B16 || type == NV_SASS_TYPE_U16 || type == NV_SASS_TYPE_S16) out.imm &= 0xFFFFu;
      if (type == NV_SASS_TYPE_B32 || type == NV_SASS_TYPE_U32 || type == NV_SASS_TYPE_S32) out.imm &= 0xFFFFFFFFu;
      if (type == NV_SASS_TYPE_F32) {
        float f = static_cast<float>(o.imm);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        out.imm = b;
      } else if (type == NV_SASS_TYPE_F64) {
        double d = static_cast<double>(o.imm);
        std::memcpy(&out.imm, &d, 8);
      }
      return true;
    case Operand::Kind::FloatImmediate:
      out.kind = NV_SASS_OPND_IMM;
      if (type == NV_SASS_TYPE_F64) {
        if (o.fbits && !o.fimm_single) out.imm = o.fbits;
        else std::memcpy(&out.imm, &o.fimm, 8);
      } else if (o.fimm_single) {
        out.imm = o.fbits;
      } else {
        float f = static_cast<float>(o.fimm);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        out.imm = b;
      }
      return true;
    case Operand::Kind::Symbol:
    case Operand::Kind::Address: {
      // A variable's name as a value: its window offset (.shared/.local) or its device address.
      std::string key = fn_->name + "/" + o.name;
      uint64_t add = o.kind == Operand::Kind::Address ? static_cast<uint64_t>(o.imm) : 0;
      if (shared_.count(key) || local_.count(key) || shared_.count(o.name) || local_.count(o.name)) {
        out.kind = NV_SASS_OPND_IMM;
        out.imm = (shared_.count(key) ? shared_[key] : local_.count(key) ? local_[key]
                   : shared_.count(o.name) ? shared_[o.name] : local_[o.name]) + add;
        return true;
      }
      if (auto it = symbols_.find(o.name); it != symbols_.end()) {
        out.kind = NV_SASS_OPND_SYMBOL;
        out.index = it->second;
        out.imm = add;
        return true;
      }
      // An entry parameter's name as a value (mov.b64 %rd1, k_param_0): its offset in the
      // parameter window, which ld.param [%rd1+4] and cvta.param take.
      if (auto it = entry_params_.find(o.name); fn_ == entry_ && it != entry_params_.end()) {
        out.kind = NV_SASS_OPND_IMM;
        out.imm = it->second + add;
        return true;
      }
      return unsupported(line, "the operand '" + o.name + "'");
    }
    case Operand::Kind::Vector:
      return unsupported(line, "a vector operand here");
  }
  return false;
}

// [reg+off], [var+off], [param+off], [imm] -> an NvSassAddress. `space` comes in as the
// instruction's and is left as is; names in the shared/local windows and entry parameters become
// plain offsets in their window.
bool Lowerer::address(const Operand& o, NvSassAddress& out, NvSassSpace& space, int line) {
  out = NvSassAddress{};
  out.offset = o.imm;
  if (o.kind != Operand::Kind::Address) return unsupported(line, "a non-address operand in an address position");
  if (o.name.empty()) { out.kind = NV_SASS_OPND_NONE; return true; }
  if (o.name[0] == '%') {
    out.kind = NV_SASS_OPND_REG;
    out.index = reg(o.name);
    return true;
  }
  std::string key = fn_->name + "/" + o.name;
  const std::map<std::string, uint64_t>* windows[] = {&shared_, &local_};
  for (const auto* w : windows) {
    for (const std::string& k : {key, o.name}) {
      if (auto it = w->find(k); it != w->end()) {
        out.kind = NV_SASS_OPND_NONE;
        out.offset += static_cast<int64_t>(it->second);
        return true;
      }
    }
  }
  if (fn_ == entry_) {
    if (auto it = entry_params_.find(o.name); it != entry_params_.end()) {
      out.kind = NV_SASS_OPND_NONE;
      out.offset += it->second;
      space = NV_SASS_SPACE_PARAM;
      return true;
    }
  }
  if (auto it = symbols_.find(o.name); it != symbols_.end()) {
    out.kind = NV_SASS_OPND_SYMBOL;
    out.index = it->second;
    return true;
  }
  return unsupported(line, "the address [" + o.name + "]");
}

NvSassInstruction Lowerer::base(const Instruction& in) const {
  NvSassInstruction i{};
  i.guard = NV_SASS_PRED_TRUE;
  i.pred_dst = NV_SASS_PRED_TRUE;
  i.file = 0xFFFF;
  i.ptx_line = static_cast<NvU32>(in.line);
  i.addr.index = NV_SASS_REG_NONE;
  if (opt_.generate_line_info && in.loc_line > 0) {
    i.line = static_cast<NvU32>(in.loc_line);
    for (size_t f = 0; f < m_.files.size(); ++f)
      if (m_.files[f].first == in.loc_file) i.file = static_cast<NvU16>(f);
  }
  return i;
}

// Offsets of the shared and local variables every function of the program declares or names.
void Lowerer::layout_memory(const Function& f) {
  for (const auto& st : f.body) {
    if (st.kind == Statement::Kind::Decl) {
      const VarDecl& v = st.decl;
      std::string key = f.name + "/" + v.name;
      if (v.space == "shared" && v.linkage == "extern") {
        dynamic_shared_.push_back(key);
      } else if (v.space == "shared") {
        shared_end_ = round_up(shared_end_, decl_align(v));
        shared_[key] = shared_end_;
        shared_end_ += decl_size(v);
      } else if (v.space == "local") {
        local_end_ = round_up(local_end_, decl_align(v));
        local_[key] = local_end_;
        local_end_ += decl_size(v);
      } else if (v.space == "reg") {
        reg_types_[f.name].declare(v);
      } else if (v.space == "param") {
        param_slot(f.name, v.name, static_cast<uint32_t>(decl_size(v)));
      }
    }
    if (st.kind != Statement::Kind::Instr) continue;
    std::vector<const Operand*> names;
    for (const auto& o : st.instr.operands) {
      names.push_back(&o);
      for (const auto& e : o.elements) names.push_back(&e);
    }
    for (const Operand* o : names) {
      if (o->name.empty() || o->name[0] == '%') continue;
      const VarDecl* g = module_var(o->name);
      if (!g || shared_.count(g->name) || symbols_.count(g->name)) continue;
      if (g->space == "shared" && g->linkage == "extern") {
        if (std::find(dynamic_shared_.begin(), dynamic_shared_.end(), g->name) == dynamic_shared_.end())
          dynamic_shared_.push_back(g->name);
      } else if (g->space == "shared") {
        shared_end_ = round_up(shared_end_, decl_align(*g));
        shared_[g->name] = shared_end_;
        shared_end_ += decl_size(*g);
      } else if (g->space == "global" || g->space == "const") {
        NvU32 index = static_cast<NvU32>(block_->data.symbol_names.size());
        symbols_[g->name] = index;
        block_->data.symbol_names.push_back(g->name);
      }
    }
  }
}

// The deepest chain of calls from f, not counting the calls that close a cycle (recursion, whose
// depth the call stack's size bounds at run time).
int Lowerer::call_depth(const Function& f, std::set<std::string>& chain) {
  if (chain.count(f.name)) return -1;  // a recursive call
  chain.insert(f.name);
  int depth = 0;
  for (const auto& c : callees(f)) {
    const Function* g = function_named(c);
    if (!g || !g->has_body) continue;
    int d = call_depth(*g, chain);
    depth = std::max(depth, d + 1);
  }
  chain.erase(f.name);
  return depth;
}

// Can a call of `from` lead to a call of `to` (or is it `to`)?
bool Lowerer::reaches(const Function& from, const std::string& to) const {
  std::vector<const Function*> todo = {&from};
  std::set<std::string> seen;
  while (!todo.empty()) {
    const Function* f = todo.back();
    todo.pop_back();
    if (f->name == to) return true;
    if (!seen.insert(f->name).second) continue;
    for (const auto& c : callees(*f))
      if (const Function* g = function_named(c); g && g->has_body) todo.push_back(g);
  }
  return false;
}

namespace {
// The instruction's opcode with its modifiers, as written: "add.rz.f16".
std::string ptx_name(const Instruction& in) {
  std::string s = in.opcode;
  for (const auto& m : in.modifiers) s += "." + m;
  return s;
}
}  // namespace

bool Lowerer::lower_function(const Function& f) {
  fn_ = &f;
  function_start_[f.name] = static_cast<NvU32>(block_->data.code.size());
  for (const auto& st : f.body) {
    if (st.kind == Statement::Kind::Label) {
      labels_[f.name + "/" + st.label] = static_cast<NvU32>(block_->data.code.size());
    } else if (st.kind == Statement::Kind::Instr) {
      const size_t first = block_->data.code.size();
      if (!instruction(st.instr)) return false;
      // Whatever the executor would not run exactly is refused here, at load, naming the PTX.
      for (size_t k = first; k < block_->data.code.size(); ++k)
        if (std::string gap = executor_gap(block_->data.code[k]); !gap.empty())
          return unsupported(st.instr.line, "'" + ptx_name(st.instr) + "' (" + gap + ")");
    }
  }
  return true;
}

bool Lowerer::run(const Function& entry, std::shared_ptr<const std::vector<std::string>> lines, CompiledKernel& k) {
  block_ = std::make_shared<ProgramBlock>();
  block_->data.name = entry.name;
  block_->data.ptx_lines = std::move(lines);
  for (const auto& f : m_.files) block_->data.file_names.push_back(f.second);
  entry_ = &entry;
  for (size_t i = 0; i < entry.params.size(); ++i) entry_params_[entry.params[i].name] = k.param_offsets.at(i);

  std::set<std::string> chain;
  int depth = call_depth(entry, chain);
  // Every function of the program, the entry first, each callee once.
  std::vector<const Function*> order = {&entry};
  for (size_t i = 0; i < order.size(); ++i) {
    for (const auto& c : callees(*order[i])) {
      const Function* g = function_named(c);
      if (!g || !g->has_body || std::find(order.begin(), order.end(), g) != order.end()) continue;
      order.push_back(g);
    }
  }
  for (const Function* f : order) {
    // A recursive function's activations share its registers (saved per call) but would share its
    // .local variables too, which a frame does not move.
    if (f != &entry && reaches(*f, f->name))
      for (const auto& st : f->body)
        if (st.kind == Statement::Kind::Decl && st.decl.space == "local")
          return unsupported(st.decl.line, "recursion of '" + f->name + "', which has .local variables");
    if (f != &entry)
      for (const auto& p : f->params) param_slot(f->name, p.name, static_cast<uint32_t>(decl_size(p)));
    for (const auto& r : f->returns) param_slot(f->name, r.name, static_cast<uint32_t>(decl_size(r)));
    if (f != &entry)
      for (const auto& p : f->params)
        if (p.space == "reg") reg_types_[f->name].declare(p);
    layout_memory(*f);
  }
  uint64_t dynamic_base = round_up(shared_end_, 16);
  for (const auto& name : dynamic_shared_) shared_[name] = dynamic_base;

  for (const Function* f : order)
    if (!lower_function(*f)) return false;
  for (const auto& [at, label] : branch_fixups_) {
    auto it = labels_.find(label);
    if (it == labels_.end()) return unsupported(block_->data.code[at].ptx_line, "the branch target '" + label + "'");
    block_->data.code[at].target = it->second;
  }
  for (const auto& [at, callee] : call_fixups_) block_->data.code[at].target = function_start_.at(callee);
  mark_yield_points(block_->data.code);

  // -O0 (CU_JIT_OPTIMIZATION_LEVEL 0) keeps one register per PTX register, for reading the
  // listing beside the PTX; above it, registers whose live ranges never meet are folded.
  std::vector<uint32_t> registers =
      opt_.opt_level > 0 ? allocate_registers(block_->data.code, slot_bytes_) : slot_bytes_;
  NvSassProgram& p = block_->head.program;
  p.register_count = static_cast<NvU32>(registers.size());
  p.predicate_count = static_cast<NvU32>(preds_.size());
  p.param_bytes = k.param_bytes;
  p.shared_bytes = static_cast<NvU32>(shared_end_);
  p.local_bytes = static_cast<NvU32>(local_end_);
  p.target_sm = static_cast<NvU32>(opt_.target_sm);
  p.max_call_depth = static_cast<NvU32>(depth);
  for (int i = 0; i < 3; ++i) {
    p.reqntid[i] = entry.reqntid[i];
    p.maxntid[i] = entry.maxntid[i];
  }
  block_->data.symbol_addresses.assign(block_->data.symbol_names.size(), 0);
  block_->seal();

  k.symbols = block_->data.symbol_names;
  k.static_shared_bytes = static_cast<uint32_t>(shared_end_);
  k.local_bytes = static_cast<uint32_t>(local_end_);
  k.max_call_depth = static_cast<uint32_t>(depth);
  uint32_t regs32 = 0;
  for (uint32_t b : registers) regs32 += b > 4 ? 2 : 1;
  k.num_regs = regs32;
  k.sass = sass_pointer(block_);
  return true;
}

bool lower_kernel(const Module& module, const Function& entry, const CompileOptions& options,
                  std::shared_ptr<const std::vector<std::string>> ptx_lines, CompiledKernel& kernel,
                  std::vector<Diagnostic>& diags) {
  Lowerer l(module, options, diags);
  return l.run(entry, std::move(ptx_lines), kernel);
}

}  // namespace minicuda::ptx
