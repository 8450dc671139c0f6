#include "schema/schema_compiler.h"

#include <cmath>
#include <limits>
#include <locale>
#include <set>

#include <fmt/format.h>

#include "schema/code_points.h"
#include "schema/schema_error.h"

namespace d2k::schema {
namespace {

using nlohmann::json;

constexpr const char* kDialect = "https://json-schema.org/draft/2020-12/schema";
constexpr const char* kRefPrefix = "#/$defs/";

const std::map<std::string, uint8_t>& type_bits() {
  static const std::map<std::string, uint8_t> bits = {
      {"null", kNull},     {"boolean", kBoolean}, {"object", kObject},  {"array", kArray},
      {"number", kNumber}, {"string", kString},   {"integer", kInteger}};
  return bits;
}

[[noreturn]] void fail(const json::json_pointer& at, const std::string& keyword,
                       const std::string& message) {
  throw SchemaError(at.to_string(), keyword, fmt::format("{}: {}", keyword, message));
}

bool is_integral(const json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  const double number = value.get<double>();
  return std::isfinite(number) && number == std::floor(number);
}

uint64_t non_negative_integer(const json& value, const json::json_pointer& at,
                              const std::string& keyword) {
  if (!is_integral(value) || value.get<double>() < 0) {
    fail(at, keyword, "must be a non-negative integer");
  }
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) return static_cast<uint64_t>(value.get<int64_t>());
  const double number = value.get<double>();  // integral, possibly beyond 2^64
  return number >= 0x1p64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(number);
}

std::string as_string(const json& value, const json::json_pointer& at,
                      const std::string& keyword) {
  if (!value.is_string()) fail(at, keyword, "must be a string");
  return value.get<std::string>();
}

SchemaPattern compile_pattern(const std::string& source, const json::json_pointer& at) {
  SchemaPattern pattern{source, {}};
  // The classic locale keeps \w, \s and [[:alpha:]] independent of the process's locale.
  pattern.regex.imbue(std::locale::classic());
  try {
    // libstdc++'s polynomial mode matches breadth-first: its stack depth does not grow with the
    // string (the default depth-first matcher overflows the stack near 15,000 characters) and
    // its time is polynomial. It refuses back-references, which then fail here, loudly.
    pattern.regex.assign(code_points(source),
                         std::regex::ECMAScript | std::regex_constants::__polynomial);
  } catch (const std::regex_error& error) {
    fail(at, "pattern", fmt::format("'{}' is not a regular expression d2k can match: {}", source,
                                    error.what()));
  }
  return pattern;
}

}  // namespace

std::vector<SchemaNode> SchemaCompiler::compile(const json& document) {
  SchemaCompiler compiler;
  compiler.compile_node(document, json::json_pointer());
  compiler.resolve_refs();
  return std::move(compiler.nodes_);
}

size_t SchemaCompiler::compile_node(const json& schema, const Pointer& at) {
  const size_t index = nodes_.size();
  nodes_.emplace_back();
  node_at_[at.to_string()] = index;
  SchemaNode node;
  node.pointer = at.to_string();
  if (schema.is_boolean()) {
    node.constant = schema.get<bool>();
  } else if (schema.is_object()) {
    for (const auto& [keyword, value] : schema.items()) {
      compile_keyword(node, keyword, value, at / keyword);
    }
  } else {
    throw SchemaError(node.pointer, "", "a schema must be an object or a boolean");
  }
  nodes_[index] = std::move(node);  // children were appended meanwhile; `node` stayed put
  return index;
}

