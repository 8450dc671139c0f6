#include "score/performance.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "score/input_checks.h"
#include "score/means.h"

namespace d2k::score {
namespace {

std::string describe(const TaskOutcome& task, const WorkloadLatency& workload,
                     const char* latency) {
  return "task '" + task.task_id + "', workload '" + workload.workload + "': " + latency;
}

void validate(const TaskOutcome& task) {
  if (task.workloads.empty()) {
    throw std::invalid_argument("task '" + task.task_id + "' has no workloads");
  }
  for (const WorkloadLatency& workload : task.workloads) {
    require_positive(workload.baseline_s, describe(task, workload, "baseline latency"));
    if (workload.candidate_s) {
      require_positive(*workload.candidate_s, describe(task, workload, "candidate latency"));
    }
    if (workload.expert_s) {
      require_positive(*workload.expert_s, describe(task, workload, "expert latency"));
    }
  }
}

void require_tasks(std::span<const TaskOutcome> tasks) {
  if (tasks.empty()) throw std::invalid_argument("a score over no tasks is undefined");
}

enum class Numerator { baseline, expert };

// Eq. 1's geometric mean of the numerator's latency over the candidate's.
double speedup_over(const TaskOutcome& task, Numerator numerator) {
  validate(task);
  std::vector<double> ratios;
  ratios.reserve(task.workloads.size());
  for (const WorkloadLatency& workload : task.workloads) {
    const std::optional<double> numerator_s =
        numerator == Numerator::baseline ? workload.baseline_s : workload.expert_s;
    if (!numerator_s) {  // only the expert's can be missing
      throw std::invalid_argument(describe(task, workload, "expert latency") + " is missing");
    }
    if (!workload.candidate_s) {
      throw std::invalid_argument(describe(task, workload, "candidate latency") + " is missing");
    }
    ratios.push_back(*numerator_s / *workload.candidate_s);
  }
  return geometric_mean(ratios);
}

}  // namespace

bool task_passes(const TaskOutcome& task) {
  validate(task);
  if (!task.passed) return false;
  for (const WorkloadLatency& workload : task.workloads) {
    if (!workload.candidate_s) return false;
  }
  return true;
}

double task_speedup(const TaskOutcome& task) {
  return speedup_over(task, Numerator::baseline);
}

double task_sperf(const TaskOutcome& task) {
  return task_passes(task) ? task_speedup(task) : kFailedTaskScore;
}

double model_sperf(std::span<const TaskOutcome> tasks) {
  require_tasks(tasks);
  std::vector<double> scores;
  scores.reserve(tasks.size());
  for (const TaskOutcome& task : tasks) scores.push_back(task_sperf(task));
  return geometric_mean(scores);
}

double model_speedup(std::span<const TaskOutcome> tasks) {
  require_tasks(tasks);
  std::vector<double> speedups;
  speedups.reserve(tasks.size());
  for (const TaskOutcome& task : tasks) {
    if (!task_passes(task)) {
      throw std::invalid_argument("model speedup needs every task to pass; task '" +
                                  task.task_id + "' does not");
    }
    speedups.push_back(task_speedup(task));
  }
  return geometric_mean(speedups);
}

double overall_sperf(std::span<const double> model_scores) {
  if (model_scores.empty()) throw std::invalid_argument("overall S_perf of no models");
  return geometric_mean(model_scores);
}

double guidance_gain(double guided_sperf, double unguided_sperf) {
  require_positive(guided_sperf, "guided S_perf");
  require_positive(unguided_sperf, "unguided S_perf");
  return guided_sperf / unguided_sperf;
}

double expert_relative_percent(std::span<const TaskOutcome> tasks) {
  require_tasks(tasks);
  std::vector<double> scores;
  scores.reserve(tasks.size());
  for (const TaskOutcome& task : tasks) {
    scores.push_back(task_passes(task)
                         ? speedup_over(task, Numerator::expert)
                         : kFailedTaskScore);
  }
  return 100.0 * geometric_mean(scores);
}

double fast_p(std::span<const TaskOutcome> tasks, double p) {
  require_tasks(tasks);
  require_finite(p, "fast_p's threshold p");
  int exceeding = 0;
  for (const TaskOutcome& task : tasks) {
    if (task_passes(task) && task_speedup(task) > p) ++exceeding;
  }
  return static_cast<double>(exceeding) / static_cast<double>(tasks.size());
}

}  // namespace d2k::score
