#include "agent/final_selection.h"

namespace d2k::agent {

std::optional<size_t> select_final(const std::vector<SubmissionSummary>& submissions) {
  std::optional<size_t> best;
  auto better = [&](const SubmissionSummary& candidate, const SubmissionSummary& current) {
    if (!candidate.geomean_speedup) return false;
    return !current.geomean_speedup || *candidate.geomean_speedup > *current.geomean_speedup;
  };
  for (size_t i = 0; i < submissions.size(); ++i) {
    if (!submissions[i].eligible) continue;
    if (!best || better(submissions[i], submissions[*best])) best = i;
  }
  return best;
}

}  // namespace d2k::agent
