// cu2cxx region fission: the planner of one kernel (plan_kernel, fission_plan.h), shared by the
// files that hold its parts - fission_plan.cpp (the statements of the split levels and what may
// sit between them), fission_declarations.cpp (the parameters and the locals declared at those
// levels) and fission_calls.cpp (the functions the body calls). Internal to cu2cxx.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {

inline constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Param {
  std::string name;
  bool pointer;
};

// Reads one kernel's body at its split levels and decides, for every local declared there, how
// the regions will see it; anything it cannot read with certainty keeps the kernel on fibers, and
// reason() says what.
class Planner {
 public:
  Planner(const FileContext& file, const KernelSite& kernel) : file_(file), t_(file.tokens), kernel_(kernel) {}

  PlanResult run();

 private:
  PlanResult failed(std::string why = {}) {
    if (reason_.empty()) reason_ = std::move(why);
    return PlanResult{std::nullopt, reason_};
  }
  bool fail(std::string why) {
    if (reason_.empty()) reason_ = std::move(why);
    return false;
  }
  int line(std::size_t k) const { return file_.line_at(t_[k].begin); }
  std::string at_line(std::size_t k) const { return " (line " + std::to_string(line(k)) + ")"; }

  bool read_template_head();

  bool is_constant(std::string_view name) const {
    return file_.facts.constants.contains(name) || template_params_.contains(name);
  }

  // A #if, #define or #include inside the body could split differently from the tokens (a #line
  // changes none: inlined bodies carry them).
  bool check_preprocessor();

  // What no region may hold, anywhere in the body.
  bool check_body_tokens(std::size_t begin, std::size_t end);

  // The kernel's parameters; each must keep its value (the block function has one copy for the
  // whole block).
  bool read_params(std::size_t body_begin, std::size_t body_end);

  // May `name` change through a reference bound to it (or, unless it is a pointer, to one of
  // its elements)?
  bool bound_by_reference(std::string_view name, bool pointer) const {
    return referenced_.contains(name) || (!pointer && referenced_element_.contains(name));
  }

  bool is_param(std::string_view name) const {
    for (const Param& p : params_)
      if (p.name == name) return true;
    return false;
  }
  const Var* in_scope(const std::vector<std::size_t>& scope, std::string_view name) const {
    for (std::size_t i = scope.size(); i-- > 0;)
      if (plan_.vars[scope[i]].name == name) return &plan_.vars[scope[i]];
    return nullptr;
  }

  // The statements of a split level [begin, end): barriers, loops around barriers, the rest.
  std::optional<std::vector<Stmt>> parse_level(std::size_t begin, std::size_t end, bool in_loop);

  // Reads [s.begin, s.end) as a barrier reduction of its own (Stmt::Reduction) and appends its
  // statements to `level`. False when it is not one; false with a reason (reason_) when it names
  // a barrier reduction in a form that cannot be split.
  bool barrier_reduction(const Stmt& s, std::vector<Stmt>& level);
  // A reduction's Result statement, read as a declaration: the variable it declares, if any, is
  // made from the block's accumulator.
  bool reduction_result(Stmt& s);
  // Does the condition in the parentheses opening at `open` hold a barrier reduction F(P)? Then
  // marks s (a Loop or an If) as folding it (Stmt::Reduction). False with a reason (reason_) when
  // it does in a form that cannot be split: P or the rest holds another barrier, or an operator
  // could skip the call.
  bool reduction_condition(std::size_t open, Stmt& s);
  // The rest of such a condition around F(P) is read once per block: it must be uniform, as a
  // loop's header (header_is_uniform). `what`: "the condition of an if" or "of a loop".
  bool reduction_condition_is_uniform(const Stmt& s, const std::vector<std::size_t>& scope, const std::string& what);
  // Reads [s.begin, s.end) as a loop whose condition is a barrier reduction (Stmt::Reduction):
  // nothing when it is not one, else whether it could be read (false: reason_ says why).
  std::optional<bool> reduction_loop(Stmt& s);

