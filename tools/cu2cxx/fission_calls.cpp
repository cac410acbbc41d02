// cu2cxx region fission: the planner's check of the calls in a kernel's body - only device
// built-ins and functions of the file that reach no barrier may run inside a region.
#include "fission_planner.h"

namespace minicuda::cu2cxx::fission {

std::optional<std::string> Planner::check_calls(std::size_t begin, std::size_t end, bool record) {
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
    if (is_non_call_keyword(name) || name == "__syncthreads" || barrier_reduction_op(name) >= 0)
      continue;  // barriers: the seams (a reduction anywhere but as a statement of its own keeps fibers)
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

bool Planner::barrier_free(const std::string& name) {
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

}  // namespace minicuda::cu2cxx::fission
