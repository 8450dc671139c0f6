#pragma once
// Runs cells on a Slurm cluster: one job array per sweep run (one per GPU count, when CPU and
// GPU cells mix), one array task per cell, submitted with sbatch: --gres=gpu:N for cells of
// CUDA tasks, a time limit from the slowest cell's task timeouts, and the plan's max_running as
// the array's %K throttle. squeue --states=all (and sacct, where the cluster keeps accounting)
// says when each array task ended and how; the worker leaves its record in the work folder,
// which must be shared by the submitting host and the nodes.

#include <map>
#include <string>
#include <vector>

#include "sweep/executor.h"

namespace d2k::sweep {

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(const ExecutorContext& context) : context_(context) {}

  void run(const std::vector<Cell>& cells,
           const std::function<void(const CellEnd&)>& on_end) override;

  // The batch script of one array over `cells`, whose worker files are listed in `list`.
  std::string batch_script(const std::vector<const Cell*>& cells,
                           const std::filesystem::path& list) const;

 private:
  struct Array {
    std::string job_id;
    std::vector<const Cell*> cells;  // by array index
    std::vector<bool> ended;
  };

  Array submit(const std::vector<const Cell*>& cells);
  // The array tasks' states by index: squeue's, then sacct's for tasks squeue no longer shows.
  std::map<size_t, std::string> states(const Array& array) const;

  ExecutorContext context_;
  int submissions_ = 0;
};

// Whether a Slurm job state is final (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool slurm_state_final(const std::string& state);

}  // namespace d2k::sweep
