#include "timing/eager_calls.h"

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

TEST(EagerCallsTest, WarmUpRestoresCallsSetZeroAndSynchronizes) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(8 * kCall));
  target.set_input_sets(3);
  const Settings settings;
  EagerCalls(target, backend, settings).warm_up();
  EXPECT_EQ(target.restores_run(), 1);
  EXPECT_EQ(target.sets_called(), (std::vector<int64_t>{0}));
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  EXPECT_EQ(backend.synchronizations(), 1);
}

TEST(EagerCallsTest, StatelessCallsShareOneInterval) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  const Settings settings;
  EXPECT_EQ(EagerCalls(target, backend, settings).time(5), 5 * kCall);
  EXPECT_EQ(backend.intervals_created(), 1);
}

TEST(EagerCallsTest, CallsRotateOverInputSetsEndingOnSetZero) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  target.set_input_sets(3);
  const Settings settings;
  EagerCalls(target, backend, settings).time(6);
  EXPECT_EQ(target.sets_called(), (std::vector<int64_t>{1, 2, 0, 1, 2, 0}));
}

TEST(EagerCallsTest, StatefulTimeExcludesRestores) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  const Settings settings;
  EXPECT_EQ(EagerCalls(target, backend, settings).time(5), 5 * kCall);
  EXPECT_EQ(target.restores_run(), 5);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  EXPECT_EQ(backend.now_s(), 5 * 65 * kCall);
}

TEST(EagerCallsTest, StatefulCallsRestoreTheirOwnSet) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(2 * kCall));
  target.set_input_sets(4);
  const Settings settings;
  EagerCalls(target, backend, settings).time(8);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  EXPECT_EQ(target.sets_called(), (std::vector<int64_t>{1, 2, 3, 0, 1, 2, 3, 0}));
}

TEST(EagerCallsTest, StatefulCallsBoundPendingIntervals) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(2 * kCall));
  const Settings settings;
  const int64_t count = 2 * EagerCalls::kMaxPendingIntervals + 1;
  EXPECT_EQ(EagerCalls(target, backend, settings).time(count), count * kCall);
  // One interval each for calls and restores, reused across the three drains.
  EXPECT_EQ(backend.intervals_created(), 2 * EagerCalls::kMaxPendingIntervals);
  EXPECT_EQ(backend.synchronizations(), 3);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
}

TEST(EagerCallsTest, GrowsWholeRoundsUntilABatchLastsTheMinimum) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  target.set_input_sets(3);
  Settings settings;
  settings.min_sample_seconds = 100 * kCall;
  EagerCalls eager(target, backend, settings);
  const int64_t calls = eager.grow_to_sample();
  EXPECT_EQ(calls % 3, 0);
  EXPECT_GE(calls * kCall, settings.min_sample_seconds);
  // One round (3 calls), then 100 * 1.05 = 105 calls, a whole number of rounds.
  EXPECT_EQ(calls, 105);
}

TEST(EagerCallsTest, GrowthAimsFivePercentPastTheMinimum) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  Settings settings;
  settings.min_sample_seconds = 20 * kCall;
  EXPECT_EQ(EagerCalls(target, backend, settings).grow_to_sample(), 21);
}

TEST(EagerCallsTest, GrowthStopsAtMaxCallsPerSample) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  Settings settings;
  settings.min_sample_seconds = 1e6;
  settings.max_calls_per_sample = 500;
  EXPECT_EQ(EagerCalls(target, backend, settings).grow_to_sample(), 500);
}

TEST(EagerCallsTest, WorkOutsideTheIntervalIsUntimedWork) {
  FakeBackend backend;
  // Every call returns at once and leaves a second of work on a stream no interval brackets.
  class SideStreamTarget : public CallTarget {
   public:
    explicit SideStreamTarget(FakeBackend& backend) : backend_(backend) {}
    void call(int64_t) override {
      backend_.launch([] { return 1e-6; });
      backend_.launch_untimed(1.0);
    }

   private:
    FakeBackend& backend_;
  } target(backend);
  const Settings settings;
  EXPECT_THROW(EagerCalls(target, backend, settings).time(4), UntimedWork);
}

TEST(EagerCallsTest, HostWaitsWithinTheAllowanceAreFine) {
  EXPECT_NO_THROW(require_work_inside_intervals(1.4, 1.0, Settings{}));
  EXPECT_NO_THROW(require_work_inside_intervals(0.3, 0.001, Settings{}));
  EXPECT_NO_THROW(require_work_inside_intervals(1.9, 1.0, Settings{}));
  EXPECT_THROW(require_work_inside_intervals(2.6, 1.0, Settings{}), UntimedWork);
  EXPECT_THROW(require_work_inside_intervals(0.6, 0.001, Settings{}), UntimedWork);
}

}  // namespace
}  // namespace d2k::timing
