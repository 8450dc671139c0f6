#include "agent/bash_tool.h"

#include <fmt/format.h>

#include "native/command.h"

namespace d2k::agent {
namespace {

constexpr double kDefaultTimeoutSeconds = 120.0;
constexpr double kMaxTimeoutSeconds = 600.0;
constexpr size_t kOutputLimit = 64 * 1024;

}  // namespace

mcp::ToolSpec BashTool::spec() const {
  return {"bash",
          "Run a bash command",
          fmt::format(
              "Run a bash command in the workspace (compile, test, profile), without network "
              "access. stdout and stderr come back together, cut after 64 KiB; the command and "
              "its children are killed at the time limit. `python3` here is {}, the interpreter "
              "submissions are evaluated with.",
              python_.string()),
          {{"type", "object"},
           {"properties",
            {{"command",
              {{"type", "string"},
               {"minLength", 1},
               {"description", "the bash script to run, with the workspace as working directory"}}},
             {"timeout",
              {{"type", "number"},
               {"exclusiveMinimum", 0},
               {"maximum", kMaxTimeoutSeconds},
               {"description", fmt::format("seconds (default {:g})", kDefaultTimeoutSeconds)}}}}},
           {"required", {"command"}},
           {"additionalProperties", false}},
          {.read_only = false, .destructive = true, .idempotent = false, .open_world = false}};
}

mcp::ToolResult BashTool::call(const nlohmann::json& arguments, std::stop_token stop) {
  const double timeout = arguments.value("timeout", kDefaultTimeoutSeconds);
  // The assignment is a line of its own, so the agent's command runs exactly as written.
  const std::string script = "PATH=" + native::shell_quote({python_.parent_path().string()}) +
                             ":\"$PATH\"\n" + arguments["command"].get<std::string>();
  const native::CommandResult result = runner_.run(script, workspace_, timeout, kOutputLimit, stop);
  std::string text = fmt::format("[{}, {:.1f} s]\n{}", result.describe(timeout), result.seconds, result.output);
  return {std::move(text), result.timed_out || result.cancelled, std::nullopt};
}

}  // namespace d2k::agent
