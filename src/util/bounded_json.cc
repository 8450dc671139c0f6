#include "util/bounded_json.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace d2k::util {

int json_nesting_depth(std::string_view text, int stop_above, size_t* where) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > stop_above) {
        if (where != nullptr) *where = i;
        return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

int json_value_depth(const nlohmann::json& value, int stop_above) {
  std::vector<std::pair<const nlohmann::json*, int>> pending{{&value, 0}};
  int deepest = 0;
  while (!pending.empty()) {
    const auto [at, depth] = pending.back();
    pending.pop_back();
    if (!at->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    if (deepest > stop_above) return deepest;
    for (const auto& child : *at) pending.emplace_back(&child, depth + 1);
  }
  return deepest;
}

nlohmann::json parse_bounded_json(std::string_view text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) {
    throw JsonInputError(fmt::format("{} bytes, more than the limit of {}", text.size(),
                                     limits.max_bytes),
                         0);
  }
  size_t where = 0;
  if (json_nesting_depth(text, limits.max_depth, &where) > limits.max_depth) {
    throw JsonInputError(
        fmt::format("nested deeper than {} levels (at byte {})", limits.max_depth, where + 1),
        where + 1);
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    const std::string what = error.what();
    const size_t colon = what.find(": ");
    throw JsonInputError(colon == std::string::npos ? what : what.substr(colon + 2), error.byte);
  }
}

nlohmann::json parse_bounded_json_or_discarded(std::string_view text, const JsonLimits& limits) {
  try {
    return parse_bounded_json(text, limits);
  } catch (const JsonInputError&) {
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

}  // namespace d2k::util
