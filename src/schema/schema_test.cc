#include "schema/schema.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "schema/schema_error.h"

namespace d2k::schema {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The violations of `instance`, each as "pointer: message".
std::vector<std::string> problems(const json& schema, const json& instance) {
  std::vector<std::string> lines;
  for (const Violation& violation : Schema(schema).validate(instance)) {
    lines.push_back(violation.to_string());
  }
  return lines;
}

bool valid(const json& schema, const json& instance) {
  return Schema(schema).validate(instance).empty();
}

// The error loading `schema` raises; fails the test when it loads.
SchemaError load_error(const json& schema) {
  try {
    const Schema loaded(schema);
  } catch (const SchemaError& error) {
    return error;
  }
  ADD_FAILURE() << "loaded: " << schema.dump();
  return SchemaError("", "", "");
}

TEST(SchemaTest, TypeAcceptsOnlyItsTypes) {
  EXPECT_TRUE(valid({{"type", "object"}}, json::object()));
  EXPECT_TRUE(valid({{"type", "array"}}, json::array()));
  EXPECT_TRUE(valid({{"type", "string"}}, "x"));
  EXPECT_TRUE(valid({{"type", "boolean"}}, false));
  EXPECT_TRUE(valid({{"type", "null"}}, nullptr));
  EXPECT_TRUE(valid({{"type", "number"}}, 1.5));
  EXPECT_TRUE(valid({{"type", "number"}}, 2));
  EXPECT_EQ(problems({{"type", "object"}}, json::array()),
            std::vector<std::string>{"(document): is array, expected object"});
  EXPECT_FALSE(valid({{"type", "string"}}, 1));
  EXPECT_FALSE(valid({{"type", "boolean"}}, 0));
  EXPECT_FALSE(valid({{"type", "null"}}, false));
  EXPECT_FALSE(valid({{"type", "number"}}, "1"));
}

TEST(SchemaTest, IntegerIsANumberWithoutFractionalPart) {
  const json schema = {{"type", "integer"}};
  EXPECT_TRUE(valid(schema, 3));
  EXPECT_TRUE(valid(schema, -3));
  EXPECT_TRUE(valid(schema, json::parse("1.0")));
  EXPECT_TRUE(valid(schema, json::parse("1e2")));
  EXPECT_EQ(problems(schema, 1.5),
            std::vector<std::string>{"(document): is number, expected integer"});
  EXPECT_FALSE(valid(schema, "1"));
}

TEST(SchemaTest, TypeListAcceptsAnyOfItsTypes) {
  const json schema = {{"type", {"string", "null"}}};
  EXPECT_TRUE(valid(schema, "x"));
  EXPECT_TRUE(valid(schema, nullptr));
  EXPECT_EQ(problems(schema, 0),
            std::vector<std::string>{"(document): is integer, expected string or null"});
}

TEST(SchemaTest, PropertiesApplyToTheirValuesOnly) {
  const json schema = {{"properties", {{"a", {{"type", "string"}}}}}};
  EXPECT_TRUE(valid(schema, {{"a", "x"}}));
  EXPECT_TRUE(valid(schema, {{"b", 1}}));
  EXPECT_TRUE(valid(schema, "not an object"));
  EXPECT_EQ(problems(schema, {{"a", 1}}),
            std::vector<std::string>{"/a: is integer, expected string"});
}

TEST(SchemaTest, RequiredNamesEveryMissingProperty) {
  const json schema = {{"required", {"a", "b"}}};
  EXPECT_TRUE(valid(schema, {{"a", 1}, {"b", nullptr}}));
  EXPECT_TRUE(valid(schema, json::array()));
  EXPECT_EQ(problems(schema, json::object()),
            (std::vector<std::string>{"(document): lacks required property 'a'",
                                      "(document): lacks required property 'b'"}));
}

TEST(SchemaTest, AdditionalPropertiesFalseRejectsUndeclaredOnes) {
  const json schema = {{"properties", {{"a", true}}}, {"additionalProperties", false}};
  EXPECT_TRUE(valid(schema, {{"a", 1}}));
  EXPECT_EQ(problems(schema, {{"a", 1}, {"b/c", 2}}),
            std::vector<std::string>{
                "/b~1c: is not an allowed property (additionalProperties is false)"});
}

TEST(SchemaTest, AdditionalPropertiesSchemaAppliesToUndeclaredOnes) {
  const json schema = {{"properties", {{"a", true}}},
                       {"additionalProperties", {{"type", "number"}}}};
  EXPECT_TRUE(valid(schema, {{"a", "x"}, {"b", 1}}));
  EXPECT_EQ(problems(schema, {{"a", "x"}, {"b", "y"}}),
            std::vector<std::string>{"/b: is string, expected number"});
}

TEST(SchemaTest, ItemsApplyToEveryElement) {
  const json schema = {{"items", {{"type", "integer"}}}};
  EXPECT_TRUE(valid(schema, {1, 2}));
  EXPECT_TRUE(valid(schema, "not an array"));
  EXPECT_EQ(problems(schema, {1, "x", 3, "y"}),
            (std::vector<std::string>{"/1: is string, expected integer",
                                      "/3: is string, expected integer"}));
  EXPECT_TRUE(valid({{"items", false}}, json::array()));
  EXPECT_FALSE(valid({{"items", false}}, {1}));
}

TEST(SchemaTest, ItemCountsAreBounded) {
  const json schema = {{"minItems", 1}, {"maxItems", 2}};
  EXPECT_TRUE(valid(schema, {1}));
  EXPECT_TRUE(valid(schema, {1, 2}));
  EXPECT_EQ(problems(schema, json::array()),
            std::vector<std::string>{"(document): has 0 items, fewer than minItems 1"});
  EXPECT_EQ(problems(schema, {1, 2, 3}),
            std::vector<std::string>{"(document): has 3 items, more than maxItems 2"});
  EXPECT_TRUE(valid(schema, "not an array"));
}

TEST(SchemaTest, LengthsCountCodePointsNotBytes) {
  const json schema = {{"minLength", 3}, {"maxLength", 4}};
  EXPECT_TRUE(valid(schema, "abc"));
  EXPECT_TRUE(valid(schema, "h\xC3\xA9\xC3\xA9"));         // "héé": 5 bytes, 3 code points
  EXPECT_TRUE(valid(schema, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"));  // "日本語": 9 bytes
  // "😀😀": 8 bytes and 4 UTF-16 units, but 2 code points.
  EXPECT_EQ(problems(schema, "\xF0\x9F\x98\x80\xF0\x9F\x98\x80"),
            std::vector<std::string>{
                "(document): is 2 characters long, shorter than minLength 3"});
  EXPECT_EQ(problems(schema, "abcde"),
            std::vector<std::string>{"(document): is 5 characters long, longer than maxLength 4"});
  EXPECT_TRUE(valid(schema, 12345));
}

TEST(SchemaTest, PatternSearchesAnywhereUnlessAnchored) {
  const json anchored = {{"pattern", "^[a-z][a-z0-9_]*$"}};
  EXPECT_TRUE(valid(anchored, "stage_1"));
  EXPECT_EQ(problems(anchored, "Stage-1"),
            std::vector<std::string>{"(document): does not match pattern ^[a-z][a-z0-9_]*$"});
  EXPECT_FALSE(valid(anchored, "stage\n"));
  EXPECT_TRUE(valid(anchored, 5));
  EXPECT_TRUE(valid({{"pattern", "b+"}}, "abc"));
  EXPECT_FALSE(valid({{"pattern", "b+"}}, "ac"));
}

TEST(SchemaTest, PatternMatchesCodePoints) {
  EXPECT_TRUE(valid({{"pattern", "^.$"}}, "\xF0\x9F\x98\x80"));  // one code point, four bytes
  EXPECT_TRUE(valid({{"pattern", "^[\\u00e0-\\u00ff]+$"}}, "\xC3\xA0\xC3\xA9"));  // "àé"
  EXPECT_FALSE(valid({{"pattern", "^\\w+$"}}, "\xC3\xA9"));  // \w is ASCII in ECMA-262
}

TEST(SchemaTest, PatternSurvivesLongStrings) {
  // The default depth-first std::regex matcher overflows the stack on strings this long.
  EXPECT_TRUE(valid({{"pattern", "^[a-z][a-z0-9_]*$"}}, std::string(1'000'000, 'a')));
}

TEST(SchemaTest, EnumComparesJsonValues) {
  const json schema = {{"enum", {"a", 1, nullptr, {{"k", {1, 2}}}}}};
  EXPECT_TRUE(valid(schema, "a"));
  EXPECT_TRUE(valid(schema, json::parse("1.0")));
  EXPECT_TRUE(valid(schema, nullptr));
  EXPECT_TRUE(valid(schema, {{"k", {1, 2}}}));
  EXPECT_FALSE(valid(schema, {{"k", {2, 1}}}));
  EXPECT_FALSE(valid(schema, false));
  EXPECT_EQ(problems({{"enum", {"a", "b"}}}, "c"),
            std::vector<std::string>{"(document): is not one of [\"a\",\"b\"]"});
}

TEST(SchemaTest, ConstRequiresEqualValue) {
  const json schema = {{"const", {{"a", {1, "x"}}}}};
  EXPECT_TRUE(valid(schema, json::parse(R"({"a": [1.0, "x"]})")));
  EXPECT_EQ(problems(schema, {{"a", {1}}}),
            std::vector<std::string>{"(document): is not {\"a\":[1,\"x\"]}"});
  EXPECT_FALSE(valid({{"const", 0}}, false));
  EXPECT_TRUE(valid({{"const", 0}}, json::parse("-0.0")));
}

TEST(SchemaTest, NumericBoundsAreInclusiveOrExclusive) {
  const json inclusive = {{"minimum", 1}, {"maximum", 10}};
  EXPECT_TRUE(valid(inclusive, 1));
  EXPECT_TRUE(valid(inclusive, 10.0));
  EXPECT_EQ(problems(inclusive, 0.5),
            std::vector<std::string>{"(document): is 0.5, less than minimum 1"});
  EXPECT_EQ(problems(inclusive, 11),
            std::vector<std::string>{"(document): is 11, greater than maximum 10"});
  const json exclusive = {{"exclusiveMinimum", 0}, {"exclusiveMaximum", 1}};
  EXPECT_TRUE(valid(exclusive, 0.5));
  EXPECT_EQ(problems(exclusive, 0),
            std::vector<std::string>{"(document): is 0, not greater than exclusiveMinimum 0"});
  EXPECT_EQ(problems(exclusive, 1),
            std::vector<std::string>{"(document): is 1, not less than exclusiveMaximum 1"});
  EXPECT_TRUE(valid(exclusive, "2"));
}

TEST(SchemaTest, LargeIntegersCompareExactly) {
  // 2^53 + 1 is not a double; compared as doubles it would equal the bound.
  EXPECT_FALSE(valid({{"maximum", 9007199254740992LL}}, 9007199254740993LL));
  EXPECT_TRUE(valid({{"minimum", -1}}, 18446744073709551615ULL));
}

TEST(SchemaTest, RefReachesDefsAndAppliesWithItsSiblings) {
  const json schema = {
      {"$defs", {{"short", {{"type", "string"}, {"maxLength", 3}}}}},
      {"properties", {{"code", {{"$ref", "#/$defs/short"}, {"minLength", 2}}}}}};
  EXPECT_TRUE(valid(schema, {{"code", "ab"}}));
  EXPECT_EQ(problems(schema, {{"code", "abcd"}}),
            std::vector<std::string>{"/code: is 4 characters long, longer than maxLength 3"});
  EXPECT_EQ(problems(schema, {{"code", "a"}}),
            std::vector<std::string>{"/code: is 1 characters long, shorter than minLength 2"});
}

TEST(SchemaTest, RefMayRecurse) {
  const json schema = json::parse(R"({
    "$defs": {"node": {"type": "object", "required": ["value"],
                       "properties": {"children": {"items": {"$ref": "#/$defs/node"}}}}},
    "$ref": "#/$defs/node"})");
  EXPECT_TRUE(valid(schema, json::parse(R"({"value": 1, "children": [{"value": 2}]})")));
  EXPECT_EQ(problems(schema, json::parse(R"({"value": 1, "children": [{"value": 2,
                                             "children": [{}]}]})")),
            std::vector<std::string>{"/children/0/children/0: lacks required property 'value'"});
}

