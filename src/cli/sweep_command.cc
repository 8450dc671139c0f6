#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "sweep/cell_runner.h"
#include "sweep/plan.h"
#include "sweep/sweep.h"
#include "task/task_error.h"
#include "task/task_loader.h"

namespace d2k::cli {
namespace {

namespace fs = std::filesystem;

struct SweepFlags {
  std::string plan;
  std::string cell;
  std::string only_key;
  bool json = false;
  bool no_wait = false;
};

// The tasks a plan may select. A task that does not load is left out with a note, unless the
// plan names it.
std::vector<task::Task> load_tasks(const GlobalOptions& global, const sweep::Plan& plan) {
  std::vector<task::Task> tasks;
  for (const fs::path& dir : task::find_task_dirs(tasks_root(global))) {
    try {
      tasks.push_back(task::load_task(dir));
    } catch (const task::TaskError& error) {
      const std::string id = dir.filename().string();
      if (std::find(plan.task_ids.begin(), plan.task_ids.end(), id) != plan.task_ids.end()) throw;
      if (plan.all_tasks) std::fprintf(stderr, "d2k sweep: skipping %s\n", error.what());
    }
  }
  return tasks;
}

// d2k as the cells must start it: this binary, on the same tasks.
std::vector<std::string> d2k_command(const GlobalOptions& global) {
  return {fs::read_symlink("/proc/self/exe").string(), "--tasks",
          fs::absolute(tasks_root(global)).string()};
}

void say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

std::string progress_bar(const sweep::Status& status) {
  constexpr int kWidth = 40;
  const int total = static_cast<int>(status.cells.size());
  const int done = status.count(sweep::CellState::done);
  const int filled = total == 0 ? kWidth : done * kWidth / total;
  return fmt::format("[{}{}] {}/{}", std::string(static_cast<size_t>(filled), '#'),
                     std::string(static_cast<size_t>(kWidth - filled), '.'), done, total);
}

void print_status(const sweep::Sweep& sweep, const sweep::Status& status, bool json) {
  if (json) {
    nlohmann::json cells = nlohmann::json::array();
    for (const sweep::CellStatus& entry : status.cells) {
      nlohmann::json cell = {{"key", entry.cell.key()},
                             {"task", entry.cell.task_id},
                             {"what", entry.cell.what},
                             {"configuration", entry.cell.configuration},
                             {"repeat", entry.cell.repeat},
                             {"device", entry.cell.device_kind},
                             {"impl_hash", entry.cell.impl_hash},
                             {"state", sweep::to_string(entry.state)}};
      if (entry.failure) {
        cell["reason"] = entry.failure->reason;
        cell["log"] = entry.failure->log;
      }
      cells.push_back(std::move(cell));
    }
    const nlohmann::json out = {{"plan", sweep.plan().name},
                                {"work_dir", sweep.work_dir().root().string()},
                                {"done", status.count(sweep::CellState::done)},
                                {"running", status.count(sweep::CellState::running)},
                                {"failed", status.count(sweep::CellState::failed)},
                                {"left", status.count(sweep::CellState::left)},
                                {"notes", status.notes},
                                {"cells", cells}};
    fmt::print("{}\n", out.dump(2));
    return;
  }
  for (const std::string& note : status.notes) fmt::print("note: {}\n", note);
  for (const sweep::CellStatus& entry : status.cells) {
    if (entry.state != sweep::CellState::failed) continue;
    fmt::print("failed: {}: {}; log: {}\n", entry.cell.key(), entry.failure->reason,
               entry.failure->log);
  }
  fmt::print("{}: {} done, {} running, {} failed, {} left\n", sweep.plan().name,
             status.count(sweep::CellState::done), status.count(sweep::CellState::running),
             status.count(sweep::CellState::failed), status.count(sweep::CellState::left));
  if (isatty(STDOUT_FILENO)) fmt::print("{}\n", progress_bar(status));
}

}  // namespace

std::function<int()> define_sweep(CLI::App& app, const GlobalOptions& global) {
  app.footer(
      "Runs a plan's grid of cells (docs/sweep.md) through its executor, each cell's result "
      "imported into the store; cells whose result the store holds are skipped. Exit status: 0 "
      "when every cell is done, 1 when some are not, 2 on a usage or set-up error.");
  app.require_subcommand(1);
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* run = app.add_subcommand("run", "run the cells that are not done");
  run->fallthrough();
  run->add_option("plan", flags->plan, "the plan (YAML)")->required()->check(CLI::ExistingFile);
  run->add_flag("--no-wait", flags->no_wait,
                "slurm: return once the cells are submitted; run again (or status) to import");
  run->add_option("--cell", flags->only_key, "run only the cell with this key (see status --json)");
  CLI::App* status = app.add_subcommand("status", "count the cells done, running, failed and left");
  status->fallthrough();
  status->add_option("plan", flags->plan, "the plan (YAML)")->required()->check(CLI::ExistingFile);
  status->add_flag("--json", flags->json, "every cell with its state, as JSON");
  CLI::App* cell = app.add_subcommand("cell", "internal: run one cell (what executors start)");
  cell->fallthrough();
  cell->add_option("file", flags->cell, "the cell's file in the work folder")->required();

  return [flags, &global, run, status] {
    sweep::HostProcessRunner runner;
    if (!run->parsed() && !status->parsed()) {
      const fs::path file = flags->cell;
      const sweep::WorkDir dir(file.parent_path().parent_path());
      const sweep::Cell cell = sweep::read_cell(file);
      const sweep::CellRunResult result = sweep::run_cell(cell, dir, d2k_command(global), runner);
      switch (result.outcome) {
        case sweep::CellRun::recorded:
        case sweep::CellRun::already_recorded:
          return kExitPassed;
        case sweep::CellRun::running_elsewhere:
          say("d2k sweep: cell " + cell.key() + " is running elsewhere");
          return kExitFailed;
        case sweep::CellRun::failed:
          say("d2k sweep: cell " + cell.key() + " failed: " + result.reason);
          return kExitFailed;
      }
      return kExitFailed;
    }
    sweep::Plan plan = sweep::load_plan(flags->plan);
    std::vector<task::Task> tasks = load_tasks(global, plan);
    sweep::Sweep sweep(std::move(plan), std::move(tasks), store_path(global), d2k_command(global),
                       runner, say);
    if (status->parsed()) {
      const sweep::Status now = sweep.status();
      print_status(sweep, now, flags->json);
      return now.count(sweep::CellState::done) == static_cast<int>(now.cells.size()) ? kExitPassed
                                                                                       : kExitFailed;
    }
    sweep::RunOptions options;
    options.wait = !flags->no_wait;
    if (!flags->only_key.empty()) options.only_key = flags->only_key;
    const sweep::Status after = sweep.run(options);
    print_status(sweep, after, false);
    return after.count(sweep::CellState::done) == static_cast<int>(after.cells.size()) ? kExitPassed
                                                                                         : kExitFailed;
  };
}

}  // namespace d2k::cli
