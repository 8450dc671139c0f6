#pragma once
// From a plan and the tasks it names to its cells, in a stable order (task, run, configuration,
// device, repeat). Judge cells come from the agent runs the store already holds, so a plan's
// judge entries grow cells as its agent cells finish.

#include <string>
#include <vector>

#include "sweep/cell.h"
#include "sweep/ledger.h"
#include "sweep/plan.h"
#include "task/task.h"

namespace d2k::sweep {

struct Expansion {
  std::vector<Cell> cells;
  // Runs that have nothing to run on a task ("fused_moe has no anchors"), for the user to see.
  std::vector<std::string> notes;
};

// The tasks the plan selects from `available` (every task of the tasks folder): its ids, in
// its order, then those of its categories; throws PlanError for an id that is not there.
std::vector<const task::Task*> select_tasks(const Plan& plan, const std::vector<task::Task>& available);

Expansion expand(const Plan& plan, const std::vector<task::Task>& available, const Ledger& ledger);

}  // namespace d2k::sweep
