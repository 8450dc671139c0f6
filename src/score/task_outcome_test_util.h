#pragma once
// Hand-built task outcomes for the score tests.

#include <string>
#include <vector>

#include "score/task_outcome.h"

namespace d2k::score {

// A passing task with one workload per speedup. The candidate takes 1 s and the baseline
// `speedup` s, so each workload's ratio is exactly the speedup given.
inline TaskOutcome passing_task(const std::vector<double>& speedups) {
  TaskOutcome task{.task_id = "passing", .passed = true, .workloads = {}};
  for (const double speedup : speedups) {
    task.workloads.push_back({.workload = "w" + std::to_string(task.workloads.size()),
                              .baseline_s = speedup,
                              .candidate_s = 1.0,
                              .expert_s = std::nullopt});
  }
  return task;
}

// A task whose final submission failed its checks. Its candidate latencies are ten times faster
// than the baseline's, so a score that ignored `passed` would show it.
inline TaskOutcome failing_task() {
  TaskOutcome task = passing_task({10.0, 10.0});
  task.task_id = "failing";
  task.passed = false;
  return task;
}

}  // namespace d2k::score
