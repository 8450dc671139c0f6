#include "schema/schema.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "schema/code_points.h"
#include "schema/schema_compiler.h"
#include "schema/schema_error.h"
#include "util/text.h"

namespace d2k::schema {
namespace {

using nlohmann::json;
using Pointer = json::json_pointer;

json read_json(const std::filesystem::path& file) {
  try {
    return json::parse(util::read_text_file(file));
  } catch (const json::parse_error& error) {
    throw std::runtime_error(fmt::format("{}: not JSON: {}", file.string(), error.what()));
  }
}

bool is_integral(const json& value) {
  if (value.is_number_integer()) return true;
  const double number = value.get<double>();
  return std::isfinite(number) && number == std::floor(number);
}

// 2020-12 has no integer values, only numbers; an integral number (1.0 too) is an "integer".
uint8_t type_bit(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return kNull;
    case json::value_t::boolean:
      return kBoolean;
    case json::value_t::object:
      return kObject;
    case json::value_t::array:
      return kArray;
    case json::value_t::string:
      return kString;
    default:
      return is_integral(value) ? kInteger : kNumber;
  }
}

std::string type_names(uint8_t bits) {
  static constexpr std::pair<uint8_t, const char*> kNames[] = {
      {kObject, "object"}, {kArray, "array"},     {kString, "string"}, {kNumber, "number"},
      {kInteger, "integer"}, {kBoolean, "boolean"}, {kNull, "null"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if (bits & bit) names.emplace_back(name);
  }
  return fmt::format("{}", fmt::join(names, " or "));
}

// Exact for any two JSON numbers nlohmann holds: long double keeps 64 bits of mantissa.
long double numeric(const json& value) {
  if (value.is_number_unsigned()) return static_cast<long double>(value.get<uint64_t>());
  if (value.is_number_integer()) return static_cast<long double>(value.get<int64_t>());
  return static_cast<long double>(value.get<double>());
}

// A value as messages quote it: compact, and short.
std::string brief(const json& value) {
  constexpr size_t kLimit = 80;
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= kLimit) return text;
  size_t cut = kLimit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

class Validator {
 public:
  Validator(const std::vector<SchemaNode>& nodes, std::vector<Violation>& out)
      : nodes_(nodes), out_(out) {}

  // `via` is the keyword that applied this subschema ("" at the root); it names the violation a
  // `false` schema causes.
  void check(size_t index, const json& instance, const Pointer& at, const std::string& via) {
    const SchemaNode& node = nodes_[index];
    if (node.constant) {
      if (!*node.constant) reject_everything(node, at, via);
      return;
    }
    if (node.ref) check(*node.ref, instance, at, "$ref");
    if (node.types && !(node.types & type_bit(instance)) &&
        !((node.types & kNumber) && instance.is_number())) {
      report(node, at, "type",
             fmt::format("is {}, expected {}", type_names(type_bit(instance)),
                         type_names(node.types)));
    }
    if (node.enum_values &&
        std::find(node.enum_values->begin(), node.enum_values->end(), instance) ==
            node.enum_values->end()) {
      report(node, at, "enum", fmt::format("is not one of {}", brief(*node.enum_values)));
    }
    if (node.const_value && instance != *node.const_value) {
      report(node, at, "const", fmt::format("is not {}", brief(*node.const_value)));
    }
    if (instance.is_number()) check_number(node, instance, at);
    if (instance.is_string()) check_string(node, instance.get_ref<const std::string&>(), at);
    if (instance.is_array()) check_array(node, instance, at);
    if (instance.is_object()) check_object(node, instance, at);
  }

 private:
  void report(const SchemaNode& node, const Pointer& at, const std::string& keyword,
              std::string message) {
    out_.push_back({at.to_string(), keyword, node.pointer + "/" + keyword, std::move(message)});
  }

  void reject_everything(const SchemaNode& node, const Pointer& at, const std::string& via) {
    std::string message = "is not allowed here (the schema is false)";
    if (via == "additionalProperties") {
      message = "is not an allowed property (additionalProperties is false)";
    } else if (via == "items") {
      message = "is not allowed (items is false: the array must be empty)";
    }
    out_.push_back({at.to_string(), via.empty() ? "false" : via, node.pointer, message});
  }

  void check_number(const SchemaNode& node, const json& instance, const Pointer& at) {
    const long double value = numeric(instance);
    const auto bound = [&](const std::optional<json>& limit, const char* keyword,
                           bool (*ok)(long double, long double), const char* relation) {
      if (limit && !ok(value, numeric(*limit))) {
        report(node, at, keyword,
               fmt::format("is {}, {} {} {}", instance.dump(), relation, keyword, limit->dump()));
      }
    };
    bound(node.minimum, "minimum", [](long double v, long double l) { return v >= l; },
          "less than");
    bound(node.maximum, "maximum", [](long double v, long double l) { return v <= l; },
          "greater than");
    bound(node.exclusive_minimum, "exclusiveMinimum",
          [](long double v, long double l) { return v > l; }, "not greater than");
    bound(node.exclusive_maximum, "exclusiveMaximum",
          [](long double v, long double l) { return v < l; }, "not less than");
  }

  void check_string(const SchemaNode& node, const std::string& instance, const Pointer& at) {
    if (!node.min_length && !node.max_length && !node.pattern) return;
    const std::wstring text = code_points(instance);
    if (node.min_length && text.size() < *node.min_length) {
      report(node, at, "minLength",
             fmt::format("is {} characters long, shorter than minLength {}", text.size(),
                         *node.min_length));
    }
    if (node.max_length && text.size() > *node.max_length) {
      report(node, at, "maxLength",
             fmt::format("is {} characters long, longer than maxLength {}", text.size(),
                         *node.max_length));
    }
    if (node.pattern) {
      try {
        if (!std::regex_search(text, node.pattern->regex)) {
          report(node, at, "pattern", "does not match pattern " + node.pattern->source);
        }
      } catch (const std::regex_error& error) {  // a match too complex to finish
        report(node, at, "pattern",
               fmt::format("could not be matched against pattern {}: {}", node.pattern->source,
                           error.what()));
      }
    }
  }

  void check_array(const SchemaNode& node, const json& instance, const Pointer& at) {
    if (node.min_items && instance.size() < *node.min_items) {
      report(node, at, "minItems",
             fmt::format("has {} items, fewer than minItems {}", instance.size(),
                         *node.min_items));
    }
    if (node.max_items && instance.size() > *node.max_items) {
      report(node, at, "maxItems",
             fmt::format("has {} items, more than maxItems {}", instance.size(),
                         *node.max_items));
    }
    if (node.items) {
      for (size_t i = 0; i < instance.size(); ++i) check(*node.items, instance[i], at / i, "items");
    }
  }

  void check_object(const SchemaNode& node, const json& instance, const Pointer& at) {
    for (const std::string& name : node.required) {
      if (!instance.contains(name)) {
        report(node, at, "required", fmt::format("lacks required property '{}'", name));
      }
    }
    for (const auto& [name, value] : instance.items()) {
      const auto declared = node.properties.find(name);
      if (declared != node.properties.end()) {
        check(declared->second, value, at / name, "properties");
      } else if (node.additional_properties) {
        check(*node.additional_properties, value, at / name, "additionalProperties");
      }
    }
  }

  const std::vector<SchemaNode>& nodes_;
  std::vector<Violation>& out_;
};

}  // namespace

Schema::Schema(const json& document) : nodes_(SchemaCompiler::compile(document)) {}

Schema Schema::load(const std::filesystem::path& file) {
  const json document = read_json(file);
  try {
    return Schema(document);
  } catch (const SchemaError& error) {
    throw SchemaError(error.pointer(), error.keyword(), error.message(), file.string());
  }
}

std::vector<Violation> Schema::validate(const json& instance) const {
  std::vector<Violation> violations;
  Validator(nodes_, violations).check(0, instance, Pointer(), "");
  return violations;
}

std::vector<Violation> Schema::validate_file(const std::filesystem::path& file) const {
  return validate(read_json(file));
}

std::filesystem::path design_schema_path() {
  return std::filesystem::path(D2K_SOURCE_DIR) / "schemas" / "design_schema.json";
}

}  // namespace d2k::schema
