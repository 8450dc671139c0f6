#include "timing/graph_method.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"

namespace d2k::timing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::constant;
using testing::FakeBackend;
using testing::FakeTarget;

// Simulated seconds; a power of two, so sums of costs are exact.
constexpr double kCall = 1.0 / 1024;
// The eager warm-up call and the default three estimate calls run before any graph.
constexpr int64_t kEagerCalls = 4;

Settings settings_with(double min_sample_seconds, int samples = 5) {
  Settings settings;
  settings.min_sample_seconds = min_sample_seconds;
  settings.samples = samples;
  return settings;
}

TEST(GraphMethodTest, GraphHoldsCeilOfMinSampleSecondsOverEstimate) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.calls_per_sample, 11);
  // One untimed replay, then one per sample.
  EXPECT_EQ(backend.graphs_launched(), 1 + 5);
  EXPECT_EQ(target.calls_run(), kEagerCalls + (1 + 5) * 11);
}

TEST(GraphMethodTest, PerCallLatencyIsReplayTimeOverCalls) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10.5 * kCall, 7));
  EXPECT_EQ(latency.method, "graph");
  EXPECT_EQ(latency.samples_s.size(), 7u);
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_EQ(latency.stdev_s, 0.0);
}

TEST(GraphMethodTest, FirstReplayIsNotReported) {
  FakeBackend backend;
  // Calls of the first replay (after the eager ones) are slow, as a graph's first launch is.
  FakeTarget target(backend, [](int64_t index) {
    return index >= kEagerCalls && index < kEagerCalls + 10 ? 100 * kCall : kCall;
  });
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10 * kCall));
  ASSERT_EQ(latency.calls_per_sample, 10);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
}

TEST(GraphMethodTest, SpreadIsAcrossReplays) {
  FakeBackend backend;
  // After the eager calls and the untimed replay of 10, replays alternate 1 and 3 kCall a call.
  constexpr int64_t kFirstTimed = kEagerCalls + 10;
  FakeTarget target(backend, [](int64_t index) {
    if (index < kFirstTimed) return kCall;
    return (index - kFirstTimed) / 10 % 2 == 0 ? kCall : 3 * kCall;
  });
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10 * kCall));
  ASSERT_EQ(latency.calls_per_sample, 10);
  EXPECT_EQ(latency.samples_s, (std::vector<double>{kCall, 3 * kCall, kCall, 3 * kCall, kCall}));
  EXPECT_DOUBLE_EQ(latency.mean_s, 1.8 * kCall);
  EXPECT_DOUBLE_EQ(latency.stdev_s, std::sqrt(1.2) * kCall);
  EXPECT_DOUBLE_EQ(latency.min_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, 3 * kCall);
}

TEST(GraphMethodTest, SubtractsRestoresFromStatefulReplays) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.calls_per_sample, 11);
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  // Pairs and restores-only graphs: one untimed replay each, then one each per sample.
  EXPECT_EQ(backend.graphs_launched(), 2 * (1 + 5));
  EXPECT_EQ(target.calls_run(), kEagerCalls + (1 + 5) * 11);
  EXPECT_EQ(target.restores_run(), kEagerCalls + 2 * (1 + 5) * 11);
}

TEST(GraphMethodTest, NegativeDifferenceReadsAsZero) {
  FakeBackend backend;
  // Restoring state nobody used costs four times as much, so restores-only replays outlast
  // replays of (restore, call) pairs.
  const FakeTarget* self = nullptr;
  FakeTarget target(backend, constant(kCall),
                    [&self](int64_t) { return self->state_fresh() ? 4 * kCall : kCall; });
  self = &target;
  const record::Latency latency =
      GraphMethod().measure(target, backend, settings_with(10 * kCall));
  EXPECT_EQ(latency.samples_s, std::vector<double>(5, 0.0));
  EXPECT_EQ(latency.mean_s, 0.0);
}

TEST(GraphMethodTest, BackendWithoutGraphsIsAnErrorBeforeAnyCall) {
  FakeBackend backend(/*supports_graphs=*/false);
  FakeTarget target(backend, constant(kCall));
  try {
    GraphMethod().measure(target, backend, settings_with(1.0));
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), AllOf(HasSubstr("graph"), HasSubstr("'fake'")));
  }
  EXPECT_EQ(target.calls_run(), 0);
}

}  // namespace
}  // namespace d2k::timing
