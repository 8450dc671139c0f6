#pragma once
// A sweep plan (docs/sweep.md): which tasks, what to run on each, how often, on which devices,
// and by which executor. Read from YAML; every bad field is a PlanError naming its path.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace d2k::sweep {

// What a plan runs on each task. The first three are the task's own implementations; an anchor
// is tasks/<task>/anchors/<name>.py; a solution is a file given by the plan; an agent entry
// runs a coding agent once per configuration; a judge entry scores the final submission of
// every stored agent run of the plan's agent entries.
enum class RunKind { reference, baseline, expert, anchor, solution, agent, judge };

std::string to_string(RunKind kind);

struct AgentRunSpec {
  std::string agent;                 // claude | codex | a command line (`d2k agent run --agent`)
  std::string model;                 // empty: the client's default
  std::vector<std::string> configs;  // guidance configurations: none, L1, L1+L2, L1+L2+L3, design
  int budget = 0;                    // turn budget; 0: d2k agent run's default
  double timeout_seconds = 0.0;      // wall-clock limit of one run; 0: d2k agent run's default
};

struct JudgeRunSpec {
  std::string model;  // empty: $D2K_JUDGE_MODEL where the cell runs
};

struct RunSpec {
  RunKind kind = RunKind::reference;
  // anchor: the anchor names (empty: every anchor the task has); solution: the absolute paths.
  std::vector<std::string> names;
  AgentRunSpec agent;
  JudgeRunSpec judge;
};

struct ExecutorSpec {
  std::string kind = "local";  // a name in the executor registry
  int retries = 0;             // how often a failed cell is run again within one `sweep run`
  // local
  int gpus = 0;         // GPU workers; 0: one per visible GPU
  int cpu_workers = 1;  // cells of CPU tasks run at once
  // slurm
  std::string partition;                  // empty: the cluster's default
  int max_running = 0;                    // the array's %K throttle; 0: none
  int gpus_per_cell = 1;                  // --gres=gpu:N for cells of CUDA tasks
  std::vector<std::string> sbatch_args;   // passed to sbatch as they are (--account=..., --qos=...)
  double poll_seconds = 10.0;             // how often squeue is asked while the array runs
};

struct Plan {
  std::filesystem::path file;
  std::string name;                          // the file's stem unless given
  bool all_tasks = false;                    // tasks: all
  std::vector<std::string> task_ids;
  std::vector<task::Category> categories;    // tasks of these categories, with task_ids
  std::vector<RunSpec> runs;
  int repeats = 1;
  // Device kinds a CUDA task's cells run on, matched against the evaluated device's name
  // ("H200" matches "NVIDIA H200"); "any" matches every GPU. CPU tasks run once, on "cpu".
  std::vector<std::string> devices{"any"};
  std::filesystem::path work_dir;            // records, logs and locks of the cells
  ExecutorSpec executor;
};

// Reads and validates `file`; relative paths in it are relative to its folder.
Plan load_plan(const std::filesystem::path& file);

}  // namespace d2k::sweep
