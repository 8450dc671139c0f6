// Every task of the suite: its description, which every agent gets, states the problem without
// the expert's design (docs/task-format.md, "What agents see"). The staged workspaces are
// checked for dates and commits in src/agent/workspace_leakage_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "task/leakage.h"
#include "task/task_loader.h"
#include "util/text.h"

namespace d2k::task {
namespace {

namespace fs = std::filesystem;

// What holds the design: the guidance, the judge's criteria and the expert's notes.
std::vector<fs::path> design_files(const fs::path& task) {
  std::vector<fs::path> files;
  for (const char* name : {"guidance.json", "judge_criteria.md", "expert/NOTES.md"}) {
    if (fs::exists(task / name)) files.push_back(task / name);
  }
  return files;
}

TEST(TaskLeakageTest, TheSuiteHasItsTasks) {
  EXPECT_GE(find_task_dirs(fs::path(D2K_SOURCE_DIR) / "tasks").size(), 5u);
}

TEST(TaskLeakageTest, NoDescriptionSharesAPhraseWithItsDesign) {
  for (const auto& task : find_task_dirs(fs::path(D2K_SOURCE_DIR) / "tasks")) {
    const std::string description = util::read_text_file(task / "task_description.md");
    for (const auto& file : design_files(task)) {
      const auto shared = shared_phrases(description, util::read_text_file(file));
      EXPECT_TRUE(shared.empty()) << fs::relative(file, task.parent_path()).string()
                                  << " shares with task_description.md:\n  "
                                  << fmt::format("{}", fmt::join(shared, "\n  "));
    }
  }
}

}  // namespace
}  // namespace d2k::task
