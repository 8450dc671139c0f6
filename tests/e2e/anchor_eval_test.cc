// End-to-end: an anchor of a CPU fixture task evaluated through the real worker, by
// `--anchor NAME` and by `--impl anchor:NAME`, and stored with its name.

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"
#include "store/store.h"

namespace d2k::e2e {
namespace {

TEST(AnchorEvalTest, ALibraryAnchorPassesAndIsStoredWithItsName) {
  D2kRun run;
  const RunResult result =
      run.d2k({"eval", task_dir("cpu_scale_add").string(), "--anchor", "torch_add", "--json"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.status, 0) << result.err;
  const nlohmann::json evaluation = parse_evaluation(result);
  EXPECT_EQ(evaluation.at("impl_kind"), "anchor");
  EXPECT_EQ(evaluation.at("anchor"), "torch_add");
  EXPECT_TRUE(evaluation.at("passed").get<bool>());
  const auto stored = store::Store::open_read_only(run.store()).evaluations().list();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].impl_kind, "anchor");
  EXPECT_EQ(stored[0].anchor, "torch_add");
}

TEST(AnchorEvalTest, AnAnchorImportsTheReferenceInsideTheSandbox) {
  D2kRun run;
  const RunResult result = run.d2k(
      {"eval", task_dir("cpu_scale_add").string(), "--impl", "anchor:reference_call", "--json"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.status, 0) << result.err;
  const nlohmann::json evaluation = parse_evaluation(result);
  EXPECT_EQ(evaluation.at("anchor"), "reference_call");
  EXPECT_TRUE(evaluation.at("passed").get<bool>());
}

// torch.compile compiles for a workload's shapes in its first call: an anchor may take longer
// there than the task's call time limit, and only there.
TEST(AnchorEvalTest, AnAnchorsFirstCallMayCompileForLongerThanTheCallLimit) {
  D2kRun run;
  const RunResult result = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--anchor",
                                    "compiles_first", "--workload", "small", "--json"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(parse_evaluation(result).at("passed").get<bool>());
}

// An anchor the task lists as timing-only computes another operator: it is timed, its outputs
// are not compared, and the record says so. The same file as an ordinary anchor is incorrect.
TEST(AnchorEvalTest, ATimingOnlyAnchorIsTimedWithoutComparison) {
  D2kRun run;
  const RunResult result = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--anchor",
                                    "another_operator", "--workload", "small", "--json"});
  ASSERT_TRUE(result.exited);
  ASSERT_EQ(result.status, 0) << result.err;
  const nlohmann::json evaluation = parse_evaluation(result);
  EXPECT_TRUE(evaluation.at("passed").get<bool>());
  EXPECT_FALSE(evaluation.at("outputs_compared").get<bool>());
  EXPECT_TRUE(evaluation.at("workloads").at(0).contains("latency"));
  const auto stored = store::Store::open_read_only(run.store()).evaluations().list();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_FALSE(
      store::Store::open_read_only(run.store()).evaluations().load(stored[0].id)->outputs_compared);
}

TEST(AnchorEvalTest, AnUnknownAnchorIsAUsageErrorNamingTheKnownOnes) {
  D2kRun run;
  const RunResult result =
      run.d2k({"eval", task_dir("cpu_scale_add").string(), "--anchor", "cublas"});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "reference_call, torch_add")) << result.err;
}

}  // namespace
}  // namespace d2k::e2e
