// cu2cxx region fission: the analysis of one kernel (plan_kernel, fission_plan.h). It reads the
// body at its split levels - the top of the body and the braced bodies of loops that hold a
// barrier - and decides, for every local declared there, how the regions will see it. Anything
// it cannot read with certainty makes the kernel keep its fibers: the reason says what.
#include <map>
#include <set>

#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

struct Param {
  std::string name;
  bool pointer;
};

class Planner {
 public:
  Planner(const FileContext& file, const KernelSite& kernel) : file_(file), t_(file.tokens), kernel_(kernel) {}

  PlanResult run() {
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

  bool read_template_head() {
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

  bool is_constant(std::string_view name) const {
    return file_.facts.constants.contains(name) || template_params_.contains(name);
  }

  // A #if, #define or #include inside the body could split differently from the tokens (a #line
  // changes none: inlined bodies carry them).
  bool check_preprocessor() {
    const std::string_view body = file_.source.substr(t_[kernel_.body_open].end,
                                                      t_[kernel_.body_close].begin - t_[kernel_.body_open].end);
    bool only_pragmas = true;
    for_each_directive(body, [&](std::string_view d) { only_pragmas &= d.starts_with("pragma") || d.starts_with("line "); });
    return only_pragmas || fail("its body holds a preprocessor directive other than #pragma");
  }

  // What no region may hold, anywhere in the body.
  bool check_body_tokens(std::size_t begin, std::size_t end) {
    static constexpr std::string_view kRefused[] = {
        "goto", "asm", "__asm__", "try", "throw", "co_await", "co_yield", "co_return", "typedef", "using", "struct",
        "class", "union", "enum", "template", "static", "thread_local", "register", "operator", "this", "new",
        "delete", "setjmp", "longjmp"};
    for (std::size_t k = begin; k < end; ++k) {
      if (const auto skip = skipped_.find(k); skip != skipped_.end()) k = skip->second;  // a block handle
      const Token& t = t_[k];
      if (t.is_identifier()) {
        if (is_warp_or_reduction_name(t.text))
          return fail("it uses " + std::string(t.text) + at_line(k) + ": warp operations and barrier reductions need fibers");
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

  // The kernel's parameters; each must keep its value (the block function has one copy for the
  // whole block).
  bool read_params(std::size_t body_begin, std::size_t body_end) {
    std::size_t k = kernel_.params_open + 1;
    const std::size_t close = kernel_.params_close;
    while (k < close) {
      std::size_t e = k;
      int angles = 0;
      for (; e < close; ++e) {
        if (t_[e].is_punct("(") || t_[e].is_punct("[") || t_[e].is_punct("{")) {
          e = *matching_close(t_, e);
        } else if (t_[e].is_punct("<")) {
          ++angles;
        } else if (t_[e].is_punct(">") && angles > 0) {
          --angles;
        } else if (t_[e].is_punct(",") && angles == 0) {
          break;
        }
      }
      std::size_t last = e;  // one past the declarator, before any default argument
      bool pointer = false;
      for (std::size_t j = k; j < e; ++j) {
        if (t_[j].is_punct("=")) {
          last = j;
          break;
        }
        if (t_[j].is_punct("*") || t_[j].is_punct("[")) pointer = true;
        if (t_[j].is_punct(".") || t_[j].is_punct(")")) return fail("it takes a parameter cu2cxx cannot read");
      }
      std::size_t name = last;
      while (name > k && t_[name - 1].is_punct("]")) name = *matching_open(t_, name - 1);
      const bool named = name > k + 1 && t_[name - 1].is_identifier() && !is_type_keyword(t_[name - 1].text) &&
                         !t_[name - 1].is_identifier("const");
      if (named) {
        Param p{std::string(t_[name - 1].text), pointer};
        if (bound_by_reference(p.name, p.pointer))
          return fail("a reference is bound to its parameter " + p.name + " (the block function has one copy per block)");
        names_.insert(p.name);
        if (maybe_modified(t_, body_begin, body_end, p.name, p.pointer)) {
          // Changed per thread: a replicated local made from the parameter (not an array
          // parameter, whose declared type is not the pointer it is).
          if (name < last) return fail("it modifies its array parameter " + p.name + at_line(name - 1));
          for (std::size_t j = k; j < name; ++j)
            if (t_[j].is_punct("&")) return fail("it modifies its reference parameter " + p.name + at_line(j));
          Var v;
          v.kind = Var::Kind::Replicated;
          v.name = p.name;
          v.type_id = joined(t_, k, name - 1);
          v.slot = ++plan_.replicated;
          plan_.changed_params.push_back(plan_.vars.size());
          plan_.vars.push_back(std::move(v));
        } else {
          params_.push_back(std::move(p));
        }
      }
      k = e + 1;
    }
    return true;
  }

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
  std::optional<std::vector<Stmt>> parse_level(std::size_t begin, std::size_t end, bool in_loop) {
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
          if (!branch(s, in_loop)) return std::nullopt;
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

  // Reads `if (C) { ... }` or `if (C) { ... } else { ... }` around a barrier, statement s: both
  // bodies braced (`else if` is a nested if without braces), each a split level of its own.
  bool branch(Stmt& s, bool in_loop) {
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

  // Classifies the declarations of a level, in order; `scope` holds the variables visible.
  bool classify(std::vector<Stmt>& level, std::size_t level_end, std::vector<std::size_t>& scope, bool in_loop) {
    for (std::size_t i = 0; i < level.size(); ++i) {
      std::size_t later = kNone;  // where the next region starts
      for (std::size_t j = i + 1; j < level.size() && later == kNone; ++j)
        if (level[j].kind != Stmt::Kind::Plain) later = level[j].begin;
      Stmt& s = level[i];
      if (s.kind == Stmt::Kind::Plain && s.hoisted) continue;  // a block handle
      if (s.kind == Stmt::Kind::Plain && !declaration(s, level_end, later, scope, in_loop, false)) return false;
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

  // An if around a barrier evaluates its condition once per block, as a loop its header: CUDA
  // requires every thread of the block to reach the same barriers, so the condition must be the
  // same in all of them, and the translator must see that it is.
  bool if_statement(Stmt& s, const std::vector<std::size_t>& scope, bool in_loop) {
    if (!header_is_uniform(s.begin + 2, s.body_open - 1, scope, {}, "the condition of an if")) return false;
    std::vector<std::size_t> then_scope = scope, else_scope = scope;
    return classify(s.body, s.body_close, then_scope, in_loop) &&
           (s.else_open == 0 || classify(s.else_body, s.else_close, else_scope, in_loop));
  }

  bool loop(Stmt& s, const std::vector<std::size_t>& scope) {
    std::vector<std::size_t> inner = scope;
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

  // A loop around a barrier runs its header once per block, and an if its condition: they may
  // read only what every thread of the block sees alike, and change nothing but the loop's own
  // variables (a side effect that each thread made would now happen once). `own`: the loop's
  // variables; `what`: "the header of a loop" or "the condition of an if", for the reason.
  bool header_is_uniform(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope,
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

  // Recognises `if (X < E) S`, `if (X <= E) S` and `if (X == 0) S` without an else, X being
  // threadIdx.x or a re-declared copy of it, E uniform and rematerializable with no operator at
  // its top level that binds looser than `<` (so the condition is X compared with E, true for a
  // prefix of the x values and the same in every row).
  void find_x_bound(Stmt& s, const std::vector<std::size_t>& scope) {
    const std::size_t b = s.begin;
    if (!t_[b].is_identifier("if") || !t_[b + 1].is_punct("(")) return;
    const std::size_t close = *matching_close(t_, b + 1);
    const auto then_end = statement_end(t_, close + 1, s.end);
    if (!then_end || *then_end != s.end) return;  // an else follows
    std::size_t k = b + 2;
    if (t_[k].is_identifier("threadIdx") && t_[k + 1].is_punct(".") && t_[k + 2].is_identifier("x")) {
      k += 3;
    } else if (const Var* v = t_[k].is_identifier() ? in_scope(scope, t_[k].text) : nullptr;
               v != nullptr && v->kind == Var::Kind::Remat && v->init == "= threadIdx.x") {
      k += 1;
    } else {
      return;
    }
    Stmt::XBound bound = Stmt::XBound::None;
    if (t_[k].is_punct("<") && !(t_[k + 1].is_punct("<") && adjacent(t_[k], t_[k + 1]))) {
      bound = Stmt::XBound::Search;
      k += t_[k + 1].is_punct("=") && adjacent(t_[k], t_[k + 1]) ? 2 : 1;
    } else if (t_[k].is_punct("=") && t_[k + 1].is_punct("=") && adjacent(t_[k], t_[k + 1]) && k + 3 == close &&
               t_[k + 2].kind == TokenKind::Number && t_[k + 2].text == "0") {
      s.x_bound = Stmt::XBound::One;
      s.cond_begin = b + 2, s.cond_end = close;
      return;
    } else {
      return;
    }
    if (k >= close) return;
    for (std::size_t j = k; j < close; ++j) {
      const Token& t = t_[j];
      if (t.is_punct("(") || t.is_punct("[")) {
        j = *matching_close(t_, j);
        continue;
      }
      static constexpr std::string_view kLoose[] = {"<", ">", "=", "!", "&", "|", "^", "?", ":", ","};
      for (std::string_view op : kLoose)
        if (t.is_punct(op)) return;
    }
    bool uniform = true;
    if (!rematerializable(k, close, scope, &uniform) || !uniform) return;
    s.x_bound = bound;
    s.cond_begin = b + 2, s.cond_end = close;
  }

  // Is a function of this name defined in the file (which could shadow a built-in's name)?
  bool defined_in_file(std::string_view name) const {
    for (const auto& [function, brace] : file_.facts.functions)
      if (function == name) return true;
    return false;
  }

  // Can the initializer [begin, end) be computed again in any later region, with the same
  // value? Only built-ins, parameters, constants and other such variables, through operators
  // and pure built-ins: no memory is read. `uniform`: no thread index either.
  bool rematerializable(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope, bool* uniform) {
    *uniform = true;
    for (std::size_t k = begin; k < end; ++k) {
      const Token& t = t_[k];
      if (t.kind == TokenKind::Literal) {
        if (t.text.find('\n') != std::string_view::npos) return false;
        continue;
      }
      if (t.kind == TokenKind::Number) continue;
      if (t.kind == TokenKind::Punct) {
        const bool next_adjacent = k + 1 < end && adjacent(t, t_[k + 1]);
        const bool prev_adjacent = k > begin && adjacent(t_[k - 1], t);
        if (t.is_punct("[") || (t.is_punct("-") && next_adjacent && t_[k + 1].is_punct(">"))) return false;
        if ((t.is_punct("+") || t.is_punct("-")) && next_adjacent && t_[k + 1].text == t.text) return false;
        if (t.is_punct("=")) {
          if (next_adjacent && t_[k + 1].is_punct("=")) {
            ++k;  // ==
            continue;
          }
          const bool comparison = prev_adjacent && (t_[k - 1].is_punct("!") || t_[k - 1].is_punct("<") ||
                                                    t_[k - 1].is_punct(">"));
          if (!comparison) return false;  // an assignment inside the initializer
        }
        if (t.is_punct("*") || t.is_punct("&")) {
          const bool logical = t.is_punct("&") && ((next_adjacent && t_[k + 1].is_punct("&")) ||
                                                   (prev_adjacent && t_[k - 1].is_punct("&")));
          const auto is_value = [&](std::string_view n) {
            return is_builtin_variable(n) || is_param(n) || in_scope(scope, n) != nullptr || is_constant(n);
          };
          if (!logical && !binary_operator_at(t_, k, begin, is_value)) return false;  // a dereference or an address
        }
        continue;
      }
      if (k > begin && t_[k - 1].is_punct(".")) continue;  // a member
      const std::string_view name = t.text;
      if (name == "static_cast" || name == "reinterpret_cast" || name == "const_cast" || is_type_keyword(name) ||
          name == "const" || name == "true" || name == "false" || name == "nullptr" || name == "sizeof")
        continue;
      if (k + 1 < end && t_[k + 1].is_punct("(")) {
        if (!is_pure_builtin(name) || defined_in_file(name)) return false;
        continue;
      }
      if (k > begin && t_[k - 1].is_punct("::")) return false;
      if (name == "threadIdx") {
        *uniform = false;
        continue;
      }
      if (is_builtin_variable(name) || is_param(name)) continue;
      if (const Var* v = in_scope(scope, name)) {
        if (v->kind == Var::Kind::Remat || v->kind == Var::Kind::LoopVar || (v->kind == Var::Kind::Block && v->stable)) {
          *uniform = *uniform && v->uniform;
          continue;
        }
        return false;
      }
      if (is_constant(name)) continue;
      return false;
    }
    return true;
  }

  // Reads the statement `s` as a declaration, if it is one, and classifies its variables.
  // False (with the reason) when it looks like a declaration that cannot be read with certainty.
  bool declaration(Stmt& s, std::size_t level_end, std::size_t later, std::vector<std::size_t>& scope, bool in_loop,
                   bool loop_header) {
    static constexpr std::string_view kStatementWords[] = {"return", "break", "continue", "if", "for", "while", "do",
                                                           "switch", "sizeof", "static_assert", "else"};
    const std::size_t b = s.begin, e = s.end - 1;  // t_[e] is the `;`
    if (!t_[b].is_identifier()) return true;
    for (std::string_view w : kStatementWords)
      if (t_[b].text == w) return true;
    bool shared = false, is_constexpr = false, deduced = false;
    int spec_words = 0;
    std::size_t k = b;
    for (; k < e; ++k) {
      const Token& t = t_[k];
      if (t.is_punct("*") || t.is_punct("&")) break;
      if (t.is_punct("::")) continue;
      if (!t.is_identifier()) return spec_words == 0 ? true : fail("cu2cxx cannot read the declaration" + at_line(b));
      if (t.is_identifier("__shared__")) shared = true;
      if (t.is_identifier("constexpr")) is_constexpr = true;
      if (t.is_identifier("auto") || t.is_identifier("decltype")) deduced = true;
      const Token& next = t_[k + 1];
      if (t.is_identifier("decltype") && next.is_punct("(")) {
        k = *matching_close(t_, k + 1);
        ++spec_words;
        continue;
      }
      if (next.is_punct(";") || next.is_punct(",") || next.is_punct("[") || next.is_punct("(") || next.is_punct("{") ||
          (next.is_punct("=") && !t_[k + 2].is_punct("=")))
        break;  // t is the first declarator's name
      if (next.is_punct("<")) {
        const auto close = matching_angle_close(t_, k + 1, e);
        if (!close) return spec_words == 0 ? true : fail("cu2cxx cannot read the declaration" + at_line(b));
        k = *close;
        ++spec_words;
        continue;
      }
      if (next.is_punct("::")) continue;
      if (next.is_identifier() || next.is_punct("*") || next.is_punct("&")) {
        ++spec_words;
        continue;
      }
      return spec_words == 0 ? true : fail("cu2cxx cannot read the declaration" + at_line(b));
    }
    if (spec_words == 0) return true;  // an expression statement: `f(x);`, `x = 1;`
    const std::size_t spec_end = k;
    const std::string spec = joined(t_, b, spec_end);
    bool template_arguments = false;
    std::size_t declarators = 0;
    while (true) {
      const std::size_t d_begin = k;
      bool pointer = false, reference = false;
      while (k < e && (t_[k].is_punct("*") || t_[k].is_punct("&") || t_[k].is_identifier("const") ||
                       t_[k].is_identifier("volatile") || t_[k].is_identifier("__restrict__"))) {
        pointer = pointer || t_[k].is_punct("*");
        reference = reference || t_[k].is_punct("&");
        ++k;
      }
      if (k >= e || !t_[k].is_identifier()) return fail("cu2cxx cannot read the declaration" + at_line(b));
      const std::size_t name_token = k++;
      bool array = false, unsized = false;
      while (k < e && t_[k].is_punct("[")) {
        const std::size_t close = *matching_close(t_, k);
        array = true;
        unsized = unsized || close == k + 1;
        k = close + 1;
      }
      const std::size_t d_end = k, init_begin = k;
      if (k < e && t_[k].is_punct("=")) {
        for (++k; k < e && !t_[k].is_punct(","); ++k) {
          if (t_[k].is_punct("<")) template_arguments = true;
          if (t_[k].is_punct("(") || t_[k].is_punct("[") || t_[k].is_punct("{")) k = *matching_close(t_, k);
        }
      } else if (k < e && (t_[k].is_punct("(") || t_[k].is_punct("{"))) {
        if (t_[k].is_punct("(")) direct_init_.insert(k);
        k = *matching_close(t_, k) + 1;
      }
      if (k != e && !t_[k].is_punct(",")) return fail("cu2cxx cannot read the declaration" + at_line(b));
      Var v;
      v.name = std::string(t_[name_token].text);
      v.spec = spec;
      v.declarator = joined(t_, d_begin, d_end);
      v.type_id = spec + " " + joined(t_, d_begin, name_token) + " " + joined(t_, name_token + 1, d_end);
      v.init = joined(t_, init_begin, k);
      if (!names_.insert(v.name).second)
        return fail("the name " + v.name + " is declared twice at the split levels (or is a parameter's)" + at_line(b));
      if (shared || is_constexpr) {
        for (std::size_t j = init_begin; j < k; ++j) {
          const Var* used = t_[j].is_identifier() ? in_scope(scope, t_[j].text) : nullptr;
          if (used != nullptr && used->kind != Var::Kind::Block)
            return fail("the constexpr " + v.name + " depends on a local that is not constexpr" + at_line(b));
        }
        // Hoisted above the statements before it: none of them may name it (they meant another).
        if (used_in(t_, kernel_.body_open + 1, b, v.name))
          return fail("the name " + v.name + " is used before its __shared__ or constexpr declaration" + at_line(b));
        v.kind = Var::Kind::Block;
        v.uniform = true;
        v.stable = is_constexpr || array;
        s.hoisted = true;
      } else if (loop_header) {
        v.kind = Var::Kind::LoopVar;
        v.uniform = true;
      } else if (init_begin < k && !array && !reference && !bound_by_reference(v.name, pointer) &&
                 !maybe_modified(t_, d_end, level_end, v.name, pointer)) {
        // The initializer's expression: after `=`, or inside `(...)` / `{...}`.
        const std::size_t expr_end = t_[init_begin].is_punct("=") ? k : k - 1;
        if (rematerializable(init_begin + 1, expr_end, scope, &v.uniform)) v.kind = Var::Kind::Remat;
      }
      if (v.kind == Var::Kind::Local && later != kNone && used_in(t_, later, level_end, v.name)) {
        if (deduced || reference || unsized)
          return fail(v.name + " lives across a barrier and cu2cxx cannot name its type (auto, decltype, a "
                      "reference or an unsized array)" + at_line(b));
        v.kind = Var::Kind::Replicated;
        v.slot = ++plan_.replicated;
        s.rewritten = true;
      }
      if (v.kind == Var::Kind::Local || v.kind == Var::Kind::Replicated) v.uniform = false;
      if (v.kind == Var::Kind::Remat) s.rewritten = true;
      s.vars.push_back(plan_.vars.size());
      scope.push_back(plan_.vars.size());
      plan_.vars.push_back(std::move(v));
      ++declarators;
      if (k == e) break;
      ++k;
    }
    if (declarators > 1 && template_arguments)
      return fail("a declaration of several variables has template arguments in an initializer" + at_line(b));
    if (s.hoisted) plan_.hoisted.emplace_back(s.begin, s.end);
    return true;
  }

  // Every call in [begin, end) must be to a device built-in or to a function of this file that
  // reaches no barrier; `record` keeps the latter's positions (a region that makes such a call
  // sets the global threadIdx). Returns why not, or nothing.
  std::optional<std::string> check_calls(std::size_t begin, std::size_t end, bool record) {
    for (std::size_t k = begin; k < end; ++k) {
      if (const auto skip = skipped_.find(k); skip != skipped_.end()) k = skip->second;  // handles, barriers
      if (!t_[k].is_punct("(") || k == 0 || direct_init_.contains(k)) continue;
      const Token& before = t_[k - 1];
      std::size_t callee = kNone;
      if (before.is_identifier()) {
        callee = k - 1;
      } else if (before.is_punct(">")) {
        const auto open = matching_angle_open(t_, k - 1);
        if (!open || *open == 0 || !t_[*open - 1].is_identifier()) return "it calls through a template expression" + at_line(k);
        callee = *open - 1;
      } else if (before.is_punct(")") || before.is_punct("]")) {
        const auto open = matching_open(t_, k - 1);
        bool cast = before.is_punct(")") && open.has_value();
        for (std::size_t j = open ? *open + 1 : k; cast && j + 1 < k; ++j)
          cast = is_type_keyword(t_[j].text) || t_[j].is_identifier("const") || t_[j].is_punct("*");
        if (!cast) return "it calls through a function pointer or object" + at_line(k);
        continue;
      } else {
        continue;  // a parenthesized expression
      }
      const std::string name(t_[callee].text);
      if (is_non_call_keyword(name) || name == "__syncthreads") continue;  // barriers: the seams
      const bool member = callee > 0 && (t_[callee - 1].is_punct(".") || t_[callee - 1].is_punct(">"));
      const bool qualified = callee > 0 && t_[callee - 1].is_punct("::");
      const bool std_qualified = qualified && callee >= 2 && t_[callee - 2].is_identifier("std");
      bool defined_here = false;
      for (const auto& [function, brace] : file_.facts.functions) defined_here = defined_here || function == name;
      if (defined_here) {
        if (!barrier_free(name)) return "it calls " + name + ", which may reach a barrier or warp operation" + at_line(k);
        if (record) plan_.user_calls.push_back(k);
        continue;
      }
      if (!member && (!qualified || std_qualified) && is_builtin_function(name)) continue;
      return "it calls " + name + ", which is neither a device built-in nor defined in this file" + at_line(k);
    }
    return std::nullopt;
  }

  // Does no definition of `name` in this file reach a barrier or warp operation, directly or
  // through its calls? (A call cycle counts as barrier-free: recursion adds no barrier.)
  bool barrier_free(const std::string& name) {
    if (auto it = barrier_free_.find(name); it != barrier_free_.end()) return it->second;
    barrier_free_[name] = true;
    bool free = true;
    for (const auto& [function, brace] : file_.facts.functions) {
      if (function != name || !free) continue;
      const auto close = matching_close(t_, brace);
      if (!close) {
        free = false;
        break;
      }
      for (std::size_t k = brace + 1; k < *close && free; ++k) {
        if (t_[k].is_identifier() && is_barrier_name(t_[k].text)) free = false;
        // A lambda or a function pointer could hide one too.
        if (t_[k].is_punct("[") && k > 0 && !(t_[k - 1].is_identifier() || t_[k - 1].is_punct(")") || t_[k - 1].is_punct("]")))
          free = false;
      }
      if (free && check_calls(brace + 1, *close, false)) free = false;
    }
    barrier_free_[name] = free;
    return free;
  }

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

}  // namespace

PlanResult plan_kernel(const FileContext& file, const KernelSite& kernel) { return Planner(file, kernel).run(); }

}  // namespace minicuda::cu2cxx::fission
