// cu2cxx region fission: inlining the calls that reach a barrier (fission_inline.h). The copy
// of the kernel is written piece by piece: text copied from the file (with the other passes'
// edits moved along, and the inlined functions' locals renamed) and glue written for a place of
// the file; a SourceMap remembers which, so lines and reasons name the .cu. Each switch from the
// kernel's text to a function's and back is marked with a #line, so the block function's
// copies keep naming the right .cu lines.
#include "fission_inline.h"

#include <algorithm>
#include <map>

#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {

std::size_t SourceMap::original(std::size_t synthetic) const {
  auto it = std::upper_bound(pieces.begin(), pieces.end(), synthetic,
                             [](std::size_t s, const Piece& p) { return s < p.synthetic; });
  if (it == pieces.begin()) return synthetic;
  --it;
  return it->verbatim ? it->original + (synthetic - it->synthetic) : it->original;
}

namespace {

constexpr std::size_t kMaxDepth = 8;

bool is_assignment_eq(const Tokens& t, std::size_t k) {
  if (!t[k].is_punct("=")) return false;
  if (k + 1 < t.size() && t[k + 1].is_punct("=") && adjacent(t[k], t[k + 1])) return false;
  if (k > 0 && adjacent(t[k - 1], t[k]) &&
      (t[k - 1].is_punct("=") || t[k - 1].is_punct("!") ||
       ((t[k - 1].is_punct("<") || t[k - 1].is_punct(">")) && !(k > 1 && t[k - 2].text == t[k - 1].text && adjacent(t[k - 2], t[k - 1])))))
    return false;  // ==, !=, <=, >= (not <<=, >>=)
  return true;
}

bool is_increment(const Tokens& t, std::size_t k) {
  return k + 1 < t.size() && (t[k].is_punct("+") || t[k].is_punct("-")) && t[k + 1].text == t[k].text &&
         adjacent(t[k], t[k + 1]);
}

class Inliner {
 public:
  Inliner(const FileContext& file, const KernelSite& kernel) : file_(file), t_(file.tokens), kernel_(kernel) {}

