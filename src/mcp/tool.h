#pragma once
// One MCP tool: how it presents itself in tools/list, and what it does when called.

#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/tool_result.h"

namespace d2k::mcp {

struct ToolSpec {
  std::string name;
  std::string description;
  nlohmann::json input_schema;  // a JSON Schema 2020-12 object; arguments are checked against it
  bool read_only = false;       // advertised as the readOnlyHint annotation
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual ToolSpec spec() const = 0;
  // `arguments` already satisfy spec().input_schema. Failures the model can act on come back as
  // ToolResult::error; a thrown exception also becomes one, naming the tool. `stop` is requested
  // when the client cancels the call.
  virtual ToolResult call(const nlohmann::json& arguments, std::stop_token stop) = 0;
};

}  // namespace d2k::mcp