void SchemaCompiler::compile_keyword(SchemaNode& node, const std::string& keyword,
                                     const json& value, const Pointer& at) {
  if (keyword == "$schema") {
    if (as_string(value, at, keyword) != kDialect) {
      fail(at, keyword, fmt::format("only the 2020-12 dialect ({}) is supported", kDialect));
    }
  } else if (keyword == "$id") {
    as_string(value, at, keyword);
    // An inner $id would change the document a "#/..." $ref resolves against.
    if (!node.pointer.empty()) fail(at, keyword, "is supported only at the schema's root");
  } else if (keyword == "title" || keyword == "description") {
    as_string(value, at, keyword);
  } else if (keyword == "$defs" || keyword == "properties") {
    if (!value.is_object()) fail(at, keyword, "must be an object of schemas");
    for (const auto& [name, subschema] : value.items()) {
      const size_t child = compile_node(subschema, at / name);
      if (keyword == "properties") node.properties[name] = child;
    }
  } else if (keyword == "$ref") {
    const std::string ref = as_string(value, at, keyword);
    if (ref.rfind(kRefPrefix, 0) != 0 || ref.find('%') != std::string::npos) {
      fail(at, keyword,
           fmt::format("'{}': only local references \"{}NAME\" without %-escapes are supported",
                       ref, kRefPrefix));
    }
    std::string target;
    try {
      target = Pointer(ref.substr(1)).to_string();  // the canonical spelling node_at_ uses
    } catch (const json::exception&) {
      fail(at, keyword, fmt::format("'{}' is not a JSON pointer", ref));
    }
    refs_.push_back({node_at_.at(node.pointer), target, at.to_string()});
  } else if (keyword == "type") {
    const json names = value.is_array() ? value : json::array({value});
    if (names.empty()) fail(at, keyword, "must name at least one type");
    for (const json& name : names) {
      const auto bit = name.is_string() ? type_bits().find(name.get<std::string>())
                                        : type_bits().end();
      if (bit == type_bits().end()) {
        fail(at, keyword, fmt::format("{} is not a JSON Schema type", name.dump()));
      }
      if (node.types & bit->second) fail(at, keyword, "names a type twice");
      node.types |= bit->second;
    }
  } else if (keyword == "enum") {
    if (!value.is_array() || value.empty()) fail(at, keyword, "must be a non-empty array");
    node.enum_values = value;
  } else if (keyword == "const") {
    node.const_value = value;
  } else if (keyword == "minimum" || keyword == "maximum" || keyword == "exclusiveMinimum" ||
             keyword == "exclusiveMaximum") {
    if (!value.is_number()) fail(at, keyword, "must be a number");
    (keyword == "minimum"            ? node.minimum
     : keyword == "maximum"          ? node.maximum
     : keyword == "exclusiveMinimum" ? node.exclusive_minimum
                                     : node.exclusive_maximum) = value;
  } else if (keyword == "minLength") {
    node.min_length = non_negative_integer(value, at, keyword);
  } else if (keyword == "maxLength") {
    node.max_length = non_negative_integer(value, at, keyword);
  } else if (keyword == "minItems") {
    node.min_items = non_negative_integer(value, at, keyword);
  } else if (keyword == "maxItems") {
    node.max_items = non_negative_integer(value, at, keyword);
  } else if (keyword == "pattern") {
    node.pattern = compile_pattern(as_string(value, at, keyword), at);
  } else if (keyword == "items") {
    if (value.is_array()) fail(at, keyword, "must be a schema (the array form is draft-07's)");
    node.items = compile_node(value, at);
  } else if (keyword == "additionalProperties") {
    node.additional_properties = compile_node(value, at);
  } else if (keyword == "required") {
    std::set<std::string> seen;
    if (!value.is_array()) fail(at, keyword, "must be an array of property names");
    for (const json& name : value) {
      if (!name.is_string()) fail(at, keyword, "must be an array of property names");
      if (!seen.insert(name.get<std::string>()).second) {
        fail(at, keyword, fmt::format("names '{}' twice", name.get<std::string>()));
      }
      node.required.push_back(name.get<std::string>());
    }
  } else {
    fail(at, keyword,
         "unsupported keyword; d2k's validator refuses the keywords it does not check "
         "(docs/schema.md)");
  }
}

void SchemaCompiler::resolve_refs() {
  for (const PendingRef& ref : refs_) {
    const auto target = node_at_.find(ref.target);
    if (target == node_at_.end()) {
      throw SchemaError(ref.keyword, "$ref",
                        fmt::format("$ref: '#{}' is not a schema in this document", ref.target));
    }
    nodes_[ref.node].ref = target->second;
  }
  // A chain of $refs that returns to where it started would validate forever without ever
  // reaching deeper into the instance.
  for (const PendingRef& ref : refs_) {
    std::set<size_t> seen{ref.node};
    for (auto next = nodes_[ref.node].ref; next; next = nodes_[*next].ref) {
      if (!seen.insert(*next).second) {
        throw SchemaError(ref.keyword, "$ref", "$ref: the chain of references loops");
      }
    }
  }
}

}  // namespace d2k::schema
