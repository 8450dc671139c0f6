#include "timing/steady_clock_backend.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "timing/events_method.h"
#include "timing/graph_method.h"

namespace d2k::timing {
namespace {

using ::testing::HasSubstr;

void busy_wait(std::chrono::duration<double> length) {
  const auto end = std::chrono::steady_clock::now() + length;
  while (std::chrono::steady_clock::now() < end) {
  }
}

class BusyWaitTarget : public CallTarget {
 public:
  explicit BusyWaitTarget(double seconds) : seconds_(seconds) {}
  void call(int64_t) override { busy_wait(std::chrono::duration<double>(seconds_)); }

 private:
  double seconds_;
};

// Only the lower bounds are tight: a busy wait cannot end early, but a loaded machine may
// preempt it for any length of time.
constexpr double kLooseUpperBound = 10.0;  // seconds

TEST(SteadyClockBackendTest, IntervalMeasuresBusyWait) {
  SteadyClockBackend backend;
  const auto interval = backend.new_interval();
  interval->start();
  busy_wait(std::chrono::milliseconds(5));
  interval->stop();
  backend.synchronize();
  EXPECT_GE(interval->seconds(), 0.005);
  EXPECT_LT(interval->seconds(), kLooseUpperBound);
}

TEST(SteadyClockBackendTest, EventsMethodMeasuresBusyWaitCall) {
  SteadyClockBackend backend;
  BusyWaitTarget target(0.002);
  Settings settings;
  settings.min_sample_seconds = 0.01;
  settings.samples = 3;
  const record::Latency latency = EventsMethod().measure(target, backend, settings);
  EXPECT_GE(latency.min_s, 0.002);
  EXPECT_LT(latency.max_s, kLooseUpperBound);
  // A call takes at least 2 ms, so batches grown to 10 ms (5 % past it, in whole rounds of one
  // set) need at most 6 calls; every sample lasts the minimum.
  EXPECT_GE(latency.calls_per_sample, 1);
  EXPECT_LE(latency.calls_per_sample, 6);
  for (const auto& sample : latency.samples) EXPECT_GE(sample.duration_s, 0.01);
}

TEST(SteadyClockBackendTest, HasNoGraphs) {
  SteadyClockBackend backend;
  EXPECT_EQ(backend.name(), "steady_clock");
  EXPECT_FALSE(backend.supports_graphs());
  EXPECT_THROW(backend.capture([] {}), std::logic_error);
  BusyWaitTarget target(0.0);
  try {
    GraphMethod().measure(target, backend, Settings{});
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(std::string(error.what()), HasSubstr("'steady_clock'"));
  }
}

}  // namespace
}  // namespace d2k::timing
