// cu2cxx region fission: the analysis of one kernel (plan_kernel, fission_plan.h). It reads the
// body at its split levels - the top of the body and the braced bodies of loops that hold a
// barrier - into statements, and checks what may sit between them. Anything it cannot read with
// certainty makes the kernel keep its fibers: the reason says what.
#include <algorithm>
#include <iterator>

#include "fission_planner.h"

namespace minicuda::cu2cxx::fission {

PlanResult Planner::run() {
  const std::size_t begin = kernel_.body_open + 1, end = kernel_.body_close;
  if (kernel_.qualified_definition) return failed("it is defined outside its namespace");
  find_block_handles(t_, begin, end, cg_, handles_, skipped_);
  if (!holds_block_barrier(t_, begin, end, handles_)) {
    if (names_token(t_, begin, end, "this_thread_block"))
      return failed("its cooperative-groups block handle is not `NS::thread_block h = NS::this_thread_block();` at "
                    "the top of the body, NS being cooperative_groups or an alias this file declares");
    return failed("it has no __syncthreads(): loop mode runs it without fibers already");
  }
  if (file_.facts.macro_hides_barrier) return failed("a #define of this file names a barrier or warp operation");
  if (kernel_.template_keyword != kNoTemplate && !read_template_head()) return failed();
  referenced_names(t_, begin, end, referenced_, referenced_element_);
  if (!check_preprocessor() || !check_body_tokens(begin, end) || !read_params(begin, end)) return failed();
  std::optional<std::vector<Stmt>> top = parse_level(begin, end, false);
  if (!top) return failed();
  std::vector<std::size_t> scope = plan_.changed_params;
  if (!classify(*top, end, scope, false)) return failed();
  if (auto why = check_calls(begin, end, true)) return failed(*why);
  plan_.top = std::move(*top);
  plan_.names = names_;
  return PlanResult{std::move(plan_), {}};
}

bool Planner::read_template_head() {
  TemplateHead head;
  if (auto why = read_kernel_template_head(file_, kernel_, head)) return fail(*why);
  for (const std::string& name : head.names) {
    template_params_.insert(name);
    names_.insert(name);
  }
  plan_.template_head = std::move(head.head);
  plan_.template_arguments = std::move(head.arguments);
  return true;
}

bool Planner::check_preprocessor() {
  const std::string_view body = file_.source.substr(t_[kernel_.body_open].end,
                                                    t_[kernel_.body_close].begin - t_[kernel_.body_open].end);
  bool only_pragmas = true;
  for_each_directive(body, [&](std::string_view d) { only_pragmas &= d.starts_with("pragma") || d.starts_with("line "); });
  return only_pragmas || fail("its body holds a preprocessor directive other than #pragma");
}

bool Planner::check_body_tokens(std::size_t begin, std::size_t end) {
  static constexpr std::string_view kRefused[] = {
      "goto", "asm", "__asm__", "try", "throw", "co_await", "co_yield", "co_return", "typedef", "using", "struct",
      "class", "union", "enum", "template", "static", "thread_local", "register", "operator", "this", "new",
      "delete", "setjmp", "longjmp"};
  for (std::size_t k = begin; k < end; ++k) {
    if (const auto skip = skipped_.find(k); skip != skipped_.end()) k = skip->second;  // a block handle
    const Token& t = t_[k];
    if (t.is_identifier()) {
      if (is_warp_or_reduction_name(t.text) && barrier_reduction_op(t.text) < 0)
        return fail("it uses " + std::string(t.text) + at_line(k) + ": warp operations need fibers");
      for (std::string_view refused : kRefused)
        if (t.text == refused) return fail("its body uses '" + std::string(refused) + "'" + at_line(k));
      if (t.is_identifier("extern") && !(k + 1 < end && t_[k + 1].is_identifier("__shared__")))
        return fail("its body declares an extern variable" + at_line(k));
      if (t.is_identifier("return")) {
        if (!(k + 1 < end && t_[k + 1].is_punct(";"))) return fail("a return statement has an operand" + at_line(k));
        plan_.returns.push_back(k);
      }
    } else if (t.is_punct("[") && k > begin) {
      const Token& before = t_[k - 1];
      const bool binding = before.is_identifier("auto") ||
                           (before.is_punct("&") && (t_[k - 2].is_identifier("auto") || t_[k - 2].is_punct("&")));
      if (binding) return fail("its body declares a structured binding" + at_line(k));
      const bool subscript = (before.is_identifier() && !before.is_identifier("return")) || before.is_punct(")") ||
                             before.is_punct("]") || before.kind == TokenKind::Literal;
      if (!subscript) return fail("its body holds a lambda or an attribute" + at_line(k));
    }
  }
  return true;
}

std::optional<std::vector<Stmt>> Planner::parse_level(std::size_t begin, std::size_t end, bool in_loop) {
  std::vector<Stmt> level;
  for (std::size_t k = begin; k < end;) {
    const auto e = statement_end(t_, k, end);
    if (!e) {
      fail("cu2cxx cannot delimit the statement" + at_line(k));
      return std::nullopt;
    }
    Stmt s;
    s.begin = k, s.end = *e;
    if (skipped_.contains(k)) {
      s.hoisted = true;  // a block handle's declaration: nothing per thread
    } else if (holds_block_barrier(t_, k, *e, handles_)) {
      if (barrier_reduction(s, level)) {
        k = *e;
        continue;
      }
      if (!reason_.empty()) return std::nullopt;
      if (const std::optional<bool> read = reduction_loop(s)) {
        if (!*read) return std::nullopt;
        level.push_back(std::move(s));
        k = *e;
        continue;
      }
      const bool loop = t_[k].is_identifier("for") || t_[k].is_identifier("while");
      if (is_block_barrier(t_, k, *e, handles_, cg_)) {
        s.kind = Stmt::Kind::Barrier;
        skipped_[k] = *e - 1;  // a seam, not a call
      } else if (t_[k].is_punct("{") && *matching_close(t_, k) == *e - 1) {
        s.kind = Stmt::Kind::Scope;
        s.body_open = k, s.body_close = *e - 1;
        auto body = parse_level(k + 1, *e - 1, in_loop);
        if (!body) return std::nullopt;
        s.body = std::move(*body);
      } else if (t_[k].is_identifier("if")) {
        if (!branch(s, in_loop) || (!reduction_condition(s.begin + 1, s) && !reason_.empty())) return std::nullopt;
      } else if (loop) {
        const std::size_t close = *matching_close(t_, k + 1);
        if (!(close + 1 < *e && t_[close + 1].is_punct("{") && *matching_close(t_, close + 1) == *e - 1)) {
          fail("a loop around a barrier has no braced body" + at_line(k));
          return std::nullopt;
        }
        s.kind = Stmt::Kind::Loop;
        s.body_open = close + 1, s.body_close = *e - 1;
        auto body = parse_level(s.body_open + 1, s.body_close, true);
        if (!body) return std::nullopt;
        s.body = std::move(*body);
      } else {
        fail("a __syncthreads() is inside a statement that is not a loop, an if or a block at a split level "
             "(a switch, a do-while or an expression), or a block handle is used other than to sync" + at_line(k));
        return std::nullopt;
      }
    } else if (in_loop && jump_escapes(t_, k, *e, false)) {
      fail("a break or continue would leave a loop that holds a barrier" + at_line(k));
      return std::nullopt;
    }
    level.push_back(std::move(s));
    k = *e;
  }
  return level;
}

bool Planner::barrier_reduction(const Stmt& s, std::vector<Stmt>& level) {
  const std::size_t k = s.begin, e = s.end;
  for (std::string_view compound : {"{", "if", "for", "while", "do", "switch"})
    if (t_[k].text == compound) return false;  // parse_level's to read or refuse
  bool names_reduction = false;
  for (std::size_t j = k; j < e; ++j) names_reduction = names_reduction || barrier_reduction_op(t_[j].text) >= 0;
  if (!names_reduction) return false;
  const auto refuse = [&](const std::string& why) {
    return fail("a barrier reduction " + why + " (only `F(p);`, `T v = F(p);` and `x = F(p);` split)" + at_line(k));
  };
  if (e - k < 4 || !t_[e - 2].is_punct(")")) return refuse("is not a statement of its own");
  const std::size_t open = *matching_open(t_, e - 2), call = open - 1;
  if (open == k || barrier_reduction_op(t_[call].text) < 0) return refuse("is not a statement of its own");
  if (holds_block_barrier(t_, open, e, handles_)) return refuse("has a barrier in its predicate");
  if (call > k) {
    if (t_[call - 1].is_punct(".") || t_[call - 1].is_punct("->") || t_[call - 1].is_punct("::") ||
        t_[call - 1].is_punct(">"))
      return refuse("is called as a member or qualified");
    if (holds_block_barrier(t_, k, call, handles_)) return refuse("shares its statement with another barrier");
    // The prefix ends in `=` or a compound assignment (`+=`, `<<=`), not a comparison.
    if (!t_[call - 1].is_punct("=")) return refuse("is not a statement of its own");
    std::size_t op = call - 1;
    while (op > k && adjacent(t_[op - 1], t_[op]) && t_[op - 1].text.size() == 1 &&
           std::string_view("+-*/%&|^<>=!").find(t_[op - 1].text) != std::string_view::npos)
      --op;
    const std::string_view assignment(t_[op].text.data(), t_[call - 1].text.data() + 1 - t_[op].text.data());
    static constexpr std::string_view kAssignments[] = {"=",  "+=", "-=", "*=", "/=",  "%=",
                                                        "&=", "|=", "^=", "<<=", ">>="};
    if (std::find(std::begin(kAssignments), std::end(kAssignments), assignment) == std::end(kAssignments))
      return refuse("is compared, not assigned");
    // One variable or one place, and nothing that decides whether the call runs.
    static constexpr std::string_view kStatementWords[] = {"return", "if", "else", "for", "while", "do", "switch",
                                                           "case", "default", "goto", "break", "continue"};
    for (std::size_t j = k; j < op; ++j) {
      const Token& t = t_[j];
      if (t.is_punct(";") || t.is_punct("{") || t.is_punct("}") || t.is_punct("?") || t.is_punct(",") ||
          t.is_punct(":"))
        return refuse("has a prefix that is not one declaration or one assignment's left side");
      if (std::find(std::begin(kStatementWords), std::end(kStatementWords), t.text) != std::end(kStatementWords))
        return refuse("is part of a larger statement");
    }
  }
  Stmt gather = s;
  gather.reduction = Stmt::Reduction::Gather;
  gather.reduction_id = plan_.reductions++;
  gather.reduction_op = barrier_reduction_op(t_[call].text);
  gather.call = call, gather.call_close = e - 2;
  Stmt seam;
  seam.kind = Stmt::Kind::Barrier;
  seam.begin = k, seam.end = e;
  level.push_back(gather);
  level.push_back(seam);
  if (call > k) {
    Stmt result = gather;
    result.reduction = Stmt::Reduction::Result;
    level.push_back(std::move(result));
  }
  return true;
}

bool Planner::reduction_condition(std::size_t open, Stmt& s) {
  const std::size_t close = *matching_close(t_, open);
  std::size_t call = kNone;
  for (std::size_t k = open + 1; k < close && call == kNone; ++k)
    if (barrier_reduction_op(t_[k].text) >= 0) call = k;
  if (call == kNone || !t_[call + 1].is_punct("(")) return false;
  const std::size_t call_close = *matching_close(t_, call + 1);
  if (holds_block_barrier(t_, call + 1, call_close, handles_))
    return fail("a barrier reduction has a barrier in its predicate" + at_line(call));
  const Token& before = t_[call - 1];
  if (before.is_punct(".") || before.is_punct("->") || before.is_punct("::") || before.is_punct(">"))
    return fail("a barrier reduction is called as a member or qualified" + at_line(call));
  // The reduction runs every time the condition does, in every thread: nothing may skip it, and
  // what surrounds it is read once per block (if_statement and loop check that it is uniform).
  for (std::size_t k = open + 1; k < close; ++k) {
    if (k == call) {
      k = call_close;
      continue;
    }
    const bool doubled = k + 1 < close && adjacent(t_[k], t_[k + 1]) && t_[k + 1].text == t_[k].text;
    if (barrier_reduction_op(t_[k].text) >= 0 || (handles_.contains(std::string(t_[k].text))))
      return fail("a condition holds a barrier reduction and another barrier" + at_line(k));
    if (t_[k].is_punct("?") || ((t_[k].is_punct("&") || t_[k].is_punct("|")) && doubled))
      return fail("a barrier reduction sits in a condition with &&, || or ?:, which may skip it" + at_line(k));
  }
  s.reduction = Stmt::Reduction::Gather;
  s.reduction_id = plan_.reductions++;
  s.reduction_op = barrier_reduction_op(t_[call].text);
  s.call = call, s.call_close = call_close;
  s.cond_begin = open + 1, s.cond_end = close;
  return true;
}

bool Planner::reduction_condition_is_uniform(const Stmt& s, const std::vector<std::size_t>& scope,
                                             const std::string& what) {
  return header_is_uniform(s.cond_begin, s.call, scope, {}, what) &&
         header_is_uniform(s.call_close + 1, s.cond_end, scope, {}, what);
}

std::optional<bool> Planner::reduction_loop(Stmt& s) {
  const std::size_t k = s.begin, e = s.end;
  std::size_t body_open = 0, body_close = 0, cond_open = 0;
  const bool do_while = t_[k].is_identifier("do");
  if (t_[k].is_identifier("while") && t_[k + 1].is_punct("(")) {
    cond_open = k + 1;
    body_open = *matching_close(t_, cond_open) + 1;
    if (!(body_open < e && t_[body_open].is_punct("{") && *matching_close(t_, body_open) == e - 1)) return std::nullopt;
    body_close = e - 1;
  } else if (do_while && t_[k + 1].is_punct("{")) {
    body_open = k + 1;
    body_close = *matching_close(t_, body_open);
    if (!(body_close + 2 < e && t_[body_close + 1].is_identifier("while") && t_[body_close + 2].is_punct("(")))
      return std::nullopt;
    cond_open = body_close + 2;
    if (*matching_close(t_, cond_open) + 2 != e) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!reduction_condition(cond_open, s))
    return reason_.empty() ? std::nullopt : std::optional<bool>(false);  // else a while is read as any loop
  s.kind = Stmt::Kind::Loop;
  s.do_while = do_while;
  s.body_open = body_open, s.body_close = body_close;
  std::optional<std::vector<Stmt>> body = parse_level(body_open + 1, body_close, true);
  if (!body) return false;
  s.body = std::move(*body);
  return true;
}

bool Planner::reduction_result(Stmt& s) {
  for (std::size_t i : s.vars) {
    Var& v = plan_.vars[i];
    if (v.kind != Var::Kind::Local && v.kind != Var::Kind::Replicated)
      return fail("the result of a barrier reduction is declared __shared__ or constexpr" + at_line(s.begin));
    v.init = "= minicuda_reduce_" + std::to_string(s.reduction_id);
  }
  return true;
}

bool Planner::branch(Stmt& s, bool in_loop) {
  const std::size_t k = s.begin;
  if (!t_[k + 1].is_punct("(")) return fail("an if constexpr or consteval holds a barrier" + at_line(k));
  const std::size_t close = *matching_close(t_, k + 1);
  if (!(close + 1 < s.end && t_[close + 1].is_punct("{")))
    return fail("an if around a barrier has no braced body" + at_line(k));
  const std::size_t then_close = *matching_close(t_, close + 1);
  s.kind = Stmt::Kind::If;
  s.body_open = close + 1, s.body_close = then_close;
  if (then_close + 1 != s.end) {
    const bool braced_else = t_[then_close + 1].is_identifier("else") && then_close + 2 < s.end &&
                             t_[then_close + 2].is_punct("{") && *matching_close(t_, then_close + 2) == s.end - 1;
    if (!braced_else) return fail("the else of an if around a barrier has no braced body" + at_line(k));
    s.else_open = then_close + 2, s.else_close = s.end - 1;
  }
  auto body = parse_level(s.body_open + 1, s.body_close, in_loop);
  if (!body) return false;
  s.body = std::move(*body);
  if (s.else_open != 0) {
    auto else_body = parse_level(s.else_open + 1, s.else_close, in_loop);
    if (!else_body) return false;
    s.else_body = std::move(*else_body);
  }
  return true;
}

bool Planner::classify(std::vector<Stmt>& level, std::size_t level_end, std::vector<std::size_t>& scope,
                       bool in_loop) {
  for (std::size_t i = 0; i < level.size(); ++i) {
    std::size_t later = kNone;  // where the next region starts
    for (std::size_t j = i + 1; j < level.size() && later == kNone; ++j)
      if (level[j].kind != Stmt::Kind::Plain) later = level[j].begin;
    Stmt& s = level[i];
    if (s.kind == Stmt::Kind::Plain && (s.hoisted || s.reduction == Stmt::Reduction::Gather)) continue;
    if (s.kind == Stmt::Kind::Plain && !declaration(s, level_end, later, scope, in_loop, false)) return false;
    if (s.reduction == Stmt::Reduction::Result && !reduction_result(s)) return false;
    if (s.kind == Stmt::Kind::Plain && s.vars.empty()) find_x_bound(s, scope);
    if (s.kind == Stmt::Kind::Scope) {
      std::vector<std::size_t> inner = scope;
      if (!classify(s.body, s.body_close, inner, in_loop)) return false;
    }
    if (s.kind == Stmt::Kind::Loop && !loop(s, scope)) return false;
    if (s.kind == Stmt::Kind::If && !if_statement(s, scope, in_loop)) return false;
  }
  return true;
}

bool Planner::if_statement(Stmt& s, const std::vector<std::size_t>& scope, bool in_loop) {
  // A barrier reduction as the condition is the same in every thread by construction.
  if (s.reduction == Stmt::Reduction::Gather && !reduction_condition_is_uniform(s, scope, "the condition of an if"))
    return false;
  if (s.reduction != Stmt::Reduction::Gather && !header_is_uniform(s.begin + 2, s.body_open - 1, scope, {}, "the condition of an if")) return false;
  std::vector<std::size_t> then_scope = scope, else_scope = scope;
  return classify(s.body, s.body_close, then_scope, in_loop) &&
         (s.else_open == 0 || classify(s.else_body, s.else_close, else_scope, in_loop));
}

bool Planner::loop(Stmt& s, const std::vector<std::size_t>& scope) {
  std::vector<std::size_t> inner = scope;
  // A barrier reduction as the condition: the same in every thread by construction, and its
  // predicate runs in a region of its own, per thread.
  if (s.reduction == Stmt::Reduction::Gather)
    return reduction_condition_is_uniform(s, scope, "the condition of a loop") &&
           classify(s.body, s.body_close, inner, true);
  const std::size_t open = s.begin + 1, close = s.body_open - 1;
  if (t_[s.begin].is_identifier("for")) {
    std::vector<std::size_t> semicolons;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (t_[k].is_punct("(") || t_[k].is_punct("[") || t_[k].is_punct("{")) k = *matching_close(t_, k);
      else if (t_[k].is_punct(";")) semicolons.push_back(k);
    }
    if (semicolons.size() != 2) return fail("a range-for holds a barrier" + at_line(s.begin));
    if (semicolons[0] > open + 1) {
      Stmt init;
      init.begin = open + 1, init.end = semicolons[0] + 1;
      if (!declaration(init, close, kNone, inner, false, true)) return false;
      for (std::size_t v : init.vars) {
        if (maybe_modified(t_, s.body_open, s.body_close, plan_.vars[v].name, false) ||
            bound_by_reference(plan_.vars[v].name, false))
          return fail("the variable " + plan_.vars[v].name + " of a loop around a barrier changes in its body" +
                      at_line(s.begin));
        inner.push_back(v);
      }
    }
  }
  const std::vector<std::size_t> own(inner.begin() + static_cast<std::ptrdiff_t>(scope.size()), inner.end());
  if (!header_is_uniform(open + 1, close, inner, own, "the header of a loop")) return false;
  return classify(s.body, s.body_close, inner, true);
}

bool Planner::header_is_uniform(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope,
                                const std::vector<std::size_t>& own, const std::string& what) {
  const std::string around = what + " around a barrier ";
  for (std::size_t k = begin; k < end; ++k) {
    const Token& t = t_[k];
    if (!t.is_identifier() || !is_variable_use(t_, k, t.text)) continue;
    const std::string name(t.text);
    if (k + 1 < end && t_[k + 1].is_punct("(")) {
      if (!is_pure_builtin(name) && !is_non_call_keyword(name)) return fail(around + "calls " + name + at_line(k));
      continue;
    }
    if (name == "threadIdx") return fail(around + "reads threadIdx" + at_line(k));
    const Var* v = in_scope(scope, name);
    if (v != nullptr && !v->uniform)
      return fail(around + "reads " + name + ", which may differ between threads" + at_line(k));
    bool is_own = false;
    for (std::size_t o : own) is_own = is_own || plan_.vars[o].name == name;
    if (!is_own && maybe_modified(t_, begin, end, name, false)) return fail(around + "changes " + name + at_line(k));
  }
  return true;
}

PlanResult plan_kernel(const FileContext& file, const KernelSite& kernel) { return Planner(file, kernel).run(); }

}  // namespace minicuda::cu2cxx::fission
