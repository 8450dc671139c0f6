#include "timing/graph_method.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"
#include "timing/timing_error.h"

namespace d2k::timing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::constant;
using testing::FakeBackend;
using testing::FakeTarget;

// Simulated seconds; a power of two, so sums of costs are exact.
constexpr double kCall = 1.0 / 1024;

// Graphs of 8 calls (8 * kCall of work), samples of at least 100 * kCall.
Settings settings_with(int samples = 5) {
  Settings settings;
  settings.min_sample_seconds = 100 * kCall;
  settings.graph_seconds = 8 * kCall;
  settings.samples = samples;
  return settings;
}

TEST(GraphMethodTest, EachSampleReplaysTheGraphUntilItLastsTheMinimum) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with());
  ASSERT_EQ(latency.samples.size(), 5u);
  for (const auto& sample : latency.samples) {
    EXPECT_GE(sample.duration_s, 100 * kCall);
    // ceil(100 * 1.05 / 8) = 14 replays of 8 calls.
    EXPECT_EQ(sample.calls, 14 * 8);
  }
  // Warm-up call, one eager call to estimate, the untimed and the sizing replays, the samples,
  // and the replay after the outputs were poisoned.
  EXPECT_EQ(backend.graphs_launched(), 1 + 1 + 5 * 14 + 1);
  EXPECT_EQ(target.calls_run(), 1 + 1 + (2 + 5 * 14 + 1) * 8);
}

TEST(GraphMethodTest, TheLastOutputsComeFromAReplayAfterPoisoning) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  target.set_input_sets(2);
  GraphMethod().measure(target, backend, settings_with());
  EXPECT_EQ(target.poisoned(), 1);
  // One replay of the graph (whole rounds, ending on set 0) ran after the poisoning.
  EXPECT_GT(target.calls_since_poison(), 0);
  EXPECT_EQ(target.calls_since_poison() % 2, 0);
  EXPECT_EQ(target.sets_called().back(), 0);
}

TEST(GraphMethodTest, PerCallLatencyIsSampleTimeOverCalls) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with(7));
  EXPECT_EQ(latency.method, "graph");
  EXPECT_EQ(latency.samples_s.size(), 7u);
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_EQ(latency.stdev_s, 0.0);
}

TEST(GraphMethodTest, GraphHoldsWholeRoundsAndEndsOnSetZero) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  target.set_input_sets(3);
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with());
  // 8 * kCall of work is closest to 3 rounds of 3 calls.
  EXPECT_EQ(latency.samples.front().calls % 9, 0);
  EXPECT_EQ(target.sets_called().back(), 0);
}

TEST(GraphMethodTest, GraphSizeIsCappedByMaxCallsPerGraph) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  Settings settings = settings_with();
  settings.max_calls_per_graph = 4;
  const record::Latency latency = GraphMethod().measure(target, backend, settings);
  EXPECT_EQ(latency.samples.front().calls % 4, 0);
  EXPECT_EQ(latency.samples.front().calls, 27 * 4);  // ceil(105 / 4) replays
}

TEST(GraphMethodTest, FirstReplayIsNotReported) {
  FakeBackend backend;
  // The first replay's calls (after the two eager ones) are slow, as a graph's first launch is.
  FakeTarget target(backend, [](int64_t index) {
    return index >= 2 && index < 10 ? 100 * kCall : kCall;
  });
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with());
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
}

TEST(GraphMethodTest, SubtractsRestoresFromStatefulReplays) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with());
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  // The pairs' interval alone lasts the minimum.
  for (const auto& sample : latency.samples) EXPECT_GE(sample.duration_s, 100 * kCall);
}

TEST(GraphMethodTest, NegativeDifferenceReadsAsZero) {
  FakeBackend backend;
  // Restores cost more in the restores-only graph than between calls: a difference below zero.
  FakeTarget target(backend, constant(kCall), [](int64_t index) {
    return index % 16 < 8 ? kCall : 4 * kCall;
  });
  const record::Latency latency = GraphMethod().measure(target, backend, settings_with());
  EXPECT_GE(latency.min_s, 0.0);
}

TEST(GraphMethodTest, RefusesBackendsWithoutGraphsBeforeAnyCall) {
  FakeBackend backend(/*supports_graphs=*/false);
  FakeTarget target(backend, constant(kCall));
  try {
    GraphMethod().measure(target, backend, settings_with());
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), AllOf(HasSubstr("graph"), HasSubstr("fake")));
  }
  EXPECT_EQ(target.calls_run(), 0);
}

}  // namespace
}  // namespace d2k::timing
