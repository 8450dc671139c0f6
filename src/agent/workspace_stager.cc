#include "agent/workspace_stager.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agent/instructions.h"
#include "schema/schema.h"
#include "util/text.h"

namespace d2k::agent {
namespace fs = std::filesystem;
namespace {

constexpr const char* kLevelKeys[] = {"level_1_high_level_algorithmic_insights",
                                      "level_2_dataflow_design",
                                      "level_3_low_level_optimization_tricks"};
// Links all three levels, so only the full guidance carries it.
constexpr const char* kRationaleKey = "cross_level_rationale";

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// The first `levels` levels of the task's guidance.json.
nlohmann::json guidance_subset(const task::Task& task, int levels) {
  const fs::path file = task.dir / kGuidanceFile;
  if (!fs::exists(file)) {
    throw std::runtime_error("task " + task.id + " has no guidance.json, which this configuration needs");
  }
  const nlohmann::json full = nlohmann::json::parse(util::read_text_file(file));
  nlohmann::json subset = nlohmann::json::object();
  for (int level = 0; level < levels; ++level) {
    if (!full.contains(kLevelKeys[level])) {
      throw std::runtime_error("task " + task.id + "'s guidance.json lacks " + kLevelKeys[level]);
    }
    subset[kLevelKeys[level]] = full[kLevelKeys[level]];
  }
  if (levels == 3 && full.contains(kRationaleKey)) subset[kRationaleKey] = full[kRationaleKey];
  return subset;
}

// The task's config.json without its work model: the bound's formulas count the work of the
// best known design (an absorbed projection, the selected blocks only), which would tell the
// agent that design. d2k reads them from the task's own folder.
std::string config_for_agents(const task::Task& task) {
  nlohmann::json config = nlohmann::json::parse(util::read_text_file(task.dir / "config.json"));
  config.erase("work_model");
  return config.dump(2) + "\n";
}

bool accepts_native(const task::Task& task) {
  return task.evaluation.accepts(task::Language::cuda) || task.evaluation.accepts(task::Language::cpp);
}

}  // namespace

std::vector<std::string> stage_workspace(const task::Task& task, GuidanceConfig config,
                                         int turn_budget, const fs::path& workspace) {
  if (fs::exists(workspace) && !fs::is_empty(workspace)) {
    throw std::runtime_error("workspace " + workspace.string() + " exists and is not empty");
  }
  fs::create_directories(workspace);
  std::vector<std::string> written;
  auto copy = [&](const fs::path& from, const std::string& to) {
    fs::create_directories((workspace / to).parent_path());
    fs::copy_file(from, workspace / to);
    written.push_back(to);
  };
  auto write = [&](const std::string& to, const std::string& text) {
    write_file(workspace / to, text);
    written.push_back(to);
  };

  for (const char* name : kSharedTaskFiles) {
    if (std::string_view(name) == "config.json") {
      write(name, config_for_agents(task));
    } else {
      copy(task.dir / name, name);
    }
  }
  if (config == GuidanceConfig::design) {
    write(kDesignBriefFile, design_brief(task));
    copy(schema::design_schema_path(), kDesignSchemaFile);
  } else {
    copy(task.dir / "solution.py", "solution.py");
    if (accepts_native(task)) copy(fs::path(D2K_SOURCE_DIR) / "include/d2k/native_abi.h", "d2k/native_abi.h");
    if (const int levels = guidance_levels(config); levels > 0) {
      write(kGuidanceFile, guidance_subset(task, levels).dump(2) + "\n");
    }
  }
  write(kInstructionsFile, agent_instructions(task, config, turn_budget));
  std::sort(written.begin(), written.end());
  return written;
}

}  // namespace d2k::agent
