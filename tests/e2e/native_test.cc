// End-to-end tests of native candidates beyond their verdicts (which eval_fixtures_test.cc
// checks): the build cache, language selection, and what the record keeps.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kNativeSolutions = kFixtures / "solutions" / "cpu_scale_add_native";

// `d2k eval cpu_scale_add --solution <file> --workload small --json` in `run`.
RunResult eval_small(const D2kRun& run, const fs::path& solution) {
  return run.d2k({"eval", task_dir("cpu_scale_add").string(), "--solution", solution.string(),
                  "--workload", "small", "--json"});
}

TEST(NativeBuildCacheTest, AnUnchangedSourceReusesItsBuildAndAChangedOneRebuilds) {
  D2kRun run;
  const fs::path candidate = run.dir() / "candidate.cpp";
  fs::copy_file(kNativeSolutions / "correct.cpp", candidate);
  std::string hash;
  {
    SCOPED_TRACE("first evaluation: compiled");
    const RunResult first = eval_small(run, candidate);
    ASSERT_EQ(first.status, 0) << first.err;
    const json evaluation = parse_evaluation(first);
    ASSERT_TRUE(evaluation.is_object());
    EXPECT_EQ(evaluation.at("build").at("cached"), false);
    hash = evaluation.at("build").at("hash");
    EXPECT_EQ(hash.size(), 16u);
    EXPECT_TRUE(contains(evaluation.at("build").at("command"), candidate.string()));
    EXPECT_TRUE(contains(first.err, "build: compiled in ")) << first.err;
    EXPECT_TRUE(fs::exists(run.cache() / "native" / (hash + ".so")));
  }
  {
    SCOPED_TRACE("second evaluation: from the cache, and stored as such");
    const RunResult second = eval_small(run, candidate);
    ASSERT_EQ(second.status, 0) << second.err;
    const json evaluation = parse_evaluation(second);
    ASSERT_TRUE(evaluation.is_object());
    EXPECT_EQ(evaluation.at("build").at("cached"), true);
    EXPECT_EQ(evaluation.at("build").at("hash"), hash);
    EXPECT_TRUE(contains(second.err, "build: cached " + hash)) << second.err;
    EXPECT_FALSE(contains(second.err, "build: compiled")) << second.err;

    const RunResult stored =
        run.d2k({"results", "--id", std::to_string(evaluation.at("id").get<int64_t>()), "--json"});
    ASSERT_EQ(stored.status, 0) << stored.err;
    const json record = parse_evaluation(stored);
    ASSERT_TRUE(record.is_object());
    EXPECT_EQ(record.at("build"), evaluation.at("build"));
  }
  {
    SCOPED_TRACE("a changed source: compiled again, reported in the table");
    std::ofstream(candidate, std::ios::app) << "// changed\n";
    const RunResult third = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--solution",
                                     candidate.string(), "--workload", "small"});
    ASSERT_EQ(third.status, 0) << third.err;
    EXPECT_TRUE(contains(third.out, "build: compiled in ")) << third.out;
    EXPECT_FALSE(contains(third.out, hash)) << third.out;
    EXPECT_TRUE(contains(third.err, "build: compiled in ")) << third.err;
  }
}

TEST(NativeBuildCacheTest, ACompileErrorRunsNoWorkerAndSaysSo) {
  D2kRun run;
  const RunResult result = eval_small(run, kNativeSolutions / "compile_error.cpp");
  EXPECT_EQ(result.status, 1) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  EXPECT_EQ(evaluation.at("build").at("cached"), false);
  const json& workload = evaluation.at("workloads").at(0);
  EXPECT_EQ(workload.at("reason_code"), "compile_error");
  EXPECT_TRUE(workload.at("trials").empty());
  EXPECT_TRUE(contains(result.err, "build: failed after ")) << result.err;
  EXPECT_FALSE(contains(result.err, "reference outputs")) << result.err;
}

