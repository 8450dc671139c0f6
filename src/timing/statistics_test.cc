#include "timing/statistics.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

record::Latency with_samples(std::vector<double> per_call_s, int64_t calls = 7) {
  record::Latency latency;
  for (const double value : per_call_s) {
    latency.samples.push_back({value * static_cast<double>(calls), calls, value, {}, {}, ""});
  }
  summarize(latency);
  return latency;
}

TEST(StatisticsTest, OneSampleHasNoSpread) {
  const record::Latency latency = with_samples({0.25});
  EXPECT_EQ(latency.mean_s, 0.25);
  EXPECT_EQ(latency.stdev_s, 0.0);
  EXPECT_EQ(latency.min_s, 0.25);
  EXPECT_EQ(latency.max_s, 0.25);
}

TEST(StatisticsTest, AlternatingSamples) {
  const record::Latency latency = with_samples({1.0, 3.0, 1.0, 3.0});
  EXPECT_DOUBLE_EQ(latency.mean_s, 2.0);
  // Deviations are +-1: 4 / (4 - 1).
  EXPECT_DOUBLE_EQ(latency.stdev_s, std::sqrt(4.0 / 3.0));
  EXPECT_EQ(latency.min_s, 1.0);
  EXPECT_EQ(latency.max_s, 3.0);
}

TEST(StatisticsTest, StandardDeviationUsesBesselsCorrection) {
  // The population standard deviation of {1, 3} is 1; the sample standard deviation is sqrt(2).
  EXPECT_DOUBLE_EQ(with_samples({1.0, 3.0}).stdev_s, std::sqrt(2.0));
}

TEST(StatisticsTest, EqualSamplesHaveNoSpread) {
  EXPECT_EQ(with_samples({0.5, 0.5, 0.5}).stdev_s, 0.0);
}

TEST(StatisticsTest, KeepsSamplesInOrderAndTheLastSamplesCalls) {
  const record::Latency latency = with_samples({3.0, 1.0, 2.0}, 12);
  EXPECT_EQ(latency.calls_per_sample, 12);
  EXPECT_EQ(latency.samples_s, (std::vector<double>{3.0, 1.0, 2.0}));
  EXPECT_EQ(latency.min_s, 1.0);
  EXPECT_EQ(latency.max_s, 3.0);
}

TEST(StatisticsTest, RejectsNoSamples) {
  record::Latency latency;
  EXPECT_THROW(summarize(latency), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
