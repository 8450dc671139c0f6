#include "timing/batch_sizing.h"

#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

Settings graph_of(double graph_seconds, int64_t max_calls = 1000) {
  Settings settings;
  settings.graph_seconds = graph_seconds;
  settings.max_calls_per_graph = max_calls;
  return settings;
}

TEST(BatchSizingTest, GraphHoldsAboutGraphSecondsOfCalls) {
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(1), 0.125), 8);
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(1), 0.3), 3);
}

TEST(BatchSizingTest, GraphHoldsWholeRounds) {
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(3), 0.1), 9);
  // A round longer than the target still makes a graph of one round.
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(3), 5.0), 3);
}

TEST(BatchSizingTest, GraphIsCappedByMaxCallsInWholeRounds) {
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(1), 1e-9), 1000);
  EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(7), 1e-9), 994);
  // A round larger than the cap still makes one round.
  EXPECT_EQ(calls_per_graph(graph_of(1.0, 4), InputRotation(7), 1e-9), 7);
}

TEST(BatchSizingTest, EstimateBelowClockResolutionGetsTheLargestGraph) {
  for (const double estimate : {0.0, -1e-9, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(calls_per_graph(graph_of(1.0), InputRotation(1), estimate), 1000);
  }
}

TEST(BatchSizingTest, ReplaysReachTheMinimumWithFivePercentToSpare) {
  Settings settings;
  settings.min_sample_seconds = 1.0;
  EXPECT_EQ(replays_per_sample(settings, 0.1), 11);
  EXPECT_EQ(replays_per_sample(settings, 2.0), 1);
  EXPECT_EQ(replays_per_sample(settings, 0.0), 1);
}

TEST(BatchSizingTest, DefaultSettingsAreValid) { EXPECT_NO_THROW(validate(Settings{})); }

TEST(BatchSizingTest, RejectsSettingsNoMethodCanUse) {
  Settings settings;
  settings.samples = 0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.max_calls_per_sample = 0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.graph_seconds = 0.0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.max_short_retakes = -1;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.stopping = "noise";
  settings.noise_target = 0.0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings = Settings{};
  settings.min_sample_seconds = -1.0;
  EXPECT_THROW(validate(settings), std::invalid_argument);
  settings.min_sample_seconds = std::numeric_limits<double>::infinity();
  EXPECT_THROW(validate(settings), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
