#include "score/sol_score.h"

#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::score {
namespace {

// A baseline of 10 s against a bound of 2 s throughout, unless a test says otherwise.
constexpr double kBaseline = 10.0;
constexpr double kBound = 2.0;

TEST(SolScoreTest, WithinTheBoundsTheScoreLiesInZeroToOne) {
  const SolScore score = sol_score(4.0, kBaseline, kBound);
  ASSERT_TRUE(score.value.has_value());
  EXPECT_DOUBLE_EQ(*score.value, 8.0 / 10.0);
  EXPECT_TRUE(score.interpretable());
}

TEST(SolScoreTest, AtTheBoundItIsOneAndAtTheBaselineHalf) {
  EXPECT_EQ(sol_score(kBound, kBaseline, kBound).value, 1.0);
  EXPECT_TRUE(sol_score(kBound, kBaseline, kBound).interpretable());
  EXPECT_EQ(sol_score(kBaseline, kBaseline, kBound).value, 0.5);
  // Slower than the baseline: below a half, still interpretable.
  const SolScore slow = sol_score(26.0, kBaseline, kBound);
  EXPECT_DOUBLE_EQ(slow.value.value(), 8.0 / 32.0);
  EXPECT_TRUE(slow.interpretable());
}

TEST(SolScoreTest, CandidateBelowTheBoundExceedsOneAndIsFlagged) {
  const SolScore score = sol_score(1.5, kBaseline, kBound);
  EXPECT_DOUBLE_EQ(score.value.value(), 8.0 / 7.5);
  EXPECT_GT(*score.value, 1.0);  // reported as computed, not clamped to 1
  EXPECT_TRUE(score.candidate_below_bound);
  EXPECT_FALSE(score.denominator_not_positive);
  EXPECT_FALSE(score.baseline_not_above_bound);
  EXPECT_FALSE(score.interpretable());
}

TEST(SolScoreTest, DenominatorSignChangeGivesANegativeScoreAndIsFlagged) {
  // Baseline barely above the bound, candidate far below it: 1 / (0.5 + 3 - 4).
  const SolScore score = sol_score(0.5, 3.0, 2.0);
  EXPECT_DOUBLE_EQ(score.value.value(), -2.0);
  EXPECT_TRUE(score.candidate_below_bound);
  EXPECT_TRUE(score.denominator_not_positive);
  EXPECT_FALSE(score.interpretable());
}

TEST(SolScoreTest, ZeroDenominatorHasNoValue) {
  const SolScore score = sol_score(1.0, 3.0, 2.0);
  EXPECT_FALSE(score.value.has_value());
  EXPECT_TRUE(score.denominator_not_positive);
  EXPECT_FALSE(score.interpretable());
}

TEST(SolScoreTest, BaselineNotAboveTheBoundIsFlagged) {
  const SolScore below = sol_score(5.0, 2.0, 3.0);  // -1 / (5 + 2 - 6)
  EXPECT_DOUBLE_EQ(below.value.value(), -1.0);
  EXPECT_TRUE(below.baseline_not_above_bound);
  EXPECT_FALSE(below.candidate_below_bound);
  EXPECT_FALSE(below.interpretable());

  const SolScore at = sol_score(4.0, 2.0, 2.0);
  EXPECT_EQ(at.value, 0.0);
  EXPECT_TRUE(at.baseline_not_above_bound);
  EXPECT_FALSE(at.interpretable());
}

TEST(SolScoreTest, RejectsNonPositiveOrNonFiniteLatencies) {
  EXPECT_THROW(sol_score(0.0, kBaseline, kBound), std::invalid_argument);
  EXPECT_THROW(sol_score(1.0, -kBaseline, kBound), std::invalid_argument);
  EXPECT_THROW(sol_score(1.0, kBaseline, 0.0), std::invalid_argument);
  EXPECT_THROW(sol_score(std::numeric_limits<double>::infinity(), kBaseline, kBound),
               std::invalid_argument);
}

}  // namespace
}  // namespace d2k::score
