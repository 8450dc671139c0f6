// The store keeps an evaluation's static findings and sandbox statement (evaluations.validity_json).
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "store/store.h"

namespace d2k::store {
namespace {

class ValidityStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "d2k_validity_store_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

record::EvaluationResult evaluation() {
  record::EvaluationResult result;
  result.task_id = "cpu_scale_add";
  result.impl_kind = "solution";
  result.impl_path = "/x/solution.py";
  result.impl_hash = "abc";
  result.device = "cpu";
  result.environment.device_name = "cpu";
  record::WorkloadResult workload;
  workload.workload = "small";
  workload.verdict = record::Verdict::invalid;
  workload.reason_code = "forbidden_call";
  result.workloads.push_back(workload);
  return result;
}

TEST_F(ValidityStoreTest, FindingsAndTheSandboxStatementRoundTrip) {
  Store store = Store::open(dir_ / "store.sqlite");
  record::EvaluationResult result = evaluation();
  result.findings.push_back({"forbidden_call:torch.ops.*", "forbidden_call", "uses torch.ops",
                             "solution.py", 10, {"ops = getattr(torch, PART + \"ps\")"}});
  result.sandbox = "filesystem, network, process view, limits";
  const int64_t id = store.evaluations().save(result);

  const auto loaded = store.evaluations().load(id);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->findings.size(), 1u);
  EXPECT_EQ(loaded->findings[0].rule, "forbidden_call:torch.ops.*");
  EXPECT_EQ(loaded->findings[0].line, 10);
  EXPECT_EQ(loaded->findings[0].evidence, result.findings[0].evidence);
  EXPECT_EQ(loaded->sandbox, result.sandbox);
}

TEST_F(ValidityStoreTest, AnEvaluationWithoutEitherLoadsEmpty) {
  Store store = Store::open(dir_ / "store.sqlite");
  record::EvaluationResult result = evaluation();
  const auto loaded = store.evaluations().load(store.evaluations().save(result));
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->findings.empty());
  EXPECT_TRUE(loaded->sandbox.empty());
}

}  // namespace
}  // namespace d2k::store