  // Reads `if (C) { ... }` or `if (C) { ... } else { ... }` around a barrier, statement s: both
  // bodies braced (`else if` is a nested if without braces), each a split level of its own.
  bool branch(Stmt& s, bool in_loop);

  // Classifies the declarations of a level, in order; `scope` holds the variables visible.
  bool classify(std::vector<Stmt>& level, std::size_t level_end, std::vector<std::size_t>& scope, bool in_loop);

  // An if around a barrier evaluates its condition once per block, as a loop its header: CUDA
  // requires every thread of the block to reach the same barriers, so the condition must be the
  // same in all of them, and the translator must see that it is.
  bool if_statement(Stmt& s, const std::vector<std::size_t>& scope, bool in_loop);

  bool loop(Stmt& s, const std::vector<std::size_t>& scope);

  // A loop around a barrier runs its header once per block, and an if its condition: they may
  // read only what every thread of the block sees alike, and change nothing but the loop's own
  // variables (a side effect that each thread made would now happen once). `own`: the loop's
  // variables; `what`: "the header of a loop" or "the condition of an if", for the reason.
  bool header_is_uniform(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope,
                         const std::vector<std::size_t>& own, const std::string& what);

  // Recognises `if (X < E) S`, `if (X <= E) S` and `if (X == 0) S` without an else, X being
  // threadIdx.x or a re-declared copy of it, E uniform and rematerializable with no operator at
  // its top level that binds looser than `<` (so the condition is X compared with E, true for a
  // prefix of the x values and the same in every row).
  void find_x_bound(Stmt& s, const std::vector<std::size_t>& scope);

  // Is a function of this name defined in the file (which could shadow a built-in's name)?
  bool defined_in_file(std::string_view name) const {
    for (const auto& [function, brace] : file_.facts.functions)
      if (function == name) return true;
    return false;
  }

  // Can the initializer [begin, end) be computed again in any later region, with the same
  // value? Only built-ins, parameters, constants and other such variables, through operators
  // and pure built-ins: no memory is read. `uniform`: no thread index either.
  bool rematerializable(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope, bool* uniform);

  // Reads the statement `s` as a declaration, if it is one, and classifies its variables.
  // False (with the reason) when it looks like a declaration that cannot be read with certainty.
  bool declaration(Stmt& s, std::size_t level_end, std::size_t later, std::vector<std::size_t>& scope, bool in_loop,
                   bool loop_header);

  // Every call in [begin, end) must be to a device built-in or to a function of this file that
  // reaches no barrier; `record` keeps the latter's positions (a region that makes such a call
  // sets the global threadIdx). Returns why not, or nothing.
  std::optional<std::string> check_calls(std::size_t begin, std::size_t end, bool record);

  // Does no definition of `name` in this file reach a barrier or warp operation, directly or
  // through its calls? (A call cycle counts as barrier-free: recursion adds no barrier.)
  bool barrier_free(const std::string& name);

  const FileContext& file_;
  const Tokens& t_;
  const KernelSite& kernel_;
  std::vector<Param> params_;
  std::set<std::string, std::less<>> names_;  // every name declared at a split level, parameters too
  std::set<std::string, std::less<>> template_params_;  // a template kernel's template parameters
  std::set<std::string> cg_;       // the names of namespace cooperative_groups
  std::set<std::string> handles_;  // cg::thread_block handles of the block
  std::map<std::size_t, std::size_t> skipped_;  // first -> last token of handle declarations and barriers
  std::set<std::size_t> direct_init_;         // `(` of direct-initializers (`dim3 d(2, 2);`): not calls
  std::set<std::string, std::less<>> referenced_;          // names a reference is bound to
  std::set<std::string, std::less<>> referenced_element_;  // names whose element one is (`x[i]`)
  std::map<std::string, bool> barrier_free_;
  Plan plan_;
  std::string reason_;
};

}  // namespace minicuda::cu2cxx::fission
