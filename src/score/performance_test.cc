#include "score/performance.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "score/task_outcome_test_util.h"

namespace d2k::score {
namespace {

using Tasks = std::vector<TaskOutcome>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(PerformanceTest, BaselineScoredAgainstItselfIsOne) {
  const TaskOutcome task{
      .task_id = "t",
      .passed = true,
      .workloads = {{.workload = "small", .baseline_s = 3.7e-4, .candidate_s = 3.7e-4},
                    {.workload = "large", .baseline_s = 0.021, .candidate_s = 0.021}}};
  EXPECT_EQ(task_sperf(task), 1.0);
  EXPECT_EQ(model_sperf(Tasks{task, task}), 1.0);
}

TEST(PerformanceTest, TaskSpeedupIsTheGeometricMeanOverWorkloads) {
  EXPECT_EQ(task_speedup(passing_task({2.0, 8.0})), 4.0);
  // Slower than the baseline on one workload, faster on the other.
  EXPECT_EQ(task_speedup(passing_task({0.25, 4.0})), 1.0);
  EXPECT_EQ(task_sperf(passing_task({2.0, 8.0})), 4.0);
}

TEST(PerformanceTest, SpeedupIsBaselineOverCandidate) {
  TaskOutcome task = passing_task({1.0});
  task.workloads[0].baseline_s = 6.0;
  task.workloads[0].candidate_s = 2.0;
  EXPECT_EQ(task_speedup(task), 3.0);
}

TEST(PerformanceTest, FailedChecksScoreHalfWhateverTheLatencies) {
  const TaskOutcome task = failing_task();
  EXPECT_FALSE(task_passes(task));
  EXPECT_EQ(task_speedup(task), 10.0);  // measured, but not what S_perf uses
  EXPECT_EQ(task_sperf(task), 0.5);
}

TEST(PerformanceTest, MissingWorkloadLatencyScoresHalf) {
  TaskOutcome task = passing_task({4.0, 4.0, 4.0});
  task.workloads[1].candidate_s.reset();
  EXPECT_FALSE(task_passes(task));
  EXPECT_EQ(task_sperf(task), 0.5);
  EXPECT_THROW(task_speedup(task), std::invalid_argument);
}

TEST(PerformanceTest, ModelScoreIsTheGeometricMeanOverTasks) {
  EXPECT_EQ(model_sperf(Tasks{passing_task({4.0}), passing_task({1.0})}), 2.0);
  // A failing task's 0.5 cancels a task that is 2x faster.
  EXPECT_EQ(model_sperf(Tasks{passing_task({2.0}), failing_task()}), 1.0);
}

TEST(PerformanceTest, ZeroTasksCorrect) {
  const Tasks tasks(26, failing_task());
  EXPECT_EQ(model_sperf(tasks), 0.5);
  for (const double p : kFastThresholds) EXPECT_EQ(fast_p(tasks, p), 0.0) << p;
  // Below the penalty too: failing tasks are never counted, whatever their score.
  EXPECT_EQ(fast_p(tasks, 0.1), 0.0);
  EXPECT_EQ(expert_relative_percent(tasks), 50.0);
}

TEST(PerformanceTest, ModelSpeedupNeedsEveryTaskToPass) {
  const Tasks correct{passing_task({4.0}), passing_task({1.0, 1.0})};
  EXPECT_EQ(model_speedup(correct), 2.0);
  EXPECT_EQ(model_speedup(correct), model_sperf(correct));
  EXPECT_THROW(model_speedup(Tasks{passing_task({4.0}), failing_task()}), std::invalid_argument);
}

TEST(PerformanceTest, OverallScoreAndGuidanceGain) {
  EXPECT_EQ(overall_sperf(std::vector<double>{1.0, 4.0}), 2.0);
  EXPECT_EQ(guidance_gain(3.0, 2.0), 1.5);
  EXPECT_THROW(overall_sperf(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(guidance_gain(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(guidance_gain(-1.0, 1.0), std::invalid_argument);
}

TaskOutcome with_expert(TaskOutcome task, double expert_s) {
  for (WorkloadLatency& workload : task.workloads) workload.expert_s = expert_s;
  return task;
}

TEST(PerformanceTest, ExpertRelativePercentPutsTheExpertInTheNumerator) {
  // The candidate takes 1 s everywhere; the expert 0.5 s, so the candidate reaches half of it.
  EXPECT_EQ(expert_relative_percent(Tasks{with_expert(passing_task({3.0, 5.0}), 0.5)}), 50.0);
  EXPECT_EQ(expert_relative_percent(Tasks{with_expert(passing_task({3.0}), 2.0)}), 200.0);
  // A failing task still contributes 0.5: sqrt(1 * 0.5) * 100.
  EXPECT_DOUBLE_EQ(
      expert_relative_percent(Tasks{with_expert(passing_task({3.0}), 1.0), failing_task()}),
      100.0 * std::sqrt(0.5));
}

TEST(PerformanceTest, ExpertRelativePercentNeedsExpertLatenciesOfPassingTasks) {
  EXPECT_THROW(expert_relative_percent(Tasks{passing_task({3.0})}), std::invalid_argument);
  // A failing task's expert latencies are not read.
  EXPECT_EQ(expert_relative_percent(Tasks{with_expert(passing_task({3.0}), 1.0), failing_task(),
                                          failing_task()}),
            100.0 * std::cbrt(0.25));
}

TEST(PerformanceTest, FastPCountsStrictlyAboveTheThreshold) {
  // Exactly at 1, 1.5 and 2 (the last as the geometric mean of 1 and 4), and one clearly above.
  const Tasks tasks{passing_task({1.0}), passing_task({1.5}), passing_task({1.0, 4.0}),
                    passing_task({3.0})};
  EXPECT_EQ(fast_p(tasks, 1.0), 0.75);
  EXPECT_EQ(fast_p(tasks, 1.5), 0.5);
  EXPECT_EQ(fast_p(tasks, 2.0), 0.25);
  EXPECT_EQ(fast_p(tasks, 3.0), 0.0);
  EXPECT_EQ(fast_p(tasks, 0.99), 1.0);
}

TEST(PerformanceTest, FastPDividesByAllTasks) {
  EXPECT_EQ(fast_p(Tasks{passing_task({3.0}), failing_task()}, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(fast_p(Tasks{passing_task({3.0}), failing_task(), failing_task()}, 1.0),
                   1.0 / 3.0);
}

TEST(PerformanceTest, FastPRejectsNoTasksAndANonFiniteThreshold) {
  EXPECT_THROW(fast_p(Tasks{}, 1.0), std::invalid_argument);
  EXPECT_THROW(fast_p(Tasks{passing_task({3.0})}, kNaN), std::invalid_argument);
}

TEST(PerformanceTest, RejectsAnEmptyTaskSet) {
  EXPECT_THROW(model_sperf(Tasks{}), std::invalid_argument);
  EXPECT_THROW(model_speedup(Tasks{}), std::invalid_argument);
  EXPECT_THROW(expert_relative_percent(Tasks{}), std::invalid_argument);
}

TEST(PerformanceTest, RejectsMalformedTasks) {
  TaskOutcome no_workloads = passing_task({});
  EXPECT_THROW(task_sperf(no_workloads), std::invalid_argument);

  TaskOutcome zero_baseline = passing_task({2.0});
  zero_baseline.workloads[0].baseline_s = 0.0;
  EXPECT_THROW(task_sperf(zero_baseline), std::invalid_argument);

  // Checked even on a failing task: a negative latency is broken input, not a failure.
  TaskOutcome negative_candidate = failing_task();
  negative_candidate.workloads[0].candidate_s = -1.0;
  EXPECT_THROW(task_sperf(negative_candidate), std::invalid_argument);

  TaskOutcome nan_expert = passing_task({2.0});
  nan_expert.workloads[0].expert_s = kNaN;
  EXPECT_THROW(task_sperf(nan_expert), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::score
