#pragma once
// Final submission selection (§3.1): among the eligible submissions made within the turn budget,
// the one with the highest geometric-mean speedup over the baseline; the earliest wins a tie.

#include <cstddef>
#include <optional>
#include <vector>

#include "agent/submission_summary.h"

namespace d2k::agent {

// The index in `submissions` (in submission order) of the final one; nullopt when none is
// eligible. An eligible submission without a speedup (the baseline had no valid latency) ranks
// below every one with a speedup.
std::optional<size_t> select_final(const std::vector<SubmissionSummary>& submissions);

}  // namespace d2k::agent