TEST(SchemaTest, BooleanSchemas) {
  EXPECT_TRUE(valid(true, {{"anything", {1, nullptr}}}));
  EXPECT_EQ(problems(false, 1),
            std::vector<std::string>{"(document): is not allowed here (the schema is false)"});
  EXPECT_EQ(problems({{"properties", {{"x", false}}}}, {{"x", 1}}),
            std::vector<std::string>{"/x: is not allowed here (the schema is false)"});
}

TEST(SchemaTest, AnnotationsChangeNothing) {
  const json schema = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                       {"$id", "https://example.com/x"},
                       {"title", "A title"},
                       {"description", "A description"}};
  EXPECT_TRUE(valid(schema, 1));
  EXPECT_TRUE(valid(schema, json::object()));
}

TEST(SchemaTest, ReportsEveryViolationWithPointerKeywordAndSchemaLocation) {
  const json schema = json::parse(R"({
    "type": "object", "required": ["name", "stages"], "additionalProperties": false,
    "properties": {
      "name": {"type": "string", "minLength": 3},
      "stages": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["stage_id"],
        "properties": {"stage_id": {"type": "string", "pattern": "^[a-z]+$"}}}}}})");
  const auto violations = Schema(schema).validate(json::parse(R"({
    "name": "ab", "extra": 1,
    "stages": [{"stage_id": "ok"}, {"stage_id": "Bad"}, {}]})"));
  std::vector<std::string> described;
  for (const Violation& v : violations) {
    described.push_back(v.instance_pointer + " " + v.keyword + " " + v.schema_pointer);
  }
  EXPECT_THAT(described,
              ElementsAre("/extra additionalProperties /additionalProperties",
                          "/name minLength /properties/name/minLength",
                          "/stages/1/stage_id pattern /properties/stages/items/properties/"
                          "stage_id/pattern",
                          "/stages/2 required /properties/stages/items/required"));
  EXPECT_EQ(violations[2].to_string(), "/stages/1/stage_id: does not match pattern ^[a-z]+$");
}

