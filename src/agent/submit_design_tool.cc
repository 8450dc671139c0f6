#include "agent/submit_design_tool.h"

#include <fstream>

#include "agent/workspace_path.h"
#include "agent/workspace_stager.h"
#include "util/bounded_json.h"
#include "util/text.h"

namespace d2k::agent {
namespace fs = std::filesystem;

mcp::ToolSpec SubmitDesignTool::spec() const {
  return {"submit_design",
          "Hand in the design",
          "Hand in the design: `content` is the whole model_design.json as a JSON string (without "
          "it, the workspace's model_design.json is read). Every violation of design_schema.json "
          "is listed; a valid design is kept and graded.",
          {{"type", "object"},
           {"properties", {{"content", {{"type", "string"}, {"description", "the design, as JSON text"}}}}},
           {"additionalProperties", false}},
          {.read_only = false, .destructive = true, .idempotent = true, .open_world = false}};
}

mcp::ToolResult SubmitDesignTool::call(const nlohmann::json& arguments, std::stop_token) {
  const fs::path file = resolve_in_workspace(workspace_, kDesignFile);
  std::string text;
  if (arguments.contains("content")) {
    text = arguments["content"];
  } else if (fs::is_regular_file(file)) {
    text = util::read_text_file(file);
  } else {
    return mcp::ToolResult::error("give the design as `content`, or write model_design.json first");
  }
  nlohmann::json design;
  try {
    design = util::parse_bounded_json(text);
  } catch (const util::JsonInputError& error) {
    return mcp::ToolResult::error(std::string("the design is not JSON: ") + error.what());
  }
  nlohmann::json violations = nlohmann::json::array();
  for (const auto& violation : schema_.validate(design)) {
    violations.push_back({{"at", violation.instance_pointer},
                          {"keyword", violation.keyword},
                          {"message", violation.message}});
  }
  const bool valid = violations.empty();
  if (valid) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << design.dump(2) << "\n";
  }
  session_.record(kDesignSubmissionEvent, "submit_design",
                  {{"valid", valid}, {"violations", violations}, {"design", design}});
  nlohmann::json reply{{"valid", valid}, {"violations", violations}};
  if (valid) reply["saved_as"] = kDesignFile;
  return mcp::ToolResult::data(reply, !valid);
}

}  // namespace d2k::agent
