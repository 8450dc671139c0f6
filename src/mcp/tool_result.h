#pragma once
// What a tool call returns to the model: text, and whether it is an error the model should see
// and react to (a bad path, a refused call), as opposed to a protocol error.

#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace d2k::mcp {

struct ToolResult {
  std::string text;
  bool is_error = false;
  std::optional<nlohmann::json> structured;  // also sent as structuredContent when set

  static ToolResult error(std::string message) { return {std::move(message), true, std::nullopt}; }
  // The JSON as text (for clients that read only content) and as structuredContent.
  static ToolResult data(const nlohmann::json& value, bool is_error = false) {
    return {value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), is_error, value};
  }
};

}  // namespace d2k::mcp
