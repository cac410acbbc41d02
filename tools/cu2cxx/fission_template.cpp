// cu2cxx region fission: the head of a template kernel (read_kernel_template_head,
// fission_plan.h). A template kernel is split only when every template parameter is a named
// non-type parameter: its names are compile-time constants of the instantiation, the same in
// every thread and region, so they count as constants in what the regions recompute and in
// loop headers. Anything else makes the kernel keep its fibers, with the reason.
#include "fission_plan.h"

namespace minicuda::cu2cxx::fission {

std::optional<std::string> read_kernel_template_head(const FileContext& file, const KernelSite& kernel,
                                                     TemplateHead& head) {
  const Tokens& t = file.tokens;
  const auto at_line = [&](std::size_t k) { return " (line " + std::to_string(file.line_at(t[k].begin)) + ")"; };
  const std::size_t kw = kernel.template_keyword, open = kw + 1;
  const auto close = t[open].is_punct("<") ? matching_angle_close(t, open, kernel.name) : std::nullopt;
  if (!close) return "cu2cxx cannot read the template head" + at_line(kw);
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t k = open + 1;
  while (k < *close) {
    std::size_t e = k, name = kNone;
    int angles = 0;
    for (; e < *close; ++e) {
      const Token& token = t[e];
      if (token.is_punct("(") || token.is_punct("[") || token.is_punct("{")) {
        e = *matching_close(t, e);
      } else if (token.is_punct("<")) {
        ++angles;
      } else if (token.is_punct(">")) {
        --angles;
      } else if (token.is_punct(",") && angles == 0) {
        break;
      } else if (token.is_punct("=") && angles == 0) {
        // The block function's declaration repeats the head, and a default may appear once.
        return "a template parameter of the kernel has a default argument" + at_line(e);
      } else if (token.is_punct(".")) {
        return "the kernel template has a parameter pack" + at_line(e);
      } else if (token.is_identifier() && angles == 0) {
        name = e;
      }
    }
    const bool named = name != kNone && name + 1 == e && name > k && !is_type_keyword(t[name].text) &&
                       !t[name].is_identifier("class") && !t[name].is_identifier("typename");
    if (!named) return "a template parameter of the kernel has no name" + at_line(k);
    // A type parameter could be a class whose operators and constructors are code that cu2cxx
    // cannot see (a barrier, or a side effect that a loop header would run once per block).
    if (t[k].is_identifier("typename") || t[k].is_identifier("class") || t[k].is_identifier("template"))
      return "the kernel template has a type parameter " + std::string(t[name].text) + at_line(k);
    head.names.emplace_back(t[name].text);
    head.arguments.append(head.arguments.empty() ? "" : ", ").append(t[name].text);
    k = e + 1;
  }
  // The declaration repeats the kernel's parameters too.
  for (std::size_t j = kernel.params_open + 1; j < kernel.params_close; ++j)
    if (t[j].is_punct("=")) return "a parameter of the template kernel has a default argument" + at_line(j);
  head.head = joined(t, kw, *close + 1);
  return std::nullopt;
}

}  // namespace minicuda::cu2cxx::fission
