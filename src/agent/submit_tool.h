#pragma once
// `submit`: evaluates a solution of the workspace with the full protocol and answers with its
// summary against the baseline. The file is copied out of the workspace first, so the stored
// evaluation points at exactly what was evaluated, whatever the agent writes afterwards.

#include <filesystem>
#include <optional>

#include "agent/run_session.h"
#include "agent/submission_evaluator.h"
#include "mcp/tool.h"

namespace d2k::agent {

inline constexpr const char* kSubmissionEvent = "submission";
inline constexpr const char* kEvaluationEvent = "evaluation";

class SubmitTool : public mcp::Tool {
 public:
  // Snapshots go to `submissions_dir`/<n>/, which must lie outside the workspace.
  SubmitTool(std::filesystem::path workspace, std::filesystem::path submissions_dir,
             SubmissionEvaluator& evaluator, RunSession& session)
      : workspace_(std::move(workspace)), submissions_dir_(std::move(submissions_dir)),
        evaluator_(evaluator), session_(session) {}
  mcp::ToolSpec spec() const override;
  mcp::ToolResult call(const nlohmann::json& arguments, std::stop_token stop) override;

 private:
  const record::EvaluationResult& baseline(std::stop_token stop);

  std::filesystem::path workspace_;
  std::filesystem::path submissions_dir_;
  SubmissionEvaluator& evaluator_;
  RunSession& session_;
  std::optional<record::EvaluationResult> baseline_;
};

// Where a workspace's submissions are kept: beside it, "<workspace>.submissions".
std::filesystem::path submissions_dir_for(const std::filesystem::path& workspace);

}  // namespace d2k::agent
