#pragma once
// Sees every tool call around its execution: the agent layer counts turns, refuses calls once
// the budget is spent, and records calls and results, without the protocol code knowing how.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/tool_result.h"

namespace d2k::mcp {

class CallObserver {
 public:
  virtual ~CallObserver() = default;
  // Before the tool runs; a result returned here is sent instead of running the tool.
  virtual std::optional<ToolResult> before_call(const std::string& tool,
                                                const nlohmann::json& arguments) = 0;
  // After the tool ran or was refused, with what the client receives.
  virtual void after_call(const std::string& tool, const nlohmann::json& arguments,
                          const ToolResult& result) = 0;
};

}  // namespace d2k::mcp