// The real nvcc on the Muon task's CUDA C++ baseline: the .cu build cache works without a GPU.
// CI's machine has the CUDA toolkit; a machine without nvcc skips this.
TEST(NativeBuildCacheTest, AnUnchangedCudaSourceIsBuiltOnceAndAChangedOneAgain) {
  D2K_SKIP_WITHOUT_NVCC();
  D2kRun run;
  const fs::path candidate = run.dir() / "solution.cu";
  fs::copy_file(fs::path(D2K_SOURCE_DIR) / "tasks/muon_orthogonalization/baseline/solution.cu",
                candidate);
  const auto build = [&] {
    return run.d2k({"eval", (fs::path(D2K_SOURCE_DIR) / "tasks/muon_orthogonalization").string(), "--solution", candidate.string(),
                    "--build-only", "--json"});
  };
  const RunResult first = build();
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  const json first_build = json::parse(first.out);
  EXPECT_EQ(first_build.at("build").at("cached"), false);
  EXPECT_TRUE(contains(first.err, "build: compiled in ")) << first.err;
  EXPECT_TRUE(fs::exists(first_build.at("library").get<std::string>()));

  const RunResult second = build();
  ASSERT_EQ(second.status, 0) << second.err;
  const json second_build = json::parse(second.out);
  EXPECT_EQ(second_build.at("build").at("cached"), true);
  EXPECT_EQ(second_build.at("build").at("hash"), first_build.at("build").at("hash"));
  EXPECT_TRUE(contains(second.err, "build: cached ")) << second.err;

  std::ofstream(candidate, std::ios::app) << "// changed\n";
  const RunResult third = build();
  ASSERT_EQ(third.status, 0) << third.err;
  const json third_build = json::parse(third.out);
  EXPECT_EQ(third_build.at("build").at("cached"), false);
  EXPECT_NE(third_build.at("build").at("hash"), first_build.at("build").at("hash"));

  std::ofstream(candidate, std::ios::app) << "this is not C++\n";
  const RunResult broken = build();
  EXPECT_EQ(broken.status, 1);
  EXPECT_TRUE(contains(broken.out, "error")) << broken.out;
}

// The sampling task's expert is CUDA C++ (two kernels, a workspace); it must keep
// compiling with d2k's flags, though only the GPU check runs it.
TEST(NativeBuildCacheTest, TheSamplingTasksNativeExpertCompiles) {
  D2K_SKIP_WITHOUT_NVCC();
  D2kRun run;
  const fs::path task = fs::path(D2K_SOURCE_DIR) / "tasks/topk_topp_sampling";
  const RunResult built = run.d2k({"eval", task.string(), "--solution",
                                   (task / "expert/solution.cu").string(), "--build-only", "--json"});
  ASSERT_EQ(built.status, 0) << built.out << built.err;
  EXPECT_EQ(json::parse(built.out).at("ok"), true);
  EXPECT_TRUE(contains(built.err, "build: compiled in ")) << built.err;
}

TEST(NativeWorkspaceTest, TheRecordKeepsWhatSetupAskedFor) {
  D2kRun run;
  const RunResult result =
      run.d2k({"eval", task_dir("cpu_ema_state").string(), "--solution",
               (kFixtures / "solutions" / "cpu_ema_state_native" / "correct.cpp").string(),
               "--json"});
  ASSERT_EQ(result.status, 0) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  // One double per row: small has 8 rows, wide 4.
  EXPECT_EQ(evaluation.at("workloads").at(0).at("workspace_bytes"), 64);
  EXPECT_EQ(evaluation.at("workloads").at(1).at("workspace_bytes"), 32);
}

TEST(NativeWorkspaceTest, APythonCandidateHasNoBuildAndNoWorkspace) {
  D2kRun run;
  const RunResult result =
      eval_small(run, kFixtures / "solutions" / "cpu_scale_add" / "correct.py");
  ASSERT_EQ(result.status, 0) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  EXPECT_FALSE(evaluation.contains("build"));
  EXPECT_FALSE(evaluation.at("workloads").at(0).contains("workspace_bytes"));
  EXPECT_FALSE(contains(result.err, "build:")) << result.err;
}

TEST(NativeLanguageTest, ALanguageTheTaskDoesNotAcceptIsAUsageError) {
  D2kRun run;
  const fs::path cuda = run.dir() / "candidate.cu";
  std::ofstream(cuda) << "__global__ void k() {}\n";

  const RunResult result = eval_small(run, cuda);

  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "task cpu_scale_add does not accept cuda candidates"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "evaluation.languages are: python, cpp")) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_FALSE(fs::exists(run.store()));
}

TEST(NativeLanguageTest, ACppCandidateForAPythonOnlyTaskIsAUsageError) {
  D2kRun run;
  const fs::path task = run.dir() / "python_only";
  fs::copy(task_dir("cpu_scale_add"), task, fs::copy_options::recursive);
  std::ifstream in(task / "config.json");
  json config = json::parse(in);
  config["evaluation"].erase("languages");
  std::ofstream(task / "config.json") << config.dump(2);

  const RunResult result = run.d2k({"eval", task.string(), "--solution",
                                    (kNativeSolutions / "correct.cpp").string(), "--json"});

  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "does not accept cpp candidates")) << result.err;
  EXPECT_TRUE(contains(result.err, "evaluation.languages are: python")) << result.err;
}

TEST(NativeLanguageTest, AnUnknownExtensionIsAUsageError) {
  D2kRun run;
  const fs::path text = run.dir() / "solution.txt";
  std::ofstream(text) << "out = alpha * x + y\n";

  const RunResult result = eval_small(run, text);

  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "cannot tell its language")) << result.err;
}

}  // namespace
}  // namespace d2k::e2e
