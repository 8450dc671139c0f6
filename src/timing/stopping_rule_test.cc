#include "timing/stopping_rule.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

TEST(StoppingRuleTest, FixedStopsAtTheSetCount) {
  Settings settings;
  settings.samples = 3;
  const auto rule = make_stopping_rule(settings);
  EXPECT_FALSE(rule->done({1.0, 1.0}, 2.0));
  EXPECT_TRUE(rule->done({1.0, 1.0, 5.0}, 3.0));
}

TEST(StoppingRuleTest, NoiseNeedsTheMinimumCountFirst) {
  Settings settings;
  settings.stopping = "noise";
  settings.samples = 3;
  const auto rule = make_stopping_rule(settings);
  EXPECT_FALSE(rule->done({1.0, 1.0}, 2.0));
  EXPECT_TRUE(rule->done({1.0, 1.0, 1.0}, 3.0));
}

TEST(StoppingRuleTest, NoiseGoesOnWhileTheMeanIsUncertain) {
  Settings settings;
  settings.stopping = "noise";
  settings.samples = 3;
  settings.noise_target = 0.01;
  const auto rule = make_stopping_rule(settings);
  EXPECT_FALSE(rule->done({1.0, 2.0, 1.0}, 3.0));
  EXPECT_TRUE(rule->done({1.0, 2.0, 1.0}, settings.max_sampling_seconds));
}

TEST(StoppingRuleTest, RelativeStandardErrorOfTheMean) {
  // Mean 2, sample stdev 1 (values 1, 2, 3), n = 3: 1 / sqrt(3) / 2.
  EXPECT_DOUBLE_EQ(relative_standard_error({1.0, 2.0, 3.0}), 1.0 / std::sqrt(3.0) / 2.0);
  EXPECT_TRUE(std::isinf(relative_standard_error({1.0})));
  EXPECT_TRUE(std::isinf(relative_standard_error({0.0, 0.0})));
}

TEST(StoppingRuleTest, UnknownRuleIsRefused) {
  Settings settings;
  settings.stopping = "whenever";
  EXPECT_THROW(make_stopping_rule(settings), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
