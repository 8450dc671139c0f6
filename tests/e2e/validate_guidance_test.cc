// `d2k validate-guidance`: the repository's tasks pass, and a guidance file that breaks the
// design schema or is not JSON makes the command print why and exit 1.

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

std::string shown(const RunResult& run) { return "stdout:\n" + run.out + "\nstderr:\n" + run.err; }

TEST(ValidateGuidanceTest, RepositoryTasksAreValid) {
  const D2kRun run;
  const RunResult result = run.d2k({"validate-guidance"});
  ASSERT_TRUE(result.exited) << shown(result);
  EXPECT_EQ(result.status, 0) << shown(result);
  EXPECT_TRUE(contains(result.out, "cpu_demo_softmax: valid")) << shown(result);
  EXPECT_TRUE(contains(result.out, "muon_orthogonalization: valid")) << shown(result);
}

TEST(ValidateGuidanceTest, PrintsEveryViolation) {
  // The fixture's guidance holds four strings where the design schema wants arrays and objects.
  const D2kRun run;
  const RunResult result = run.d2k({"validate-guidance", task_dir("cpu_scale_add").string()});
  ASSERT_TRUE(result.exited) << shown(result);
  EXPECT_EQ(result.status, 1) << shown(result);
  EXPECT_TRUE(contains(result.out, "cpu_scale_add: 4 violations")) << shown(result);
  EXPECT_TRUE(contains(result.out, "  /level_2_dataflow_design: is string, expected object"))
      << shown(result);
}

TEST(ValidateGuidanceTest, ReportsAFileThatIsNotJson) {
  const D2kRun run;
  const auto task = run.dir() / "tasks" / "broken";
  std::filesystem::create_directories(task);
  std::ofstream(task / "config.json") << "{}";
  std::ofstream(task / "guidance.json") << "{\"level_1_high_level_algorithmic_insights\": [";
  const RunResult result =
      run.d2k({"--tasks", (run.dir() / "tasks").string(), "validate-guidance"});
  ASSERT_TRUE(result.exited) << shown(result);
  EXPECT_EQ(result.status, 1) << shown(result);
  EXPECT_TRUE(contains(result.out, "broken: ")) << shown(result);
  EXPECT_TRUE(contains(result.out, "guidance.json: not JSON")) << shown(result);
}

}  // namespace
}  // namespace d2k::e2e
