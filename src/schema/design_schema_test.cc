#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "schema/schema.h"

namespace d2k::schema {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSourceDir = D2K_SOURCE_DIR;

std::vector<std::string> described(const std::vector<Violation>& violations) {
  std::vector<std::string> lines;
  for (const Violation& violation : violations) lines.push_back(violation.to_string());
  return lines;
}

// Files under `dir` (one level) whose names satisfy `wanted`, sorted.
template <typename Predicate>
std::vector<fs::path> files_in(const fs::path& dir, Predicate wanted) {
  std::vector<fs::path> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (wanted(entry.path())) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The compact valid design the oracle corpus starts its design cases with.
json compact_design() {
  std::ifstream in(kSourceDir / "tests/schema_oracle/cases/design_schema.json");
  return json::parse(in).at("instances").at(0);
}

TEST(DesignSchemaTest, LoadsAndAcceptsACompactDesign) {
  const Schema schema = Schema::load(design_schema_path());
  EXPECT_THAT(described(schema.validate(compact_design())), ::testing::IsEmpty());
}

TEST(DesignSchemaTest, EveryTaskGuidanceValidates) {
  const Schema schema = Schema::load(design_schema_path());
  std::vector<fs::path> guidance;
  for (const fs::path& task : files_in(kSourceDir / "tasks", [](const fs::path& path) {
         return fs::exists(path / "guidance.json");
       })) {
    guidance.push_back(task / "guidance.json");
  }
  ASSERT_FALSE(guidance.empty()) << "no tasks/*/guidance.json under " << kSourceDir;
  for (const fs::path& file : guidance) {
    EXPECT_THAT(described(schema.validate_file(file)), ::testing::IsEmpty()) << file;
  }
}

TEST(DesignSchemaTest, EveryExampleDesignValidates) {
  const Schema schema = Schema::load(design_schema_path());
  for (const fs::path& file : files_in(kSourceDir / "docs/examples", [](const fs::path& path) {
         // muon_model_design.json, not judge_design_request_muon_example.json (a judge request)
         return path.filename().string().ends_with("design.json");
       })) {
    EXPECT_THAT(described(schema.validate_file(file)), ::testing::IsEmpty()) << file;
  }
}

TEST(DesignSchemaTest, ReportsEveryProblemOfAMutatedDesign) {
  json design = compact_design();
  design["level_2_dataflow_design"]["stages"][0]["stage_id"] = "Online-Stats";
  design["level_1_high_level_algorithmic_insights"][0]["name"] = "ab";
  design["level_3_low_level_optimization_tricks"][0]["supports"] = json::array();
  design.erase("cross_level_rationale");
  design["notes"] = "not part of a design";
  EXPECT_THAT(
      described(Schema::load(design_schema_path()).validate(design)),
      ::testing::ElementsAre(
          "(document): lacks required property 'cross_level_rationale'",
          "/level_1_high_level_algorithmic_insights/0/name: is 2 characters long, shorter than "
          "minLength 3",
          "/level_2_dataflow_design/stages/0/stage_id: does not match pattern ^[a-z][a-z0-9_]*$",
          "/level_3_low_level_optimization_tricks/0/supports: has 0 items, fewer than minItems 1",
          "/notes: is not an allowed property (additionalProperties is false)"));
}

}  // namespace
}  // namespace d2k::schema
