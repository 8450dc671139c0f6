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

namespace d2k::record {
namespace {

TEST(SpeedOfLightAndFindings, RoundTripThroughJson) {
  EvaluationResult r;
  r.findings.push_back({"forbidden_call:torch.matmul", "forbidden_call", "calls torch.matmul",
                        "solution.py", 12, {"torch.matmul(a, b)"}});
  WorkloadResult w;
  w.workload = "w0";
  w.sol = SpeedOfLight{1e12, 4e9, "bf16", 9e14, 4e12, "cuBLAS", "datasheet", 1.2e-3, 0.5};
  w.findings.push_back({"side_stream", "side_stream", "kernel on stream 7", "", 0, {"k1"}});
  WorkloadResult no_latency;
  no_latency.sol = SpeedOfLight{1.0, 2.0, "fp32", 3.0, 4.0, "", "", 5.0};  // fraction stays NaN
  r.workloads = {w, no_latency};

  const EvaluationResult back = nlohmann::json(r).get<EvaluationResult>();
  ASSERT_EQ(back.findings.size(), 1u);
  EXPECT_EQ(back.findings[0].line, 12);
  EXPECT_EQ(back.findings[0].evidence, std::vector<std::string>{"torch.matmul(a, b)"});
  ASSERT_TRUE(back.workloads[0].sol.has_value());
  EXPECT_DOUBLE_EQ(back.workloads[0].sol->t_sol_s, 1.2e-3);
  EXPECT_DOUBLE_EQ(back.workloads[0].sol->fraction, 0.5);
  EXPECT_EQ(back.workloads[0].sol->math_dtype, "bf16");
  EXPECT_EQ(back.workloads[0].findings[0].reason_code, "side_stream");
  EXPECT_TRUE(std::isnan(back.workloads[1].sol->fraction));
  EXPECT_FALSE(nlohmann::json(back.workloads[1]).dump().empty());
}

}  // namespace
}  // namespace d2k::record
