// cu2cxx region fission: writes a kernel's block function from its plan (fission_plan.h), and
// split_kernel() (fission.h), which does both steps.
//
// The block function of `k` is `static bool k__regions(<k's parameters>)`, inserted right after
// k's closing brace. Its shape, for a body `A; __syncthreads(); for (H) { B; __syncthreads(); C; } D;`:
//
//   static bool k__regions(P...) {
//     <__shared__ and constexpr declarations of the body, hoisted: one per block>
//     <storage for the replicated locals: blockDim-many each, from the SM thread's scratch>
//     for z, y, x (t = 0, 1, ...) { <thread t's view: threadIdx, re-declared locals> { A } }
//     { for (H) {                     // runs once per block: H is block-uniform
//         for z, y, x { ... { B } }
//         for z, y, x { ... { C } }
//     } }
//     for z, y, x { ... { D } }
//     return true;
//
// An `if (C) { ... } else { ... }` around barriers (C block-uniform) becomes `{ if (C) { regions
// } else { regions } }` the same way.
//   }
//
// Every piece copied from the kernel is preceded by a #line directive naming its line of the
// .cu, and the glue between pieces sits on the lines of the pieces, so gdb's `break file.cu:N`
// finds the copy too and backtraces name the .cu; a final #line maps what follows the kernel
// back to its own lines.
#include <algorithm>

#include "fission_inline.h"
#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {
namespace {

class Emitter {
 public:
  Emitter(const FileContext& file, const KernelSite& kernel, const Plan& plan)
      : file_(file), t_(file.tokens), kernel_(kernel), plan_(plan) {}

  std::string run() {
    const std::string name = std::string(t_[kernel_.name].text) + "__regions";
    const Token& open = t_[kernel_.params_open];
    const Token& close = t_[kernel_.params_close];
    out_ = line_of(kernel_.name);
    if (!plan_.template_head.empty()) out_.append(plan_.template_head).append(" ");
    out_.append("static bool ").append(name).append("(");
    if (plan_.changed_params.empty()) {
      out_.append(file_.source.substr(open.end, close.begin - open.end));
    } else {
      // A parameter the body changes is the initial value of each thread's copy.
      std::vector<Edit> renames;
      for (std::size_t i : plan_.changed_params)
        for (std::size_t k = kernel_.params_open + 1; k < kernel_.params_close; ++k)
          if (t_[k].is_identifier(plan_.vars[i].name)) renames.push_back(replace_tokens(k, k, "minicuda_param_" + plan_.vars[i].name));
      out_.append(copy(kernel_.params_open + 1, kernel_.params_close, std::move(renames)));
    }
    out_.append(") {");
    for (const auto& [begin, end] : plan_.hoisted) out_.append(line_of(begin)).append(copy(begin, end, {}));
    out_.append(line_of(kernel_.name));
    out_.append("const unsigned minicuda_nx = blockDim.x, minicuda_ny = blockDim.y, minicuda_nz = blockDim.z; "
                "[[maybe_unused]] const unsigned minicuda_n = minicuda_nx * minicuda_ny * minicuda_nz; ");
    // The barrier reductions' accumulators: one per reduction, the block's (Stmt::Reduction).
    for (unsigned r = 0; r < plan_.reductions; ++r) out_.append("int minicuda_reduce_" + std::to_string(r) + " = 0; ");
    std::string types;
    for (const Var& v : plan_.vars) {
      if (v.kind != Var::Kind::Replicated) continue;
      const std::string n = std::to_string(v.slot);
      out_.append("using minicuda_T" + n + " = " + v.type_id + "; using minicuda_S" + n +
                  " = ::std::remove_cv_t<minicuda_T" + n + ">; ");
      types.append(types.empty() ? "" : ", ").append("minicuda_S" + n);
    }
    // Before anything runs: a local of a type that cannot live in raw storage sends the whole
    // kernel back to fibers (the SM sees false).
    if (!types.empty()) out_.append("if constexpr (!::minicuda::fission::replicable<" + types + ">) { return false; } ");
    // Results of inlined calls go through a local assigned where the function returned: the
    // same as the function's own copy only for scalars (fission_inline.h).
    std::string results;
    for (const std::string& r : plan_.checked_results) results.append(results.empty() ? "" : ", ").append(r);
    if (!results.empty()) out_.append("if constexpr (!::minicuda::fission::scalar_results<" + results + ">) { return false; } ");
    for (const Var& v : plan_.vars) {
      if (v.kind != Var::Kind::Replicated) continue;
      const std::string n = std::to_string(v.slot);
      out_.append("::minicuda::fission::Replica<minicuda_S" + n + ">* const minicuda_r" + n +
                  " = ::minicuda::fission::replicas<minicuda_S" + n + ">(" + n + ", minicuda_n); ");
    }
    for (std::size_t i : plan_.changed_params) {
      const Var& v = plan_.vars[i];
      out_.append("for (unsigned minicuda_t = 0; minicuda_t < minicuda_n; ++minicuda_t) ::minicuda::fission::initialize(" +
                  slot_of(v) + ", minicuda_param_" + v.name + "); ");
    }
    if (!plan_.returns.empty()) {
      out_.append("bool* const minicuda_exited = static_cast<bool*>(::minicuda::gpu::isa::region_scratch(0, minicuda_n, 1)); "
                  "for (unsigned minicuda_i = 0; minicuda_i < minicuda_n; ++minicuda_i) minicuda_exited[minicuda_i] = false; "
                  "unsigned minicuda_live = minicuda_n; ");
    }
    level(plan_.top, plan_.changed_params);
    out_.append(line_of(kernel_.body_close)).append("return true; }");
    out_.append(line_of(kernel_.body_close));  // what follows the kernel's `}` on its line
    return out_;
  }