TEST(SchemaTest, RefusesUnknownKeywordsNamingThem) {
  const SchemaError error = load_error({{"properties", {{"mail", {{"format", "email"}}}}}});
  EXPECT_EQ(error.pointer(), "/properties/mail/format");
  EXPECT_EQ(error.keyword(), "format");
  EXPECT_THAT(error.what(), HasSubstr("/properties/mail/format: format: unsupported keyword"));
  for (const char* keyword : {"prefixItems", "minProperties", "allOf", "uniqueItems",
                              "$comment", "unevaluatedProperties", "definitions", "default"}) {
    EXPECT_EQ(load_error({{"items", {{keyword, json::array()}}}}).pointer(),
              std::string("/items/") + keyword);
  }
}

TEST(SchemaTest, RefusesMalformedKeywordValues) {
  EXPECT_EQ(load_error({{"minLength", -1}}).keyword(), "minLength");
  EXPECT_EQ(load_error({{"maxItems", 1.5}}).keyword(), "maxItems");
  EXPECT_EQ(load_error({{"type", "int"}}).keyword(), "type");
  EXPECT_EQ(load_error({{"type", json::array()}}).keyword(), "type");
  EXPECT_EQ(load_error({{"type", {"string", "string"}}}).keyword(), "type");
  EXPECT_EQ(load_error({{"enum", json::array()}}).keyword(), "enum");
  EXPECT_EQ(load_error({{"required", {"a", "a"}}}).keyword(), "required");
  EXPECT_EQ(load_error({{"required", {1}}}).keyword(), "required");
  EXPECT_EQ(load_error({{"minimum", "1"}}).keyword(), "minimum");
  EXPECT_EQ(load_error({{"title", 1}}).keyword(), "title");
  EXPECT_EQ(load_error({{"items", {{"type", "string"}}}, {"properties", 1}}).keyword(),
            "properties");
  EXPECT_EQ(load_error({{"items", {true}}}).keyword(), "items");  // draft-07's array form
  EXPECT_EQ(load_error({{"properties", {{"a", 1}}}}).pointer(), "/properties/a");
  EXPECT_EQ(load_error(json::array()).pointer(), "");
  EXPECT_TRUE(valid({{"minLength", 2.0}}, "ab"));  // 2.0 is an integer
}

