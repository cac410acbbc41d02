// cu2cxx region fission: the statement structure around barriers (fission_plan.h): which
// statements are barriers of the whole block, which jumps leave a loop, which names a
// reference is bound to.
// Besides `__syncthreads();`, a cooperative-groups handle of the block, declared once at the top
// of the kernel body as `cg::thread_block cta = cg::this_thread_block();` (`cg` being
// `cooperative_groups` or an alias of it that the file declares), synchronises it with
// `cg::sync(cta);` or `cta.sync();`, which CUDA defines as the same barrier. Any other use of
// the handle (passing it to a function, asking it for a rank) makes the kernel keep fibers.
#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {
namespace {

// `NS ::` at k, NS a name of namespace cooperative_groups; returns the index after the `::`.
std::optional<std::size_t> cg_qualifier(const Tokens& t, std::size_t k, std::size_t e, const std::set<std::string>& cg) {
  std::size_t j = k;
  if (j < e && t[j].is_punct("::")) ++j;
  if (j + 1 < e && t[j].is_identifier() && cg.contains(std::string(t[j].text)) && t[j + 1].is_punct("::")) return j + 2;
  return std::nullopt;
}

}  // namespace

std::set<std::string> cooperative_groups_names(const Tokens& t) {
  std::set<std::string> names{"cooperative_groups"};
  for (std::size_t k = 0; k + 4 < t.size(); ++k) {
    if (!t[k].is_identifier("namespace") || !t[k + 1].is_identifier() || !t[k + 2].is_punct("=")) continue;
    std::size_t j = k + 3;
    if (t[j].is_punct("::")) ++j;
    if (j + 1 < t.size() && t[j].is_identifier("cooperative_groups") && t[j + 1].is_punct(";"))
      names.insert(std::string(t[k + 1].text));
  }
  return names;
}

std::optional<std::string> block_handle_declaration(const Tokens& t, std::size_t k, std::size_t e,
                                                    const std::set<std::string>& cg) {
  // NS::thread_block NAME = NS::this_thread_block();
  const auto type = cg_qualifier(t, k, e, cg);
  if (!type || *type + 9 != e) return std::nullopt;
  const std::size_t n = *type;
  if (!t[n].is_identifier("thread_block") || !t[n + 1].is_identifier() || !t[n + 2].is_punct("=")) return std::nullopt;
  const auto call = cg_qualifier(t, n + 3, e, cg);
  if (!call || *call + 4 != e) return std::nullopt;
  if (!t[*call].is_identifier("this_thread_block") || !t[*call + 1].is_punct("(") || !t[*call + 2].is_punct(")") ||
      !t[*call + 3].is_punct(";"))
    return std::nullopt;
  return std::string(t[n + 1].text);
}

bool names_token(const Tokens& t, std::size_t begin, std::size_t end, std::string_view name) {
  for (std::size_t k = begin; k < end; ++k)
    if (t[k].is_identifier(name)) return true;
  return false;
}

void find_block_handles(const Tokens& t, std::size_t begin, std::size_t end, std::set<std::string>& cg,
                        std::set<std::string>& handles, std::map<std::size_t, std::size_t>& declarations) {
  if (!names_token(t, begin, end, "this_thread_block")) return;
  cg = cooperative_groups_names(t);
  for (std::size_t k = begin; k < end;) {
    const auto e = statement_end(t, k, end);
    if (!e) return;
    if (auto name = block_handle_declaration(t, k, *e, cg)) {
      handles.insert(*name);
      declarations[k] = *e - 1;
    }
    k = *e;
  }
}

bool is_block_barrier(const Tokens& t, std::size_t k, std::size_t e, const std::set<std::string>& handles,
                      const std::set<std::string>& cg) {
  if (e - k == 4 && t[k].is_identifier("__syncthreads") && t[k + 1].is_punct("(") && t[k + 2].is_punct(")") &&
      t[k + 3].is_punct(";"))
    return true;
  const auto is_handle = [&](std::size_t j) { return t[j].is_identifier() && handles.contains(std::string(t[j].text)); };
  // H.sync();
  if (e - k == 6 && is_handle(k) && t[k + 1].is_punct(".") && t[k + 2].is_identifier("sync") && t[k + 3].is_punct("(") &&
      t[k + 4].is_punct(")") && t[k + 5].is_punct(";"))
    return true;
  // NS::sync(H);
  const auto call = cg_qualifier(t, k, e, cg);
  return call && *call + 5 == e && t[*call].is_identifier("sync") && t[*call + 1].is_punct("(") && is_handle(*call + 2) &&
         t[*call + 3].is_punct(")") && t[*call + 4].is_punct(";");
}

bool holds_block_barrier(const Tokens& t, std::size_t k, std::size_t e, const std::set<std::string>& handles) {
  for (std::string_view barrier : {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})
    if (used_in(t, k, e, barrier)) return true;
  for (const std::string& h : handles)
    if (used_in(t, k, e, h)) return true;
  return false;
}

bool jump_escapes(const Tokens& t, std::size_t begin, std::size_t end, bool break_bound) {
  for (std::size_t k = begin; k < end; ++k) {
    if (t[k].is_identifier("for") || t[k].is_identifier("while") || t[k].is_identifier("do")) {
      const auto e = statement_end(t, k, end);
      if (!e) return true;
      k = *e - 1;
    } else if (t[k].is_identifier("switch")) {
      const auto e = statement_end(t, k, end);
      if (!e || jump_escapes(t, k + 1, *e, true)) return true;
      k = *e - 1;
    } else if (t[k].is_identifier("continue") || (t[k].is_identifier("break") && !break_bound)) {
      return true;
    }
  }
  return false;
}

void referenced_names(const Tokens& t, std::size_t begin, std::size_t end, std::set<std::string, std::less<>>& whole,
                      std::set<std::string, std::less<>>& element) {
  for (std::size_t k = begin + 1; k + 2 < end; ++k) {
    const Token& before = t[k - 1];
    const bool declarator = t[k].is_punct("&") && t[k + 1].is_identifier() &&
                            (t[k + 2].is_punct("=") || t[k + 2].is_punct("(") || t[k + 2].is_punct("{")) &&
                            (before.is_identifier() || before.is_punct(">") || before.is_punct("*") || before.is_punct("&"));
    if (!declarator) continue;
    for (std::size_t j = k + 2; j < end && !t[j].is_punct(";"); ++j) {
      if (!t[j].is_identifier() || !is_variable_use(t, j, t[j].text)) continue;
      const Token& next = t[j + 1];
      if (next.is_punct("(") || (next.is_punct("-") && t[j + 2].is_punct(">"))) continue;  // a call, a pointee
      // `x[i]`: an element of x, or for a pointer what it points to.
      (next.is_punct("[") ? element : whole).insert(std::string(t[j].text));
    }
  }
}

}  // namespace minicuda::cu2cxx::fission
