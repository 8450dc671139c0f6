#include "timing/input_sets.h"

#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace d2k::timing {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMiB = int64_t{1} << 20;

InputSetNeeds cold(int64_t set_bytes, int64_t output_bytes = kMiB) {
  InputSetNeeds needs;
  needs.cache_policy = "cold";
  needs.set_bytes = set_bytes;
  needs.output_bytes = output_bytes;
  needs.l2_bytes = 50 * kMiB;
  needs.memory_budget = int64_t{64} << 30;
  needs.bytes_per_set = set_bytes;
  return needs;
}

TEST(InputSetsTest, HotUsesOneSet) {
  InputSetNeeds needs = cold(kMiB);
  needs.cache_policy = "hot";
  EXPECT_EQ(plan_input_sets(needs).sets, 1);
}

TEST(InputSetsTest, ColdNeverRepeatsASetBackToBack) {
  // A set far larger than the L2 still gets a second one.
  const InputSetPlan plan = plan_input_sets(cold(4096 * kMiB));
  EXPECT_EQ(plan.sets, 2);
  EXPECT_THAT(plan.why, HasSubstr("consecutive"));
}

TEST(InputSetsTest, ColdSetsTogetherExceedTwiceTheL2) {
  // 0.6 MB of logits: 100 MiB / 0.6 MiB.
  const InputSetPlan plan = plan_input_sets(cold(600 * 1024));
  EXPECT_EQ(plan.sets, 171);
  EXPECT_GE(plan.sets * 600 * 1024, 100 * kMiB);
  EXPECT_THAT(plan.why, HasSubstr("twice the L2"));
}

TEST(InputSetsTest, OutputsOfAllSetsExceedTheAuxiliaryBound) {
  InputSetNeeds needs = cold(716 * kMiB, 716 * kMiB);
  needs.peak_aux_bytes = 3000 * kMiB;
  const InputSetPlan plan = plan_input_sets(needs);
  EXPECT_EQ(plan.sets, 5);
  EXPECT_GT(plan.sets * 716 * kMiB, *needs.peak_aux_bytes);
  EXPECT_THAT(plan.why, HasSubstr("auxiliary-memory bound"));
}

TEST(InputSetsTest, MemoryBudgetCapsAndSaysSo) {
  InputSetNeeds needs = cold(kMiB);
  needs.memory_budget = 30 * kMiB;  // the L2 rule wants 100 sets
  const InputSetPlan plan = plan_input_sets(needs);
  EXPECT_EQ(plan.sets, 30);
  EXPECT_THAT(plan.why, HasSubstr("capped at 30 by device memory"));
}

TEST(InputSetsTest, AnAuxiliaryBoundOutOfReachSizesNothing) {
  // Eight-byte answers: 2^27 sets would be needed to outgrow the bound, far past any budget.
  InputSetNeeds needs = cold(64 * kMiB, 8);
  needs.peak_aux_bytes = int64_t{1} << 30;
  const InputSetPlan plan = plan_input_sets(needs);
  EXPECT_EQ(plan.sets, 2);
  EXPECT_THAT(plan.why, HasSubstr("not sized against it"));
}

TEST(InputSetsTest, MaxSetsCaps) {
  InputSetNeeds needs = cold(1024);
  const InputSetPlan plan = plan_input_sets(needs);
  EXPECT_EQ(plan.sets, 4096);
  EXPECT_THAT(plan.why, HasSubstr("capped at 4096 sets"));
}

TEST(InputSetsTest, NoCacheToDefeatStillRotatesTwoSets) {
  InputSetNeeds needs = cold(kMiB);
  needs.l2_bytes = 0;
  EXPECT_EQ(plan_input_sets(needs).sets, 2);
}

TEST(InputSetsTest, UnknownPolicyIsRefused) {
  InputSetNeeds needs = cold(kMiB);
  needs.cache_policy = "lukewarm";
  EXPECT_THROW(plan_input_sets(needs), std::invalid_argument);
}

}  // namespace
}  // namespace d2k::timing
