#include "score/trajectory.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "score/performance.h"
#include "score/task_outcome_test_util.h"

namespace d2k::score {
namespace {

using Curve = std::vector<double>;
using Submissions = std::vector<Submission>;

Submission eligible(int turn, double score) {
  return {.turn = turn, .eligible = true, .task_score = score};
}

Submission ineligible(int turn) { return {.turn = turn, .eligible = false, .task_score = 0.0}; }

TEST(TrajectoryTest, NoEligibleSubmissionKeepsTheFallback) {
  EXPECT_EQ(task_trajectory(Submissions{}, 3), (Curve{0.1, 0.1, 0.1, 0.1}));
  EXPECT_EQ(task_trajectory(Submissions{ineligible(1), ineligible(2)}, 2),
            (Curve{0.1, 0.1, 0.1}));
}

TEST(TrajectoryTest, FirstEligibleScoreReplacesTheFallback) {
  EXPECT_EQ(task_trajectory(Submissions{ineligible(1), eligible(2, 0.8)}, 4),
            (Curve{0.1, 0.1, 0.8, 0.8, 0.8}));
}

TEST(TrajectoryTest, LaterWorseEligibleScoreDoesNotLowerIt) {
  EXPECT_EQ(task_trajectory(Submissions{eligible(1, 1.2), eligible(2, 0.9), eligible(3, 1.5)}, 4),
            (Curve{0.1, 1.2, 1.2, 1.5, 1.5}));
}

TEST(TrajectoryTest, EligibleScoreBelowTheFallbackIsUsedAsMeasured) {
  EXPECT_EQ(task_trajectory(Submissions{eligible(1, 0.05), eligible(3, 0.07)}, 3),
            (Curve{0.1, 0.05, 0.05, 0.07}));
}

TEST(TrajectoryTest, BestOfOneTurnAndOrderDoNotMatter) {
  const Curve expected{0.1, 0.1, 2.0, 2.0};
  EXPECT_EQ(task_trajectory(Submissions{eligible(2, 1.0), eligible(2, 2.0), ineligible(0)}, 3),
            expected);
  EXPECT_EQ(task_trajectory(Submissions{ineligible(0), eligible(2, 2.0), eligible(2, 1.0)}, 3),
            expected);
}

TEST(TrajectoryTest, IneligibleScoresAreNotRead) {
  EXPECT_EQ(task_trajectory(Submissions{{.turn = 1, .eligible = false, .task_score = 50.0},
                                        {.turn = 1, .eligible = false, .task_score = -1.0}},
                            1),
            (Curve{0.1, 0.1}));
}

TEST(TrajectoryTest, ModelCurveIsTheGeometricMeanOverTasksAtEachTurn) {
  const std::vector<Submissions> tasks{
      {eligible(1, 0.4), eligible(2, 1.6)},
      {},  // never eligible: 0.1 throughout
      {eligible(0, 2.5), eligible(2, 0.5)},
  };
  const Curve curve = model_trajectory(tasks, 2);
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_DOUBLE_EQ(curve[0], std::cbrt(0.1 * 0.1 * 2.5));
  EXPECT_DOUBLE_EQ(curve[1], std::cbrt(0.4 * 0.1 * 2.5));
  EXPECT_DOUBLE_EQ(curve[2], std::cbrt(1.6 * 0.1 * 2.5));
}

TEST(TrajectoryTest, LastPointIsTheModelScoreWhenEveryFinalSubmissionIsEligibleAndBest) {
  // Figure 4 ends at Table 1's S_perf (2.31 and 1.38 for Claude-Opus-4.8) under these terms.
  const std::vector<Submissions> runs{
      {ineligible(1), eligible(3, 1.2), eligible(5, 2.5)},
      {eligible(2, 0.7), eligible(4, 0.9)},
      {eligible(5, 4.0)},
  };
  const std::vector<TaskOutcome> finals{passing_task({2.5}), passing_task({0.9}),
                                        passing_task({4.0})};
  EXPECT_DOUBLE_EQ(model_trajectory(runs, 5).back(), model_sperf(finals));
  // Without an eligible submission the two differ: 0.1 against Eq. 1's 0.5.
  EXPECT_LT(model_trajectory(std::vector<Submissions>{{ineligible(5)}}, 5).back(),
            model_sperf(std::vector<TaskOutcome>{failing_task()}));
}

TEST(TrajectoryTest, RejectsBadInput) {
  EXPECT_THROW(task_trajectory(Submissions{}, -1), std::invalid_argument);
  EXPECT_THROW(task_trajectory(Submissions{eligible(4, 1.0)}, 3), std::invalid_argument);
  EXPECT_THROW(task_trajectory(Submissions{ineligible(-1)}, 3), std::invalid_argument);
  EXPECT_THROW(task_trajectory(Submissions{eligible(1, 0.0)}, 3), std::invalid_argument);
  EXPECT_THROW(model_trajectory(std::vector<Submissions>{}, 3), std::invalid_argument);
  EXPECT_THROW(model_trajectory(std::vector<Submissions>{{eligible(5, 1.0)}}, 3),
               std::invalid_argument);
}

}  // namespace
}  // namespace d2k::score
