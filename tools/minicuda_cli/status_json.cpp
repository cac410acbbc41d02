// The JSON reader of status_json.h: recursive descent over the text, depth-limited, no exceptions.
#include "status_json.h"

#include <cmath>
#include <cstdlib>

namespace minicuda::cli {

namespace {

struct Reader {
  std::string_view s;
  size_t pos = 0;

  void space() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) ++pos;
  }
  bool take(char c) {
    space();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s.substr(pos, w.size()) != w) return false;
    pos += w.size();
    return true;
  }

  bool string(std::string* out) {
    if (!take('"')) return false;
    while (pos < s.size()) {
      char c = s[pos++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos >= s.size()) return false;
      char e = s[pos++];
      switch (e) {
        case '"': case '\\': case '/': *out += e; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          if (pos + 4 > s.size()) return false;
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            char h = s[pos++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned>(h - 'A' + 10);
            else return false;
          }
          *out += code < 0x80 ? static_cast<char>(code) : '?';  // names here are ASCII
          break;
        }
        default: return false;
      }
    }
    return false;  // cut short inside the string
  }

  bool number(double* out) {
    size_t start = pos;
    if (pos < s.size() && s[pos] == '-') ++pos;
    while (pos < s.size() && ((s[pos] >= '0' && s[pos] <= '9') || s[pos] == '.' || s[pos] == 'e' || s[pos] == 'E' ||
                              s[pos] == '+' || s[pos] == '-'))
      ++pos;
    if (pos == start) return false;
    std::string digits(s.substr(start, pos - start));
    char* end = nullptr;
    *out = std::strtod(digits.c_str(), &end);
    return end == digits.c_str() + digits.size() && std::isfinite(*out);
  }

  bool value(JsonValue* v, int depth) {
    if (depth > kMaxJsonDepth) return false;
    space();
    if (pos >= s.size()) return false;
    char c = s[pos];
    if (c == '{') {
      ++pos;
      v->kind = JsonValue::Kind::Object;
      if (take('}')) return true;
      do {
        std::string key;
        if (!string(&key) || !take(':')) return false;
        JsonValue member;
        if (!value(&member, depth + 1)) return false;
        v->members[key] = std::move(member);
      } while (take(','));
      return take('}');
    }
    if (c == '[') {
      ++pos;
      v->kind = JsonValue::Kind::Array;
      if (take(']')) return true;
      do {
        JsonValue item;
        if (!value(&item, depth + 1)) return false;
        v->items.push_back(std::move(item));
      } while (take(','));
      return take(']');
    }
    if (c == '"') {
      v->kind = JsonValue::Kind::String;
      return string(&v->text);
    }
    if (word("true") || word("false")) {
      v->kind = JsonValue::Kind::Bool;
      v->boolean = s[pos - 1] == 'e' && s[pos - 2] == 'u';
      return true;
    }
    if (word("null")) return true;
    v->kind = JsonValue::Kind::Number;
    return number(&v->number);
  }
};

}  // namespace

const JsonValue* JsonValue::get(const std::string& key) const {
  if (kind != Kind::Object) return nullptr;
  auto it = members.find(key);
  return it == members.end() ? nullptr : &it->second;
}

std::optional<std::string> JsonValue::string_at(const std::string& key) const {
  const JsonValue* v = get(key);
  if (v == nullptr || v->kind != Kind::String) return std::nullopt;
  return v->text;
}

std::optional<unsigned long long> JsonValue::integer_at(const std::string& key) const {
  const JsonValue* v = get(key);
  if (v == nullptr || v->kind != Kind::Number || v->number < 0 || v->number > 1.8e19 ||
      v->number != std::floor(v->number))
    return std::nullopt;
  return static_cast<unsigned long long>(v->number);
}

const std::vector<JsonValue>* JsonValue::array_at(const std::string& key) const {
  const JsonValue* v = get(key);
  return v != nullptr && v->kind == Kind::Array ? &v->items : nullptr;
}

std::optional<JsonValue> parse_json(std::string_view text) {
  Reader r{text};
  JsonValue v;
  if (!r.value(&v, 0)) return std::nullopt;
  r.space();
  if (r.pos != text.size()) return std::nullopt;
  return v;
}

}  // namespace minicuda::cli
