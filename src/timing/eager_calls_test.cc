#include "timing/eager_calls.h"

#include <gtest/gtest.h>

#include "timing/fake_backend_test_util.h"

namespace d2k::timing {
namespace {

using testing::constant;
using testing::FakeBackend;
using testing::FakeTarget;

// Simulated seconds; a power of two, so sums of costs are exact.
constexpr double kCall = 1.0 / 1024;

TEST(EagerCallsTest, WarmUpRestoresCallsAndSynchronizes) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(8 * kCall));
  EagerCalls(target, backend).warm_up();
  EXPECT_EQ(target.restores_run(), 1);
  EXPECT_EQ(target.calls_run(), 1);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  EXPECT_EQ(backend.synchronizations(), 1);
}

TEST(EagerCallsTest, StatelessCallsShareOneInterval) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall));
  EXPECT_EQ(EagerCalls(target, backend).time(5), 5 * kCall);
  EXPECT_EQ(backend.intervals_created(), 1);
}

TEST(EagerCallsTest, EstimateIsMeanOfTimedCalls) {
  FakeBackend backend;
  FakeTarget target(backend, [](int64_t index) { return (index + 1) * kCall; });
  EXPECT_EQ(EagerCalls(target, backend).estimate(3), 2 * kCall);
}

TEST(EagerCallsTest, StatefulTimeExcludesRestores) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(64 * kCall));
  EXPECT_EQ(EagerCalls(target, backend).time(5), 5 * kCall);
  EXPECT_EQ(target.restores_run(), 5);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
  EXPECT_EQ(backend.now_s(), 5 * 65 * kCall);
}

TEST(EagerCallsTest, StatefulCallsBoundPendingIntervals) {
  FakeBackend backend;
  FakeTarget target(backend, constant(kCall), constant(2 * kCall));
  const int64_t count = 2 * EagerCalls::kMaxPendingIntervals + 1;
  EXPECT_EQ(EagerCalls(target, backend).time(count), count * kCall);
  EXPECT_EQ(backend.intervals_created(), EagerCalls::kMaxPendingIntervals);
  EXPECT_EQ(backend.synchronizations(), 3);
  EXPECT_EQ(target.calls_on_stale_state(), 0);
}

}  // namespace
}  // namespace d2k::timing
