// cu2cxx region fission: the planner's reading of the kernel's parameters and of the locals
// declared at the split levels - which are left where they are, re-declared in every region, kept
// per thread across barriers or hoisted once per block (Var::Kind, fission_plan.h).
#include "fission_planner.h"

namespace minicuda::cu2cxx::fission {

bool Planner::read_params(std::size_t body_begin, std::size_t body_end) {
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

void Planner::find_x_bound(Stmt& s, const std::vector<std::size_t>& scope) {
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

bool Planner::rematerializable(std::size_t begin, std::size_t end, const std::vector<std::size_t>& scope,
                               bool* uniform) {
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

bool Planner::declaration(Stmt& s, std::size_t level_end, std::size_t later, std::vector<std::size_t>& scope,
                          bool in_loop, bool loop_header) {
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

}  // namespace minicuda::cu2cxx::fission