  InlineResult run() {
    InlineResult result;
    const std::size_t open = kernel_.body_open, close = kernel_.body_close;
    bool any = false;
    for (std::size_t k = open + 1; k < close && !any; ++k) any = is_barrier_call(k);
    if (!any) return result;
    result.status = InlineResult::Status::Refused;
    const auto fail = [&] {
      result.reason = "it reaches a barrier through a call cu2cxx cannot inline: " + reason_;
      return std::move(result);
    };
    kernel_namespace_ = namespace_at(t_, open);
    if (!kernel_namespace_) return (reason_ = "the kernel is not at namespace scope", fail());
    if (file_.facts.inline_names_taken) return (reason_ = "the file already uses names inlining writes (__inl)", fail());
    cg_ = cooperative_groups_names(t_);
    std::set<std::string> cg_unused;
    std::map<std::size_t, std::size_t> declarations;
    find_block_handles(t_, open + 1, close, cg_unused, handles_, declarations);
    Frame kernel_frame;
    kernel_frame.body_open = open, kernel_frame.body_close = close;
    std::set<std::string, std::less<>> flagged;
    if (!declared_names(t_, open + 1, close, kernel_locals_, flagged))
      return (reason_ = "cu2cxx cannot read every declaration of the kernel", fail());
    for (const std::string& n : kernel_locals_)
      if (!flagged.contains(n)) kernel_frame.values.insert(n);
    for (std::size_t k = kernel_.params_open + 1; k < kernel_.params_close; ++k)
      if (t_[k].is_identifier() && (t_[k + 1].is_punct(",") || t_[k + 1].is_punct(")"))) {
        kernel_params_.insert(std::string(t_[k].text));
        kernel_frame.values.insert(std::string(t_[k].text));
      }
    auto out = std::make_unique<InlinedKernel>();
    out_ = out.get();
    verbatim(0, t_[open].end);
    if (!level(kernel_frame, open, close)) return fail();
    const std::size_t suffix_at = out_->source.size();
    verbatim(t_[close].begin, file_.source.size());
    if (!ok_) return fail();
    // (verbatim() moved the other passes' edits along, and refused any that straddles a piece.)
    std::stable_sort(out_->edits.begin(), out_->edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    // The copy's tokens: the file's before the body, the new body's, the file's after it moved.
    const std::string_view text = out_->source;
    const std::size_t body_begin = t_[open].end, body_end = suffix_at;
    Tokens& tokens = out_->tokens;
    tokens.assign(t_.begin(), t_.begin() + static_cast<std::ptrdiff_t>(open) + 1);
    for (Token w : tokenize(text.substr(body_begin, body_end - body_begin))) {
      w.begin += body_begin, w.end += body_begin;
      tokens.push_back(w);
    }
    out_->kernel = kernel_;
    out_->kernel.body_close = tokens.size();
    const std::size_t shift = body_end - t_[close].begin;
    for (std::size_t k = close; k < t_.size(); ++k) {
      Token w = t_[k];
      w.begin += shift, w.end += shift;
      w.text = text.substr(w.begin, w.end - w.begin);
      tokens.push_back(w);
    }
    // The file's facts, the function bodies after the kernel moved along.
    out_->facts = file_.facts;
    const std::size_t moved = out_->kernel.body_close - close;
    for (auto& [function, brace] : out_->facts.functions)
      if (brace > close) brace += moved;
    const auto body_close = matching_close(tokens, kernel_.body_open);
    if (!body_close || *body_close != out_->kernel.body_close) return (reason_ = "the inlined body does not close", fail());
    result.status = InlineResult::Status::Inlined;
    result.kernel = std::move(out);
    result.reason.clear();
    // Names the inlined bodies take from around them that the kernel declares anywhere (its
    // parameters, locals and block handles): the copy would read the kernel's.
    std::set<std::string, std::less<>> kernel_names = kernel_locals_;
    kernel_names.insert(kernel_params_.begin(), kernel_params_.end());
    kernel_names.insert(handles_.begin(), handles_.end());
    for (const std::string& n : captured_)
      if (kernel_names.contains(n)) {
        result.status = InlineResult::Status::Refused;
        result.kernel.reset();
        reason_ = "an inlined function reads " + n + ", which the kernel declares too";
        return fail();
      }
    result.kernel->free_names = captured_;
    return result;
  }

 private:
  // The body being copied: the kernel's own, or an inlined function's.
  struct Frame {
    const Callee* callee = nullptr;  // nullptr: the kernel
    std::map<std::string, std::string, std::less<>> renames;
    std::set<std::string, std::less<>> values;  // locals a hoisted call leaves alone unless they escape
    std::size_t body_open = 0, body_close = 0;
    std::string result;  // where the function's result goes ("": discarded)
    std::size_t depth = 0;
  };

  bool fail(std::string why, std::size_t at) {
    if (reason_.empty()) reason_ = std::move(why) + " (line " + std::to_string(file_.line_at(t_[at].begin)) + ")";
    ok_ = false;
    return false;
  }

  // --- the functions that reach a barrier --------------------------------------------------
  bool reaches_barrier(const std::string& name) {
    if (auto it = reaches_.find(name); it != reaches_.end()) return it->second;
    reaches_[name] = false;  // a cycle adds no barrier
    bool reaches = false;
    for (const auto& [function, brace] : file_.facts.functions) {
      if (function != name || reaches) continue;
      const auto close = matching_close(t_, brace);
      const auto params = matching_open(t_, brace - 1);
      if (!close || !params) continue;
      // The parameters too: a cooperative-groups handle among them is a barrier's.
      for (std::size_t k = *params; k < *close && !reaches; ++k) {
        if (!t_[k].is_identifier()) continue;
        if (is_barrier_name(t_[k].text)) reaches = true;
        else if (t_[k + 1].is_punct("(") && std::string(t_[k].text) != name && reaches_barrier(std::string(t_[k].text)))
          reaches = true;
      }
    }
    reaches_[name] = reaches;
    return reaches;
  }
  bool is_barrier_call(std::size_t k) {
    return t_[k].is_identifier() && k + 1 < t_.size() && t_[k + 1].is_punct("(") && !is_non_call_keyword(t_[k].text) &&
           reaches_barrier(std::string(t_[k].text));
  }
  bool holds_barrier_call(std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k)
      if (is_barrier_call(k)) return true;
    return false;
  }

