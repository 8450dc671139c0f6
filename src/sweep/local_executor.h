#pragma once
// Runs cells on this machine: one cell per visible GPU at a time, its worker seeing only that
// GPU (CUDA_VISIBLE_DEVICES), and cells of CPU tasks on the CPU, executor.cpu_workers at once.
// A GPU cell runs only on a GPU whose name matches its device kind; one that no GPU here
// matches ends at once, unrun, and is said so.

#include <string>
#include <vector>

#include "sweep/executor.h"

namespace d2k::sweep {

struct LocalGpu {
  std::string index;  // as CUDA_VISIBLE_DEVICES names it
  std::string name;   // "NVIDIA H200"
};

class LocalExecutor : public Executor {
 public:
  explicit LocalExecutor(const ExecutorContext& context) : context_(context) {}

  void run(const std::vector<Cell>& cells,
           const std::function<void(const CellEnd&)>& on_end) override;

  // The GPUs cells may use: nvidia-smi's list, narrowed by $CUDA_VISIBLE_DEVICES (indexes) and
  // cut to executor.gpus when that is set. None when nvidia-smi is missing or fails.
  std::vector<LocalGpu> gpus() const;

 private:
  ExecutorContext context_;
};

}  // namespace d2k::sweep
