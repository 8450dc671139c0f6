#pragma once
// `submit_design`: checks a design against the design schema and reports every violation; a
// valid one is kept as model_design.json in the workspace and recorded.

#include <filesystem>

#include "agent/run_session.h"
#include "mcp/tool.h"
#include "schema/schema.h"

namespace d2k::agent {

inline constexpr const char* kDesignSubmissionEvent = "design_submission";

class SubmitDesignTool : public mcp::Tool {
 public:
  SubmitDesignTool(std::filesystem::path workspace, RunSession& session)
      : workspace_(std::move(workspace)), session_(session),
        schema_(schema::Schema::load(schema::design_schema_path())) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  std::filesystem::path workspace_;
  RunSession& session_;
  schema::Schema schema_;
};

}  // namespace d2k::agent
