#include <fmt/format.h>

#include "cli/commands.h"
#include "task/input_parameters.h"
#include "task/task_error.h"
#include "task/task_loader.h"

namespace d2k::cli {

std::filesystem::path tasks_root(const GlobalOptions& global) {
  return global.tasks_root.empty() ? task::default_tasks_root()
                                   : std::filesystem::path(global.tasks_root);
}

task::Task resolve_task(const GlobalOptions& global, const std::string& name) {
  const std::filesystem::path as_path(name);
  if (std::filesystem::exists(as_path / "config.json")) return task::load_task(as_path);
  const auto in_root = tasks_root(global) / name;
  if (!std::filesystem::exists(in_root)) {
    throw std::runtime_error(fmt::format("no task '{}' in {} (see `d2k tasks`)", name,
                                         tasks_root(global).string()));
  }
  return task::load_task(in_root);
}

std::function<int()> define_tasks(CLI::App&, const GlobalOptions& global) {
  return [&global] {
    const auto root = tasks_root(global);
    int broken = 0;
    fmt::print("{:<34} {:<5} {:>9}  {}\n", "task", "device", "workloads", "title");
    for (const auto& dir : task::find_task_dirs(root)) {
      try {
        const task::Task task = task::load_task(dir);
        const std::vector<std::string> problems = task::unread_parameters(task);
        if (!problems.empty()) ++broken;
        fmt::print("{:<34} {:<5} {:>9}  {}\n", task.id, task::to_string(task.evaluation.device),
                   task.workloads.size(),
                   problems.empty() ? task.title : "task_error: " + fmt::format("{}", fmt::join(problems, "; ")));
      } catch (const task::TaskError& error) {
        ++broken;
        fmt::print("{:<34} {:<5} {:>9}  invalid: {}\n", dir.filename().string(), "-", "-",
                   error.what());
      }
    }
    return broken == 0 ? kExitPassed : kExitFailed;
  };
}

std::function<int()> define_show(CLI::App& app, const GlobalOptions& global) {
  auto name = std::make_shared<std::string>();
  app.add_option("task", *name, "task id or folder")->required();
  return [name, &global] {
    const task::Task task = resolve_task(global, *name);
    const auto& spec = task.evaluation;
    fmt::print("{} — {}\nfolder: {}\n\n", task.id, task.title, task.dir.string());
    fmt::print("files:\n");
    for (const char* file : {"task_description.md", "config.json", "get_inputs.py", "reference.py",
                             "implementation_requirements.yaml", "solution.py", "guidance.json",
                             "judge_criteria.md", "baseline/solution.py", "expert/solution.py"}) {
      fmt::print("  {:<34} {}\n", file, std::filesystem::exists(task.dir / file) ? "present" : "absent");
    }
    fmt::print("\nrun({}) -> {}\n", fmt::join(spec.arguments, ", "), fmt::join(spec.outputs, ", "));
    fmt::print("static inputs: {}; dynamic: {}; mutable: {}\n",
               fmt::join(task.input_rules.static_inputs, ", "),
               fmt::join(task.input_rules.dynamic_inputs, ", "),
               task.input_rules.mutable_inputs.empty() ? "none" : fmt::format("{}", fmt::join(task.input_rules.mutable_inputs, ", ")));
    fmt::print("tolerance: rel_norm_rtol {} (x{} = gate {}), atol {}, rtol {}\n",
               task.tolerance.rel_norm_rtol, task.tolerance.grader_scale,
               task.tolerance.effective_rel_norm_rtol(), task.tolerance.effective_atol(),
               task.tolerance.effective_rtol());
    fmt::print("evaluation: device {}, timing {}, {} trials, samples >= {} s x {}, call limit {} s\n",
               task::to_string(spec.device), spec.timing_method, spec.correctness_trials,
               spec.min_sample_seconds, spec.timing_samples, spec.call_timeout_seconds);
    std::vector<std::string> languages;
    for (const task::Language language : spec.languages) {
      languages.push_back(task::to_string(language));
    }
    fmt::print("candidate languages: {} (docs/native-abi.md)\n", fmt::join(languages, ", "));
    fmt::print("\nworkloads:\n");
    for (const auto& workload : task.workloads) {
      nlohmann::json params = workload.params;
      params.erase("label");
      params.erase("specialization_params");
      fmt::print("  {:<32} {}\n", workload.label, params.dump());
    }
    for (const auto& problem : task::unread_parameters(task)) fmt::print("  task_error: {}\n", problem);
    fmt::print("\nrequirements:\n");
    for (const auto& line : task.requirements) fmt::print("  - {}\n", line);
    return kExitPassed;
  };
}

}  // namespace d2k::cli
