#pragma once
// The executors by name: local and slurm. A plan's executor.kind picks one.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sweep/executor.h"

namespace d2k::sweep {

using ExecutorFactory = std::function<std::unique_ptr<Executor>(const ExecutorContext&)>;

std::vector<std::string> executor_names();
// Throws std::invalid_argument for a name the registry lacks.
std::unique_ptr<Executor> make_executor(const std::string& name, const ExecutorContext& context);

}  // namespace d2k::sweep