  const Callee* callee(std::size_t name_token) {
    const std::string name(t_[name_token].text);
    if (auto it = callees_.find(name); it != callees_.end()) return it->second ? &*it->second : nullptr;
    std::optional<Callee> c;
    std::size_t definitions = 0, brace = 0;
    for (const auto& [function, b] : file_.facts.functions)
      if (function == name) ++definitions, brace = b;
    std::optional<std::string> why;
    Callee read;
    if (definitions != 1) why = "it is defined " + std::to_string(definitions) + " times in the file";
    else if (brace > kernel_.name) why = "it is defined after the kernel";
    else if (namespace_at(t_, brace) != kernel_namespace_) why = "it is not in the kernel's namespace";
    else why = read_callee(file_, brace, cg_, read);
    if (!why) {
      for (std::size_t k = read.body_open; k < read.body_close && !why; ++k)
        if (t_[k].is_identifier("__CUDA_ARCH__")) why = "its body names __CUDA_ARCH__";
      std::string_view text = file_.source.substr(t_[read.body_open].end, t_[read.body_close].begin - t_[read.body_open].end);
      for_each_directive(text, [&](std::string_view d) {
        if (!d.starts_with("pragma")) why = "its body holds a preprocessor directive";
      });
    }
    if (why) {
      callee_reasons_[name] = *why;
      callees_[name] = std::nullopt;
      return nullptr;
    }
    callees_[name] = std::move(read);
    return &*callees_[name];
  }

  // --- writing the copy --------------------------------------------------------------------
  void piece(std::size_t original, bool verbatim) {
    out_->map.pieces.push_back(SourceMap::Piece{out_->source.size(), original, verbatim});
  }
  // The file's text [a, b), with the edits inside it moved along.
  void verbatim(std::size_t a, std::size_t b) {
    if (a >= b) return;
    const std::size_t at = out_->source.size();
    piece(a, true);
    // The edits are sorted by begin and do not overlap: only the one before `a` can span it.
    const std::vector<Edit>& edits = file_.edits;
    auto it = std::lower_bound(edits.begin(), edits.end(), a, [](const Edit& e, std::size_t off) { return e.begin < off; });
    bool straddles = it != edits.begin() && std::prev(it)->end > a;
    for (; it != edits.end() && it->begin < b; ++it) {
      if (it->end > b) straddles = true;
      else out_->edits.push_back(Edit{at + it->begin - a, at + it->end - a, it->replacement});
    }
    if (straddles) {
      ok_ = false;
      if (reason_.empty()) reason_ = "a renamed name lies inside another pass's rewrite";
    }
    out_->source.append(file_.source.substr(a, b - a));
  }
  void glue(std::string_view text, std::size_t original) {
    piece(original, false);
    out_->source.append(text);
  }
  void line_mark(std::size_t token) {
    glue("\n#line " + std::to_string(file_.line_at(t_[token].begin)) + " \"" + file_.line_path + "\"\n", t_[token].begin);
  }
  // The file's text [a, b), its names renamed as `f` says; the tokens [hole_first, hole_last]
  // (when hole_first != 0) replaced by `hole`.
  void copy(const Frame& f, std::size_t a, std::size_t b, std::size_t hole_first = 0, std::size_t hole_last = 0,
            std::string_view hole = {}) {
    std::size_t cursor = a;
    auto k = static_cast<std::size_t>(
        std::lower_bound(t_.begin(), t_.end(), a, [](const Token& w, std::size_t off) { return w.begin < off; }) - t_.begin());
    for (; k < t_.size() && t_[k].end <= b; ++k) {
      if (hole_first != 0 && k == hole_first) {
        verbatim(cursor, t_[k].begin);
        const std::string_view replaced = file_.source.substr(t_[k].begin, t_[hole_last].end - t_[k].begin);
        glue(keep_line_count(replaced, std::string(hole)), t_[k].begin);
        cursor = t_[hole_last].end;
        k = hole_last;
        continue;
      }
      if (!t_[k].is_identifier() || !is_variable_use(t_, k, t_[k].text)) continue;
      const auto it = f.renames.find(t_[k].text);
      if (it == f.renames.end()) continue;
      verbatim(cursor, t_[k].begin);
      glue(it->second, t_[k].begin);
      cursor = t_[k].end;
    }
    verbatim(cursor, b);
  }

