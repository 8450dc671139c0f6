#pragma once
// Builds an agent's workspace from a task folder. Files are copied from an allow-list, so the
// expert implementation, the baseline, the judge's criteria and notes, and anything else a task
// folder holds never reach the agent; guidance is cut to the levels the configuration includes.

#include <filesystem>
#include <string>
#include <vector>

#include "agent/guidance_config.h"
#include "task/task.h"

namespace d2k::agent {

// The task files every workspace gets (the paper's shared task files), the template excepted.
inline constexpr const char* kSharedTaskFiles[] = {
    "task_description.md", "config.json", "get_inputs.py", "reference.py",
    "implementation_requirements.yaml"};

inline constexpr const char* kInstructionsFile = "INSTRUCTIONS.md";
inline constexpr const char* kDesignBriefFile = "DESIGN_BRIEF.md";
inline constexpr const char* kDesignSchemaFile = "design_schema.json";
inline constexpr const char* kGuidanceFile = "guidance.json";
inline constexpr const char* kDesignFile = "model_design.json";

// Creates `workspace` (which must not exist, or be an empty folder) and fills it for `config`.
// Returns the workspace-relative paths written, sorted. Throws std::runtime_error when the task
// lacks guidance that the configuration asks for, or the folder is in use.
std::vector<std::string> stage_workspace(const task::Task& task, GuidanceConfig config,
                                         int turn_budget, const std::filesystem::path& workspace);

}  // namespace d2k::agent
