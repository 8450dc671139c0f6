#pragma once
// One MCP tool: how it presents itself in tools/list, and what it does when called.

#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/tool_result.h"

namespace d2k::mcp {

// The behaviour hints tools/list advertises; clients decide from them whether a call needs the
// user's approval. `destructive` and `idempotent` mean something only when `read_only` is false.
struct ToolHints {
  bool read_only = false;    // readOnlyHint: changes nothing
  bool destructive = false;  // destructiveHint: may overwrite or delete what exists
  bool idempotent = false;   // idempotentHint: a repeated call with the same arguments adds nothing
  bool open_world = false;   // openWorldHint: reaches beyond the server (the network, other hosts)
};

struct ToolSpec {
  std::string name;
  std::string title;  // for people: what clients show in lists and approval prompts
  std::string description;
  nlohmann::json input_schema;  // a JSON Schema 2020-12 object; arguments are checked against it
  ToolHints hints;
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
