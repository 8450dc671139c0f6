#include "score/trajectory.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "score/input_checks.h"
#include "score/means.h"

namespace d2k::score {

std::vector<double> task_trajectory(std::span<const Submission> submissions, int last_turn) {
  if (last_turn < 0) throw std::invalid_argument("a trajectory needs last_turn >= 0");
  // The best eligible score first reached at each turn.
  std::vector<std::optional<double>> best_at(static_cast<size_t>(last_turn) + 1);
  for (const Submission& submission : submissions) {
    if (submission.turn < 0 || submission.turn > last_turn) {
      throw std::invalid_argument("submission at turn " + std::to_string(submission.turn) +
                                  " is outside turns 0.." + std::to_string(last_turn));
    }
    if (!submission.eligible) continue;
    require_positive(submission.task_score, "an eligible submission's score");
    std::optional<double>& best = best_at[static_cast<size_t>(submission.turn)];
    best = std::max(best.value_or(submission.task_score), submission.task_score);
  }

  std::vector<double> retained;
  retained.reserve(best_at.size());
  std::optional<double> best_so_far;
  for (const std::optional<double>& best : best_at) {
    if (best) best_so_far = std::max(best_so_far.value_or(*best), *best);
    retained.push_back(best_so_far.value_or(kTrajectoryFallback));
  }
  return retained;
}

std::vector<double> model_trajectory(std::span<const std::vector<Submission>> tasks,
                                     int last_turn) {
  if (tasks.empty()) throw std::invalid_argument("S'_perf over no tasks");
  std::vector<std::vector<double>> per_task;
  per_task.reserve(tasks.size());
  for (const std::vector<Submission>& submissions : tasks) {
    per_task.push_back(task_trajectory(submissions, last_turn));
  }

  std::vector<double> curve;
  curve.reserve(static_cast<size_t>(last_turn) + 1);
  std::vector<double> at_turn(tasks.size());
  for (size_t turn = 0; turn <= static_cast<size_t>(last_turn); ++turn) {
    for (size_t task = 0; task < per_task.size(); ++task) at_turn[task] = per_task[task][turn];
    curve.push_back(geometric_mean(at_turn));
  }
  return curve;
}

}  // namespace d2k::score
