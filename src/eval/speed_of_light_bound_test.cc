#include "eval/speed_of_light_bound.h"

#include <cmath>

#include <gtest/gtest.h>

namespace d2k::eval {
namespace {

record::DeviceCeilings h200_like() {
  record::DeviceCeilings c;
  c.matmul = {{"bf16", {8e14, "cuBLAS"}}, {"fp16", {5e14, "cuBLAS"}}};
  c.copy = {4e12, "driver copy"};
  return c;
}

record::Latency latency(double mean_s) {
  record::Latency l;
  l.method = "events";
  l.mean_s = mean_s;
  return l;
}

TEST(SpeedOfLightBoundTest, ComputeBoundWorkUsesTheMathDtypesCeiling) {
  const auto sol = speed_of_light({.flops = 1e12, .bytes = 4e8}, "fp16", h200_like(), latency(4e-3));
  ASSERT_TRUE(sol);
  EXPECT_DOUBLE_EQ(sol->t_sol_s, 2e-3);  // 1e12 / 5e14, above 4e8 / 4e12 = 1e-4
  EXPECT_DOUBLE_EQ(sol->fraction, 0.5);
  EXPECT_EQ(sol->peak_flops_per_s, 5e14);
  EXPECT_EQ(sol->peak_bytes_per_s, 4e12);
  EXPECT_EQ(sol->flops_source, "cuBLAS");
  EXPECT_EQ(sol->bytes_source, "driver copy");
  EXPECT_EQ(sol->math_dtype, "fp16");
  EXPECT_EQ(sol->flops, 1e12);
  EXPECT_EQ(sol->bytes, 4e8);
}

TEST(SpeedOfLightBoundTest, TheDatasheetBoundsWhereItIsHigherThanAnyMeasurement) {
  record::DeviceCeilings c = h200_like();
  c.read = {4.4e12, "Triton streaming read"};
  c.datasheet_bandwidth = record::Ceiling{4.8e12, "datasheet"};
  const auto sol = speed_of_light({.flops = 1e9, .bytes = 4.8e9}, "bf16", c, latency(2e-3));
  ASSERT_TRUE(sol);
  EXPECT_DOUBLE_EQ(sol->t_sol_s, 1e-3);
  EXPECT_EQ(sol->bytes_source, "datasheet");
}

TEST(SpeedOfLightBoundTest, MemoryBoundWorkUsesTheBandwidthCeiling) {
  const auto sol = speed_of_light({.flops = 1e9, .bytes = 8e9}, "bf16", h200_like(), latency(4e-3));
  ASSERT_TRUE(sol);
  EXPECT_DOUBLE_EQ(sol->t_sol_s, 2e-3);
  EXPECT_DOUBLE_EQ(sol->fraction, 0.5);
}

TEST(SpeedOfLightBoundTest, ALatencyBelowTheBoundGivesAFractionAboveOne) {
  const auto sol = speed_of_light({.flops = 1e12, .bytes = 0}, "fp16", h200_like(), latency(1e-3));
  ASSERT_TRUE(sol);
  EXPECT_DOUBLE_EQ(sol->fraction, 2.0);
  EXPECT_EQ(sol->peak_bytes_per_s, 0.0);  // no bytes: the copy ceiling played no part
}

TEST(SpeedOfLightBoundTest, WithoutALatencyTheFractionIsNaN) {
  const auto sol = speed_of_light({.flops = 1e12, .bytes = 4e8}, "fp16", h200_like(), std::nullopt);
  ASSERT_TRUE(sol);
  EXPECT_TRUE(std::isnan(sol->fraction));
}

TEST(SpeedOfLightBoundTest, AMissingCeilingOrNoWorkGivesNoBound) {
  EXPECT_FALSE(speed_of_light({.flops = 1e12, .bytes = 4e8}, "fp32", h200_like(), latency(1)));
  record::DeviceCeilings no_copy = h200_like();
  no_copy.copy = {};
  EXPECT_FALSE(speed_of_light({.flops = 1e12, .bytes = 4e8}, "fp16", no_copy, latency(1)));
  // Flop-free work needs no matrix ceiling.
  EXPECT_TRUE(speed_of_light({.flops = 0, .bytes = 4e8}, "fp32", h200_like(), latency(1)));
  EXPECT_FALSE(speed_of_light({.flops = 0, .bytes = 0}, "fp16", h200_like(), latency(1)));
}

TEST(SpeedOfLightBoundTest, AttachesToWorkloadsTheWorkModelCovers) {
  task::Task task;
  task.work_model = task::WorkModel{"f", "b", "bf16"};
  task.workloads = {{"a", {}, task::Work{8e14, 0}}, {"b", {}, std::nullopt}};
  record::EvaluationResult result;
  result.workloads.resize(3);
  result.workloads[0].workload = "a";
  result.workloads[0].latency = latency(2.0);
  result.workloads[1].workload = "b";
  result.workloads[2].workload = "not in the task";
  attach_speed_of_light(task, h200_like(), result);
  ASSERT_TRUE(result.workloads[0].sol);
  EXPECT_DOUBLE_EQ(result.workloads[0].sol->t_sol_s, 1.0);
  EXPECT_DOUBLE_EQ(result.workloads[0].sol->fraction, 0.5);
  EXPECT_FALSE(result.workloads[1].sol);
  EXPECT_FALSE(result.workloads[2].sol);
}

TEST(SpeedOfLightBoundTest, ATaskWithoutAWorkModelGetsNoBound) {
  task::Task task;
  task.workloads = {{"a", {}, task::Work{8e14, 0}}};
  record::EvaluationResult result;
  result.workloads.resize(1);
  result.workloads[0].workload = "a";
  attach_speed_of_light(task, h200_like(), result);
  EXPECT_FALSE(result.workloads[0].sol);
}

}  // namespace
}  // namespace d2k::eval
