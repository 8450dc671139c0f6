#pragma once
// The end of an agent run: every submission it made, summarized against the run's baseline from
// the stored evaluations, and the final one (§3.1).

#include <optional>
#include <vector>

#include "agent/submission_summary.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::agent {

struct SubmissionRecord {
  int turn = 0;
  SubmissionSummary summary;
};

struct RunOutcome {
  std::vector<SubmissionRecord> submissions;  // in submission order
  std::optional<size_t> final_index;          // into submissions; none when nothing is eligible
};

// Reads the run's submissions and evaluations from the stores and selects the final one.
RunOutcome collect_outcome(const store::AgentStore& agent_store, const store::Store& store,
                           const store::AgentRun& run);

// collect_outcome, then the final submission's evaluation written into `run` and the store,
// with whatever else the caller changed in `run`.
RunOutcome record_final_submission(store::AgentStore& agent_store, const store::Store& store,
                                   store::AgentRun& run);

}  // namespace d2k::agent
