// End-to-end tests: the real `d2k` binary evaluates the CPU fixture tasks in worker processes.
// Every candidate under tests/fixtures/solutions/<task>/ (Python) and <task>_native/ (C++)
// declares the verdict it must get in its `# expect-verdict:` (`// expect-verdict:` in C++)
// header, with optional `expect-reason:` and `expect-message:` lines (the message must contain
// each), so adding a fixture adds a test.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "d2k_run.h"
#include "util/expect_header_test_util.h"

namespace d2k::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::vector<std::string> kFixtureTasks = {"cpu_scale_add", "cpu_ema_state"};

struct FixtureSolution {
  std::string task;
  std::string folder;  // under solutions/: the task's name, with "_native" for C++ candidates
  fs::path file;
  std::string expect_verdict;               // empty when the header lacks one
  std::optional<std::string> expect_reason;
  std::vector<std::string> expect_messages;  // parts the message must contain
};

void PrintTo(const FixtureSolution& solution, std::ostream* os) {
  *os << solution.folder << "/" << solution.file.filename().string();
}

std::string trimmed(std::string text) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  text.erase(text.begin(), std::find_if(text.begin(), text.end(), not_space));
  text.erase(std::find_if(text.rbegin(), text.rend(), not_space).base(), text.end());
  return text;
}

// Reads the `expect-...:` lines of the comment block the file starts with.
FixtureSolution read_solution(const std::string& task, const std::string& folder,
                              const fs::path& file) {
  const util::ExpectHeader header = util::read_expect_header(file);
  return FixtureSolution{task, folder, file, header.verdict, header.reason, header.messages};
}

std::vector<FixtureSolution> all_solutions() {
  std::vector<FixtureSolution> solutions;
  for (const auto& task : kFixtureTasks) {
    for (const auto& [folder, extension] :
         {std::pair<std::string, std::string>{task, ".py"}, {task + "_native", ".cpp"}}) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(kFixtures / "solutions" / folder)) {
        if (entry.is_regular_file() && entry.path().extension() == extension) {
          files.push_back(entry);
        }
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) solutions.push_back(read_solution(task, folder, file));
    }
  }
  return solutions;
}

std::string test_name(const ::testing::TestParamInfo<FixtureSolution>& info) {
  std::string name = info.param.folder + "_" + info.param.file.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

std::vector<std::string> trial_kinds(const json& workload) {
  std::vector<std::string> kinds;
  for (const auto& trial : workload.at("trials")) kinds.push_back(trial.at("kind"));
  return kinds;
}

const std::vector<std::string> kPassingTrialKinds = {"fresh", "same_buffers", "fresh",
                                                     "last_timed_call", "after_timing"};

class EvalFixtureSolutionTest : public ::testing::TestWithParam<FixtureSolution> {};

TEST_P(EvalFixtureSolutionTest, GetsTheVerdictItsHeaderDeclares) {
  const FixtureSolution& solution = GetParam();
  ASSERT_FALSE(solution.expect_verdict.empty())
      << solution.file << " has no '# expect-verdict:' header";

  D2kRun run;
  const RunResult result = run.d2k(
      {"eval", task_dir(solution.task).string(), "--solution", solution.file.string(), "--json"});

  ASSERT_TRUE(result.exited) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  EXPECT_EQ(evaluation.at("task"), solution.task);
  EXPECT_EQ(evaluation.at("impl_kind"), "solution");

  const auto labels = workload_labels(solution.task);
  const json& workloads = evaluation.at("workloads");
  ASSERT_EQ(workloads.size(), labels.size()) << result.err;
  bool all_passed = true;
  for (size_t i = 0; i < workloads.size(); ++i) {
    const json& workload = workloads[i];
    SCOPED_TRACE("workload " + labels[i] + ": " + workload.value("message", ""));
    EXPECT_EQ(workload.at("workload"), labels[i]);
    EXPECT_EQ(workload.at("verdict"), solution.expect_verdict);
    if (solution.expect_reason) EXPECT_EQ(workload.at("reason_code"), *solution.expect_reason);
    for (const auto& part : solution.expect_messages) {
      EXPECT_TRUE(contains(workload.at("message"), part)) << "message lacks: " << part;
    }
    all_passed = all_passed && workload.at("verdict") == "passed";
    if (solution.expect_verdict == "passed") {
      EXPECT_EQ(trial_kinds(workload), kPassingTrialKinds);
      EXPECT_FALSE(workload.at("latency").is_null());
      EXPECT_EQ(workload.at("reason_code"), "");
    } else {
      EXPECT_FALSE(workload.at("reason_code").get<std::string>().empty());
      EXPECT_FALSE(workload.at("message").get<std::string>().empty());
    }
  }
  EXPECT_EQ(evaluation.at("passed"), all_passed);
  EXPECT_EQ(result.status, all_passed ? 0 : 1) << result.err;
}

INSTANTIATE_TEST_SUITE_P(FixtureSolutions, EvalFixtureSolutionTest,
                         ::testing::ValuesIn(all_solutions()), test_name);

class BaselineEvalTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BaselineEvalTest, PassesThenReusesStoredLatencyUnlessNoCache) {
  const std::string task = GetParam();
  const auto labels = workload_labels(task);
  D2kRun run;
  const std::vector<std::string> eval{"eval", task_dir(task).string(), "--impl", "baseline",
                                      "--json"};
  std::vector<int64_t> ids;

