#pragma once
// What a store holds, counted the way cells are. A cell is done when the store holds more
// results matching it than its repeat index, so the n-th matching evaluation (wherever it ran,
// whichever store it was merged from) stands for repeat n, and a result is never needed twice.

#include <filesystem>
#include <optional>
#include <vector>

#include "record/judge_assessment.h"
#include "store/agent_run.h"
#include "store/store.h"
#include "sweep/cell.h"

namespace d2k::sweep {

class Ledger {
 public:
  Ledger() = default;
  Ledger(std::vector<store::EvaluationSummary> evaluations, std::vector<store::AgentRun> runs,
         std::vector<record::JudgeAssessment> assessments);
  // Every evaluation, agent run and judge assessment of the store at `path` (created if absent).
  static Ledger read(const std::filesystem::path& path);

  // How many stored results match the cell, whatever their repeat.
  int count(const Cell& cell) const;
  // Judge cells need one assessment of their candidate; other cells one result per repeat.
  bool done(const Cell& cell) const;
  // The agent cell's stored runs that count for it, oldest first.
  std::vector<store::AgentRun> runs_of(const Cell& agent_cell) const;
  std::optional<store::EvaluationSummary> evaluation(int64_t id) const;

 private:
  std::vector<store::EvaluationSummary> evaluations_;
  std::vector<store::AgentRun> runs_;
  std::vector<record::JudgeAssessment> assessments_;
};

// Whether an evaluation on `device_name` counts for a cell of `device_kind`: "cpu" and "any"
// match every device, other kinds match when the name contains them, ignoring case.
bool device_matches(const std::string& device_kind, const std::string& device_name);

}  // namespace d2k::sweep