  // --- statements ---------------------------------------------------------------------------
  // The statements strictly between the braces at `open` and `close`.
  bool level(Frame& f, std::size_t open, std::size_t close) {
    std::size_t cursor = t_[open].end;
    for (std::size_t k = open + 1; k < close;) {
      const auto e = statement_end(t_, k, close);
      if (!e) return fail("cu2cxx cannot delimit the statement", k);
      const bool final_return = f.callee != nullptr && k == f.callee->final_return;
      if (final_return || holds_barrier_call(k, *e)) {
        copy(f, cursor, t_[k].begin);
        if (!(final_return ? returned(f, k, *e) : statement(f, k, *e))) return false;
        cursor = t_[*e - 1].end;
      }
      k = *e;
    }
    copy(f, cursor, t_[close].begin);
    return ok_;
  }

  // A braced body after the header [k, open]: the header copied, the body's statements inlined.
  bool braced(Frame& f, std::size_t k, std::size_t open, std::size_t close) {
    if (holds_barrier_call(k, open)) return fail("a call to a function with a barrier is in a condition or loop header", k);
    copy(f, t_[k].begin, t_[open].end);
    if (!level(f, open, close)) return false;
    copy(f, t_[close].begin, t_[close].end);
    return true;
  }

  bool statement(Frame& f, std::size_t k, std::size_t e) {
    const Token& w = t_[k];
    if (w.is_punct("{")) return braced(f, k, k, e - 1);
    if (w.is_identifier("for") || w.is_identifier("while") || w.is_identifier("if")) {
      const std::size_t close = *matching_close(t_, k + 1);
      if (!t_[k + 1].is_punct("(") || !t_[close + 1].is_punct("{"))
        return fail("a call to a function with a barrier is under a " + std::string(w.text) + " without braces", k);
      const std::size_t body_close = *matching_close(t_, close + 1);
      if (!braced(f, k, close + 1, body_close)) return false;
      if (body_close + 1 == e) return true;
      if (!w.is_identifier("if") || !t_[body_close + 1].is_identifier("else"))
        return fail("cu2cxx cannot read the statement", k);
      const std::size_t next = body_close + 2;
      copy(f, t_[body_close].end, t_[next].begin);
      if (t_[next].is_punct("{") && *matching_close(t_, next) == e - 1) return braced(f, next, next, e - 1);
      if (t_[next].is_identifier("if")) return statement(f, next, e);
      return fail("a call to a function with a barrier is under an else without braces", k);
    }
    if (w.is_identifier() && (w.is_identifier("do") || w.is_identifier("switch") || w.is_identifier("return") ||
                              w.is_identifier("else")))
      return fail("a call to a function with a barrier is inside a " + std::string(w.text) + " statement", k);
    return simple(f, k, e);
  }

  // The barrier calls of [b, e) not nested in another's arguments; false when one is.
  std::optional<std::vector<std::size_t>> top_calls(std::size_t b, std::size_t e) {
    std::vector<std::size_t> calls;
    for (std::size_t k = b; k < e; ++k) {
      if (!is_barrier_call(k)) continue;
      if (k > 0 && (t_[k - 1].is_punct(".") || t_[k - 1].is_punct("::") || t_[k - 1].is_punct(">"))) {
        fail("it calls " + std::string(t_[k].text) + " as a member or through a qualified name", k);
        return std::nullopt;
      }
      const std::size_t close = *matching_close(t_, k + 1);
      if (holds_barrier_call(k + 2, close)) {
        fail("a call to a function with a barrier is an argument of another", k);
        return std::nullopt;
      }
      calls.push_back(k);
      k = close;
    }
    return calls;
  }

