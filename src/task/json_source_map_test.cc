#include "task/json_source_map.h"

#include <gtest/gtest.h>

namespace d2k::task {
namespace {

void expect_at(const JsonSourceMap& map, std::string_view path, int line, int column) {
  const TextPosition at = map.find(path);
  EXPECT_EQ(at.line, line) << path;
  EXPECT_EQ(at.column, column) << path;
}

TEST(JsonSourceMapTest, LocatesNestedValues) {
  const JsonSourceMap map(
      "{\n"
      "  \"a\": {\"b\": [1, \"x\\\"]\", {\"c\": null}]},\n"
      "  \"d\": true\n"
      "}\n");
  expect_at(map, "", 1, 1);
  expect_at(map, "a", 2, 8);
  expect_at(map, "a.b", 2, 14);
  expect_at(map, "a.b[0]", 2, 15);
  expect_at(map, "a.b[1]", 2, 18);
  expect_at(map, "a.b[2].c", 2, 32);
  expect_at(map, "d", 3, 8);
}

TEST(JsonSourceMapTest, MissingPathFallsBackToEnclosingValue) {
  const JsonSourceMap map("{\n  \"tolerance\": {\n    \"atol\": 1\n  }\n}");
  expect_at(map, "tolerance.rel_norm_rtol", 2, 16);
  expect_at(map, "workloads[3].label", 1, 1);
}

TEST(JsonSourceMapTest, KeysWithEscapesAreDecoded) {
  const JsonSourceMap map("{\"a\\u0062\": 1}");
  expect_at(map, "ab", 1, 13);
}

TEST(JsonSourceMapTest, ColumnsCountCharactersNotBytes) {
  const JsonSourceMap map("{\"note\": \"\xC3\xA9\xC3\xA9\", \"x\": 2}");
  expect_at(map, "x", 1, 21);
}

TEST(TextPositionTest, CountsLinesFromOne) {
  EXPECT_EQ(text_position("ab\ncd", 0).line, 1);
  EXPECT_EQ(text_position("ab\ncd", 4).line, 2);
  EXPECT_EQ(text_position("ab\ncd", 4).column, 2);
  EXPECT_EQ(text_position("ab\ncd", 99).column, 3);
}

}  // namespace
}  // namespace d2k::task
