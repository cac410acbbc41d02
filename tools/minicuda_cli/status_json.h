// A small JSON reader for the status files that running programs publish (minicuda smi,
// minicuda/gpu_status.h). The files come from other processes and may be cut short, stale or
// not JSON at all: parse() never throws and never recurses deeper than kMaxDepth; it returns
// nullopt for anything that is not one complete JSON value.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace minicuda::cli {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;                 // Array
  std::map<std::string, JsonValue> members;     // Object

  // The member `key` of an object, or null when this is not an object or has no such member.
  const JsonValue* get(const std::string& key) const;
  // A member of the kind asked, else nullopt; integer() also refuses fractions and negatives.
  std::optional<std::string> string_at(const std::string& key) const;
  std::optional<unsigned long long> integer_at(const std::string& key) const;
  const std::vector<JsonValue>* array_at(const std::string& key) const;
};

inline constexpr int kMaxJsonDepth = 16;

// One JSON value filling `text` (white space around it allowed), or nullopt.
std::optional<JsonValue> parse_json(std::string_view text);

}  // namespace minicuda::cli
