#pragma once
// The performance scores (paper §3.2, Appendix A.3): latency ratios to a per-task baseline,
// combined with geometric means. Every function throws std::invalid_argument on malformed
// input: no tasks, a task without workloads, or a present latency that is not finite and > 0.

#include <array>
#include <span>

#include "score/task_outcome.h"

namespace d2k::score {

// What a task that fails its checks or its timing contributes to S_perf (Eq. 1): in log space
// it cancels an equally weighted task that is 2x faster than the baseline.
inline constexpr double kFailedTaskScore = 0.5;

// The thresholds the paper reports fast_p for (Table 5).
inline constexpr std::array<double, 3> kFastThresholds = {1.0, 1.5, 2.0};

// True when the task counts as passed for Eq. 1: `passed` and a candidate latency on every
// workload.
bool task_passes(const TaskOutcome& task);

// Geometric mean over the workloads of t_b / t. Throws when a candidate latency is missing.
double task_speedup(const TaskOutcome& task);

// Eq. 1: task_speedup when the task passes, else kFailedTaskScore.
double task_sperf(const TaskOutcome& task);

// Eq. 2: geometric mean of task_sperf over the task set. Throws on an empty set.
double model_sperf(std::span<const TaskOutcome> tasks);

// Table 4: geometric mean of task_speedup over the task set, defined only for a fully correct
// model. Throws when a task does not pass or the set is empty.
double model_speedup(std::span<const TaskOutcome> tasks);

// Overall S_perf: geometric mean of model scores (each model weighs the same).
double overall_sperf(std::span<const double> model_scores);

// The gain from guidance: guided over unguided S_perf (1.339 means +33.9 %).
double guidance_gain(double guided_sperf, double unguided_sperf);

// Performance as a percentage of the expert's: Eq. 1 with t_expert in place of t_b (0.5 still
// for a failing task), Eq. 2 over the task set, times 100. Throws when a passing task lacks an
// expert latency, or on an empty set.
double expert_relative_percent(std::span<const TaskOutcome> tasks);

// Eq. 5: the fraction (0..1) of all tasks that pass and whose task_speedup is strictly greater
// than p. Failing tasks stay in the denominator. Pass every model's tasks together for the
// paper's "Overall" row over model-task pairs. Throws on an empty set or a non-finite p.
double fast_p(std::span<const TaskOutcome> tasks, double p);

}  // namespace d2k::score