 private:
  std::string line_of(std::size_t token) const {
    return "\n#line " + std::to_string(file_.line_at(t_[token].begin)) + " \"" + file_.line_path + "\"\n";
  }

  // The source of tokens [first, end) with the other passes' edits inside it and `extra` applied.
  std::string copy(std::size_t first, std::size_t end, std::vector<Edit> extra) const {
    const std::size_t begin_offset = t_[first].begin, end_offset = t_[end - 1].end;
    for (const Edit& e : file_.edits)
      if (e.begin >= begin_offset && e.end <= end_offset) extra.push_back(e);
    return apply_edits(file_.source, begin_offset, end_offset, std::move(extra));
  }
  Edit replace_tokens(std::size_t first, std::size_t last, std::string code) const {
    const std::size_t b = t_[first].begin, e = t_[last].end;
    return Edit{b, e, keep_line_count(file_.source.substr(b, e - b), std::move(code))};
  }

  static std::string slot_of(const Var& v) { return "minicuda_r" + std::to_string(v.slot) + "[minicuda_t].value"; }
  static std::string binding(const Var& v) {
    return "[[maybe_unused]] minicuda_T" + std::to_string(v.slot) + "& " + v.name + " = " + slot_of(v) + "; ";
  }
  static std::string redeclaration(const Var& v) {
    return "[[maybe_unused]] " + v.spec + " " + v.declarator + " " + v.init + "; ";
  }

  // A declaration statement with replicated or re-declared variables: each of its variables in
  // turn (marked [[maybe_unused]]: the region that declares a variable may not use it); a
  // replicated one is made as the declaration would make it, then copied into its thread's slot.
  std::string declaration_code(const Stmt& s) const {
    std::string code;
    for (std::size_t i : s.vars) {
      const Var& v = plan_.vars[i];
      if (v.kind != Var::Kind::Replicated) {
        code.append(redeclaration(v));
      } else if (v.init.empty()) {
        code.append("::minicuda::fission::default_initialize(" + slot_of(v) + "); " + binding(v));
      } else {
        code.append("{ alignas(::minicuda::fission::Replica<minicuda_S" + std::to_string(v.slot) + ">) minicuda_T" +
                    std::to_string(v.slot) + " minicuda_value " + v.init +
                    "; ::minicuda::fission::initialize(" + slot_of(v) + ", minicuda_value); } " + binding(v));
      }
    }
    return code;
  }

  // The statements of one split level; `visible`: the variables of earlier regions each region
  // must see (re-declared or bound).
  void level(const std::vector<Stmt>& stmts, std::vector<std::size_t> visible) {
    std::vector<const Stmt*> pending;
    auto flush = [&] {
      if (!pending.empty()) region(pending, visible);
      for (const Stmt* s : pending)
        for (std::size_t v : s->vars)
          if (plan_.vars[v].kind == Var::Kind::Remat || plan_.vars[v].kind == Var::Kind::Replicated) visible.push_back(v);
      pending.clear();
    };
    for (const Stmt& s : stmts) {
      if (s.kind == Stmt::Kind::Plain) {
        pending.push_back(&s);
        continue;
      }
      flush();
      if (s.kind == Stmt::Kind::Loop) loop(s, visible);
      if (s.kind == Stmt::Kind::If) branch(s, visible);
      if (s.kind == Stmt::Kind::Scope) {
        out_.append(line_of(s.begin)).append("{ ");
        level(s.body, visible);
        out_.append(line_of(s.body_close)).append("}");
      }
    }
    flush();
  }

