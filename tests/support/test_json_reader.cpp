// minicuda::json::parse (support/include/minicuda/json_reader.h), the reader of the files
// minicuda writes and reads back: exactly one RFC 8259 value, or nullopt - never a throw, never
// deeper than kMaxDepth.
#include "minicuda/json_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace minicuda::json {
namespace {

TEST(JsonReader, ReadsEveryKindOfValue) {
  std::optional<Value> v = parse(R"( {"a": [1, -2.5e3, 0.125], "s": "x\"\\\/\n\u00e9\u4e2d", "t": true,
                                      "f": false, "n": null, "o": {}} )");
  ASSERT_TRUE(v.has_value());
  ASSERT_EQ(v->type, Value::Type::Object);
  const std::vector<Value>* a = v->array_at("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->size(), 3u);
  EXPECT_EQ((*a)[0].number, 1);
  EXPECT_EQ((*a)[1].number, -2500);
  EXPECT_EQ((*a)[1].text, "-2.5e3");  // a number keeps its spelling
  EXPECT_EQ((*a)[2].number, 0.125);
  EXPECT_EQ(v->string_at("s"), "x\"\\/\n\xc3\xa9\xe4\xb8\xad");  // \u escapes as UTF-8
  EXPECT_TRUE((*v)["t"].boolean);
  EXPECT_EQ((*v)["f"].type, Value::Type::Bool);
  EXPECT_FALSE((*v)["f"].boolean);
  EXPECT_EQ((*v)["n"].type, Value::Type::Null);
  EXPECT_TRUE(v->has("o"));
  EXPECT_FALSE(v->has("missing"));
  EXPECT_EQ(v->get("missing"), nullptr);
}

TEST(JsonReader, TypedMembersRefuseTheWrongKind) {
  std::optional<Value> v = parse(R"({"n": 42, "big": 1e300, "neg": -1, "half": 0.5, "s": "42"})");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->integer_at("n"), 42u);
  EXPECT_EQ(v->number_at("half"), 0.5);
  EXPECT_EQ(v->integer_at("half"), std::nullopt);  // a fraction
  EXPECT_EQ(v->integer_at("neg"), std::nullopt);
  EXPECT_EQ(v->integer_at("big"), std::nullopt);
  EXPECT_EQ(v->integer_at("s"), std::nullopt);  // a string is not a number
  EXPECT_EQ(v->string_at("n"), std::nullopt);
  EXPECT_EQ(v->array_at("n"), nullptr);
  EXPECT_EQ(parse("[1]")->integer_at("n"), std::nullopt);  // not an object
}

TEST(JsonReader, RefusesAnythingButOneCompleteValue) {
  for (const char* bad : {"", "   ", "{", "{\"a\":1", "{\"a\":1}}", "[1,]", "[1 2]", "{\"a\" 1}", "{a:1}", "01",
                          "1.", ".5", "-", "1e", "+1", "1e999", "tru", "nul", "\"abc", "\"a\nb\"", "\"\\x\"",
                          "\"\\u12g4\"", "'a'", "[1] [2]", "NaN", "Infinity"}) {
    EXPECT_EQ(parse(bad), std::nullopt) << bad;
  }
}

TEST(JsonReader, NestingDeeperThanTheLimitIsRefused) {
  const std::string ok = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  const std::string deep = std::string(kMaxDepth + 2, '[') + std::string(kMaxDepth + 2, ']');
  EXPECT_TRUE(parse(ok).has_value());
  EXPECT_EQ(parse(deep), std::nullopt);
  EXPECT_EQ(parse(std::string(100000, '[')), std::nullopt);  // no stack overflow
}

}  // namespace
}  // namespace minicuda::json
