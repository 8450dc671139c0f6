#pragma once
// `write`: creates or replaces a file of the workspace (and its parent folders).

#include <filesystem>

#include "mcp/tool.h"

namespace d2k::agent {

class WriteTool : public mcp::Tool {
 public:
  explicit WriteTool(std::filesystem::path workspace) : workspace_(std::move(workspace)) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  std::filesystem::path workspace_;
};

}  // namespace d2k::agent
