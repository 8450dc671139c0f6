#include "timing/batch_sizing.h"

#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

Settings with_min_sample_seconds(double seconds) {
  Settings settings;
  settings.min_sample_seconds = seconds;
  settings.max_calls_per_sample = 1000;
  return settings;
}

TEST(BatchSizingTest, DividesMinSampleSecondsByEstimate) {
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(1.0), 0.125), 8);
}

TEST(BatchSizingTest, RoundsUpSoSamplesLastAtLeastMinSampleSeconds) {
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(1.0), 0.3), 4);
}

TEST(BatchSizingTest, CallLongerThanMinSampleSecondsGetsOneCall) {
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(1.0), 5.0), 1);
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(0.0), 0.5), 1);
}

TEST(BatchSizingTest, ClampsToMaxCallsPerSample) {
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(1.0), 1e-6), 1000);
  EXPECT_EQ(calls_per_sample(with_min_sample_seconds(1.0), 1e-300), 1000);
}

TEST(BatchSizingTest, EstimateBelowClockResolutionGetsMaxCalls) {
  const Settings settings = with_min_sample_seconds(1.0);
  EXPECT_EQ(calls_per_sample(settings, 0.0), 1000);
  EXPECT_EQ(calls_per_sample(settings, -1e-9), 1000);
  EXPECT_EQ(calls_per_sample(settings, std::numeric_limits<double>::quiet_NaN()), 1000);
}

TEST(BatchSizingTest, DefaultSettingsAreValid) { EXPECT_NO_THROW(validate(Settings{})); }

TEST(BatchSizingTest, RejectsSettingsNoMethodCanUse) {
  Settings settings;
  settings.samples = 0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.estimate_calls = 0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.max_calls_per_sample = 0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.min_sample_seconds = -1.0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings.min_sample_seconds = std::numeric_limits<double>::infinity();
  EXPECT_THROW(validate(settings), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
