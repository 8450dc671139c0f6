#include "eval/trial_plan.h"

#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

constexpr uint64_t kBases[] = {0,
                               1,
                               42,
                               0x0123456789ABCDEFull,
                               uint64_t{1} << 63,
                               std::numeric_limits<uint64_t>::max()};

TEST(TrialPlanTest, FewerThanThreeTrialsAreRejected) {
  EXPECT_THROW(make_trial_plan(7, 0, 0), std::invalid_argument);
  EXPECT_THROW(make_trial_plan(7, 0, 2), std::invalid_argument);
  EXPECT_NO_THROW(make_trial_plan(7, 0, 3));
}

TEST(TrialPlanTest, TrialOneReusesBuffersAndTheOthersAreFresh) {
  for (int trials : {3, 4, 7}) {
    const TrialPlan plan = make_trial_plan(99, 2, trials);
    ASSERT_EQ(plan.before_timing.size(), static_cast<size_t>(trials));
    for (int i = 0; i < trials; ++i) {
      EXPECT_EQ(plan.before_timing[i].index, i);
      EXPECT_EQ(plan.before_timing[i].kind, i == 1 ? "same_buffers" : "fresh")
          << "trial " << i << " of " << trials;
    }
  }
}

TEST(TrialPlanTest, AfterTimingTrialComesLastWithIndexEqualToTheTrialCount) {
  const TrialPlan plan = make_trial_plan(99, 0, 5);

  EXPECT_EQ(plan.after_timing.index, 5);
  EXPECT_EQ(plan.after_timing.kind, "after_timing");
  EXPECT_EQ(plan.timing_trial(), 4);
}

TEST(TrialPlanTest, AllListsEveryTrialInIndexOrder) {
  const TrialPlan plan = make_trial_plan(5, 1, 4);

  const std::vector<PlannedTrial> all = plan.all();

  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].index, static_cast<int>(i));
  EXPECT_EQ(all.back().kind, "after_timing");
  EXPECT_EQ(all.back().seed, plan.after_timing.seed);
  EXPECT_EQ(all[1].seed, plan.before_timing[1].seed);
}

TEST(TrialPlanTest, SeedsAreDistinctAcrossTrialsWorkloadsAndBaseSeeds) {
  std::set<uint64_t> seeds;
  size_t count = 0;
  for (uint64_t base : kBases) {
    for (int workload = 0; workload < 16; ++workload) {
      for (const PlannedTrial& trial : make_trial_plan(base, workload, 5).all()) {
        seeds.insert(trial.seed);
        ++count;
      }
    }
  }
  EXPECT_EQ(seeds.size(), count);
}

TEST(TrialPlanTest, NeighbouringBaseSeedsGiveUnrelatedSeeds) {
  const TrialPlan a = make_trial_plan(1000, 0, 3);
  const TrialPlan b = make_trial_plan(1001, 0, 3);

  for (size_t i = 0; i < a.all().size(); ++i) EXPECT_NE(a.all()[i].seed, b.all()[i].seed);
}

TEST(TrialPlanTest, SamePlanForTheSameInputs) {
  for (uint64_t base : kBases) {
    const TrialPlan first = make_trial_plan(base, 3, 4);
    const TrialPlan second = make_trial_plan(base, 3, 4);
    const auto a = first.all();
    const auto b = second.all();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].seed, b[i].seed);
      EXPECT_EQ(a[i].kind, b[i].kind);
      EXPECT_EQ(a[i].index, b[i].index);
    }
  }
}

TEST(TrialPlanTest, SeedsFitInSixtyThreeBits) {
  // torch.manual_seed takes values below 2^63.
  for (uint64_t base : kBases) {
    for (int workload = 0; workload < 64; ++workload) {
      for (const PlannedTrial& trial : make_trial_plan(base, workload, 6).all()) {
        EXPECT_LT(trial.seed, uint64_t{1} << 63);
      }
    }
  }
}

TEST(TrialPlanTest, RandomBaseSeedsDiffer) {
  // Three 64-bit draws from the entropy source are all equal with negligible probability.
  const uint64_t a = random_base_seed();
  const uint64_t b = random_base_seed();
  const uint64_t c = random_base_seed();
  EXPECT_FALSE(a == b && b == c);
}

}  // namespace
}  // namespace d2k::eval
