#pragma once
// What a submission earned, as the agent sees it after `submit` and as final selection ranks it
// (§3.1): per workload the verdict, latency and speedup over the baseline; eligibility (correct,
// valid, with a valid latency on every workload); and the geometric-mean speedup.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/finding.h"
#include "record/result.h"

namespace d2k::agent {

struct WorkloadSummary {
  std::string workload;
  std::string verdict;
  std::string reason_code;
  std::string message;
  std::optional<double> latency_s;           // mean per-call latency, when valid
  std::optional<double> baseline_latency_s;  // the baseline's, when valid
  std::optional<double> speedup;             // baseline / candidate, when both are valid
  std::vector<record::Finding> findings;
};

struct SubmissionSummary {
  int64_t evaluation_id = 0;
  int64_t baseline_evaluation_id = 0;
  bool eligible = false;
  std::vector<std::string> ineligible_because;    // empty when eligible
  std::optional<double> geomean_speedup;          // over every workload, when each has a speedup
  std::vector<record::Finding> findings;          // static findings, before any workload ran
  std::vector<WorkloadSummary> workloads;
};

// Compares `candidate` with `baseline` workload by workload (matched by label).
SubmissionSummary summarize(const record::EvaluationResult& candidate,
                            const record::EvaluationResult& baseline);

void to_json(nlohmann::json& j, const WorkloadSummary& v);
void to_json(nlohmann::json& j, const SubmissionSummary& v);

}  // namespace d2k::agent
