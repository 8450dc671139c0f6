#include "timing/events_method.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"
#include "timing/timing_error.h"

namespace d2k::timing {
namespace {

using testing::constant;
using testing::FakeBackend;
using testing::FakeTarget;

// Simulated seconds; a power of two, so sums of costs are exact.
constexpr double kCall = 1.0 / 1024;

Settings settings_with(double min_sample_seconds, int samples = 5) {
  Settings settings;
  settings.min_sample_seconds = min_sample_seconds;
  settings.samples = samples;
  return settings;
}

TEST(EventsMethodTest, EverySampleLastsAtLeastTheMinimum) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  ASSERT_EQ(latency.samples.size(), 5u);
  for (const auto& sample : latency.samples) {
    EXPECT_GE(sample.duration_s, 10.5 * kCall);
    EXPECT_EQ(sample.calls, 12);  // ceil(10.5 * 1.05)
    EXPECT_DOUBLE_EQ(sample.duration_s, sample.calls * kCall);
  }
  EXPECT_EQ(latency.calls_per_sample, 12);
  EXPECT_DOUBLE_EQ(latency.shortest_sample_s(), 12 * kCall);
  // The warm-up call, one sizing batch of 1 and one of 12, then the samples.
  EXPECT_EQ(target.calls_run(), 1 + 1 + 12 + 5 * 12);
}

TEST(EventsMethodTest, MeanEqualsSimulatedCallCost) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.method, "events");
  EXPECT_EQ(latency.stopping, "fixed");
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_EQ(latency.stdev_s, 0.0);
  EXPECT_DOUBLE_EQ(latency.min_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
  EXPECT_EQ(latency.min_sample_seconds, 10.5 * kCall);
}

TEST(EventsMethodTest, WarmUpCallIsNeitherSizedNorReported) {
  FakeBackend backend;
  // A first call that compiles the kernel: were it sized on, batches would hold one call.
  FakeTarget target(backend, [](int64_t index) { return index == 0 ? 1000 * kCall : kCall; });
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.calls_per_sample, 12);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
}

TEST(EventsMethodTest, BatchesRotateOverInputSetsInWholeRounds) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  target.set_input_sets(4);
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  for (const auto& sample : latency.samples) EXPECT_EQ(sample.calls % 4, 0);
  // Every batch ends on set 0, so the last timed call ran on it.
  EXPECT_EQ(target.sets_called().back(), 0);
}

TEST(EventsMethodTest, StatefulTargetsNeverCountRestores) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
}

TEST(EventsMethodTest, ASampleThatRanShortIsRetakenLarger) {
  FakeBackend backend;
  // Calls get four times faster after sizing (a clock boost): the first samples run short.
  FakeTarget target(backend, [](int64_t index) { return index < 14 ? kCall : kCall / 4; });
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_GE(latency.retaken_short, 1);
  for (const auto& sample : latency.samples) EXPECT_GE(sample.duration_s, 10.5 * kCall);
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall / 4);
}

TEST(EventsMethodTest, SamplesThatStayShortAreAHarnessError) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  Settings settings = settings_with(1000 * kCall);
  settings.max_calls_per_sample = 100;
  EXPECT_THROW(EventsMethod().measure(target, backend, settings), SampleTooShort);
}

}  // namespace
}  // namespace d2k::timing
