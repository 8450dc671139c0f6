#include "timing/events_method.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"

namespace d2k::timing {
namespace {

using testing::constant;
using testing::FakeBackend;
using testing::FakeTarget;

// Simulated seconds; a power of two, so sums of costs are exact.
constexpr double kCall = 1.0 / 1024;
// The warm-up call and the default three estimate calls run before the first batch.
constexpr int64_t kCallsBeforeSamples = 4;

Settings settings_with(double min_sample_seconds, int samples = 5) {
  Settings settings;
  settings.min_sample_seconds = min_sample_seconds;
  settings.samples = samples;
  return settings;
}

TEST(EventsMethodTest, BatchesHoldCeilOfMinSampleSecondsOverEstimate) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.calls_per_sample, 11);
  EXPECT_EQ(target.calls_run(), kCallsBeforeSamples + 5 * 11);
}

TEST(EventsMethodTest, MeanEqualsSimulatedCallCost) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.method, "events");
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_EQ(latency.stdev_s, 0.0);
  EXPECT_DOUBLE_EQ(latency.min_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
}

TEST(EventsMethodTest, WarmUpCallIsNeitherEstimatedNorReported) {
  FakeBackend backend;
  // A first call that compiles the kernel: were it estimated, batches would hold one call.
  FakeTarget target(backend, [](int64_t index) { return index == 0 ? 1000 * kCall : kCall; });
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  EXPECT_EQ(latency.calls_per_sample, 11);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
}

TEST(EventsMethodTest, ReportsOneSamplePerBatch) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(4 * kCall, 7));
  EXPECT_EQ(latency.samples_s.size(), 7u);
  EXPECT_EQ(target.calls_run(), kCallsBeforeSamples + 7 * 4);
}

TEST(EventsMethodTest, SpreadIsAcrossBatches) {
  FakeBackend backend;
  // Batches of 10 calls alternate between calls of 1 and 3 kCall.
  FakeTarget target(backend, [](int64_t index) {
    if (index < kCallsBeforeSamples) return kCall;
    return (index - kCallsBeforeSamples) / 10 % 2 == 0 ? kCall : 3 * kCall;
  });
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10 * kCall));
  ASSERT_EQ(latency.calls_per_sample, 10);
  EXPECT_EQ(latency.samples_s, (std::vector<double>{kCall, 3 * kCall, kCall, 3 * kCall, kCall}));
  EXPECT_DOUBLE_EQ(latency.mean_s, 1.8 * kCall);
  // Deviations -0.8, 1.2, -0.8, 1.2, -0.8 kCall: 4.8 / (5 - 1) = 1.2 kCall^2.
  EXPECT_DOUBLE_EQ(latency.stdev_s, std::sqrt(1.2) * kCall);
  EXPECT_DOUBLE_EQ(latency.min_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, 3 * kCall);
}

TEST(EventsMethodTest, RestorationIsNeverCounted) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  const record::Latency latency =
      EventsMethod().measure(target, backend, settings_with(10.5 * kCall));
  // Counted in the estimate, restores would shrink batches to one call.
  EXPECT_EQ(latency.calls_per_sample, 11);
  EXPECT_DOUBLE_EQ(latency.mean_s, kCall);
  EXPECT_DOUBLE_EQ(latency.max_s, kCall);
  EXPECT_EQ(target.restores_run(), target.calls_run());
  EXPECT_EQ(target.calls_on_stale_state(), 0);
}

TEST(EventsMethodTest, CallsBelowClockResolutionGetLargestBatches) {
  FakeBackend backend;
  FakeTarget target(backend, constant(0.0));
  Settings settings = settings_with(1.0);
  settings.max_calls_per_sample = 64;
  const record::Latency latency = EventsMethod().measure(target, backend, settings);
  EXPECT_EQ(latency.calls_per_sample, 64);
  EXPECT_EQ(latency.mean_s, 0.0);
}

TEST(EventsMethodTest, RejectsInvalidSettingsBeforeAnyCall) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  EXPECT_THROW(EventsMethod().measure(target, backend, settings_with(1.0, 0)),
               std::invalid_argument);
  EXPECT_EQ(target.calls_run(), 0);
}

}  // namespace
}  // namespace d2k::timing
