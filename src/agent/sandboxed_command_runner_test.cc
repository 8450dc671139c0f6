#include "agent/sandboxed_command_runner.h"

#include <gtest/gtest.h>

#include "agent/bash_tool.h"
#include "agent/cancelling_client_test_util.h"
#include "agent/test_folder_test_util.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

// A suite with two tasks, a store beside it, and a workspace outside the suite.
class SandboxedCommandRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(suite_ / "this_task" / "expert" / "solution.py", "expert code");
    write_text(suite_ / "this_task" / "judge_criteria.md", "criteria");
    write_text(suite_ / "other_task" / "expert" / "solution.py", "other expert code");
    write_text(store_, "store");
    write_text(workspace_ / "solution.py", "mine");
  }
  native::CommandResult run(const std::string& command, const fs::path& workspace) {
    SandboxedCommandRunner runner(
        SandboxedCommandRunner::agent_policy(suite_ / "this_task", workspace, store_));
    return runner.run(command, workspace, 20.0, 65536, {});
  }

  TestFolder folder_;
  fs::path suite_ = folder_.path() / "tasks";
  fs::path store_ = folder_.path() / "d2k-store.sqlite";
  fs::path workspace_ = folder_.path() / "ws";
};

TEST_F(SandboxedCommandRunnerTest, RunsBashInTheWorkspaceAndWritesOnlyThere) {
  const auto result = run(
      "echo $BASH_VERSION > /dev/null && pwd && cat solution.py && echo new > made.txt && "
      "(echo x > ../outside.txt && echo wrote-outside || echo refused-outside)",
      workspace_);
  ASSERT_TRUE(result.exited) << result.output;
  EXPECT_NE(result.output.find(workspace_.string()), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("mine"), std::string::npos) << result.output;
  EXPECT_EQ(read_text(workspace_ / "made.txt"), "new\n");
  EXPECT_NE(result.output.find("refused-outside"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(folder_.path() / "outside.txt"));
}

TEST_F(SandboxedCommandRunnerTest, NoTasksExpertCriteriaOrTheStoreIsReadable) {
  const auto result = run(
      "cat " + (suite_ / "this_task/expert/solution.py").string() + " " +
          (suite_ / "this_task/judge_criteria.md").string() + " " +
          (suite_ / "other_task/expert/solution.py").string() + " " + store_.string() +
          " 2>/dev/null; echo done",
      workspace_);
  ASSERT_TRUE(result.exited) << result.output;
  EXPECT_EQ(result.output.find("expert code"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("criteria"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("store"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("done"), std::string::npos) << result.output;
}

// The repository's history holds every task's expert; `git -C <repo> show` once read them.
TEST_F(SandboxedCommandRunnerTest, NeitherTheRepositoryNorTheHostsSecretsAreReadable) {
  write_text(folder_.path() / ".git" / "objects" / "answer", "from the history");
  const auto result = run("cat " + (folder_.path() / ".git/objects/answer").string() +
                              " /etc/shadow 2>/dev/null; ls /root /home 2>/dev/null; echo done",
                          workspace_);
  ASSERT_TRUE(result.exited) << result.output;
  EXPECT_EQ(result.output.find("from the history"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("root:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("done"), std::string::npos) << result.output;
}

TEST_F(SandboxedCommandRunnerTest, AWorkspaceInsideTheSuiteHidesOnlyTheTask) {
  const fs::path inside = suite_ / "workspaces" / "ws";
  write_text(inside / "solution.py", "inside");
  const auto result = run("cat solution.py; cat " +
                              (suite_ / "this_task/expert/solution.py").string() + " 2>/dev/null",
                          inside);
  ASSERT_TRUE(result.exited) << result.output;
  EXPECT_NE(result.output.find("inside"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("expert code"), std::string::npos) << result.output;
}

TEST_F(SandboxedCommandRunnerTest, TheBashToolKeepsItsTimeLimitInsideTheSandbox) {
  SandboxedCommandRunner runner(
      SandboxedCommandRunner::agent_policy(suite_ / "this_task", workspace_, store_));
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  const auto started = std::chrono::steady_clock::now();
  const auto result = bash.call({{"command", "sleep 30 & sleep 30"}, {"timeout", 0.5}}, {});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("time limit"), std::string::npos) << result.text;
}

TEST_F(SandboxedCommandRunnerTest, ACancelledCommandIsKilledInsideTheSandbox) {
  SandboxedCommandRunner runner(
      SandboxedCommandRunner::agent_policy(suite_ / "this_task", workspace_, store_));
  BashTool bash(workspace_, runner, "/usr/bin/python3");
  CancellingClient client(std::chrono::milliseconds(300));
  const auto started = std::chrono::steady_clock::now();
  const auto result = bash.call({{"command", "sleep 30 & sleep 30"}}, client.token());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_TRUE(result.is_error);
  EXPECT_NE(result.text.find("cancelled"), std::string::npos) << result.text;
}

}  // namespace
}  // namespace d2k::agent
