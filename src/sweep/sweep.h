#pragma once
// A plan against a store: which of its cells are done, running, failed or left, and running
// those left through the plan's executor. Every cell's record is imported into the store as the
// cell ends, and every record in the work folder when the sweep starts, so results that ended
// while no sweep watched (a killed sweep, a submission left to Slurm) are not lost; imports
// never duplicate a row (store/store_import.h), so nothing is counted twice.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/store_import.h"
#include "sweep/expansion.h"
#include "sweep/plan.h"
#include "sweep/process_runner.h"
#include "sweep/work_dir.h"
#include "task/task.h"

namespace d2k::sweep {

enum class CellState { done, running, failed, left };

std::string to_string(CellState state);

struct CellStatus {
  Cell cell;
  CellState state = CellState::left;
  std::optional<Failure> failure;  // the last failed attempt, while the cell is not done
};

struct Status {
  std::vector<CellStatus> cells;
  std::vector<std::string> notes;  // runs with nothing to run on a task
  int count(CellState state) const;
};

struct RunOptions {
  bool wait = true;                     // false: return once a scheduler holds the cells
  std::optional<std::string> only_key;  // run only this cell
};

class Sweep {
 public:
  // `d2k` starts d2k with the global options its cells need (the binary, --tasks ROOT).
  Sweep(Plan plan, std::vector<task::Task> tasks, std::filesystem::path store,
        std::vector<std::string> d2k, ProcessRunner& runner,
        std::function<void(const std::string&)> say);

  // Imports every complete record of the work folder into the store.
  store::ImportReport import_records();
  // Imports the records, then classifies every cell of the plan.
  Status status();
  // Runs every cell that is neither done nor running elsewhere, each up to 1 + retries times;
  // returns the status afterwards.
  Status run(const RunOptions& options);

  const Plan& plan() const { return plan_; }
  const WorkDir& work_dir() const { return work_dir_; }

 private:
  Status classify();

  Plan plan_;
  std::vector<task::Task> tasks_;
  std::filesystem::path store_;
  std::vector<std::string> d2k_;
  ProcessRunner& runner_;
  std::function<void(const std::string&)> say_;
  WorkDir work_dir_;
};

}  // namespace d2k::sweep