  // A plain statement [k, e) holding a call: `f(a);`, `T x = E;`, `L = E;`, `L op= E;`.
  bool simple(Frame& f, std::size_t k, std::size_t e) {
    const auto calls = top_calls(k, e - 1);
    if (!calls) return false;
    if (calls->size() != 1) return fail("a statement calls functions with barriers twice", k);
    const std::size_t c = calls->front(), c_close = *matching_close(t_, c + 1);
    if (c == k && c_close + 2 == e && t_[e - 1].is_punct(";")) {
      line_mark(k);
      return inline_call(f, c, "");
    }
    std::size_t eq = 0;
    for (std::size_t j = k; j < e - 1 && eq == 0; ++j) {
      if (t_[j].is_punct("(") || t_[j].is_punct("[") || t_[j].is_punct("{")) j = *matching_close(t_, j);
      else if (t_[j].is_punct(",")) return fail("a statement with a call to a function with a barrier has a comma", j);
      else if (is_assignment_eq(t_, j)) eq = j;
    }
    if (eq == 0 || c < eq) return fail("a call to a function with a barrier is inside an expression statement", k);
    for (std::size_t j = eq + 1; j < e - 1; ++j) {
      if (t_[j].is_punct("(") || t_[j].is_punct("[") || t_[j].is_punct("{")) j = *matching_close(t_, j);
      else if (t_[j].is_punct(",")) return fail("a statement with a call to a function with a barrier has a comma", j);
    }
    for (std::size_t j = k; j < eq; ++j)
      if (t_[j].is_punct("[") && j > k && t_[j - 1].is_identifier() && j + 1 < eq && t_[j + 1].is_punct("]"))
        return fail("a call to a function with a barrier initializes an array", k);
    return expression(f, k, eq + 1, e - 1, c, c_close, "", "");
  }

  // `prefix_text` or the file's tokens [prefix_first, expr) (renamed), then the expression
  // [expr, expr_end) with its call at c replaced by its result, then `;`.
  bool expression(Frame& f, std::size_t prefix_first, std::size_t expr, std::size_t expr_end, std::size_t c,
                  std::size_t c_close, std::string_view prefix_text, std::string_view suffix_text) {
    const bool whole = c == expr && c_close + 1 == expr_end;
    if (!whole && !rest_is_independent(f, expr, expr_end, c, c_close)) return false;
    const Callee* g = callee(c);
    if (g == nullptr) return fail(std::string(t_[c].text) + ": " + callee_reasons_[std::string(t_[c].text)], c);
    if (g->result_type.empty()) return fail("the result of the void function " + g->name + " is used", c);
    const std::string result = "minicuda_result_" + std::to_string(++counter_);
    line_mark(c);
    glue(g->result_type + " " + result + "; ", t_[c].begin);
    if (!inline_call(f, c, result)) return false;
    line_mark(prefix_first != 0 ? prefix_first : c);
    if (prefix_first != 0) copy(f, t_[prefix_first].begin, t_[expr].begin);
    else glue(prefix_text, t_[c].begin);
    copy(f, t_[expr].begin, t_[expr_end - 1].end, c, c_close, result);
    glue(std::string(suffix_text) + ";", t_[expr_end - 1].end);
    return ok_;
  }

  // The last statement of an inlined function, `return E;`.
  bool returned(Frame& f, std::size_t k, std::size_t e) {
    if (t_[k + 1].is_punct(";")) return true;  // `return;` of a void function: nothing left to do
    const auto calls = top_calls(k + 1, e - 1);
    if (!calls) return false;
    if (calls->size() > 1) return fail("a statement calls functions with barriers twice", k);
    if (calls->empty()) {
      line_mark(k);
      glue(f.result.empty() ? "(void)(" : f.result + " = (", t_[k].begin);
      copy(f, t_[k + 1].begin, t_[e - 2].end);
      glue(");", t_[e - 1].begin);
      return ok_;
    }
    const std::size_t c = calls->front(), c_close = *matching_close(t_, c + 1);
    if (f.result.empty() && c == k + 1 && c_close + 2 == e) {
      line_mark(k);
      return inline_call(f, c, "");
    }
    return expression(f, 0, k + 1, e - 1, c, c_close, f.result.empty() ? "(void)(" : f.result + " = (", ")");
  }

