#pragma once
// Where a sweep's cells run. An executor starts each cell's worker (`d2k sweep cell`) somewhere
// and says when it ended; the worker leaves the cell's record in the work folder, which the
// sweep imports. Executors are chosen by name from the registry (sweep/executor_registry.h).

#include <functional>
#include <string>
#include <vector>

#include "sweep/cell.h"
#include "sweep/plan.h"
#include "sweep/process_runner.h"
#include "sweep/work_dir.h"

namespace d2k::sweep {

// How one cell's attempt ended, as its executor saw it.
struct CellEnd {
  const Cell* cell = nullptr;
  std::string state;  // "exited with status 0", a Slurm state ("CANCELLED"), ...
  std::string log;    // where its worker's output is
};

struct ExecutorContext {
  const Plan* plan = nullptr;
  const WorkDir* work_dir = nullptr;
  // d2k with the sweep's global options; the executor appends `sweep cell ...`.
  std::vector<std::string> d2k;
  ProcessRunner* runner = nullptr;
  std::function<void(const std::string&)> say;  // a line for the user
  bool wait = true;  // false: a scheduler's executor returns once the cells are submitted
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs every cell once, calling `on_end` for each as it ends; returns when all have ended
  // (or, without `wait`, once a scheduler holds them).
  virtual void run(const std::vector<Cell>& cells,
                   const std::function<void(const CellEnd&)>& on_end) = 0;
};

}  // namespace d2k::sweep
