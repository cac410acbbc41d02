// A small JSON reader for files minicuda writes and then reads back: the Chrome trace
// (`minicuda profile`, `minicuda smi -- PROGRAM`, the tests), the status files running programs
// publish (`minicuda smi`). Such a file may come from another process and be cut short, stale or
// not JSON at all, so parse() accepts exactly RFC 8259 (objects, arrays, strings with escapes,
// numbers, true/false/null, no extensions), never throws, never nests deeper than kMaxDepth, and
// returns nullopt for anything that is not exactly one JSON value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;                      // String: the decoded string; Number: its spelling in the file
  std::vector<Value> items;              // Array
  std::map<std::string, Value> members;  // Object

  bool has(const std::string& key) const { return type == Type::Object && members.count(key) != 0; }
  // The member `key` of an object; it must be there (has()).
  const Value& operator[](const std::string& key) const { return members.at(key); }
  // The member `key` of an object, or null when this is not an object or has no such member.
  const Value* get(const std::string& key) const {
    if (type != Type::Object) return nullptr;
    auto it = members.find(key);
    return it == members.end() ? nullptr : &it->second;
  }
  // A member of the type asked, else nullopt; integer_at also refuses fractions and negatives.
  std::optional<std::string> string_at(const std::string& key) const {
    const Value* v = get(key);
    if (v == nullptr || v->type != Type::String) return std::nullopt;
    return v->text;
  }
  std::optional<double> number_at(const std::string& key) const {
    const Value* v = get(key);
    if (v == nullptr || v->type != Type::Number) return std::nullopt;
    return v->number;
  }
  std::optional<unsigned long long> integer_at(const std::string& key) const {
    const std::optional<double> n = number_at(key);
    if (!n || *n < 0 || *n > 1.8e19 || *n != std::floor(*n)) return std::nullopt;
    return static_cast<unsigned long long>(*n);
  }
  const std::vector<Value>* array_at(const std::string& key) const {
    const Value* v = get(key);
    return v != nullptr && v->type == Type::Array ? &v->items : nullptr;
  }
};

inline constexpr int kMaxDepth = 16;

namespace detail {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<Value> document() {
    std::optional<Value> v = value(0);
    space();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  std::optional<Value> value(int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    space();
    if (pos_ >= s_.size()) return std::nullopt;
    Value v;
    const char c = s_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') {
      v.type = Value::Type::String;
      if (!string(&v.text)) return std::nullopt;
      return v;
    }
    if (word("true") || word("false")) {
      v.type = Value::Type::Bool;
      v.boolean = c == 't';
      return v;
    }
    if (word("null")) return v;
    return number();
  }

  std::optional<Value> number() {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_, ++n;
      return n;
    };
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return std::nullopt;
    }
    if (pos_ < s_.size() && s_[pos_] == '.' && (++pos_, digits() == 0)) return std::nullopt;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return std::nullopt;
    }
    Value v;
    v.type = Value::Type::Number;
    v.text = std::string(s_.substr(start, pos_ - start));
    v.number = std::strtod(v.text.c_str(), nullptr);
    if (!std::isfinite(v.number)) return std::nullopt;  // 1e999: no double holds it
    return v;
  }

  // Appends code point `code` (U+0000..U+FFFF) as UTF-8; a lone surrogate becomes U+FFFD.
  static void utf8(unsigned long code, std::string* out) {
    if (code >= 0xD800 && code <= 0xDFFF) code = 0xFFFD;
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  bool string(std::string* out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;  // control characters must be escaped
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) return false;
      switch (const char e = s_[pos_++]) {
        case '"': case '\\': case '/': out->push_back(e); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return false;
          unsigned long code = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = s_[pos_++];
            code <<= 4;
            if (h >= '0' && h <= '9') code |= static_cast<unsigned long>(h - '0');
            else if (h >= 'a' && h <= 'f') code |= static_cast<unsigned long>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') code |= static_cast<unsigned long>(h - 'A' + 10);
            else return false;
          }
          utf8(code, out);
          break;
        }
        default: return false;
      }
    }
    return false;  // cut short inside the string
  }

  std::optional<Value> array(int depth) {
    ++pos_;
    Value v;
    v.type = Value::Type::Array;
    if (eat(']')) return v;
    do {
      std::optional<Value> item = value(depth + 1);
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
    } while (eat(','));
    if (!eat(']')) return std::nullopt;
    return v;
  }

  std::optional<Value> object(int depth) {
    ++pos_;
    Value v;
    v.type = Value::Type::Object;
    if (eat('}')) return v;
    do {
      space();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"' || !string(&key)) return std::nullopt;
      if (!eat(':')) return std::nullopt;
      std::optional<Value> member = value(depth + 1);
      if (!member) return std::nullopt;
      v.members[key] = std::move(*member);
    } while (eat(','));
    if (!eat('}')) return std::nullopt;
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace detail

// The value s holds, or nullopt if s is not exactly one JSON value (white space around it aside).
inline std::optional<Value> parse(std::string_view s) { return detail::Parser(s).document(); }

}  // namespace minicuda::json
