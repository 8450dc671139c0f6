#include "timing/sample_loop.h"

#include <deque>

#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"
#include "timing/stopping_rule.h"
#include "timing/timing_error.h"

namespace d2k::timing {
namespace {

using testing::FakeBackend;

constexpr uint64_t kSwPowerCap = 0x4;
constexpr uint64_t kHwThermalSlowdown = 0x40;

Settings fixed(int samples) {
  Settings settings;
  settings.min_sample_seconds = 1.0;
  settings.samples = samples;
  return settings;
}

// A sample of `size` calls of 0.25 s each.
SampleRun quarter_second_calls(int64_t size) {
  return {0.25 * static_cast<double>(size), size, 0.25};
}

record::DeviceReading free_running() { return {1980.0, 40.0, 0, 0, 0}; }

record::DeviceReading thermal_throttled() {
  return {1500.0, 87.0, kHwThermalSlowdown, 0, 0};
}

TEST(SampleLoopTest, FixedRuleTakesExactlyTheSetNumber) {
  FakeBackend backend;
  const record::Latency latency = take_samples("events", 4, quarter_second_calls, backend, fixed(5));
  EXPECT_EQ(latency.samples.size(), 5u);
  EXPECT_EQ(latency.stopping, "fixed");
  EXPECT_EQ(latency.retaken_short, 0);
  EXPECT_DOUBLE_EQ(latency.mean_s, 0.25);
}

TEST(SampleLoopTest, ShortSamplesAreRetakenLargerAndNeverKept) {
  FakeBackend backend;
  std::vector<int64_t> sizes;
  const record::Latency latency = take_samples(
      "events", 2,
      [&](int64_t size) {
        sizes.push_back(size);
        return quarter_second_calls(size);
      },
      backend, fixed(3));
  // 2 calls last 0.5 s: discarded; ceil(2 * 1.05 / 0.5) = 5 calls last 1.25 s.
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 5, 5, 5}));
  EXPECT_EQ(latency.retaken_short, 1);
  for (const auto& sample : latency.samples) EXPECT_GE(sample.duration_s, 1.0);
}

TEST(SampleLoopTest, SamplesThatStayShortThrowAfterTheRetakeLimit) {
  FakeBackend backend;
  Settings settings = fixed(3);
  settings.max_short_retakes = 2;
  int taken = 0;
  EXPECT_THROW(take_samples(
                   "graph", 1,
                   [&](int64_t size) {
                     ++taken;
                     return SampleRun{0.001, size, 0.001 / static_cast<double>(size)};
                   },
                   backend, settings),
               SampleTooShort);
  EXPECT_EQ(taken, 3);
}

TEST(SampleLoopTest, ThrottledSamplesAreRetaken) {
  FakeBackend backend;
  // Readings come in (before, after) pairs: the second sample throttles.
  backend.script_readings({free_running(), free_running(), free_running(), thermal_throttled(),
                           free_running(), free_running(), free_running(), free_running()});
  const record::Latency latency = take_samples("events", 4, quarter_second_calls, backend, fixed(3));
  EXPECT_EQ(latency.retaken_held_back, 1);
  EXPECT_EQ(latency.kept_held_back, 0);
  ASSERT_EQ(latency.samples.size(), 3u);
  for (const auto& sample : latency.samples) {
    EXPECT_TRUE(sample.held_back.empty());
    ASSERT_TRUE(sample.before.has_value());
    EXPECT_EQ(sample.before->sm_clock_mhz, 1980.0);
  }
}

TEST(SampleLoopTest, ThrottledSamplesAreKeptAndMarkedPastTheLimit) {
  FakeBackend backend;
  std::deque<record::DeviceReading> readings(20, thermal_throttled());
  backend.script_readings(readings);
  Settings settings = fixed(3);
  settings.max_held_back_retakes = 2;
  const record::Latency latency = take_samples("events", 4, quarter_second_calls, backend, settings);
  EXPECT_EQ(latency.retaken_held_back, 2);
  EXPECT_EQ(latency.kept_held_back, 3);
  for (const auto& sample : latency.samples) EXPECT_EQ(sample.held_back, "thermal");
}

TEST(SampleLoopTest, PowerCappedSamplesAreKeptAndMarked) {
  FakeBackend backend;
  record::DeviceReading capped = free_running();
  capped.clock_event_reasons = kSwPowerCap;
  backend.script_readings(std::deque<record::DeviceReading>(6, capped));
  const record::Latency latency = take_samples("events", 4, quarter_second_calls, backend, fixed(3));
  EXPECT_EQ(latency.retaken_held_back, 0);
  for (const auto& sample : latency.samples) EXPECT_EQ(sample.held_back, "power_cap");
}

TEST(SampleLoopTest, NoiseRuleStopsOnceTheMeanIsStable) {
  FakeBackend backend;
  Settings settings = fixed(5);
  settings.stopping = "noise";
  settings.noise_target = 0.01;
  settings.max_sampling_seconds = 1000.0;
  int taken = 0;
  // Two noisy samples, then steady ones: the relative standard error falls below 1 %.
  const record::Latency latency = take_samples(
      "events", 4,
      [&](int64_t size) {
        const double per_call = taken == 0 ? 0.4 : taken == 1 ? 0.1 : 0.25;
        ++taken;
        return SampleRun{std::max(1.0, per_call * static_cast<double>(size)), size, per_call};
      },
      backend, settings);
  EXPECT_EQ(latency.stopping, "noise");
  EXPECT_GT(latency.samples.size(), 5u);
  EXPECT_LE(relative_standard_error(latency.samples_s), 0.01);
}

TEST(SampleLoopTest, NoiseRuleStopsAtItsTimeCap) {
  FakeBackend backend;
  Settings settings = fixed(5);
  settings.stopping = "noise";
  settings.noise_target = 1e-9;
  settings.max_sampling_seconds = 10.0;
  int taken = 0;
  const record::Latency latency = take_samples(
      "events", 4,
      [&](int64_t size) {
        const double per_call = ++taken % 2 == 0 ? 0.3 : 0.2;
        return SampleRun{1.0, size, per_call};
      },
      backend, settings);
  EXPECT_EQ(latency.samples.size(), 10u);
}

}  // namespace
}  // namespace d2k::timing
