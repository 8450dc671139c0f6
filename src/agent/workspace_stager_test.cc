#include "agent/workspace_stager.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent/test_folder_test_util.h"
#include "task/task_loader.h"
#include "util/text.h"

namespace d2k::agent {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "HIDDEN-MARKER-7f3a";

// The fixture task plus every kind of file an agent must not see, each carrying kSecret.
class WorkspaceStagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    task_dir_ = folder_.path() / "tasks" / "cpu_scale_add";
    fs::create_directories(task_dir_);
    fs::copy(fs::path(D2K_TEST_FIXTURES) / "tasks" / "cpu_scale_add", task_dir_, fs::copy_options::recursive);
    write_text(task_dir_ / "expert" / "solution.py", std::string("# ") + kSecret + "\n");
    write_text(task_dir_ / "judge_criteria.md", kSecret);
    write_text(task_dir_ / "judge_notes.md", kSecret);
    write_text(task_dir_ / "notes_for_maintainers.txt", kSecret);
    write_text(task_dir_ / "baseline" / "solution.py", std::string("# ") + kSecret + "\n");
    write_text(task_dir_ / "anchors" / "torch_add.py", std::string("# ") + kSecret + "\n");
    write_text(task_dir_ / "guidance.json", nlohmann::json{
        {"level_1_high_level_algorithmic_insights", "L1 text"},
        {"level_2_dataflow_design", "L2 text"},
        {"level_3_low_level_optimization_tricks", "L3 text"},
        {"cross_level_rationale", "rationale"}}.dump());
  }

  fs::path stage(GuidanceConfig config) {
    const fs::path workspace = folder_.path() / ("ws-" + std::to_string(static_cast<int>(config)));
    stage_workspace(task::load_task(task_dir_), config, 350, workspace);
    return workspace;
  }

  TestFolder folder_;
  fs::path task_dir_;
};

std::vector<std::string> files_in(const fs::path& root) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST_F(WorkspaceStagerTest, NoHiddenFileReachesAnyConfiguration) {
  for (const auto config : {GuidanceConfig::none, GuidanceConfig::l1, GuidanceConfig::l1_l2,
                            GuidanceConfig::l1_l2_l3, GuidanceConfig::design}) {
    SCOPED_TRACE(to_string(config));
    const fs::path workspace = stage(config);
    for (const auto& file : files_in(workspace)) {
      EXPECT_EQ(read_text(workspace / file).find(kSecret), std::string::npos) << file;
      EXPECT_EQ(file.find("expert"), std::string::npos);
      EXPECT_EQ(file.find("baseline"), std::string::npos);
      EXPECT_EQ(file.find("anchors"), std::string::npos);
      EXPECT_EQ(file.find("judge"), std::string::npos);
    }
  }
}

TEST_F(WorkspaceStagerTest, KernelConfigurationsGetTheSharedFilesTemplateAndInstructions) {
  const fs::path workspace = stage(GuidanceConfig::none);
  // cpu_scale_add accepts C++, so the native ABI header comes along.
  EXPECT_EQ(files_in(workspace),
            (std::vector<std::string>{"INSTRUCTIONS.md", "config.json", "d2k/native_abi.h",
                                      "get_inputs.py", "implementation_requirements.yaml",
                                      "reference.py", "solution.py", "task_description.md"}));
  EXPECT_EQ(read_text(workspace / "solution.py"), read_text(task_dir_ / "solution.py"));
  EXPECT_NE(read_text(workspace / "INSTRUCTIONS.md").find("350 turns"), std::string::npos);
}

TEST_F(WorkspaceStagerTest, TheStagedConfigLeavesTheWorkModelOut) {
  nlohmann::json config = nlohmann::json::parse(util::read_text_file(task_dir_ / "config.json"));
  config["work_model"] = {{"flops", "2 * alpha"}, {"bytes", "12 * alpha"}, {"math_dtype", "fp32"}};
  write_text(task_dir_ / "config.json", config.dump());
  for (GuidanceConfig each : {GuidanceConfig::none, GuidanceConfig::design}) {
    const nlohmann::json staged =
        nlohmann::json::parse(util::read_text_file(stage(each) / "config.json"));
    EXPECT_FALSE(staged.contains("work_model"));
    config.erase("work_model");
    EXPECT_EQ(staged, config);
  }
}

TEST_F(WorkspaceStagerTest, GuidanceIsCutToTheConfiguredLevels) {
  const std::vector<std::pair<GuidanceConfig, std::vector<std::string>>> expected{
      {GuidanceConfig::l1, {"level_1_high_level_algorithmic_insights"}},
      {GuidanceConfig::l1_l2, {"level_1_high_level_algorithmic_insights", "level_2_dataflow_design"}},
      {GuidanceConfig::l1_l2_l3,
       {"cross_level_rationale", "level_1_high_level_algorithmic_insights", "level_2_dataflow_design",
        "level_3_low_level_optimization_tricks"}}};
  for (const auto& [config, keys] : expected) {
    const auto guidance = nlohmann::json::parse(read_text(stage(config) / "guidance.json"));
    std::vector<std::string> present;
    for (const auto& [key, value] : guidance.items()) present.push_back(key);
    EXPECT_EQ(present, keys) << to_string(config);
  }
  EXPECT_FALSE(fs::exists(stage(GuidanceConfig::none) / "guidance.json"));
}

TEST_F(WorkspaceStagerTest, DesignRunGetsBriefAndSchemaButNoTemplate) {
  const fs::path workspace = stage(GuidanceConfig::design);
  EXPECT_EQ(files_in(workspace),
            (std::vector<std::string>{"DESIGN_BRIEF.md", "INSTRUCTIONS.md", "config.json",
                                      "design_schema.json", "get_inputs.py",
                                      "implementation_requirements.yaml", "reference.py",
                                      "task_description.md"}));
  EXPECT_NE(read_text(workspace / "INSTRUCTIONS.md").find("submit_design"), std::string::npos);
}

TEST_F(WorkspaceStagerTest, RefusesAFolderInUseAndMissingGuidance) {
  const fs::path used = folder_.path() / "used";
  write_text(used / "something", "x");
  EXPECT_THROW(stage_workspace(task::load_task(task_dir_), GuidanceConfig::none, 350, used), std::runtime_error);
  fs::remove(task_dir_ / "guidance.json");
  EXPECT_THROW(stage(GuidanceConfig::l1), std::runtime_error);
}

}  // namespace
}  // namespace d2k::agent
