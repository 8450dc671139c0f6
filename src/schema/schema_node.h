#pragma once
// One subschema compiled for validation: each keyword's value parsed and checked once, when the
// schema is loaded. Subschemas are indices into the Schema's node list, so a $ref (which may
// point back at an ancestor) is just another index.

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::schema {

// Bits of the JSON types a `type` keyword allows.
enum TypeBit : uint8_t {
  kNull = 1 << 0,
  kBoolean = 1 << 1,
  kObject = 1 << 2,
  kArray = 1 << 3,
  kNumber = 1 << 4,
  kString = 1 << 5,
  kInteger = 1 << 6,  // a number with no fractional part
};

struct SchemaPattern {
  std::string source;  // as written in the schema, for messages
  std::wregex regex;   // over code points
};

struct SchemaNode {
  std::string pointer;           // where this subschema is in the schema document
  std::optional<bool> constant;  // set for the boolean schemas `true` and `false`

  std::optional<size_t> ref;
  uint8_t types = 0;  // 0: any type
  std::optional<nlohmann::json> enum_values;
  std::optional<nlohmann::json> const_value;

  std::optional<nlohmann::json> minimum;
  std::optional<nlohmann::json> maximum;
  std::optional<nlohmann::json> exclusive_minimum;
  std::optional<nlohmann::json> exclusive_maximum;

  std::optional<uint64_t> min_length;
  std::optional<uint64_t> max_length;
  std::optional<SchemaPattern> pattern;

  std::optional<size_t> items;
  std::optional<uint64_t> min_items;
  std::optional<uint64_t> max_items;

  std::map<std::string, size_t> properties;
  std::vector<std::string> required;
  std::optional<size_t> additional_properties;
};

}  // namespace d2k::schema
