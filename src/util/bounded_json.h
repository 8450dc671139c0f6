#pragma once
// Parsing JSON that arrives from outside d2k (a worker's channel, a task's config.json, a design
// file, a judge's reply) within a size and a nesting limit. nlohmann's parser itself is iterative,
// but everything that walks a parsed value afterwards (schema validation, string collection,
// dumping, destruction in older releases) recurses once per level; a line nested a few hundred
// thousand deep would end the process on a stack overflow instead of being refused.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace d2k::util {

struct JsonLimits {
  size_t max_bytes = 64u << 20;
  int max_depth = 256;  // arrays and objects inside each other
};

// What was wrong with the text: over a limit, or not JSON. `byte` counts the bytes read up to and
// including the offending one, as nlohmann's parse errors do (0 when no byte is to blame).
class JsonInputError : public std::runtime_error {
 public:
  JsonInputError(const std::string& message, size_t byte)
      : std::runtime_error(message), byte_(byte) {}
  size_t byte() const { return byte_; }

 private:
  size_t byte_;
};

// The nesting depth of the arrays and objects in `text` (strings skipped), found without
// recursion; stops counting once `stop_above` is exceeded and returns that depth.
int json_nesting_depth(std::string_view text, int stop_above, size_t* where = nullptr);

// The nesting depth of a parsed value (a scalar is 0), found without recursion; stops counting
// once `stop_above` is exceeded.
int json_value_depth(const nlohmann::json& value, int stop_above);

// Parses `text`; throws JsonInputError when it is larger than `limits.max_bytes`, nests deeper
// than `limits.max_depth`, or is not JSON (nlohmann's reason, without its prefix).
nlohmann::json parse_bounded_json(std::string_view text, const JsonLimits& limits = {});

// The same, but a discarded value (is_discarded()) instead of an exception, as
// nlohmann::json::parse(text, nullptr, false) gives for text that is not JSON.
nlohmann::json parse_bounded_json_or_discarded(std::string_view text, const JsonLimits& limits = {});

}  // namespace d2k::util
