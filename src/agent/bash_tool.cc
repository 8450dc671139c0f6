#include "agent/bash_tool.h"

#include <fmt/format.h>

namespace d2k::agent {
namespace {

constexpr double kDefaultTimeoutSeconds = 120.0;
constexpr double kMaxTimeoutSeconds = 600.0;
constexpr size_t kOutputLimit = 64 * 1024;

}  // namespace

mcp::ToolSpec BashTool::spec() const {
  return {"bash",
          "Run a bash command in the workspace (compile, test, profile). stdout and stderr come "
          "back together, cut after 64 KiB; the command and its children are killed at the time "
          "limit.",
          {{"type", "object"},
           {"properties",
            {{"command", {{"type", "string"}, {"minLength", 1}}},
             {"timeout",
              {{"type", "number"},
               {"exclusiveMinimum", 0},
               {"maximum", kMaxTimeoutSeconds},
               {"description", fmt::format("seconds (default {:g})", kDefaultTimeoutSeconds)}}}}},
           {"required", {"command"}},
           {"additionalProperties", false}},
          false};
}

mcp::ToolResult BashTool::call(const nlohmann::json& arguments, std::stop_token stop) {
  const double timeout = arguments.value("timeout", kDefaultTimeoutSeconds);
  const native::CommandResult result =
      runner_.run(arguments["command"], workspace_, timeout, kOutputLimit, stop);
  std::string text = fmt::format("[{}, {:.1f} s]\n{}", result.describe(timeout), result.seconds, result.output);
  return {std::move(text), result.timed_out || result.cancelled, std::nullopt};
}

}  // namespace d2k::agent
