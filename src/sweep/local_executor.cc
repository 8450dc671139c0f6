#include "sweep/local_executor.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <sstream>

#include "sweep/ledger.h"

namespace d2k::sweep {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t\r") + 1);
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

}  // namespace

std::vector<LocalGpu> LocalExecutor::gpus() const {
  std::vector<LocalGpu> gpus;
  try {
    const CommandOutput listed =
        context_.runner->run({"nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"});
    if (!listed.exit.succeeded()) return gpus;
    for (const std::string& line : split(listed.out, '\n')) {
      const std::vector<std::string> fields = split(line, ',');
      if (fields.size() == 2) gpus.push_back({fields[0], fields[1]});
    }
  } catch (const std::runtime_error&) {
    return gpus;  // no nvidia-smi: no GPUs
  }
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr) {
    const std::vector<std::string> allowed = split(visible, ',');
    std::erase_if(gpus, [&](const LocalGpu& gpu) {
      return std::find(allowed.begin(), allowed.end(), gpu.index) == allowed.end();
    });
  }
  const int limit = context_.plan->executor.gpus;
  if (limit > 0 && static_cast<int>(gpus.size()) > limit) gpus.resize(static_cast<size_t>(limit));
  return gpus;
}

void LocalExecutor::run(const std::vector<Cell>& cells,
                        const std::function<void(const CellEnd&)>& on_end) {
  const std::vector<LocalGpu> devices = gpus();
  std::deque<const Cell*> gpu_queue;
  std::deque<const Cell*> cpu_queue;
  for (const Cell& cell : cells) {
    if (cell.gpus == 0) {
      cpu_queue.push_back(&cell);
      continue;
    }
    const bool placeable = std::any_of(devices.begin(), devices.end(), [&](const LocalGpu& gpu) {
      return device_matches(cell.device_kind, gpu.name);
    });
    if (placeable) {
      gpu_queue.push_back(&cell);
    } else {
      on_end({&cell, "not run: no " + cell.device_kind + " GPU here", ""});
    }
  }

  struct Running {
    const Cell* cell;
    std::optional<size_t> gpu;
  };
  std::map<int, Running> running;
  std::vector<bool> gpu_busy(devices.size(), false);
  int cpu_busy = 0;
  const auto start = [&](const Cell& cell, std::optional<size_t> gpu) {
    std::vector<std::string> argv = context_.d2k;
    argv.insert(argv.end(), {"sweep", "cell", context_.work_dir->write_cell(cell).string()});
    // CPU cells see no GPU, so that a CPU task never competes with a GPU cell for a device.
    const ProcessRunner::Environment environment = {
        {"CUDA_VISIBLE_DEVICES", gpu ? devices[*gpu].index : ""}};
    const int pid = context_.runner->start(argv, environment, context_.work_dir->log(cell));
    running[pid] = {&cell, gpu};
    if (gpu) {
      gpu_busy[*gpu] = true;
    } else {
      ++cpu_busy;
    }
  };
  while (!gpu_queue.empty() || !cpu_queue.empty() || !running.empty()) {
    for (size_t g = 0; g < devices.size(); ++g) {
      if (gpu_busy[g]) continue;
      const auto next = std::find_if(gpu_queue.begin(), gpu_queue.end(), [&](const Cell* cell) {
        return device_matches(cell->device_kind, devices[g].name);
      });
      if (next == gpu_queue.end()) continue;
      const Cell* cell = *next;
      gpu_queue.erase(next);
      start(*cell, g);
    }
    while (!cpu_queue.empty() && cpu_busy < context_.plan->executor.cpu_workers) {
      const Cell* cell = cpu_queue.front();
      cpu_queue.pop_front();
      start(*cell, std::nullopt);
    }
    const auto [pid, exit] = context_.runner->wait_any();
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running ended = it->second;
    running.erase(it);
    if (ended.gpu) {
      gpu_busy[*ended.gpu] = false;
    } else {
      --cpu_busy;
    }
    on_end({ended.cell, exit.describe(), context_.work_dir->log(*ended.cell).string()});
  }
}

}  // namespace d2k::sweep
