#include "agent/submit_tool.h"

#include "agent/submission_summary.h"
#include "agent/workspace_path.h"

namespace d2k::agent {
namespace fs = std::filesystem;

fs::path submissions_dir_for(const fs::path& workspace) {
  const fs::path absolute = fs::absolute(workspace).lexically_normal();
  const fs::path trimmed = absolute.has_filename() ? absolute : absolute.parent_path();
  return trimmed.parent_path() / (trimmed.filename().string() + ".submissions");
}

mcp::ToolSpec SubmitTool::spec() const {
  return {"submit",
          "Submit a solution for evaluation",
          "Evaluate one solution file with the full protocol: correctness on every workload, the "
          "implementation rules, timing. Only that file is evaluated, on its own: it cannot "
          "import other files of the workspace. Answers per workload the verdict, latency and "
          "speedup over the baseline, whether the submission is eligible, and its "
          "geometric-mean speedup.",
          {{"type", "object"},
           {"properties",
            {{"path",
              {{"type", "string"},
               {"description", "the single, self-contained solution file (default solution.py)"}}}}},
           {"additionalProperties", false}},
          {.read_only = false, .destructive = false, .idempotent = false, .open_world = false}};
}

const record::EvaluationResult& SubmitTool::baseline(std::stop_token stop) {
  if (!baseline_) {
    const auto stored = session_.run().baseline_evaluation_id;
    baseline_ = evaluator_.baseline(stored, stop);
    if (!stored) {
      session_.set_baseline(baseline_->id);
      session_.record(kEvaluationEvent, "submit",
                      {{"role", "baseline"}, {"impl_kind", baseline_->impl_kind},
                       {"passed", baseline_->passed()}},
                      baseline_->id);
    }
  }
  return *baseline_;
}

mcp::ToolResult SubmitTool::call(const nlohmann::json& arguments, std::stop_token stop) {
  const std::string name = arguments.value("path", "solution.py");
  const fs::path file = resolve_in_workspace(workspace_, name);
  if (!fs::is_regular_file(file)) return mcp::ToolResult::error("no such file: " + name);

  int number = 1;
  while (fs::exists(submissions_dir_ / std::to_string(number))) ++number;
  const fs::path snapshot = submissions_dir_ / std::to_string(number) / file.filename();
  fs::create_directories(snapshot.parent_path());
  fs::copy_file(file, snapshot);

  record::EvaluationResult result;
  try {
    baseline(stop);
    result = evaluator_.evaluate(snapshot, stop);
  } catch (...) {
    // The client stopped waiting: the run's record says so; the client gets no answer.
    if (stop.stop_requested()) {
      session_.record(kSubmissionEvent, "submit",
                      {{"path", name}, {"submission", number}, {"cancelled", true}}, std::nullopt);
    }
    throw;
  }
  const SubmissionSummary summary = summarize(result, *baseline_);
  nlohmann::json reply = summary;
  reply["path"] = name;
  reply["submission"] = number;
  session_.record(kSubmissionEvent, "submit", reply, result.id);
  return mcp::ToolResult::data(reply);
}

}  // namespace d2k::agent
