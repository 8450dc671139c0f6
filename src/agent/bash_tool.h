#pragma once
// `bash`: one shell command in the workspace, with a time limit and bounded output.

#include <filesystem>

#include "agent/command_runner.h"
#include "mcp/tool.h"

namespace d2k::agent {

class BashTool : public mcp::Tool {
 public:
  BashTool(std::filesystem::path workspace, CommandRunner& runner)
      : workspace_(std::move(workspace)), runner_(runner) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  std::filesystem::path workspace_;
  CommandRunner& runner_;
};

}  // namespace d2k::agent
