#include "sweep/slurm_executor.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "native/command.h"
#include "util/text.h"

namespace d2k::sweep {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 11> kFinalStates{
    "COMPLETED", "FAILED",   "CANCELLED",  "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
    "PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT"};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// "1234_7|RUNNING" -> (7, "RUNNING") for job 1234; sacct's "CANCELLED by 0" keeps its first word.
std::optional<std::pair<size_t, std::string>> parse_task_line(const std::string& line,
                                                               const std::string& job_id) {
  const size_t bar = line.find('|');
  if (bar == std::string::npos) return std::nullopt;
  const std::string id = line.substr(0, bar);
  const std::string prefix = job_id + "_";
  if (id.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string index = id.substr(prefix.size());
  if (index.empty() || !std::all_of(index.begin(), index.end(), ::isdigit)) return std::nullopt;
  std::string state = line.substr(bar + 1);
  state = state.substr(0, state.find(' '));
  return std::make_pair(static_cast<size_t>(std::stoul(index)), state);
}

std::string sanitized(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return name;
}

}  // namespace

bool slurm_state_final(const std::string& state) {
  return std::find(kFinalStates.begin(), kFinalStates.end(), state) != kFinalStates.end();
}

std::string SlurmExecutor::batch_script(const std::vector<const Cell*>& cells,
                                        const fs::path& list) const {
  const ExecutorSpec& spec = context_.plan->executor;
  double limit = 0.0;
  for (const Cell* cell : cells) limit = std::max(limit, cell->time_limit_seconds);
  std::string script = "#!/bin/bash\n";
  script += fmt::format("#SBATCH --job-name=d2k-{}\n", sanitized(context_.plan->name));
  script += fmt::format("#SBATCH --array=0-{}{}\n", cells.size() - 1,
                        spec.max_running > 0 ? fmt::format("%{}", spec.max_running) : "");
  script += fmt::format("#SBATCH --time={}\n", static_cast<long>(std::ceil(limit / 60.0)));
  script += fmt::format("#SBATCH --output={}\n",
                        (context_.work_dir->root() / "logs" / "slurm-%A_%a.log").string());
  script += "#SBATCH --ntasks=1\n";
  if (cells.front()->gpus > 0) script += fmt::format("#SBATCH --gres=gpu:{}\n", cells.front()->gpus);
  if (!spec.partition.empty()) script += fmt::format("#SBATCH --partition={}\n", spec.partition);
  for (const std::string& arg : spec.sbatch_args) script += "#SBATCH " + arg + "\n";
  // The array index picks the cell's worker file from the list, one per line.
  script += fmt::format("cell=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n",
                        native::shell_quote({list.string()}));
  script += "exec " + native::shell_quote(context_.d2k) + " sweep cell \"$cell\"\n";
  return script;
}

SlurmExecutor::Array SlurmExecutor::submit(const std::vector<const Cell*>& cells) {
  const fs::path dir = context_.work_dir->slurm_dir();
  const std::string stem = fmt::format("{}-{}-{}", sanitized(context_.plan->name),
                                       util::utc_now_iso8601(), ++submissions_);
  const fs::path list = dir / (sanitized(stem) + ".cells");
  {
    std::ofstream out(list);
    for (const Cell* cell : cells) out << context_.work_dir->write_cell(*cell).string() << "\n";
  }
  const fs::path script = dir / (sanitized(stem) + ".sh");
  std::ofstream(script) << batch_script(cells, list);
  const CommandOutput submitted = context_.runner->run({"sbatch", "--parsable", script.string()});
  if (!submitted.exit.succeeded()) {
    throw std::runtime_error("sbatch " + script.string() + " " + submitted.exit.describe());
  }
  std::string job_id = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
  context_.say(fmt::format("submitted job array {} ({} cells): {}", job_id, cells.size(),
                           script.string()));
  return {job_id, cells, std::vector<bool>(cells.size(), false)};
}

std::map<size_t, std::string> SlurmExecutor::states(const Array& array) const {
  std::map<size_t, std::string> states;
  const CommandOutput queue = context_.runner->run(
      {"squeue", "--noheader", "--array", "--states=all", "--jobs", array.job_id,
       "--format=%i|%T"});
  if (queue.exit.succeeded()) {
    for (const std::string& line : lines_of(queue.out)) {
      if (auto task = parse_task_line(line, array.job_id)) states[task->first] = task->second;
    }
  }
  if (states.size() < array.cells.size()) {
    // Tasks squeue has forgotten (after MinJobAge): sacct knows them where accounting is kept.
    try {
      const CommandOutput accounting = context_.runner->run(
          {"sacct", "--noheader", "--parsable2", "--allocations", "--jobs", array.job_id,
           "--format=JobID,State"});
      if (accounting.exit.succeeded()) {
        for (const std::string& line : lines_of(accounting.out)) {
          if (auto task = parse_task_line(line, array.job_id)) states.emplace(task->first, task->second);
        }
      }
    } catch (const std::runtime_error&) {
      // no sacct on this host
    }
  }
  return states;
}

void SlurmExecutor::run(const std::vector<Cell>& cells,
                        const std::function<void(const CellEnd&)>& on_end) {
  if (cells.empty()) return;
  // One array per GPU count, since --gres applies to the whole array.
  std::map<int, std::vector<const Cell*>> groups;
  for (const Cell& cell : cells) groups[cell.gpus].push_back(&cell);
  std::vector<Array> arrays;
  for (const auto& [gpus, group] : groups) arrays.push_back(submit(group));
  if (!context_.wait) return;

  const auto log_of = [&](const Array& array, size_t index) {
    return (context_.work_dir->root() / "logs" / fmt::format("slurm-{}_{}.log", array.job_id, index))
        .string();
  };
  // A task neither squeue nor sacct knows after the array left the queue ended unseen.
  int unseen_polls = 0;
  for (;;) {
    bool all_ended = true;
    bool any_known = false;
    for (Array& array : arrays) {
      const std::map<size_t, std::string> known = states(array);
      any_known = any_known || !known.empty();
      for (size_t i = 0; i < array.cells.size(); ++i) {
        if (array.ended[i]) continue;
        const auto it = known.find(i);
        const bool gone = it == known.end() && unseen_polls >= 3;
        if ((it != known.end() && slurm_state_final(it->second)) || gone) {
          array.ended[i] = true;
          on_end({array.cells[i], gone ? "UNKNOWN (left the queue unseen)" : it->second,
                  log_of(array, i)});
        } else {
          all_ended = false;
        }
      }
    }
    if (all_ended) return;
    unseen_polls = any_known ? 0 : unseen_polls + 1;
    std::this_thread::sleep_for(std::chrono::duration<double>(context_.plan->executor.poll_seconds));
  }
}

}  // namespace d2k::sweep