TEST(SchemaTest, RefusesOtherDialectsAndInnerIds) {
  EXPECT_EQ(load_error({{"$schema", "http://json-schema.org/draft-07/schema#"}}).keyword(),
            "$schema");
  EXPECT_EQ(load_error({{"items", {{"$id", "inner"}}}}).pointer(), "/items/$id");
}

TEST(SchemaTest, RefusesPatternsStdRegexCannotHonour) {
  EXPECT_EQ(load_error({{"pattern", "(a)\\1"}}).keyword(), "pattern");     // back-reference
  EXPECT_EQ(load_error({{"pattern", "(?<=a)b"}}).keyword(), "pattern");   // lookbehind
  EXPECT_EQ(load_error({{"pattern", "\\p{L}"}}).keyword(), "pattern");    // property escape
  EXPECT_EQ(load_error({{"pattern", "(?<n>a)"}}).keyword(), "pattern");   // named group
  EXPECT_EQ(load_error({{"pattern", "[a"}}).keyword(), "pattern");
}

TEST(SchemaTest, RefusesRefsItCannotResolve) {
  EXPECT_THAT(load_error({{"$ref", "#/$defs/missing"}}).what(),
              HasSubstr("'#/$defs/missing' is not a schema in this document"));
  EXPECT_EQ(load_error({{"$ref", "other.json#/$defs/a"}}).keyword(), "$ref");
  EXPECT_EQ(load_error({{"$ref", "#/properties/a"}, {"properties", {{"a", true}}}}).keyword(),
            "$ref");
  EXPECT_EQ(load_error({{"$defs", {{"a b", true}}}, {"$ref", "#/$defs/a%20b"}}).keyword(),
            "$ref");
  EXPECT_THAT(load_error(json::parse(R"({"$defs": {"a": {"$ref": "#/$defs/b"},
                                                   "b": {"$ref": "#/$defs/a"}}})"))
                  .what(),
              HasSubstr("loops"));
}

