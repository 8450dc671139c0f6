#include "report/results_page_builder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace d2k::report {
namespace {

constexpr const char* kFixedKinds[] = {"reference", "baseline", "expert"};

std::string implementation_label(const store::EvaluationSummary& summary) {
  return summary.impl_kind == "anchor" ? "anchor " + summary.anchor : summary.impl_kind;
}

std::string command_for(const record::EvaluationResult& evaluation, const std::string& workload) {
  const std::string implementation = evaluation.impl_kind == "anchor"
                                         ? "--anchor " + evaluation.anchor
                                         : "--impl " + evaluation.impl_kind;
  return fmt::format("d2k eval {} {} --workload {}", evaluation.task_id, implementation, workload);
}

const record::WorkloadResult* find_workload(const record::EvaluationResult& evaluation,
                                            const std::string& workload) {
  for (const auto& w : evaluation.workloads) {
    if (w.workload == workload) return &w;
  }
  return nullptr;
}

std::optional<double> passed_latency(const record::EvaluationResult* evaluation,
                                     const std::string& workload) {
  if (evaluation == nullptr) return std::nullopt;
  const record::WorkloadResult* w = find_workload(*evaluation, workload);
  if (w == nullptr || w->verdict != record::Verdict::passed || !w->latency) return std::nullopt;
  return w->latency->mean_s;
}

// The page shows the suite's protocol, cold-cache timing (docs/timing.md); an evaluation timed
// hot is a study of the cache policy, which docs/timing.md reports on its own.
bool timed_cold(const record::EvaluationResult& evaluation) {
  return std::all_of(evaluation.workloads.begin(), evaluation.workloads.end(),
                     [](const auto& w) { return !w.latency || w.latency->cache_policy == "cold"; });
}

// An implementation's evaluations, newest first.
using Evaluations = std::vector<record::EvaluationResult>;

// The newest evaluation that ran `workload`: a later run of some workloads only (--workload)
// replaces those rows and leaves the others as they were.
const record::EvaluationResult* newest_with(const Evaluations* evaluations,
                                            const std::string& workload) {
  if (evaluations == nullptr) return nullptr;
  for (const auto& evaluation : *evaluations) {
    if (find_workload(evaluation, workload) != nullptr) return &evaluation;
  }
  return nullptr;
}

// Which term of max(flops / peak, bytes / bandwidth) is T_SOL, and where its rate came from.
std::string bound_of(const record::SpeedOfLight& sol) {
  const double compute = sol.peak_flops_per_s > 0.0 ? sol.flops / sol.peak_flops_per_s : 0.0;
  const double memory = sol.peak_bytes_per_s > 0.0 ? sol.bytes / sol.peak_bytes_per_s : 0.0;
  if (compute >= memory) {
    return fmt::format("compute, {} {:.4g} TFLOP/s ({})", sol.math_dtype,
                       sol.peak_flops_per_s * 1e-12, sol.flops_source);
  }
  return fmt::format("memory, {:.4g} GB/s ({})", sol.peak_bytes_per_s * 1e-9, sol.bytes_source);
}

MeasuredRow measured_row(const std::string& label, const record::EvaluationResult& evaluation,
                         const record::WorkloadResult& w,
                         const record::EvaluationResult* reference,
                         const record::EvaluationResult* baseline) {
  MeasuredRow row;
  row.implementation = label;
  row.evaluation_id = evaluation.id;
  row.command = command_for(evaluation, w.workload);
  row.from_cache = w.from_cache;
  if (w.verdict != record::Verdict::passed) {
    row.outcome = record::to_string(w.verdict) +
                  (w.reason_code.empty() ? "" : " (" + w.reason_code + ")");
    return row;
  }
  row.outcome = "passed";
  if (!w.latency) return row;
  row.mean_s = w.latency->mean_s;
  row.stdev_s = w.latency->stdev_s;
  row.samples = static_cast<int>(w.latency->samples_s.size());
  row.calls_per_sample = w.latency->calls_per_sample;
  row.method = w.latency->method;
  row.cache_policy = w.latency->cache_policy;
  if (const auto ref = passed_latency(reference, w.workload); ref && *row.mean_s > 0.0) {
    row.speedup_vs_reference = *ref / *row.mean_s;
  }
  if (const auto base = passed_latency(baseline, w.workload); base && *row.mean_s > 0.0) {
    row.speedup_vs_baseline = *base / *row.mean_s;
  }
  if (w.sol && std::isfinite(w.sol->fraction)) row.sol_fraction = w.sol->fraction;
  return row;
}

}  // namespace