  // One region: a loop over the block's threads around a copy of its statements.
  void region(const std::vector<const Stmt*>& stmts, const std::vector<std::size_t>& visible) {
    if (std::all_of(stmts.begin(), stmts.end(), [](const Stmt* s) { return s->hoisted; })) return;
    const std::size_t first = stmts.front()->begin, end = stmts.back()->end;
    const std::string next = "minicuda_next_" + std::to_string(regions_++);
    std::vector<Edit> edits;
    bool returns = false;
    for (std::size_t r : plan_.returns) {
      if (r < first || r >= end) continue;
      edits.push_back(
          replace_tokens(r, r + 1, "{ minicuda_exited[minicuda_t] = true; --minicuda_live; goto " + next + "; }"));
      returns = true;
    }
    std::string resets;
    for (const Stmt* s : stmts) {
      if (s->hoisted) edits.push_back(replace_tokens(s->begin, s->end - 1, ""));
      if (s->rewritten) edits.push_back(replace_tokens(s->begin, s->end - 1, declaration_code(*s)));
      const std::string accumulator = "minicuda_reduce_" + std::to_string(s->reduction_id);
      if (s->reduction == Stmt::Reduction::Gather) {
        // Each live thread folds its predicate in, converted to int as the built-in's parameter
        // is; the accumulator starts afresh every time the region runs (each round of a loop).
        static constexpr const char* kFold[] = {" += ", " &= ", " |= "};
        resets.append(accumulator + (s->reduction_op == 1 ? " = 1; " : " = 0; "));
        edits.push_back(replace_tokens(s->begin, s->call,
                                       accumulator + kFold[s->reduction_op] + "::minicuda::fission::predicate"));
        // A loop's condition (reduction_loop) ends at its `)`, which ends the statement here.
        if (!t_[s->end - 1].is_punct(";")) edits.push_back(replace_tokens(s->end - 1, s->end - 1, ";"));
      }
      if (s->reduction == Stmt::Reduction::Result && !s->rewritten)
        edits.push_back(replace_tokens(s->call, s->call_close, accumulator));
    }
    // A region that calls a function of the file sets the global threadIdx, which that function
    // reads; one that does not shadows it with a local, so that g++ sees the thread's index as
    // the loop's own counter.
    const bool calls = std::any_of(plan_.user_calls.begin(), plan_.user_calls.end(),
                                   [&](std::size_t c) { return c >= first && c < end; });
    out_.append(line_of(first)).append("{ ").append(resets);
    const std::string x_end = x_bound(stmts, visible);
    out_.append("for (unsigned minicuda_z = 0; minicuda_z < minicuda_nz; ++minicuda_z) "
                "for (unsigned minicuda_y = 0; minicuda_y < minicuda_ny; ++minicuda_y) "
                "for (unsigned minicuda_x = 0, minicuda_t = minicuda_nx * (minicuda_y + minicuda_ny * minicuda_z); "
                "minicuda_x < " + x_end + "; ++minicuda_x, ++minicuda_t) { "
                "::minicuda::fission::at_thread(minicuda_t); ");
    if (!plan_.returns.empty()) out_.append("if (minicuda_exited[minicuda_t]) continue; ");
    out_.append(calls ? "::threadIdx.x = minicuda_x; ::threadIdx.y = minicuda_y; ::threadIdx.z = minicuda_z; "
                      : "[[maybe_unused]] const uint3 threadIdx{minicuda_x, minicuda_y, minicuda_z}; ");
    for (std::size_t i : visible) {
      const Var& v = plan_.vars[i];
      if (v.kind == Var::Kind::Remat) out_.append(redeclaration(v));
      if (v.kind == Var::Kind::Replicated) out_.append(binding(v));
    }
    out_.append("{ ").append(copy(first, end, std::move(edits))).append(" }");
    if (returns) out_.append(" " + next + ":;");
    out_.append(" } }");
  }

