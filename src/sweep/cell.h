#pragma once
// One cell of a sweep: one run of one thing on one task, on one kind of device, one repeat.
// Its key names it wherever it runs, and the store tells whether it is done (sweep/ledger.h).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace d2k::sweep {

// What the store keeps of a finished cell, and so how the ledger recognizes it.
enum class CellKind { evaluation, agent_run, judge_assessment };

struct Cell {
  CellKind kind = CellKind::evaluation;
  std::string task_id;
  // reference | baseline | expert | anchor:<name> | solution:<file name> | agent | judge
  std::string what;
  // Agent and judge cells: "<guidance config> <agent> <model>" (and the judge model); else empty.
  std::string configuration;
  int repeat = 0;
  std::string device_kind;  // "cpu" for CPU tasks, else one of the plan's devices
  std::string impl_hash;    // the evaluated or judged file's content hash; empty for agent runs

  // How the store records the result: the evaluation's impl_kind, the run's guidance config,
  // agent and model, the judge's kind ("impl" or "design") and model.
  std::string store_kind;
  std::string config;
  std::string agent;
  std::string model;

  // d2k's arguments for the cell, after the global options and without --store.
  std::vector<std::string> arguments;
  int gpus = 0;                    // GPUs the cell needs; 0 for CPU tasks
  double time_limit_seconds = 0.0;  // from the task's timeouts (or the agent's)

  // "task|what|configuration|r<repeat>|device|hash": unique within a plan, stable across runs.
  std::string key() const;
  // A file name for the cell's record, log and lock: readable, and unique by the key's hash.
  std::string file_stem() const;
};

// The executors hand a cell to its worker as a JSON file (work_dir/cells/<stem>.json).
void to_json(nlohmann::json& j, const Cell& cell);
void from_json(const nlohmann::json& j, Cell& cell);

}  // namespace d2k::sweep
