// A small JSON reader for tests that check files minicuda writes (the Chrome trace): the whole
// grammar of RFC 8259 (objects, arrays, strings with escapes, numbers, true/false/null), no
// extensions. parse() returns nullopt on anything that is not exactly one JSON value, so a test
// can assert that a file is valid JSON as well as look inside it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::testing::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;      // String: the decoded string; Number: its spelling in the file
  std::vector<Value> items;                // Array
  std::map<std::string, Value> members;    // Object

  bool has(const std::string& key) const { return type == Type::Object && members.count(key) != 0; }
  const Value& operator[](const std::string& key) const { return members.at(key); }
};

namespace detail {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<Value> document() {
    std::optional<Value> v = value();
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

  std::optional<Value> value() {
    space();
    if (pos_ >= s_.size()) return std::nullopt;
    Value v;
    const char c = s_[pos_];
    if (c == '{') return object();
    if (c == '[') return array();
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
    return v;
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
          const std::string hex(s_.substr(pos_, 4));
          char* end = nullptr;
          const unsigned long code = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) return false;
          pos_ += 4;
          if (code < 0x80) {
            out->push_back(static_cast<char>(code));
          } else {
            out->append("\xEF\xBF\xBD");  // tests only need to know the string was well formed
          }
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  std::optional<Value> array() {
    ++pos_;
    Value v;
    v.type = Value::Type::Array;
    if (eat(']')) return v;
    do {
      std::optional<Value> item = value();
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
    } while (eat(','));
    if (!eat(']')) return std::nullopt;
    return v;
  }

  std::optional<Value> object() {
    ++pos_;
    Value v;
    v.type = Value::Type::Object;
    if (eat('}')) return v;
    do {
      space();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"' || !string(&key)) return std::nullopt;
      if (!eat(':')) return std::nullopt;
      std::optional<Value> member = value();
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

// The value s holds, or nullopt if s is not exactly one JSON value (whitespace around it aside).
inline std::optional<Value> parse(std::string_view s) { return detail::Parser(s).document(); }

}  // namespace minicuda::testing::json