  // --- the call ---------------------------------------------------------------------------
  bool inline_call(Frame& f, std::size_t c, const std::string& result) {
    const Callee* g = callee(c);
    const std::string name(t_[c].text);
    if (g == nullptr) return fail(name + ": " + callee_reasons_[name], c);
    if (f.depth + 1 > kMaxDepth) return fail("calls with barriers nest deeper than " + std::to_string(kMaxDepth), c);
    if (g->holds_shared && ++shared_sites_[name] > 1)
      return fail(name + " declares a __shared__ or static variable and is called twice (one variable, not two)", c);
    if (g->checked_result) out_->checked_results.push_back(g->result_type);  // (discarded, it still converts)
    const std::size_t open = c + 1, close = *matching_close(t_, open);
    std::vector<std::pair<std::size_t, std::size_t>> args;
    for (std::size_t a = open + 1, j = open + 1; j <= close; ++j) {
      if (j < close && (t_[j].is_punct("(") || t_[j].is_punct("[") || t_[j].is_punct("{"))) {
        j = *matching_close(t_, j);
      } else if (j == close || t_[j].is_punct(",")) {
        if (j > a) args.emplace_back(a, j);
        a = j + 1;
      }
    }
    if (args.size() != g->params.size()) return fail(name + " is called with " + std::to_string(args.size()) + " arguments", c);
    for (const auto& [a, b] : args)
      if (!side_effect_free(a, b)) return false;
    const std::string suffix = "__inl" + std::to_string(++counter_);
    Frame h;
    h.callee = g, h.body_open = g->body_open, h.body_close = g->body_close, h.result = result, h.depth = f.depth + 1;
    for (const std::string& n : g->locals) {
      h.renames[n] = n + suffix;
      if (!g->flagged.contains(n)) h.values.insert(n);
    }
    glue("{ ", t_[c].begin);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const CalleeParam& p = g->params[i];
      const auto [a, b] = args[i];
      if (p.kind != CalleeParam::Kind::Value) {
        std::string arg = b == a + 1 && t_[a].is_identifier() ? std::string(t_[a].text) : std::string();
        if (auto it = f.renames.find(arg); it != f.renames.end()) arg = it->second;
        if (p.kind == CalleeParam::Kind::BlockHandle && !handles_.contains(arg))
          return fail(name + " is passed a cooperative-groups handle that is not the kernel's block handle", a);
        if (arg.empty()) return fail(name + " takes " + p.name + " by reference and is passed more than a name", a);
        if (rewritten(t_[a].begin)) return fail(name + " takes " + p.name + " by reference and is passed a variable another pass rewrites", a);
        if (g->locals.contains(p.name)) return fail(name + " declares a local named as its parameter " + p.name, a);
        for (std::size_t j = g->body_open; j < g->body_close && arg != p.name; ++j)
          if (t_[j].is_identifier(arg)) return fail(name + " names " + arg + ", which is also its argument", a);
        h.renames[p.name] = arg;
        continue;
      }
      h.renames[p.name] = p.name + suffix;
      h.values.insert(p.name);
      verbatim(t_[p.first].begin, t_[p.name_token].begin);
      glue(p.name + suffix + " = ", t_[a].begin);
      copy(f, t_[a].begin, t_[b - 1].end);
      glue("; ", t_[b - 1].end);
    }
    // What the body (and the types the copy spells) takes from around it.
    const auto take = [&](std::size_t from, std::size_t to) {
      for (std::size_t j = from; j < to; ++j)
        if (t_[j].is_identifier() && is_variable_use(t_, j, t_[j].text) && !h.renames.contains(t_[j].text))
          captured_.insert(std::string(t_[j].text));
    };
    for (const CalleeParam& p : g->params) take(p.first, p.name_token);
    take(g->body_open + 1, g->body_close);
    for (const Token& w : tokenize(g->result_type))
      if (w.is_identifier()) captured_.insert(std::string(w.text));
    line_mark(g->body_open + 1 < g->body_close ? g->body_open + 1 : g->body_open);
    if (!level(h, g->body_open, g->body_close)) return false;
    glue(" }", t_[close].begin);
    inlined_.push_back(name);
    out_->inlined.push_back(name);
    return ok_;
  }