  // The end of the x loop of a region: minicuda_nx, or for a region that is one statement
  // `if (threadIdx.x < E) S` the first x where the condition fails, found by bisection on the
  // condition itself (evaluated as the region would, with the same re-declared locals).
  std::string x_bound(const std::vector<const Stmt*>& stmts, const std::vector<std::size_t>& visible) {
    const Stmt* only = nullptr;
    for (const Stmt* s : stmts) {
      if (s->hoisted) continue;
      if (only != nullptr) return "minicuda_nx";
      only = s;
    }
    if (only == nullptr || only->x_bound == Stmt::XBound::None) return "minicuda_nx";
    if (only->x_bound == Stmt::XBound::One) {
      out_.append("const unsigned minicuda_x_end = minicuda_nx < 1u ? minicuda_nx : 1u; ");
      return "minicuda_x_end";
    }
    // Only what the condition may read is computed for the probes (the uniform locals and the
    // copy of threadIdx.x), and none runs once every thread has returned: a probe evaluates
    // nothing a live thread of the region would not.
    out_.append(std::string("unsigned minicuda_lo = 0, minicuda_hi = ") +
                (plan_.returns.empty() ? "minicuda_nx" : "minicuda_live == 0 ? 0u : minicuda_nx") +
                "; while (minicuda_lo < minicuda_hi) { "
                "const unsigned minicuda_mid = minicuda_lo + (minicuda_hi - minicuda_lo) / 2; bool minicuda_in; { "
                "[[maybe_unused]] const uint3 threadIdx{minicuda_mid, 0, 0}; ");
    for (std::size_t i : visible) {
      const Var& v = plan_.vars[i];
      if (v.kind == Var::Kind::Remat && (v.uniform || v.init == "= threadIdx.x")) out_.append(redeclaration(v));
    }
    out_.append("minicuda_in = (" + joined(t_, only->cond_begin, only->cond_end) + "); } "
                "if (minicuda_in) minicuda_lo = minicuda_mid + 1; else minicuda_hi = minicuda_mid; } "
                "const unsigned minicuda_x_end = minicuda_lo; ");
    return "minicuda_x_end";
  }

  // A loop around barriers: its header once per block, its body's regions inside. The uniform
  // re-declared locals come first, since the header may read them.
  void loop(const Stmt& s, const std::vector<std::size_t>& visible) {
    out_.append(line_of(s.begin)).append("{ ");
    for (std::size_t i : visible) {
      const Var& v = plan_.vars[i];
      if (v.kind == Var::Kind::Remat && v.uniform) out_.append(redeclaration(v));
    }
    if (s.reduction == Stmt::Reduction::Gather) {
      reduction_loop(s, visible);
      return;
    }
    out_.append(copy(s.begin, s.body_open + 1, {}));
    // Once every thread has returned the block is done, as it would be with fibers, even if
    // the loop would go on (`for (;;)` left only through `return`).
    if (!plan_.returns.empty()) out_.append(" if (minicuda_live == 0) break;");
    level(s.body, visible);
    out_.append(line_of(s.body_close)).append("} }");
  }

  // A loop whose condition is a barrier reduction: `for (;;)` around the body's regions, with the
  // condition's Gather region before them (after them, for a do-while) and the block's exit on
  // the accumulator. Opened by loop().
  void reduction_loop(const Stmt& s, const std::vector<std::size_t>& visible) {
    out_.append("for (;;) {");
    if (!plan_.returns.empty()) out_.append(" if (minicuda_live == 0) break;");
    const std::string leave = " if (" + condition(s, true) + ") break;";
    if (!s.do_while) fold(s, visible), out_.append(leave);
    level(s.body, visible);
    if (s.do_while) fold(s, visible), out_.append(leave);
    out_.append(line_of(s.body_close)).append("} }");
  }

  // The region that folds the predicate of a Loop's or an If's barrier-reduction condition: its
  // tokens and the condition's `)`, which ends the statement there.
  void fold(const Stmt& s, const std::vector<std::size_t>& visible) {
    Stmt gather;
    gather.reduction = Stmt::Reduction::Gather;
    gather.reduction_id = s.reduction_id, gather.reduction_op = s.reduction_op;
    gather.call = s.call, gather.call_close = s.call_close;
    gather.begin = s.call, gather.end = s.call_close + 2;
    region({&gather}, visible);
  }
  // A folded condition, the block's accumulator in place of the call; `inverse`: its negation.
  std::string condition(const Stmt& s, bool inverse) const {
    const std::string c = copy(s.cond_begin, s.cond_end,
                               {replace_tokens(s.call, s.call_close, "minicuda_reduce_" + std::to_string(s.reduction_id))});
    return (inverse ? "!(" : "(") + c + ")";
  }

