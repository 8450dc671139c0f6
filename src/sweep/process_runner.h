#pragma once
// How the sweep starts processes: the cells' workers, and Slurm's commands. The seam the unit
// tests fake (a scripted sbatch, workers that end on cue).

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace d2k::sweep {

// How a process ended: its exit status, or the signal that killed it.
struct ProcessExit {
  bool exited = false;
  int status = -1;  // the exit status when `exited`, else the signal number

  bool succeeded() const { return exited && status == 0; }
  std::string describe() const;  // "exited with status 1", "killed by signal 9"
};

struct CommandOutput {
  ProcessExit exit;
  std::string out;  // stdout only; stderr goes to ours
};

class ProcessRunner {
 public:
  using Environment = std::vector<std::pair<std::string, std::string>>;

  virtual ~ProcessRunner() = default;
  // Runs argv[0] (searched on PATH) to its end. Throws std::runtime_error when it cannot start.
  virtual CommandOutput run(const std::vector<std::string>& argv) = 0;
  // Starts argv with `environment` over ours, stdout and stderr appended to `log`; the process
  // is killed when this one dies. Returns its id.
  virtual int start(const std::vector<std::string>& argv, const Environment& environment,
                    const std::filesystem::path& log) = 0;
  // Blocks until a started process ends; returns its id and how it ended.
  virtual std::pair<int, ProcessExit> wait_any() = 0;
};

// Real processes: fork and exec.
class HostProcessRunner : public ProcessRunner {
 public:
  CommandOutput run(const std::vector<std::string>& argv) override;
  int start(const std::vector<std::string>& argv, const Environment& environment,
            const std::filesystem::path& log) override;
  std::pair<int, ProcessExit> wait_any() override;
};

}  // namespace d2k::sweep