TEST(SchemaTest, RefsUseJsonPointerEscapes) {
  const json schema = {{"$defs", {{"a/b", {{"type", "string"}}}}}, {"$ref", "#/$defs/a~1b"}};
  EXPECT_TRUE(valid(schema, "x"));
  EXPECT_FALSE(valid(schema, 1));
}

class SchemaFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::filesystem::temp_directory_path() /
            ("d2k_schema_" + std::to_string(getpid()) + ".json");
  }
  void TearDown() override { std::filesystem::remove(file_); }
  void write(const std::string& text) const { std::ofstream(file_) << text; }

  std::filesystem::path file_;
};

TEST_F(SchemaFileTest, LoadNamesTheFileInErrors) {
  write(R"({"properties": {"a": {"format": "date"}}})");
  try {
    Schema::load(file_);
    FAIL() << "loaded";
  } catch (const SchemaError& error) {
    EXPECT_THAT(error.what(), HasSubstr(file_.string() + ": /properties/a/format: format:"));
  }
  write("{not json");
  EXPECT_THROW(Schema::load(file_), std::runtime_error);
}

TEST_F(SchemaFileTest, ValidatesAFile) {
  write(R"({"a": "x"})");
  const Schema schema(json{{"required", {"a", "b"}}});
  EXPECT_THAT(schema.validate_file(file_),
              ElementsAre(::testing::Field(&Violation::keyword, "required")));
  write("[1,");
  EXPECT_THROW(schema.validate_file(file_), std::runtime_error);
  EXPECT_THROW(schema.validate_file(file_.string() + ".missing"), std::runtime_error);
}

}  // namespace
}  // namespace d2k::schema
