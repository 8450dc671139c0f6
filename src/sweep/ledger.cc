#include "sweep/ledger.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "store/agent_store.h"

namespace d2k::sweep {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// A run counts once it ended on its own terms; a run that failed or never started is run again.
bool counts(const store::AgentRun& run) {
  return run.status == "finished" || run.status == "timed_out";
}

}  // namespace

bool device_matches(const std::string& device_kind, const std::string& device_name) {
  if (device_kind == "cpu" || device_kind == "any") return true;
  return lower(device_name).find(lower(device_kind)) != std::string::npos;
}

Ledger::Ledger(std::vector<store::EvaluationSummary> evaluations,
               std::vector<store::AgentRun> runs,
               std::vector<record::JudgeAssessment> assessments)
    : evaluations_(std::move(evaluations)),
      runs_(std::move(runs)),
      assessments_(std::move(assessments)) {}

Ledger Ledger::read(const std::filesystem::path& path) {
  store::Store store = store::Store::open(path);
  store::Query query;
  query.limit = 0;
  auto evaluations = store.evaluations().list(query);
  store::JudgeQuery judge_query;
  judge_query.limit = 0;
  auto assessments = store.judge_assessments().list(judge_query);
  auto runs = store.agent_runs().runs();
  return Ledger(std::move(evaluations), std::move(runs), std::move(assessments));
}

int Ledger::count(const Cell& cell) const {
  switch (cell.kind) {
    case CellKind::evaluation:
      return static_cast<int>(std::count_if(
          evaluations_.begin(), evaluations_.end(), [&](const store::EvaluationSummary& e) {
            return e.task_id == cell.task_id && e.impl_kind == cell.store_kind &&
                   e.impl_hash == cell.impl_hash && device_matches(cell.device_kind, e.device_name);
          }));
    case CellKind::agent_run:
      return static_cast<int>(runs_of(cell).size());
    case CellKind::judge_assessment:
      return static_cast<int>(std::count_if(
          assessments_.begin(), assessments_.end(), [&](const record::JudgeAssessment& a) {
            return a.task_id == cell.task_id && record::to_string(a.kind) == cell.store_kind &&
                   a.candidate_hash == cell.impl_hash && (cell.model.empty() || a.model == cell.model);
          }));
  }
  return 0;
}

bool Ledger::done(const Cell& cell) const {
  return count(cell) > (cell.kind == CellKind::judge_assessment ? 0 : cell.repeat);
}

std::vector<store::AgentRun> Ledger::runs_of(const Cell& agent_cell) const {
  std::vector<store::AgentRun> runs;
  for (const store::AgentRun& run : runs_) {
    if (run.task_id == agent_cell.task_id && run.config == agent_cell.config &&
        run.agent == agent_cell.agent && run.model == agent_cell.model && counts(run)) {
      runs.push_back(run);
    }
  }
  return runs;
}

std::optional<store::EvaluationSummary> Ledger::evaluation(int64_t id) const {
  for (const auto& e : evaluations_) {
    if (e.id == id) return e;
  }
  return std::nullopt;
}

}  // namespace d2k::sweep
