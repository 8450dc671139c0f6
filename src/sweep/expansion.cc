#include "sweep/expansion.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "sweep/plan_error.h"
#include "util/hash.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

// Slack beyond the task's own limits: starting the interpreter, loading the task, the store.
constexpr double kCellOverheadSeconds = 300.0;
// An agent run without a timeout of its own, and one judge request with its retries.
constexpr double kAgentDefaultSeconds = 24 * 3600.0;
constexpr double kJudgeSeconds = 3600.0;

// Every workload may take its whole limit, for the candidate and for the reference it is
// compared with; a native candidate is compiled first.
double evaluation_limit(const task::Task& task, const fs::path& file) {
  const double workloads = static_cast<double>(task.workloads.size());
  double seconds = 2.0 * workloads * task.evaluation.workload_timeout_seconds + kCellOverheadSeconds;
  if (file.extension() != ".py") seconds += task.evaluation.native.compile_timeout_seconds;
  return seconds;
}

std::vector<std::string> devices_of(const Plan& plan, const task::Task& task) {
  if (task.evaluation.device == task::Device::cpu) return {"cpu"};
  return plan.devices;
}

class Expander {
 public:
  Expander(const Plan& plan, const Ledger& ledger) : plan_(plan), ledger_(ledger) {}

  void evaluation(const task::Task& task, const std::string& what, const std::string& store_kind,
                  const fs::path& file, std::vector<std::string> arguments) {
    for (const std::string& device : devices_of(plan_, task)) {
      for (int repeat = 0; repeat < plan_.repeats; ++repeat) {
        Cell cell;
        cell.kind = CellKind::evaluation;
        cell.task_id = task.id;
        cell.what = what;
        cell.repeat = repeat;
        cell.device_kind = device;
        cell.impl_hash = util::hash_file(file);
        cell.store_kind = store_kind;
        cell.arguments = arguments;
        cell.gpus = device == "cpu" ? 0 : plan_.executor.gpus_per_cell;
        cell.time_limit_seconds = evaluation_limit(task, file);
        out.cells.push_back(std::move(cell));
      }
    }
  }

  void agent(const task::Task& task, const AgentRunSpec& spec) {
    for (const Cell& cell : agent_cells(task, spec)) out.cells.push_back(cell);
  }

  void judge(const task::Task& task, const JudgeRunSpec& spec) {
    for (const RunSpec& run : plan_.runs) {
      if (run.kind != RunKind::agent) continue;
      for (const Cell& agent_cell : agent_cells(task, run.agent)) {
        if (agent_cell.repeat != 0) continue;  // runs_of() gives every repeat's run at once
        const auto runs = ledger_.runs_of(agent_cell);
        for (size_t i = 0; i < runs.size() && i < static_cast<size_t>(plan_.repeats); ++i) {
          judge_run(task, spec, agent_cell, runs[i], static_cast<int>(i));
        }
      }
    }
  }

  Expansion out;

 private:
  std::vector<Cell> agent_cells(const task::Task& task, const AgentRunSpec& spec) const {
    std::vector<Cell> cells;
    for (const std::string& config : spec.configs) {
      for (const std::string& device : devices_of(plan_, task)) {
        for (int repeat = 0; repeat < plan_.repeats; ++repeat) {
          Cell cell;
          cell.kind = CellKind::agent_run;
          cell.task_id = task.id;
          cell.what = "agent";
          cell.configuration = fmt::format("{} {} {}", config, spec.agent, spec.model);
          cell.repeat = repeat;
          cell.device_kind = device;
          cell.config = config;
          cell.agent = spec.agent;
          cell.model = spec.model;
          cell.arguments = {"agent", "run", task.id, "--config", config, "--agent", spec.agent,
                            "--workspace", (plan_.work_dir / "workspaces" / cell.file_stem()).string()};
          if (!spec.model.empty()) cell.arguments.insert(cell.arguments.end(), {"--model", spec.model});
          if (spec.budget > 0) {
            cell.arguments.insert(cell.arguments.end(), {"--budget", std::to_string(spec.budget)});
          }
          if (spec.timeout_seconds > 0.0) {
            cell.arguments.insert(cell.arguments.end(),
                                  {"--timeout", fmt::format("{}", spec.timeout_seconds)});
          }
          cell.gpus = device == "cpu" ? 0 : plan_.executor.gpus_per_cell;
          cell.time_limit_seconds =
              (spec.timeout_seconds > 0.0 ? spec.timeout_seconds : kAgentDefaultSeconds) +
              kCellOverheadSeconds;
          cells.push_back(std::move(cell));
        }
      }
    }
    return cells;
  }

