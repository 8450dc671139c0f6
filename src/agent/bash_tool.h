#pragma once
// `bash`: one shell command in the workspace, with a time limit and bounded output. `python3`
// (and `python`) in it is the interpreter evaluations run candidates with: its folder comes
// first on PATH, as a virtual environment's activation does.

#include <filesystem>

#include "agent/command_runner.h"
#include "mcp/tool.h"

namespace d2k::agent {

class BashTool : public mcp::Tool {
 public:
  BashTool(std::filesystem::path workspace, CommandRunner& runner, std::filesystem::path python)
      : workspace_(std::move(workspace)), runner_(runner), python_(std::move(python)) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  std::filesystem::path workspace_;
  CommandRunner& runner_;
  std::filesystem::path python_;
};

}  // namespace d2k::agent
