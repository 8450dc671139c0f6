#include "task/implementation_rules.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "task/task_error.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

class ImplementationRulesTest : public ::testing::Test {
 protected:
  ImplementationRules read(const std::string& text) {
    std::ofstream(file_) << text;
    return read_implementation_rules(file_);
  }
  TaskError error(const std::string& text) {
    try {
      read(text);
    } catch (const TaskError& e) {
      return e;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return TaskError(file_, "none");
  }
  ~ImplementationRulesTest() override { fs::remove(file_); }

  // One file per process and test: ctest runs the tests of this fixture in parallel.
  fs::path file_ = fs::temp_directory_path() /
                   ("d2k-rules-test-" + std::to_string(getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml");
};

TEST_F(ImplementationRulesTest, WithoutRulesTheDefaultsApply) {
  const ImplementationRules rules = read("requirements:\n  - be fast\n");
  EXPECT_TRUE(has(rules.forbidden_calls, "eval"));
  EXPECT_TRUE(has(rules.forbidden_modules, "ctypes"));
  EXPECT_TRUE(has(rules.hidden_modules, "reference"));
  EXPECT_TRUE(has(rules.forbidden_libraries, "cublas"));
  EXPECT_TRUE(rules.forbid_module_state);
  EXPECT_FALSE(rules.custom_kernels_required);
  EXPECT_EQ(rules.host_sync_reason, "");
}

TEST_F(ImplementationRulesTest, ATaskStatesOnlyItsDifferences) {
  const ImplementationRules rules = read(
      "requirements: [x]\n"
      "rules:\n"
      "  forbidden_calls: [torch.matmul]\n"
      "  forbidden_operators: ['@']\n"
      "  custom_kernels: required\n"
      "  allow: [subprocess, module_state]\n"
      "  allow_host_sync: the output's length is read back to size it\n");
  EXPECT_TRUE(has(rules.forbidden_calls, "torch.matmul"));
  EXPECT_TRUE(has(rules.forbidden_calls, "eval")) << "defaults stay";
  EXPECT_TRUE(has(rules.forbidden_operators, "@"));
  EXPECT_TRUE(rules.custom_kernels_required);
  EXPECT_FALSE(has(rules.forbidden_modules, "subprocess"));
  EXPECT_FALSE(rules.forbid_module_state);
  EXPECT_EQ(rules.host_sync_reason, "the output's length is read back to size it");
}

TEST_F(ImplementationRulesTest, MistakesAreReportedAtTheirLine) {
  TaskError unknown = error("requirements: [x]\nrules:\n  forbiden_calls: [a]\n");
  EXPECT_EQ(unknown.line(), 3);
  EXPECT_NE(unknown.message().find("rules.forbiden_calls: unknown key"), std::string::npos);

  TaskError not_a_list = error("requirements: [x]\nrules:\n  forbidden_calls: torch.mm\n");
  EXPECT_EQ(not_a_list.line(), 3);
  EXPECT_EQ(not_a_list.message(), "rules.forbidden_calls: expected a list of strings");

  TaskError bad_allow = error("requirements: [x]\nrules:\n  allow:\n    - ctypes\n    - nothing\n");
  EXPECT_EQ(bad_allow.line(), 5);
  EXPECT_EQ(bad_allow.message(), "rules.allow: \"nothing\" is not a rule that could be lifted");

  TaskError kernels = error("requirements: [x]\nrules:\n  custom_kernels: maybe\n");
  EXPECT_EQ(kernels.line(), 3);

  TaskError no_reason = error("requirements: [x]\nrules:\n  allow_host_sync: [yes]\n");
  EXPECT_EQ(no_reason.line(), 3);
  EXPECT_EQ(no_reason.message(),
            "rules.allow_host_sync: expected the reason the task needs a host round trip");
  EXPECT_EQ(error("requirements: [x]\nrules:\n  allow_host_sync: ''\n").line(), 3);
}

TEST_F(ImplementationRulesTest, TheRepositoryTasksDeclareTheirRules) {
  const fs::path tasks = fs::path(D2K_SOURCE_DIR) / "tasks";
  const auto muon = read_implementation_rules(tasks / "muon_orthogonalization" /
                                              "implementation_requirements.yaml");
  EXPECT_TRUE(muon.custom_kernels_required);
  EXPECT_TRUE(has(muon.forbidden_operators, "@"));
  const auto softmax =
      read_implementation_rules(tasks / "cpu_demo_softmax" / "implementation_requirements.yaml");
  EXPECT_TRUE(has(softmax.forbidden_calls, "torch.nn.functional.softmax"));
  EXPECT_TRUE(has(softmax.forbidden_attributes, "softmax"));
}

}  // namespace
}  // namespace d2k::task