ResultsPage build_results_page(const store::Store& store, const std::vector<std::string>& tasks,
                               const std::string& device) {
  ResultsPage page;
  page.store_name = store.path().filename().string();

  // Newest first, every kind the page shows.
  std::vector<store::EvaluationSummary> summaries;
  for (const char* kind : {"expert", "baseline", "reference", "anchor"}) {
    store::Query query;
    query.impl_kind = kind;
    query.limit = 0;
    for (auto& summary : store.evaluations().list(query)) {
      if (tasks.empty() || std::find(tasks.begin(), tasks.end(), summary.task_id) != tasks.end()) {
        summaries.push_back(std::move(summary));
      }
    }
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.created_at, a.id) > std::tie(b.created_at, b.id);
  });
  page.device = device;
  if (page.device.empty() && !summaries.empty()) {
    const auto expert = std::find_if(summaries.begin(), summaries.end(),
                                     [](const auto& s) { return s.impl_kind == "expert"; });
    page.device = expert != summaries.end() ? expert->device_name : summaries.front().device_name;
  }
  if (page.device.empty()) return page;
  page.ceilings = store.ceilings().latest(page.device);

  // Every evaluation of each (task, implementation) on the device, newest first.
  std::map<std::string, std::map<std::string, Evaluations>> chosen;
  std::string newest_created_at;
  for (const auto& summary : summaries) {
    if (summary.device_name != page.device) continue;
    auto loaded = store.evaluations().load(summary.id);
    if (!loaded || !timed_cold(*loaded)) continue;
    if (loaded->created_at > newest_created_at) {
      newest_created_at = loaded->created_at;
      page.environment = loaded->environment;
    }
    chosen[summary.task_id][implementation_label(summary)].push_back(std::move(*loaded));
  }

  for (const auto& [task_id, implementations] : chosen) {
    MeasuredTask task;
    task.task_id = task_id;
    const auto find = [&](const std::string& label) -> const Evaluations* {
      const auto it = implementations.find(label);
      return it == implementations.end() ? nullptr : &it->second;
    };
    // Fixed implementations first, then the anchors by name.
    std::vector<std::string> order;
    for (const char* kind : kFixedKinds) {
      if (find(kind) != nullptr) {
        order.push_back(kind);
      } else {
        task.missing.push_back(fmt::format("no {} evaluation (d2k eval {} --impl {})", kind,
                                           task_id, kind));
      }
    }
    for (const auto& [label, evaluations] : implementations) {
      if (evaluations.front().impl_kind == "anchor") order.push_back(label);
    }
    // Workloads in the order of the newest evaluation of the first implementation that has them.
    std::vector<std::string> workloads;
    std::set<std::string> seen;
    for (const auto& label : order) {
      for (const auto& evaluation : *find(label)) {
        for (const auto& w : evaluation.workloads) {
          if (seen.insert(w.workload).second) workloads.push_back(w.workload);
        }
      }
    }
    for (const auto& workload : workloads) {
      MeasuredWorkload measured;
      measured.workload = workload;
      const record::EvaluationResult* reference = newest_with(find("reference"), workload);
      const record::EvaluationResult* baseline = newest_with(find("baseline"), workload);
      const record::EvaluationResult* expert = newest_with(find("expert"), workload);
      for (const auto& label : order) {
        const record::EvaluationResult* evaluation = newest_with(find(label), workload);
        if (evaluation == nullptr) continue;
        const record::WorkloadResult& w = *find_workload(*evaluation, workload);
        if (w.sol && !measured.t_sol_s) {
          measured.t_sol_s = w.sol->t_sol_s;
          measured.bound = bound_of(*w.sol);
        }
        // A timing-only anchor computed another operator: its time is a point of comparison.
        MeasuredRow row =
            measured_row(evaluation->outputs_compared ? label : label + " (timing only)",
                         *evaluation, w, reference, baseline);
        if (row.sol_fraction && *row.sol_fraction > 1.0) {
          page.over_sol.push_back({task_id, workload, label, *row.sol_fraction});
        }
        if (evaluation->impl_kind == "anchor" && row.mean_s) {
          if (const auto expert_s = passed_latency(expert, workload); expert_s && *expert_s > 0.0) {
            task.anchors.push_back(
                {workload, evaluation->anchor, *row.mean_s, *expert_s, *row.mean_s / *expert_s});
          }
        }
        measured.rows.push_back(std::move(row));
      }
      task.workloads.push_back(std::move(measured));
    }
    page.tasks.push_back(std::move(task));
  }
  return page;
}

}  // namespace d2k::report
