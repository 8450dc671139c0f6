#include "profile/profiler.h"

#include <gtest/gtest.h>

#include <fstream>

#include "task/task_loader.h"
#include "util/temp_dir.h"

namespace d2k::profile {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

class FakeFinder : public ToolFinder {
 public:
  explicit FakeFinder(std::optional<fs::path> found) : found_(std::move(found)) {}
  std::optional<fs::path> find(const std::string& name) const override {
    asked.push_back(name);
    return found_;
  }
  std::vector<fs::path> places() const override { return {"/opt/a/bin", "/usr/local/cuda/bin"}; }
  mutable Strings asked;

 private:
  std::optional<fs::path> found_;
};

// Records how it was called and writes the report a tool would have written (or not).
class FakeRunner : public ProfileRunner {
 public:
  record::EvaluationResult run(const Strings& launcher, int calls) override {
    this->launcher = launcher;
    this->calls = calls;
    if (!report.empty()) std::ofstream(report) << "report";
    record::EvaluationResult result;
    result.task_id = "gpu_scale_add";
    return result;
  }
  Strings launcher;
  int calls = 0;
  fs::path report;  // written by run() when set
};

class ProfilerTest : public ::testing::Test {
 protected:
  ProfileRequest request(Tool tool) const {
    ProfileRequest request;
    request.workload = "tiny";
    request.tool = tool;
    request.output_dir = dir_.path() / "out";
    request.name = "gpu_scale_add-tiny-expert";
    return request;
  }

  std::string error_of(const task::Task& task, const ProfileRequest& request, const ToolFinder& finder) {
    try {
      run_profile(task, request, finder, runner_);
    } catch (const ProfileError& error) {
      return error.what();
    }
    return "";
  }

  util::TempDir dir_{"d2k-profile-test-"};
  task::Task gpu_ = task::load_task(fs::path(D2K_TEST_FIXTURES) / "tasks" / "gpu_scale_add");
  FakeRunner runner_;
};

TEST_F(ProfilerTest, NsightComputeProfilesOnlyTheMarkedCallsIntoTheOutputFolder) {
  const fs::path out = dir_.path() / "out";
  runner_.report = out / "gpu_scale_add-tiny-expert.ncu-rep";
  const auto outcome = run_profile(gpu_, request(Tool::ncu), FakeFinder(fs::path("/opt/ncu/ncu")), runner_);
  EXPECT_EQ(runner_.launcher,
            (Strings{"/opt/ncu/ncu", "--profile-from-start", "off", "--nvtx", "--set", "full",
                     "--force-overwrite", "--log-file", (out / "gpu_scale_add-tiny-expert.ncu.log").string(),
                     "--export", (out / "gpu_scale_add-tiny-expert").string()}));
  EXPECT_EQ(runner_.calls, 3);
  EXPECT_EQ(outcome.command.report, out / "gpu_scale_add-tiny-expert.ncu-rep");
  EXPECT_EQ(outcome.missing_report, "");
  EXPECT_EQ(outcome.result.task_id, "gpu_scale_add");
}

TEST_F(ProfilerTest, ComputeSanitizerRunsTheChosenCheckIntoALogFile) {
  ProfileRequest racecheck = request(Tool::sanitizer);
  racecheck.check = "racecheck";
  racecheck.calls = 1;
  const fs::path log = dir_.path() / "out" / "gpu_scale_add-tiny-expert.racecheck.log";
  runner_.report = log;
  FakeFinder finder(fs::path("/cuda/bin/compute-sanitizer"));
  const auto outcome = run_profile(gpu_, racecheck, finder, runner_);
  EXPECT_EQ(finder.asked, Strings{"compute-sanitizer"});
  EXPECT_EQ(runner_.launcher, (Strings{"/cuda/bin/compute-sanitizer", "--tool", "racecheck",
                                       "--log-file", log.string()}));
  EXPECT_EQ(runner_.calls, 1);
  EXPECT_EQ(outcome.command.report, log);
}

TEST_F(ProfilerTest, AMissingToolSaysWhereItLookedAndWhatToInstall) {
  const std::string error = error_of(gpu_, request(Tool::ncu), FakeFinder(std::nullopt));
  EXPECT_NE(error.find("ncu is not installed here: not found in /opt/a/bin, /usr/local/cuda/bin"),
            std::string::npos) << error;
  EXPECT_NE(error.find("install Nsight Compute"), std::string::npos) << error;
  EXPECT_TRUE(runner_.launcher.empty());
}

TEST_F(ProfilerTest, AToolThatWroteNoReportPointsAtItsLog) {
  const auto outcome = run_profile(gpu_, request(Tool::ncu), FakeFinder(fs::path("/opt/ncu/ncu")), runner_);
  const std::string& problem = outcome.missing_report;
  EXPECT_NE(problem.find("ncu wrote no report"), std::string::npos) << problem;
  EXPECT_NE(problem.find("gpu_scale_add-tiny-expert.ncu.log"), std::string::npos) << problem;
  EXPECT_EQ(outcome.result.task_id, "gpu_scale_add");
}

TEST_F(ProfilerTest, AnUnknownWorkloadNamesTheKnownOnes) {
  ProfileRequest unknown = request(Tool::ncu);
  unknown.workload = "huge";
  const std::string error = error_of(gpu_, unknown, FakeFinder(fs::path("/opt/ncu/ncu")));
  EXPECT_NE(error.find("task gpu_scale_add has no workload 'huge' (known: tiny, large)"), std::string::npos)
      << error;
  EXPECT_TRUE(runner_.launcher.empty());
}

TEST_F(ProfilerTest, AnUnknownSanitizerCheckIsRefused) {
  ProfileRequest unknown = request(Tool::sanitizer);
  unknown.check = "leakcheck";
  const std::string error = error_of(gpu_, unknown, FakeFinder(fs::path("/cuda/compute-sanitizer")));
  EXPECT_NE(error.find("unknown compute-sanitizer tool 'leakcheck'"), std::string::npos) << error;
}

TEST_F(ProfilerTest, ACpuTaskIsRefused) {
  const task::Task cpu = task::load_task(fs::path(D2K_TEST_FIXTURES) / "tasks" / "cpu_scale_add");
  const std::string error = error_of(cpu, request(Tool::ncu), FakeFinder(fs::path("/opt/ncu/ncu")));
  EXPECT_NE(error.find("runs on the CPU"), std::string::npos) << error;
}

TEST(ProfileToolTest, ParsesTheTwoToolsOnly) {
  EXPECT_EQ(parse_tool("ncu"), Tool::ncu);
  EXPECT_EQ(parse_tool("sanitizer"), Tool::sanitizer);
  EXPECT_THROW(parse_tool("nsys"), std::runtime_error);
}

}  // namespace
}  // namespace d2k::profile
