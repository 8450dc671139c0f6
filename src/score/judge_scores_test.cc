#include "score/judge_scores.h"

#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace d2k::score {
namespace {

using Levels = std::vector<LevelScores>;
using Implementations = std::vector<JudgedImplementation>;

void expect_levels(const LevelScores& actual, double l1, double l2, double l3) {
  EXPECT_DOUBLE_EQ(actual.l1, l1);
  EXPECT_DOUBLE_EQ(actual.l2, l2);
  EXPECT_DOUBLE_EQ(actual.l3, l3);
}

TEST(JudgeScoresTest, TaskScoreIsTheMeanOfItsThreeLevels) {
  EXPECT_EQ(js({.l1 = 100.0, .l2 = 50.0, .l3 = 0.0}), 50.0);
  EXPECT_EQ(js({.l1 = 75.0, .l2 = 25.0, .l3 = 50.0}), 50.0);
  EXPECT_EQ(js({.l1 = 90.0, .l2 = 60.0, .l3 = 30.0}), 60.0);
}

TEST(JudgeScoresTest, IncorrectFinalSubmissionScoresZeroAtEveryLevel) {
  const JudgedImplementation incorrect{.levels = {.l1 = 80.0, .l2 = 70.0, .l3 = 60.0},
                                       .correct = false};
  EXPECT_EQ(js_impl(incorrect), 0.0);
  expect_levels(counted_levels(incorrect), 0.0, 0.0, 0.0);

  const JudgedImplementation correct{.levels = incorrect.levels, .correct = true};
  EXPECT_EQ(js_impl(correct), 70.0);
  expect_levels(counted_levels(correct), 80.0, 70.0, 60.0);
}

TEST(JudgeScoresTest, ModelScoresAreArithmeticMeansOverTasks) {
  const Implementations tasks{
      {.levels = {.l1 = 90.0, .l2 = 60.0, .l3 = 30.0}, .correct = true},   // js 60
      {.levels = {.l1 = 100.0, .l2 = 100.0, .l3 = 100.0}, .correct = true},  // js 100
      {.levels = {.l1 = 100.0, .l2 = 100.0, .l3 = 100.0}, .correct = false},  // counts as 0
  };
  EXPECT_DOUBLE_EQ(model_js_impl(tasks), 160.0 / 3.0);
  const LevelScores levels = model_impl_levels(tasks);
  expect_levels(levels, 190.0 / 3.0, 160.0 / 3.0, 130.0 / 3.0);
  // Means commute: the model's JS_impl is also the mean of its level means (as in Table 2).
  EXPECT_DOUBLE_EQ(js(levels), model_js_impl(tasks));
}

TEST(JudgeScoresTest, DesignScoreHasNoCorrectnessRule) {
  const Levels proposals{{.l1 = 90.0, .l2 = 60.0, .l3 = 30.0}, {.l1 = 0.0, .l2 = 0.0, .l3 = 0.0}};
  EXPECT_EQ(model_js_design(proposals), 30.0);
  expect_levels(level_means(proposals), 45.0, 30.0, 15.0);
}

TEST(JudgeScoresTest, OverallScoreIsTheArithmeticMeanOfModels) {
  EXPECT_EQ(overall_js(std::vector<double>{40.0, 60.0, 80.0}), 60.0);
}

TEST(JudgeScoresTest, RejectsScoresOutsideTheScaleAndEmptySets) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(js({.l1 = 101.0, .l2 = 0.0, .l3 = 0.0}), std::invalid_argument);
  EXPECT_THROW(js({.l1 = 0.0, .l2 = -1.0, .l3 = 0.0}), std::invalid_argument);
  EXPECT_THROW(js({.l1 = 0.0, .l2 = 0.0, .l3 = kNaN}), std::invalid_argument);
  // Checked even when the submission is incorrect and the scores are replaced by zeros.
  EXPECT_THROW(js_impl({.levels = {.l1 = 150.0, .l2 = 0.0, .l3 = 0.0}, .correct = false}),
               std::invalid_argument);
  EXPECT_THROW(model_js_design(Levels{}), std::invalid_argument);
  EXPECT_THROW(model_js_impl(Implementations{}), std::invalid_argument);
  EXPECT_THROW(level_means(Levels{}), std::invalid_argument);
  EXPECT_THROW(model_impl_levels(Implementations{}), std::invalid_argument);
  EXPECT_THROW(overall_js(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(overall_js(std::vector<double>{50.0, 100.5}), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::score
