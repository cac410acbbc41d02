// The lowering's working state (lower.h describes what it produces). lower.cpp holds the driver
// (functions, names, registers, memory), lower_ops.cpp the translation of each instruction.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ast.h"
#include "lower.h"
#include "program.h"
#include "registers.h"

namespace minicuda::ptx {

class Lowerer {
 public:
  Lowerer(const Module& m, const CompileOptions& o, std::vector<Diagnostic>& d) : m_(m), opt_(o), diags_(d) {}
  bool run(const Function& entry, std::shared_ptr<const std::vector<std::string>> lines, CompiledKernel& k);

  // lower_ops.cpp: one PTX instruction to zero or more SASS instructions.
  bool instruction(const Instruction& in);

 private:
  // Names and where they live.
  const Function* function_named(const std::string& name) const;
  const VarDecl* module_var(const std::string& name) const;
  bool is_pred(const std::string& reg) const;
  NvU32 reg(const std::string& name);
  NvU16 pred(const std::string& name);
  NvU32 param_slot(const std::string& function, const std::string& name, uint32_t size);
  bool local_param(const std::string& name) const;  // a .param of a call block or of this .func

  // Operands.
  bool value(const Operand& o, NvSassType type, NvSassOperand& out, int line);
  bool address(const Operand& o, NvSassAddress& out, NvSassSpace& space, int line);

  // Emission.
  NvSassInstruction base(const Instruction& in) const;
  void emit(const NvSassInstruction& i) { block_->data.code.push_back(i); }
  bool unsupported(int line, const std::string& what);
  bool lower_call(const Instruction& in, NvSassInstruction i);
  // lower_async.cpp: cp.async and mbarrier.
  bool lower_async(const Instruction& in, NvSassInstruction i);
  bool address_operand(const Operand& o, NvSassOperand& out, NvSassSpace& space, int line);
  // lower_texture.cpp: tex, suld, sust on texture and surface objects (register pairs).
  bool lower_texture(const Instruction& in, NvSassInstruction i);
  NvU32 scratch_register();
  bool packed(const Instruction& in, const Operand* a, const Operand* b, NvSassType ta, NvSassType tb,
              NvSassOperand& out);
  bool coordinates(const Instruction& in, const std::vector<Operand>& c, size_t count, NvSassType t0, NvSassType t,
                   NvSassOperand& c01, NvSassOperand& c23);
  bool lower_function(const Function& f);
  void layout_memory(const Function& f);
  int call_depth(const Function& f, std::set<std::string>& chain);
  bool reaches(const Function& from, const std::string& to) const;

  const Module& m_;
  const CompileOptions& opt_;
  std::vector<Diagnostic>& diags_;
  std::shared_ptr<ProgramBlock> block_;
  const Function* fn_ = nullptr;                        // the function being lowered
  const Function* entry_ = nullptr;
  std::map<std::string, RegisterDecls> reg_types_;      // function -> its register declarations
  std::map<std::string, NvU32> regs_;                   // "fn/%r1" -> slot
  std::vector<uint32_t> slot_bytes_;                    // per slot, the widest value it holds
  std::map<std::string, NvU16> preds_;                  // "fn/%p1" -> predicate
  std::map<std::string, NvU32> params_;                 // "fn/name" -> slot of a .func / call-block .param
  std::map<std::string, uint64_t> shared_, local_;      // module name or "fn/name" -> window offset
  std::map<std::string, uint32_t> entry_params_;        // entry parameter -> cbank 0 offset
  std::map<std::string, NvU32> symbols_;                // module variable -> symbol index
  std::map<std::string, NvU32> labels_;                 // "fn/label" -> instruction index
  std::map<std::string, NvU32> function_start_;
  std::vector<std::pair<size_t, std::string>> branch_fixups_;  // instruction, "fn/label"
  std::vector<std::pair<size_t, std::string>> call_fixups_;    // instruction, callee
  std::vector<const Function*> pending_;                // called, not yet lowered
  uint64_t shared_end_ = 0, local_end_ = 0;
  std::vector<std::string> dynamic_shared_;             // extern .shared names
  uint32_t scratch_count_ = 0;                          // registers of the lowering's own
};

// The call stack bytes a recursive call's frame takes: the return address and the frame link.
// (ptxas's frames also hold the registers it spills across the call, which this lower bound
// leaves out.)
inline constexpr NvU64 kCallFrameBytes = 16;

// String -> SASS enum helpers (lower_ops.cpp).
NvSassType sass_type(const std::string& t);

}  // namespace minicuda::ptx