  // An argument: no assignment, increment or call but to a pure built-in (so arguments
  // evaluated one after another give what any order gives).
  bool side_effect_free(std::size_t a, std::size_t b) {
    for (std::size_t j = a; j < b; ++j) {
      if (is_assignment_eq(t_, j) || is_increment(t_, j) || t_[j].is_punct("{"))
        return fail("an argument of a call to a function with a barrier has a side effect", j);
      if (t_[j].is_identifier() && j + 1 < b && t_[j + 1].is_punct("(") && !is_pure_builtin(t_[j].text) &&
          !is_non_call_keyword(t_[j].text))
        return fail("an argument of a call to a function with a barrier calls " + std::string(t_[j].text), j);
      if (t_[j].is_identifier() && j + 1 < b && t_[j + 1].is_punct("(") && is_pure_builtin(t_[j].text) &&
          defined_in_file(t_[j].text))
        return fail("an argument calls " + std::string(t_[j].text) + ", a function of the file", j);
    }
    return true;
  }

  // Does another pass's edit cover the file's offset `at`?
  bool rewritten(std::size_t at) const {
    const std::vector<Edit>& edits = file_.edits;
    auto it = std::upper_bound(edits.begin(), edits.end(), at, [](std::size_t off, const Edit& e) { return off < e.begin; });
    return it != edits.begin() && std::prev(it)->end > at;
  }

  bool defined_in_file(std::string_view name) const {
    for (const auto& [function, brace] : file_.facts.functions)
      if (function == name) return true;
    return false;
  }

  // The rest of an expression around its call [c, c_close]: evaluated after the call instead
  // of in an order g++ chooses, which is the same only when it has no side effect and reads
  // nothing the call can change: locals and parameters of the body (not references, arrays,
  // shared) whose address never escapes, constants, built-ins.
  bool rest_is_independent(const Frame& f, std::size_t b, std::size_t e, std::size_t c, std::size_t c_close) {
    const auto is_value = [&](std::string_view n) {
      return is_builtin_variable(n) || f.values.contains(n) || file_.facts.constants.contains(n);
    };
    for (std::size_t j = b; j < e; ++j) {
      if (j == c) {
        j = c_close;
        continue;
      }
      const Token& w = t_[j];
      if (w.kind == TokenKind::Number) continue;
      if (w.kind == TokenKind::Literal) {
        if (w.text.find('\n') != std::string_view::npos) return fail("cu2cxx cannot read the expression", j);
        continue;
      }
      const std::string why = "the rest of the expression around the call to " + std::string(t_[c].text);
      if (w.kind == TokenKind::Punct) {
        static constexpr std::string_view kRefused[] = {"[", "{", "}", "?", ":", ";"};
        for (std::string_view r : kRefused)
          if (w.is_punct(r)) return fail(why + " has '" + std::string(r) + "'", j);
        if (w.is_punct("-") && j + 1 < e && t_[j + 1].is_punct(">")) return fail(why + " reads through ->", j);
        if (is_increment(t_, j) || is_assignment_eq(t_, j)) return fail(why + " has a side effect", j);
        const bool pair = j + 1 < e && adjacent(w, t_[j + 1]) && t_[j + 1].text == w.text;
        if ((w.is_punct("&") || w.is_punct("|")) && pair) return fail(why + " evaluates the call conditionally", j);
        if ((w.is_punct("*") || w.is_punct("&")) && !binary_operator_at(t_, j, b, is_value))
          return fail(why + " reads through a pointer", j);
        continue;
      }
      if (j > b && t_[j - 1].is_punct(".")) continue;  // a member
      const std::string_view n = w.text;
      if (j + 1 < e && t_[j + 1].is_punct("(")) {
        if ((is_pure_builtin(n) && !defined_in_file(n)) || n == "sizeof") continue;
        return fail(why + " calls " + std::string(n), j);
      }
      if (is_type_keyword(n) || n == "static_cast" || n == "const" || n == "true" || n == "false" || n == "nullptr" ||
          is_builtin_variable(n) || (file_.facts.constants.contains(n) && !f.values.contains(n)))
        continue;
      if (j > b && t_[j - 1].is_punct("::")) return fail(why + " names " + std::string(n), j);
      if (f.values.contains(n) && !escapes(f, n)) continue;
      return fail(why + " reads " + std::string(n) + ", which the call might change", j);
    }
    return true;
  }

