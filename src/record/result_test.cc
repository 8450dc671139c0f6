#include "record/result.h"

#include <gtest/gtest.h>

namespace d2k::record {
namespace {

TEST(ResultJsonTest, BuildAndWorkspaceRoundTrip) {
  EvaluationResult result;
  result.build = Build{.cached = true, .seconds = 1.5, .hash = "0123456789abcdef",
                       .command = "nvcc -O3 x.cu -o y.so"};
  WorkloadResult workload;
  workload.workspace_bytes = int64_t{6} << 30;
  result.workloads = {workload};

  const nlohmann::json j = result;
  EXPECT_EQ(j.at("build").at("hash"), "0123456789abcdef");
  EXPECT_EQ(j.at("workloads").at(0).at("workspace_bytes"), int64_t{6} << 30);
  const auto back = j.get<EvaluationResult>();
  ASSERT_TRUE(back.build.has_value());
  EXPECT_TRUE(back.build->cached);
  EXPECT_DOUBLE_EQ(back.build->seconds, 1.5);
  EXPECT_EQ(back.build->command, "nvcc -O3 x.cu -o y.so");
  EXPECT_EQ(back.workloads.at(0).workspace_bytes, int64_t{6} << 30);
}

TEST(ResultJsonTest, PythonCandidatesHaveNeither) {
  EvaluationResult result;
  result.workloads = {WorkloadResult{}};
  const nlohmann::json j = result;
  EXPECT_FALSE(j.contains("build"));
  EXPECT_FALSE(j.at("workloads").at(0).contains("workspace_bytes"));
  const auto back = j.get<EvaluationResult>();
  EXPECT_FALSE(back.build.has_value());
  EXPECT_FALSE(back.workloads.at(0).workspace_bytes.has_value());
}

}  // namespace
}  // namespace d2k::record
