#pragma once
// What the performance scores need to know about one task for one implementation (a model's
// final submission under one configuration, or the reference or expert scored in its place):
// plain numbers, so the report layer fills it from stored evaluations and the tests by hand.

#include <optional>
#include <string>
#include <vector>

namespace d2k::score {

// One workload's mean per-call latencies, in seconds.
struct WorkloadLatency {
  std::string workload;
  double baseline_s = 0.0;               // t_b: the latency every score here is relative to
  std::optional<double> candidate_s;     // t: absent when the candidate has no valid measurement
  std::optional<double> expert_s;        // needed only for the expert-relative percentage
};

struct TaskOutcome {
  std::string task_id;
  // Correctness and implementation checks passed on every workload (in the store: every
  // workload's verdict is `passed`). A missing candidate latency fails the task on its own.
  bool passed = false;
  std::vector<WorkloadLatency> workloads;  // the task's whole workload set, never empty
};

}  // namespace d2k::score