  // Can the local `name` of the body change other than by its own assignments: its address
  // taken, a reference bound to it, passed whole to a function that may take it by reference,
  // or given to a member function?
  bool escapes(const Frame& f, std::string_view name) {
    const std::size_t b = f.body_open + 1, e = f.body_close;
    std::set<std::string, std::less<>> whole, element;
    referenced_names(t_, b, e, whole, element);
    if (whole.contains(name) || element.contains(name)) return true;
    const auto is_value = [](std::string_view) { return true; };
    for (std::size_t j = b; j < e; ++j) {
      if (!is_variable_use(t_, j, name)) continue;
      if (t_[j - 1].is_punct("&") && !(adjacent(t_[j - 2], t_[j - 1]) && t_[j - 2].is_punct("&")) &&
          !binary_operator_at(t_, j - 1, b, is_value))
        return true;
      if (t_[j + 1].is_punct(".") && t_[j + 3].is_punct("(")) return true;
      if ((t_[j - 1].is_punct("(") || t_[j - 1].is_punct(",")) && (t_[j + 1].is_punct(")") || t_[j + 1].is_punct(","))) {
        // The call whose arguments hold it, and which argument it is.
        int depth = 0;
        std::size_t index = 0, open = 0;
        for (std::size_t i = j; i-- > b;) {
          if (t_[i].is_punct(")") || t_[i].is_punct("]") || t_[i].is_punct("}")) ++depth;
          else if (t_[i].is_punct("(") || t_[i].is_punct("[") || t_[i].is_punct("{")) {
            if (depth-- == 0) {
              open = i;
              break;
            }
          } else if (depth == 0 && t_[i].is_punct(",")) {
            ++index;
          }
        }
        if (open == 0 || !t_[open].is_punct("(") || !t_[open - 1].is_identifier()) continue;  // grouping
        const std::string_view callee_name = t_[open - 1].text;
        if (is_non_call_keyword(callee_name) || (is_builtin_function(callee_name) && !defined_in_file(callee_name)))
          continue;
        const Callee* g = is_barrier_call(open - 1) ? callee(open - 1) : nullptr;
        if (g == nullptr || index >= g->params.size() || g->params[index].kind != CalleeParam::Kind::Value) return true;
      }
    }
    return false;
  }

  const FileContext& file_;
  const Tokens& t_;
  const KernelSite& kernel_;
  InlinedKernel* out_ = nullptr;
  std::optional<std::string> kernel_namespace_;
  std::set<std::string> cg_, handles_;
  std::set<std::string, std::less<>> kernel_locals_, kernel_params_, captured_;
  std::map<std::string, bool> reaches_;
  std::map<std::string, std::optional<Callee>> callees_;
  std::map<std::string, std::string> callee_reasons_;
  std::map<std::string, int> shared_sites_;
  std::vector<std::string> inlined_;
  unsigned counter_ = 0;
  bool ok_ = true;
  std::string reason_;
};

}  // namespace

InlineResult inline_barrier_calls(const FileContext& file, const KernelSite& kernel) {
  return Inliner(file, kernel).run();
}

}  // namespace minicuda::cu2cxx::fission
