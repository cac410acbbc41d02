// cu2cxx: locating preprocessor directives. Contract: directives.h.
#include "directives.h"

#include <algorithm>
#include <cctype>

namespace minicuda::cu2cxx {

std::vector<Directive> scan_directives(std::string_view s) {
  std::vector<Directive> out;
  std::size_t i = 0;
  bool line_start = true;  // only blanks since the last newline (outside comments)
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '#' && line_start) {
      const std::size_t begin = s.rfind('\n', i) == std::string_view::npos ? 0 : s.rfind('\n', i) + 1;
      std::size_t end = s.find('\n', i);
      while (end != std::string_view::npos && end > i && s[end - 1] == '\\') end = s.find('\n', end + 1);
      if (end == std::string_view::npos) end = s.size();
      std::string_view text = s.substr(i + 1, end - i - 1);
      text.remove_prefix(std::min(text.size(), text.find_first_not_of(" \t")));
      std::size_t name_end = 0;
      while (name_end < text.size() && (std::isalnum(static_cast<unsigned char>(text[name_end])) || text[name_end] == '_'))
        ++name_end;
      std::string_view rest = text.substr(name_end);
      rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
      out.push_back(Directive{begin, end, text.substr(0, name_end), rest});
      i = end;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string_view::npos) i = s.size();
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
    } else if (c == '"' || c == '\'') {
      line_start = false;
      std::size_t k = i + 1;
      while (k < s.size() && s[k] != c && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
      i = k + 1;
    } else {
      line_start = false;
      ++i;
    }
  }
  return out;
}

std::vector<std::size_t> conditional_group_ends(const std::vector<Directive>& directives) {
  std::vector<std::size_t> closes(directives.size(), directives.size());
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < directives.size(); ++i) {
    const std::string_view n = directives[i].name;
    if (n == "if" || n == "ifdef" || n == "ifndef") {
      open.push_back(i);
    } else if (n == "endif" && !open.empty()) {
      closes[open.back()] = i;
      open.pop_back();
    }
  }
  return closes;
}

}  // namespace minicuda::cu2cxx
