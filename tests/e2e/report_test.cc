// End-to-end: `d2k report` on a store that the real `d2k eval` filled from a CPU fixture task,
// before any agent run or judge row exists.

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;

TEST(ReportCliTest, WithoutAStoreIsAnErrorAndCreatesNone) {
  D2kRun run;
  const RunResult result = run.d2k({"report"});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "no store at")) << result.err;
  EXPECT_FALSE(fs::exists(run.store()));
}

class ReportCliStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new D2kRun();
    for (const std::string impl : {"baseline", "reference"}) {
      const RunResult eval =
          run_->d2k({"eval", task_dir("cpu_scale_add").string(), "--impl", impl, "--json"});
      ASSERT_TRUE(eval.exited && eval.status == 0) << eval.err;
    }
  }
  static void TearDownTestSuite() {
    delete run_;
    run_ = nullptr;
  }

  static D2kRun* run_;
};

D2kRun* ReportCliStoreTest::run_ = nullptr;

TEST_F(ReportCliStoreTest, MarkdownScoresTheFixedRowsAndNamesWhatIsMissing) {
  const RunResult result = run_->d2k({"report", "--format", "md"});
  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "Task set T (1 tasks): cpu_scale_add.")) << result.out;
  EXPECT_TRUE(contains(result.out, "| Baseline | — | 1 | 1 | 1.00 |  |")) << result.out;
  EXPECT_TRUE(contains(result.out, "| PyTorch reference | — | 1 | 1 |")) << result.out;
  EXPECT_TRUE(contains(result.out, "`d2k eval cpu_scale_add --impl expert`")) << result.out;
  EXPECT_TRUE(contains(result.out, "no agent runs")) << result.out;
  EXPECT_TRUE(contains(result.out, "## Task cpu_scale_add: latency per workload")) << result.out;
}

TEST_F(ReportCliStoreTest, JsonCsvAndHtmlFromTheSameStore) {
  const RunResult json = run_->d2k({"report", "--format", "json", "--task", "cpu_scale_add"});
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json model = nlohmann::json::parse(json.out);
  EXPECT_EQ(model.at("table1").at("rows").at(1).at("implementation"), "Baseline");
  EXPECT_DOUBLE_EQ(model.at("table1").at("rows").at(1).at("sperf").get<double>(), 1.0);
  EXPECT_EQ(model.at("task_views").at(0).at("workloads").size(),
            workload_labels("cpu_scale_add").size());

  const RunResult csv = run_->d2k({"report", "--format", "csv", "--table", "table1"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("Implementation,Configuration,Correct,Tasks,S_perf,Without run\n", 0),
            0u)
      << csv.out;

  const fs::path html = run_->dir() / "out" / "report.html";
  const RunResult written =
      run_->d2k({"report", "--format", "html", "--output", html.string()});
  ASSERT_EQ(written.status, 0) << written.err;
  EXPECT_EQ(written.out, "");
  EXPECT_EQ(read_file(html).rfind("<!DOCTYPE html>", 0), 0u);
}

TEST_F(ReportCliStoreTest, UsageErrors) {
  const RunResult table_in_md = run_->d2k({"report", "--format", "md", "--table", "table1"});
  EXPECT_EQ(table_in_md.status, 2);
  EXPECT_TRUE(contains(table_in_md.err, "--table needs --format csv")) << table_in_md.err;

  const RunResult unknown_table = run_->d2k({"report", "--format", "csv", "--table", "nope"});
  EXPECT_EQ(unknown_table.status, 2);
  EXPECT_TRUE(contains(unknown_table.err, "task:cpu_scale_add")) << unknown_table.err;

  const RunResult unknown_format = run_->d2k({"report", "--format", "pdf"});
  EXPECT_NE(unknown_format.status, 0);
  EXPECT_TRUE(contains(unknown_format.err, "pdf")) << unknown_format.err;
}

TEST(ReportCliListTest, ListsTheFormats) {
  D2kRun run;
  const RunResult result = run.d2k({"report", "--list-formats"});
  EXPECT_EQ(result.status, 0) << result.err;
  for (const char* format : {"md ", "csv ", "json ", "html "}) {
    EXPECT_TRUE(contains(result.out, format)) << result.out;
  }
}

}  // namespace
}  // namespace d2k::e2e
