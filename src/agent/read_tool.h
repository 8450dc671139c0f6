#pragma once
// `read`: a file of the workspace, by lines (or a folder's entries).

#include <filesystem>

#include "mcp/tool.h"

namespace d2k::agent {

class ReadTool : public mcp::Tool {
 public:
  explicit ReadTool(std::filesystem::path workspace) : workspace_(std::move(workspace)) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  std::filesystem::path workspace_;
};

}  // namespace d2k::agent
