#include "agent/submission_summary.h"

#include <cmath>

#include <gtest/gtest.h>

#include "agent/final_selection.h"

namespace d2k::agent {
namespace {

record::WorkloadResult workload(const std::string& label, record::Verdict verdict,
                                std::optional<double> mean_s) {
  record::WorkloadResult result;
  result.workload = label;
  result.verdict = verdict;
  if (mean_s) {
    result.latency = record::Latency{};
    result.latency->mean_s = *mean_s;
  }
  return result;
}

record::EvaluationResult evaluation(int64_t id, std::vector<record::WorkloadResult> workloads) {
  record::EvaluationResult result;
  result.id = id;
  result.workloads = std::move(workloads);
  return result;
}

const record::EvaluationResult kBaseline = evaluation(
    1, {workload("a", record::Verdict::passed, 2.0), workload("b", record::Verdict::passed, 8.0)});

TEST(SubmissionSummaryTest, SpeedupsAndTheirGeometricMean) {
  const auto summary = summarize(
      evaluation(5, {workload("a", record::Verdict::passed, 1.0), workload("b", record::Verdict::passed, 1.0)}),
      kBaseline);
  EXPECT_TRUE(summary.eligible);
  EXPECT_EQ(summary.evaluation_id, 5);
  EXPECT_EQ(summary.baseline_evaluation_id, 1);
  EXPECT_DOUBLE_EQ(*summary.workloads[0].speedup, 2.0);
  EXPECT_DOUBLE_EQ(*summary.workloads[1].speedup, 8.0);
  EXPECT_DOUBLE_EQ(*summary.geomean_speedup, 4.0);
}

TEST(SubmissionSummaryTest, AFailedWorkloadMakesItIneligible) {
  const auto summary = summarize(
      evaluation(5, {workload("a", record::Verdict::passed, 1.0), workload("b", record::Verdict::incorrect, std::nullopt)}),
      kBaseline);
  EXPECT_FALSE(summary.eligible);
  EXPECT_FALSE(summary.geomean_speedup);
  ASSERT_EQ(summary.ineligible_because.size(), 1u);
  EXPECT_EQ(summary.ineligible_because[0], "b: incorrect");
}

TEST(SubmissionSummaryTest, AnInvalidLatencyMakesItIneligible) {
  for (const double bad : {0.0, std::nan(""), HUGE_VAL}) {
    const auto summary = summarize(
        evaluation(5, {workload("a", record::Verdict::passed, 1.0), workload("b", record::Verdict::passed, bad)}),
        kBaseline);
    EXPECT_FALSE(summary.eligible);
    EXPECT_FALSE(summary.workloads[1].latency_s);
  }
}

TEST(SubmissionSummaryTest, FindingsMakeItIneligibleEvenWhenEveryWorkloadPassed) {
  auto result = evaluation(5, {workload("a", record::Verdict::passed, 1.0), workload("b", record::Verdict::passed, 1.0)});
  result.findings.push_back({"forbidden_call:torch.matmul", "forbidden_call", "uses torch.matmul", "solution.py", 3, {}});
  EXPECT_FALSE(summarize(result, kBaseline).eligible);
  result.findings.clear();
  result.workloads[1].findings.push_back({"side_stream", "side_stream", "a second stream", "", 0, {}});
  const auto summary = summarize(result, kBaseline);
  EXPECT_FALSE(summary.eligible);
  EXPECT_EQ(summary.workloads[1].findings.size(), 1u);
}

TEST(SubmissionSummaryTest, NoWorkloadsIsNotEligible) {
  EXPECT_FALSE(summarize(evaluation(5, {}), kBaseline).eligible);
}

TEST(SubmissionSummaryTest, JsonCarriesNullForMissingNumbers) {
  const nlohmann::json j = summarize(
      evaluation(5, {workload("a", record::Verdict::crashed, std::nullopt)}), kBaseline);
  EXPECT_TRUE(j["geomean_speedup"].is_null());
  EXPECT_TRUE(j["workloads"][0]["speedup"].is_null());
  EXPECT_EQ(j["workloads"][0]["baseline_latency_s"], 2.0);
  EXPECT_EQ(j["eligible"], false);
}

SubmissionSummary ranked(bool eligible, std::optional<double> geomean) {
  SubmissionSummary summary;
  summary.eligible = eligible;
  summary.geomean_speedup = geomean;
  return summary;
}

TEST(FinalSelectionTest, HighestEligibleGeometricMeanWins) {
  EXPECT_EQ(select_final({ranked(true, 1.5), ranked(false, 9.0), ranked(true, 2.0), ranked(true, 1.9)}), 2u);
}

TEST(FinalSelectionTest, EarliestWinsATie) {
  EXPECT_EQ(select_final({ranked(true, 2.0), ranked(true, 2.0)}), 0u);
}

TEST(FinalSelectionTest, NothingEligibleSelectsNothing) {
  EXPECT_FALSE(select_final({ranked(false, 3.0), ranked(false, std::nullopt)}));
  EXPECT_FALSE(select_final({}));
}

TEST(FinalSelectionTest, WithoutASpeedupRanksLast) {
  EXPECT_EQ(select_final({ranked(true, std::nullopt), ranked(true, 0.5)}), 1u);
  EXPECT_EQ(select_final({ranked(true, std::nullopt)}), 0u);
}

}  // namespace
}  // namespace d2k::agent