  {
    SCOPED_TRACE("first run");
    const RunResult first = run.d2k(eval);
    ASSERT_TRUE(first.exited);
    EXPECT_EQ(first.status, 0) << first.err;
    const json evaluation = parse_evaluation(first);
    ASSERT_TRUE(evaluation.is_object());
    EXPECT_EQ(evaluation.at("impl_kind"), "baseline");
    EXPECT_EQ(evaluation.at("passed"), true);
    ASSERT_EQ(evaluation.at("workloads").size(), labels.size());
    for (const json& workload : evaluation.at("workloads")) {
      EXPECT_EQ(workload.at("verdict"), "passed") << workload.value("message", "");
      EXPECT_EQ(workload.at("from_cache"), false);
      EXPECT_EQ(trial_kinds(workload), kPassingTrialKinds);
      EXPECT_GT(workload.at("latency").at("mean_s").get<double>(), 0.0);
    }
    ids.push_back(evaluation.at("id"));
  }
  {
    SCOPED_TRACE("second run");
    const RunResult second = run.d2k(eval);
    ASSERT_TRUE(second.exited);
    EXPECT_EQ(second.status, 0) << second.err;
    const json evaluation = parse_evaluation(second);
    ASSERT_TRUE(evaluation.is_object());
    ASSERT_EQ(evaluation.at("workloads").size(), labels.size());
    for (const json& workload : evaluation.at("workloads")) {
      EXPECT_EQ(workload.at("verdict"), "passed");
      EXPECT_EQ(workload.at("from_cache"), true);
    }
    ids.push_back(evaluation.at("id"));
  }
  {
    SCOPED_TRACE("run with --no-cache");
    std::vector<std::string> no_cache = eval;
    no_cache.push_back("--no-cache");
    const RunResult third = run.d2k(no_cache);
    ASSERT_TRUE(third.exited);
    EXPECT_EQ(third.status, 0) << third.err;
    const json evaluation = parse_evaluation(third);
    ASSERT_TRUE(evaluation.is_object());
    ASSERT_EQ(evaluation.at("workloads").size(), labels.size());
    for (const json& workload : evaluation.at("workloads")) {
      EXPECT_EQ(workload.at("verdict"), "passed");
      EXPECT_EQ(workload.at("from_cache"), false);
      EXPECT_EQ(trial_kinds(workload), kPassingTrialKinds);
    }
    ids.push_back(evaluation.at("id"));
  }

  {
    SCOPED_TRACE("d2k results --json");
    const RunResult listed = run.d2k({"results", "--json"});
    ASSERT_TRUE(listed.exited);
    EXPECT_EQ(listed.status, 0) << listed.err;
    const json rows = parse_evaluation(listed);
    ASSERT_TRUE(rows.is_array());
    ASSERT_EQ(rows.size(), 3u);
    std::vector<int64_t> listed_ids;
    for (const json& row : rows) {
      EXPECT_EQ(row.at("task"), task);
      EXPECT_EQ(row.at("impl_kind"), "baseline");
      EXPECT_EQ(row.at("passed"), true);
      EXPECT_EQ(row.at("workloads_total"), labels.size());
      listed_ids.push_back(row.at("id"));
    }
    std::sort(ids.begin(), ids.end());
    std::sort(listed_ids.begin(), listed_ids.end());
    EXPECT_EQ(listed_ids, ids);
  }
}

INSTANTIATE_TEST_SUITE_P(FixtureTasks, BaselineEvalTest, ::testing::ValuesIn(kFixtureTasks),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(CliTest, ShowOfATaskWithBrokenJsonNamesTheLine) {
  D2kRun run;
  const RunResult result = run.d2k({"show", task_dir("broken_json").string()});

  ASSERT_TRUE(result.exited);
  EXPECT_NE(result.status, 0);
  EXPECT_TRUE(contains(result.err, "config.json:4:")) << result.err;
}

TEST(CliTest, GpuTaskWithoutAGpuExitsTwoAndPointsAtTheCpuDemo) {
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  const fs::path task = kFixtures.parent_path().parent_path() / "tasks" / "muon_orthogonalization";
  ASSERT_TRUE(fs::exists(task / "config.json")) << task;
  D2kRun run;

  const RunResult result = run.d2k({"eval", task.string(), "--impl", "baseline", "--json"});

  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "CPU demo")) << result.err;
  EXPECT_TRUE(contains(result.err, "cpu_demo_softmax")) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_FALSE(fs::exists(run.store()));
}

