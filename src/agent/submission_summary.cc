#include "agent/submission_summary.h"

#include <cmath>

#include <fmt/format.h>

namespace d2k::agent {
namespace {

std::optional<double> valid_latency(const record::WorkloadResult& workload) {
  if (workload.verdict != record::Verdict::passed || !workload.latency) return std::nullopt;
  const double mean = workload.latency->mean_s;
  if (!std::isfinite(mean) || mean <= 0.0) return std::nullopt;
  return mean;
}

const record::WorkloadResult* find_workload(const record::EvaluationResult& result,
                                            const std::string& label) {
  for (const auto& workload : result.workloads) {
    if (workload.workload == label) return &workload;
  }
  return nullptr;
}

template <typename T>
void put_optional(nlohmann::json& j, const char* key, const std::optional<T>& value) {
  j[key] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

SubmissionSummary summarize(const record::EvaluationResult& candidate,
                            const record::EvaluationResult& baseline) {
  SubmissionSummary summary;
  summary.evaluation_id = candidate.id;
  summary.baseline_evaluation_id = baseline.id;
  summary.findings = candidate.findings;
  double log_sum = 0.0;
  bool every_speedup = !candidate.workloads.empty();
  if (candidate.workloads.empty()) summary.ineligible_because.push_back("no workload was evaluated");
  if (!candidate.findings.empty()) {
    summary.ineligible_because.push_back(
        fmt::format("{} implementation-rule finding(s)", candidate.findings.size()));
  }
  for (const auto& workload : candidate.workloads) {
    WorkloadSummary row;
    row.workload = workload.workload;
    row.verdict = record::to_string(workload.verdict);
    row.reason_code = workload.reason_code;
    row.message = workload.message;
    row.findings = workload.findings;
    row.latency_s = valid_latency(workload);
    if (const auto* reference = find_workload(baseline, workload.workload)) {
      row.baseline_latency_s = valid_latency(*reference);
    }
    if (row.latency_s && row.baseline_latency_s) {
      row.speedup = *row.baseline_latency_s / *row.latency_s;
      log_sum += std::log(*row.speedup);
    } else {
      every_speedup = false;
    }
    if (workload.verdict != record::Verdict::passed) {
      summary.ineligible_because.push_back(fmt::format("{}: {}", workload.workload, row.verdict));
    } else if (!row.latency_s) {
      summary.ineligible_because.push_back(fmt::format("{}: no valid latency", workload.workload));
    }
    if (!workload.findings.empty()) {
      summary.ineligible_because.push_back(
          fmt::format("{}: {} audit finding(s)", workload.workload, workload.findings.size()));
    }
    summary.workloads.push_back(std::move(row));
  }
  summary.eligible = summary.ineligible_because.empty();
  if (every_speedup) {
    summary.geomean_speedup = std::exp(log_sum / static_cast<double>(candidate.workloads.size()));
  }
  return summary;
}

void to_json(nlohmann::json& j, const WorkloadSummary& v) {
  j = {{"workload", v.workload}, {"verdict", v.verdict}, {"reason_code", v.reason_code},
       {"message", v.message}, {"findings", v.findings}};
  put_optional(j, "latency_s", v.latency_s);
  put_optional(j, "baseline_latency_s", v.baseline_latency_s);
  put_optional(j, "speedup", v.speedup);
}

void to_json(nlohmann::json& j, const SubmissionSummary& v) {
  j = {{"evaluation_id", v.evaluation_id},
       {"baseline_evaluation_id", v.baseline_evaluation_id},
       {"eligible", v.eligible},
       {"ineligible_because", v.ineligible_because},
       {"findings", v.findings},
       {"workloads", v.workloads}};
  put_optional(j, "geomean_speedup", v.geomean_speedup);
}

}  // namespace d2k::agent
