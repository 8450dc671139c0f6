#include "agent/read_tool.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "agent/workspace_path.h"
#include "util/text.h"

namespace d2k::agent {
namespace fs = std::filesystem;
namespace {

constexpr int kDefaultLineLimit = 2000;
// A reply stays far below what clients accept for one message (the TS SDK: 10 MB).
constexpr size_t kReplyByteLimit = 256 * 1024;

std::string list_folder(const fs::path& folder, const fs::path& root) {
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(folder)) {
    entries.push_back(fs::relative(entry.path(), root).string() + (entry.is_directory() ? "/" : ""));
  }
  std::sort(entries.begin(), entries.end());
  std::string text;
  for (const auto& entry : entries) text += entry + "\n";
  return text.empty() ? "(empty folder)\n" : text;
}

}  // namespace

mcp::ToolSpec ReadTool::spec() const {
  return {"read",
          "Read a file or list a folder",
          "Read a text file of the workspace (or list a folder). Lines are counted from 1; give "
          "offset and limit to read part of a long file.",
          {{"type", "object"},
           {"properties",
            {{"path", {{"type", "string"}, {"description", "relative to the workspace"}}},
             {"offset", {{"type", "integer"}, {"minimum", 1}, {"description", "first line, from 1"}}},
             {"limit", {{"type", "integer"}, {"minimum", 1}, {"description", "most lines to return"}}}}},
           {"required", {"path"}},
           {"additionalProperties", false}},
          {.read_only = true, .destructive = false, .idempotent = true, .open_world = false}};
}

mcp::ToolResult ReadTool::call(const nlohmann::json& arguments, std::stop_token) {
  const std::string name = arguments["path"];
  const fs::path path = resolve_in_workspace(workspace_, name);
  if (!fs::exists(path)) return mcp::ToolResult::error("no such file: " + name);
  if (fs::is_directory(path)) return {list_folder(path, fs::canonical(workspace_)), false, std::nullopt};
  const int offset = arguments.value("offset", 1);
  const int limit = arguments.value("limit", kDefaultLineLimit);
  std::istringstream lines(util::read_text_file(path));
  std::string line;
  std::string text;
  int number = 0;
  int shown = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (number < offset || shown >= limit) continue;
    text += line + "\n";
    ++shown;
  }
  if (shown == 0 && number > 0) {
    return mcp::ToolResult::error(fmt::format("{} has {} lines; offset {} is past the end", name, number, offset));
  }
  std::string reply = util::bounded(text, kReplyByteLimit);
  const int last = offset + shown - 1;
  if (last < number) reply += fmt::format("[lines {}-{} of {}; read on with offset={}]\n", offset, last, number, last + 1);
  return {reply, false, std::nullopt};
}

}  // namespace d2k::agent
