#pragma once
// Runs one cell where it was placed (`d2k sweep cell`, what every executor starts): the cell's
// d2k command writes a store of its own under a temporary name, which becomes the cell's record
// by one rename once it holds the cell's result. A cell killed midway leaves only the temporary
// file, removed by its next attempt; a cell whose lock is held runs elsewhere already.

#include <string>
#include <vector>

#include "sweep/cell.h"
#include "sweep/process_runner.h"
#include "sweep/work_dir.h"

namespace d2k::sweep {

enum class CellRun { recorded, already_recorded, running_elsewhere, failed };

struct CellRunResult {
  CellRun outcome = CellRun::failed;
  std::string reason;  // why it failed
};

// `d2k` is the command that starts d2k with the sweep's global options (binary, --tasks ROOT).
CellRunResult run_cell(const Cell& cell, const WorkDir& dir, const std::vector<std::string>& d2k,
                       ProcessRunner& runner);

}  // namespace d2k::sweep