  // An if around barriers: its condition once per block (a barrier reduction's folded first),
  // each body's regions inside. The uniform re-declared locals come first, since the condition
  // may read them.
  void branch(const Stmt& s, const std::vector<std::size_t>& visible) {
    out_.append(line_of(s.begin)).append("{ ");
    for (std::size_t i : visible) {
      const Var& v = plan_.vars[i];
      if (v.kind == Var::Kind::Remat && v.uniform) out_.append(redeclaration(v));
    }
    if (s.reduction == Stmt::Reduction::Gather) {
      fold(s, visible);
      out_.append(" if (" + condition(s, false) + ") {");
    } else {
      out_.append(copy(s.begin, s.body_open + 1, {}));
    }
    level(s.body, visible);
    out_.append(line_of(s.body_close)).append("}");
    if (s.else_open != 0) {
      out_.append(line_of(s.body_close + 1)).append("else {");
      level(s.else_body, visible);
      out_.append(line_of(s.else_close)).append("}");
    }
    out_.append(" }");
  }

  const FileContext& file_;
  const Tokens& t_;
  const KernelSite& kernel_;
  const Plan& plan_;
  std::string out_;
  unsigned regions_ = 0;
};

}  // namespace

KernelFission split_kernel(const FileContext& file, const KernelSite& kernel) {
  KernelFission result;
  result.kernel = kernel.qualified_name;
  // A kernel that reaches barriers through calls is split as a copy with those calls inlined
  // (fission_inline.h); it keeps fibers when one cannot be.
  InlineResult inlined = inline_barrier_calls(file, kernel);
  if (inlined.status == InlineResult::Status::Refused) {
    result.reason = std::move(inlined.reason);
    return result;
  }
  std::optional<FileContext> copy;
  if (inlined.kernel) {
    const InlinedKernel& k = *inlined.kernel;
    copy.emplace(FileContext{k.source, k.tokens, file.lines, k.edits, file.line_path, k.facts, &k.map});
  }
  const FileContext& source = copy ? *copy : file;
  const KernelSite& site = inlined.kernel ? inlined.kernel->kernel : kernel;
  PlanResult planned = plan_kernel(source, site);
  if (!planned.plan) {
    result.reason = std::move(planned.reason);
    if (inlined.kernel) result.reason += " (in its copy with its calls to functions with barriers inlined)";
    return result;
  }
  if (inlined.kernel) {
    for (const std::string& n : inlined.kernel->free_names)
      if (planned.plan->names.contains(n)) {
        result.reason = "an inlined function reads " + n + ", which the kernel declares too";
        return result;
      }
    planned.plan->checked_results = inlined.kernel->checked_results;
  }
  const Plan& plan = *planned.plan;
  result.split = true;
  result.block_function = kernel.qualified_name + "__regions";
  const std::size_t at = file.tokens[kernel.body_close].end;
  result.insertion = Edit{at, at, Emitter(source, site, plan).run()};
  if (!plan.template_head.empty()) {
    // A template kernel is registered at its first launch, which cannot name the block function
    // of the instantiation; the kernel's body records it (crt/kernel_image.h, RegionLink). The
    // block function is declared before the kernel for that, on the line of its head.
    const Tokens& t = file.tokens;
    const std::string name(t[kernel.name].text);
    const std::string declaration = plan.template_head + " static bool " + name + "__regions(" +
                                    joined(t, kernel.params_open + 1, kernel.params_close) + "); ";
    const std::size_t head = t[kernel.template_keyword].begin;
    result.declarations.push_back(Edit{head, head, declaration});
    const std::string args = "<" + plan.template_arguments + ">";
    const std::string link = " (void)::minicuda::crt::RegionLink<&" + name + args + ", &" + name + "__regions" + args +
                             ">::linked;";
    const std::size_t body = t[kernel.body_open].end;
    result.declarations.push_back(Edit{body, body, link});
  }
  return result;
}

}  // namespace minicuda::cu2cxx::fission