  // A design run is judged on its model_design.json, any other run on its final submission.
  void judge_run(const task::Task& task, const JudgeRunSpec& spec, const Cell& agent_cell,
                 const store::AgentRun& run, int repeat) {
    Cell cell;
    cell.kind = CellKind::judge_assessment;
    cell.task_id = task.id;
    cell.what = "judge";
    cell.configuration = agent_cell.configuration + " judge " + spec.model;
    cell.repeat = repeat;
    cell.device_kind = "cpu";
    cell.model = spec.model;
    cell.time_limit_seconds = kJudgeSeconds;
    if (run.config == "design") {
      const fs::path design = fs::path(run.workspace) / "model_design.json";
      if (!fs::exists(design)) {
        out.notes.push_back(fmt::format("agent run {} of {} has no {} to judge", run.id, task.id,
                                        design.string()));
        return;
      }
      cell.store_kind = "design";
      cell.impl_hash = util::hash_file(design);
      cell.arguments = {"judge", "design", task.id, "--design", design.string()};
    } else {
      const auto final = run.final_evaluation_id ? ledger_.evaluation(*run.final_evaluation_id)
                                                 : std::nullopt;
      if (!final || !fs::exists(final->impl_path)) {
        out.notes.push_back(fmt::format("agent run {} of {} has no final submission to judge",
                                        run.id, task.id));
        return;
      }
      cell.store_kind = "impl";
      cell.impl_hash = final->impl_hash;
      cell.arguments = {"judge", "impl", task.id, "--solution", final->impl_path,
                        final->passed ? "--correct" : "--incorrect"};
    }
    if (!spec.model.empty()) cell.arguments.insert(cell.arguments.end(), {"--model", spec.model});
    out.cells.push_back(std::move(cell));
  }

  const Plan& plan_;
  const Ledger& ledger_;
};

std::vector<fs::path> anchors_of(const task::Task& task) {
  std::vector<fs::path> files;
  const fs::path dir = task.dir / "anchors";
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<const task::Task*> select_tasks(const Plan& plan,
                                            const std::vector<task::Task>& available) {
  std::vector<const task::Task*> selected;
  const auto add = [&](const task::Task& task) {
    if (std::find(selected.begin(), selected.end(), &task) == selected.end()) selected.push_back(&task);
  };
  if (plan.all_tasks) {
    for (const task::Task& task : available) add(task);
  }
  for (const std::string& id : plan.task_ids) {
    const auto it = std::find_if(available.begin(), available.end(),
                                 [&](const task::Task& task) { return task.id == id; });
    if (it == available.end()) throw PlanError(plan.file, 0, 0, "tasks: no task \"" + id + "\"");
    add(*it);
  }
  for (const task::Task& task : available) {
    if (task.category &&
        std::find(plan.categories.begin(), plan.categories.end(), *task.category) !=
            plan.categories.end()) {
      add(task);
    }
  }
  return selected;
}

Expansion expand(const Plan& plan, const std::vector<task::Task>& available, const Ledger& ledger) {
  Expander expander(plan, ledger);
  for (const task::Task* task : select_tasks(plan, available)) {
    for (const RunSpec& run : plan.runs) {
      switch (run.kind) {
        case RunKind::reference:
        case RunKind::baseline:
        case RunKind::expert: {
          const auto kind = *task::parse_impl_kind(to_string(run.kind));
          const fs::path file = task->implementation_file(kind);
          if (!fs::exists(file)) {
            expander.out.notes.push_back(fmt::format("{} has no {}", task->id, to_string(run.kind)));
            break;
          }
          expander.evaluation(*task, to_string(run.kind), to_string(run.kind), file,
                              {"eval", task->id, "--impl", to_string(run.kind)});
          break;
        }
        case RunKind::anchor: {
          std::vector<fs::path> files = anchors_of(*task);
          if (!run.names.empty()) {
            files.clear();
            for (const std::string& name : run.names) {
              const fs::path file = task->dir / "anchors" / (name + ".py");
              if (fs::exists(file)) {
                files.push_back(file);
              } else {
                expander.out.notes.push_back(fmt::format("{} has no anchor {}", task->id, name));
              }
            }
          }
          if (files.empty() && run.names.empty()) {
            expander.out.notes.push_back(fmt::format("{} has no anchors", task->id));
          }
          for (const fs::path& file : files) {
            const std::string name = file.stem().string();
            expander.evaluation(*task, "anchor:" + name, "anchor", file,
                                {"eval", task->id, "--impl", "anchor:" + name});
          }
          break;
        }
        case RunKind::solution:
          for (const std::string& file : run.names) {
            expander.evaluation(*task, "solution:" + fs::path(file).filename().string(), "solution",
                                file, {"eval", task->id, "--solution", file});
          }
          break;
        case RunKind::agent:
          expander.agent(*task, run.agent);
          break;
        case RunKind::judge:
          expander.judge(*task, run.judge);
          break;
      }
    }
  }
  return std::move(expander.out);
}

}  // namespace d2k::sweep
