#include "agent/write_tool.h"

#include <fstream>

#include <fmt/format.h>

#include "agent/workspace_path.h"

namespace d2k::agent {
namespace fs = std::filesystem;

mcp::ToolSpec WriteTool::spec() const {
  return {"write",
          "Write a file",
          "Write a file of the workspace: creates it (and missing folders) or replaces its content.",
          {{"type", "object"},
           {"properties",
            {{"path", {{"type", "string"}, {"description", "relative to the workspace"}}},
             {"content", {{"type", "string"}, {"description", "the whole new content"}}}}},
           {"required", {"path", "content"}},
           {"additionalProperties", false}},
          {.read_only = false, .destructive = true, .idempotent = true, .open_world = false}};
}

mcp::ToolResult WriteTool::call(const nlohmann::json& arguments, std::stop_token) {
  const std::string name = arguments["path"];
  const fs::path path = resolve_in_workspace(workspace_, name);
  if (fs::is_directory(path)) return mcp::ToolResult::error(name + " is a folder");
  fs::create_directories(path.parent_path());
  const std::string& content = arguments["content"].get_ref<const std::string&>();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) return mcp::ToolResult::error("cannot write " + name);
  return {fmt::format("wrote {} bytes to {}", content.size(), name), false, std::nullopt};
}

}  // namespace d2k::agent
