#pragma once
// What the judge is told about a task, read from its folder (docs/task-format.md).

#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace d2k::judge {

struct NamedText {
  std::string name;  // the file's path inside the task folder
  std::string text;
};

struct TaskMaterial {
  std::string task;    // "<id>: <title>"
  std::string target;  // the hardware the task is built for
  // The task inputs every agent reads: task_description.md, reference.py, get_inputs.py,
  // config.json and implementation_requirements.yaml, in that order.
  std::vector<NamedText> public_files;
  NamedText solution_template;                 // solution.py, the implementing agent's start
  std::optional<std::string> guidance;         // guidance.json: the expert's three levels
  std::optional<NamedText> expert_solution;  // expert/solution.py, or its native .cu/.cpp
  std::optional<std::string> criteria;         // judge_criteria.md
  std::optional<std::string> judge_notes;      // judge_notes.md

  // Throws std::runtime_error when a required task file cannot be read.
  static TaskMaterial read(const task::Task& task);
};

// The target of the GPU suite, as the judge is told it.
inline constexpr const char* kGpuTarget = "NVIDIA H200 (Hopper, sm_90a)";

}  // namespace d2k::judge