// The protocol of docs/timing.md, on every implementation alike: the same method, the cold
// cache policy (calls rotating over input sets), every sample as long as the task's minimum, and
// where the workload's time went.
TEST(CliTest, ReferenceAndCandidateAreTimedTheSameWayUnderTheProtocol) {
  D2kRun run;
  for (const std::string impl : {"reference", "baseline"}) {
    const RunResult result =
        run.d2k({"eval", task_dir("cpu_scale_add").string(), "--impl", impl, "--json"});
    ASSERT_TRUE(result.exited) << result.err;
    EXPECT_EQ(result.status, 0) << result.err;
    const json evaluation = parse_evaluation(result);
    ASSERT_TRUE(evaluation.is_object());
    EXPECT_EQ(evaluation.at("mode"), "full");
    for (const auto& workload : evaluation.at("workloads")) {
      ASSERT_EQ(workload.at("verdict"), "passed") << workload.dump();
      const json& latency = workload.at("latency");
      EXPECT_EQ(latency.at("method"), "events") << impl;
      EXPECT_EQ(latency.at("cache_policy"), "cold") << impl;
      EXPECT_GE(latency.at("input_sets").get<int>(), 2) << impl;
      EXPECT_EQ(latency.at("samples").size(), 3u) << impl;
      for (const auto& sample : latency.at("samples")) {
        EXPECT_GE(sample.at("duration_s").get<double>(), latency.at("min_sample_seconds").get<double>());
        EXPECT_EQ(sample.at("calls").get<int64_t>() % latency.at("input_sets").get<int64_t>(), 0);
      }
      EXPECT_TRUE(workload.at("phases").contains("timing")) << workload.dump();
      EXPECT_GT(workload.at("irreducible_seconds").get<double>(), 0.0);
    }
  }
}

TEST(CliTest, QuickModeChecksSmallShapesWithoutTimingAndIsNeverScored) {
  D2kRun run;
  const RunResult result = run.d2k(
      {"eval", task_dir("cpu_scale_add").string(), "--impl", "baseline", "--quick", "--json"});
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_EQ(result.status, 0) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  EXPECT_EQ(evaluation.at("mode"), "quick");
  ASSERT_FALSE(evaluation.at("workloads").empty());
  for (const auto& workload : evaluation.at("workloads")) {
    EXPECT_EQ(workload.at("verdict"), "passed") << workload.dump();
    EXPECT_TRUE(workload.at("latency").is_null());
    EXPECT_EQ(workload.at("trials").size(), 3u);  // the trials before timing
  }
  // Stored, but kept out of listings, reports and the latency cache.
  const RunResult listed = run.d2k({"results", "--json"});
  EXPECT_FALSE(contains(listed.out, "\"cpu_scale_add\"")) << listed.out;
}

TEST(CliTest, EvalWithoutAnImplementationIsAUsageError) {
  D2kRun run;
  const RunResult result = run.d2k({"eval", task_dir("cpu_scale_add").string(), "--json"});

  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(contains(result.err, "--solution")) << result.err;
}

// Candidate code can write to the worker's channel descriptor (its number is on the worker's
// command line). A line that is not JSON, or a well-formed message without the job's token, must
// fail that workload as invalid rather than abort the evaluation or be believed.
class ForgedChannelMessageTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ForgedChannelMessageTest, FailsTheWorkloadAsInvalid) {
  D2kRun run;
  TempDir dir;
  const fs::path candidate = dir.path() / "forger.py";
  // pathlib, not open(): the static gate forbids open, and this test is about the channel.
  std::ofstream(candidate) << R"(import os
import pathlib
import torch

_argv = pathlib.Path("/proc/self/cmdline").read_bytes().split(b"\0")
_fd = int(_argv[_argv.index(b"--channel-fd") + 1])


def run(x, y, alpha):
    os.write(_fd, )" << GetParam() << R"( + b"\n")
    return torch.add(y, x, alpha=alpha)
)";

  const RunResult result = run.d2k(
      {"eval", task_dir("cpu_scale_add").string(), "--solution", candidate.string(), "--json"});

  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 1) << result.err;
  const json evaluation = parse_evaluation(result);
  ASSERT_TRUE(evaluation.is_object());
  ASSERT_EQ(evaluation.at("workloads").size(), workload_labels("cpu_scale_add").size());
  for (const json& workload : evaluation.at("workloads")) {
    EXPECT_EQ(workload.at("verdict"), "invalid") << workload.value("message", "");
    EXPECT_EQ(workload.at("reason_code"), "channel_forged");
  }
}

INSTANTIATE_TEST_SUITE_P(Payloads, ForgedChannelMessageTest,
                         ::testing::Values(R"(b"this is not json")", R"(b'{"event": "done"}')"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.index == 0 ? std::string("NotJson")
                                                  : std::string("DoneWithoutToken");
                         });

// `--store` belongs to the top-level app; subcommands pass it up, so it may follow them.
TEST(CliTest, StoreOptionIsAcceptedAfterTheSubcommand) {
  TempDir dir;
  const fs::path store = dir.path() / "store.sqlite";

  const RunResult result = run_process(kBinary, {"results", "--json", "--store", store.string()},
                                       dir.path());

  ASSERT_TRUE(result.exited);
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(trimmed(result.out), "[]");
}

}  // namespace
}  // namespace d2k::e2e
