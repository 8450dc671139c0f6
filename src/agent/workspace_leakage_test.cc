// The workspaces staged from the suite's own tasks: the unguided one holds nothing of the
// expert, its notes, the judge's criteria or the guidance, not even a phrase of them; no
// configuration shows an agent a date or a commit (docs/task-format.md, "What agents see").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "agent/test_folder_test_util.h"
#include "agent/workspace_stager.h"
#include "task/leakage.h"
#include "task/task_loader.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files_in(const fs::path& root) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root).string());
  }
  return files;
}

// The task's prose about its design: the guidance, the judge's criteria and notes, and the
// notes beside the expert. (The implementations' sources share the interface's wording with the
// task's files, so for them only their absence is checked.)
std::vector<fs::path> design_texts(const fs::path& task) {
  std::vector<fs::path> files;
  for (const char* name : {"guidance.json", "judge_criteria.md", "judge_notes.md", "expert/NOTES.md"}) {
    if (fs::exists(task / name)) files.push_back(task / name);
  }
  return files;
}

class WorkspaceLeakageTest : public ::testing::TestWithParam<fs::path> {
 protected:
  fs::path stage(GuidanceConfig config) {
    const fs::path workspace = folder_.path() / to_string(config);
    stage_workspace(task::load_task(GetParam()), config, 350, workspace);
    return workspace;
  }

  TestFolder folder_;
};

TEST_P(WorkspaceLeakageTest, TheUnguidedWorkspaceHoldsNothingOfTheDesign) {
  const fs::path workspace = stage(GuidanceConfig::none);
  const auto hidden = design_texts(GetParam());
  for (const auto& file : files_in(workspace)) {
    for (const char* name : {"expert", "baseline", "anchors", "judge", "guidance", "NOTES"}) {
      EXPECT_EQ(file.find(name), std::string::npos) << file;
    }
    const std::string text = read_text(workspace / file);
    for (const auto& source : hidden) {
      const auto shared = task::shared_phrases(text, read_text(source));
      EXPECT_TRUE(shared.empty()) << file << " shares with "
                                  << fs::relative(source, GetParam()).string() << ":\n  "
                                  << fmt::format("{}", fmt::join(shared, "\n  "));
    }
  }
}

TEST_P(WorkspaceLeakageTest, NoWorkspaceShowsADateOrACommit) {
  for (const auto config : {GuidanceConfig::none, GuidanceConfig::l1_l2_l3, GuidanceConfig::design}) {
    if (config == GuidanceConfig::l1_l2_l3 && !fs::exists(GetParam() / "guidance.json")) continue;
    const fs::path workspace = stage(config);
    for (const auto& file : files_in(workspace)) {
      const auto found = task::dates_and_commits(read_text(workspace / file));
      EXPECT_TRUE(found.empty()) << to_string(config) << "/" << file << ": "
                                 << fmt::format("{}", fmt::join(found, ", "));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SuiteTasks, WorkspaceLeakageTest,
                         ::testing::ValuesIn(task::find_task_dirs(fs::path(D2K_SOURCE_DIR) / "tasks")),
                         [](const auto& info) { return info.param.filename().string(); });

}  // namespace
}  // namespace d2k::agent
