// `d2k results --kernels ID`: per workload, the stored runtime audit. CPU tasks have no tracer:
// the reference records no audit, other implementations record why they were not audited.

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

TEST(ResultsKernelsTest, ListsEachWorkloadAndSaysWhenItHasNoAudit) {
  const D2kRun run;
  const RunResult eval = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--impl",
                                  "reference", "--workload", "small", "--json"});
  const nlohmann::json record = parse_evaluation(eval);
  ASSERT_TRUE(record.is_object()) << eval.err;
  const std::string id = std::to_string(record.at("id").get<int64_t>());

  const RunResult table = run.d2k({"results", "--kernels", id});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_TRUE(contains(table.out, "evaluation " + id + " · cpu_scale_add")) << table.out;
  EXPECT_TRUE(contains(table.out, "small — passed\n  no audit recorded\n")) << table.out;

  const RunResult json = run.d2k({"results", "--kernels", id, "--json"});
  const nlohmann::json audits = nlohmann::json::parse(json.out);
  ASSERT_EQ(audits.size(), 1u);
  EXPECT_EQ(audits[0].at("workload"), "small");
  EXPECT_TRUE(audits[0].at("audit").is_null());

  EXPECT_NE(run.d2k({"results", "--kernels", "999999"}).status, 0);
}

TEST(ResultsKernelsTest, ACpuCandidateIsRecordedAsNotAudited) {
  const D2kRun run;
  const RunResult eval = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--impl",
                                  "baseline", "--workload", "small", "--json"});
  const nlohmann::json record = parse_evaluation(eval);
  ASSERT_TRUE(record.is_object()) << eval.err;
  const nlohmann::json& workload = record.at("workloads").at(0);
  EXPECT_EQ(workload.at("verdict"), "passed");  // not audited is no failure
  EXPECT_TRUE(contains(workload.at("audit").at("unavailable").get<std::string>(), "CPU task"))
      << workload.dump();
  const std::string id = std::to_string(record.at("id").get<int64_t>());
  const RunResult table = run.d2k({"results", "--kernels", id});
  EXPECT_TRUE(contains(table.out, "small — passed\n  not audited: CPU task")) << table.out;
  const RunResult human = run.d2k({"results", "--id", id});
  EXPECT_TRUE(contains(human.out, "audit: not audited: CPU task")) << human.out;
}

}  // namespace
}  // namespace d2k::e2e
