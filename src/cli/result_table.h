#pragma once

#include <optional>
#include <string>

#include "record/result.h"

namespace d2k::cli {

// "41.72 ms", "830.1 us": a latency in the unit that keeps three or four significant digits.
std::string format_seconds(double seconds);
// "41.3%": the fraction of the speed-of-light bound a workload's latency reached; "-" without a
// bound or a latency.
std::string format_sol_percent(const std::optional<record::SpeedOfLight>& sol);
// The runtime audit's lines of that table: which tracer recorded the audit calls, and why a
// workload was not audited (once per reason). Workloads reused from the cache are left out.
std::string render_audit_lines(const record::EvaluationResult& result);
// The human table `d2k eval` and `d2k results --id` print.
std::string render_evaluation(const record::EvaluationResult& result);

}  // namespace d2k::cli
