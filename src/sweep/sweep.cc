#include "sweep/sweep.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sweep/executor_registry.h"
#include "sweep/ledger.h"

namespace d2k::sweep {

namespace fs = std::filesystem;

std::string to_string(CellState state) {
  switch (state) {
    case CellState::done:
      return "done";
    case CellState::running:
      return "running";
    case CellState::failed:
      return "failed";
    case CellState::left:
      return "left";
  }
  return "left";
}

int Status::count(CellState state) const {
  return static_cast<int>(std::count_if(cells.begin(), cells.end(),
                                        [&](const CellStatus& c) { return c.state == state; }));
}

Sweep::Sweep(Plan plan, std::vector<task::Task> tasks, fs::path store, std::vector<std::string> d2k,
             ProcessRunner& runner, std::function<void(const std::string&)> say)
    : plan_(std::move(plan)),
      tasks_(std::move(tasks)),
      store_(std::move(store)),
      d2k_(std::move(d2k)),
      runner_(runner),
      say_(std::move(say)),
      work_dir_(plan_.work_dir) {}

store::ImportReport Sweep::import_records() {
  store::ImportReport report;
  for (const fs::path& record : work_dir_.records()) report += store::import_store(record, store_);
  for (const std::string& conflict : report.conflicts) say_("conflict: " + conflict);
  return report;
}

Status Sweep::classify() {
  const Ledger ledger = Ledger::read(store_);
  Expansion expansion = expand(plan_, tasks_, ledger);
  Status status;
  status.notes = std::move(expansion.notes);
  for (Cell& cell : expansion.cells) {
    CellStatus entry{std::move(cell), CellState::left, std::nullopt};
    if (ledger.done(entry.cell)) {
      entry.state = CellState::done;
    } else if (locked_elsewhere(work_dir_.lock(entry.cell))) {
      entry.state = CellState::running;
    } else if ((entry.failure = work_dir_.failure(entry.cell))) {
      entry.state = CellState::failed;
    }
    status.cells.push_back(std::move(entry));
  }
  return status;
}

Status Sweep::status() {
  import_records();
  return classify();
}

Status Sweep::run(const RunOptions& options) {
  import_records();
  ExecutorContext context;
  context.plan = &plan_;
  context.work_dir = &work_dir_;
  context.d2k = d2k_;
  context.runner = &runner_;
  context.say = say_;
  context.wait = options.wait;
  const auto executor = make_executor(plan_.executor.kind, context);

  std::map<std::string, int> attempts;  // by cell key, within this run
  for (;;) {
    const Status status = classify();
    std::vector<Cell> runnable;
    for (const CellStatus& entry : status.cells) {
      if (entry.state == CellState::done || entry.state == CellState::running) continue;
      if (options.only_key && entry.cell.key() != *options.only_key) continue;
      if (attempts[entry.cell.key()] > plan_.executor.retries) continue;
      runnable.push_back(entry.cell);
    }
    if (runnable.empty()) break;
    const int total = static_cast<int>(runnable.size());
    say_(fmt::format("{}: running {} of {} cells ({} done)", plan_.name, total, status.cells.size(),
                     status.count(CellState::done)));
    int ended = 0;
    executor->run(runnable, [&](const CellEnd& end) {
      const Cell& cell = *end.cell;
      ++attempts[cell.key()];
      ++ended;
      const fs::path record = work_dir_.record(cell);
      if (fs::exists(record)) {
        for (const std::string& conflict : store::import_store(record, store_).conflicts) {
          say_("conflict: " + conflict);
        }
        say_(fmt::format("[{}/{}] done   {}", ended, total, cell.key()));
        return;
      }
      // A worker that was killed wrote no note of its own; the executor's state stands in.
      const auto noted = work_dir_.failure(cell);
      const Failure failure{noted ? noted->reason + " (" + end.state + ")" : end.state,
                            end.log.empty() ? work_dir_.log(cell).string() : end.log};
      work_dir_.write_failure(cell, failure);
      say_(fmt::format("[{}/{}] failed {}: {}; log: {}", ended, total, cell.key(), failure.reason,
                       failure.log));
    });
    if (!options.wait) break;
  }
  return classify();
}

}  // namespace d2k::sweep
