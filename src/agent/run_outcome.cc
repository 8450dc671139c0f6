#include "agent/run_outcome.h"

#include <stdexcept>

#include "agent/final_selection.h"
#include "agent/submit_tool.h"

namespace d2k::agent {

RunOutcome collect_outcome(const store::AgentStore& agent_store, const store::Store& store,
                           const store::AgentRun& run) {
  RunOutcome outcome;
  const auto events = agent_store.events(run.id, std::string(kSubmissionEvent));
  if (events.empty()) return outcome;
  if (!run.baseline_evaluation_id) throw std::runtime_error("run " + std::to_string(run.id) + " has submissions but no baseline");
  const auto baseline = store.evaluations().load(*run.baseline_evaluation_id);
  if (!baseline) throw std::runtime_error("the run's baseline evaluation is not in the store");
  std::vector<SubmissionSummary> summaries;
  for (const auto& event : events) {
    if (!event.evaluation_id) continue;
    const auto evaluation = store.evaluations().load(*event.evaluation_id);
    if (!evaluation) throw std::runtime_error("evaluation " + std::to_string(*event.evaluation_id) + " is not in the store");
    summaries.push_back(summarize(*evaluation, *baseline));
    outcome.submissions.push_back({event.turn, summaries.back()});
  }
  outcome.final_index = select_final(summaries);
  return outcome;
}

RunOutcome record_final_submission(store::AgentStore& agent_store, const store::Store& store,
                                   store::AgentRun& run) {
  RunOutcome outcome = collect_outcome(agent_store, store, run);
  run.final_evaluation_id.reset();
  if (outcome.final_index) run.final_evaluation_id = outcome.submissions[*outcome.final_index].summary.evaluation_id;
  agent_store.update_run(run);
  return outcome;
}

}  // namespace d2k::agent
