#include "sweep/executor_registry.h"

#include <map>
#include <stdexcept>

#include "sweep/local_executor.h"
#include "sweep/slurm_executor.h"

namespace d2k::sweep {
namespace {

const std::map<std::string, ExecutorFactory>& registry() {
  static const std::map<std::string, ExecutorFactory> table = {
      {"local", [](const ExecutorContext& c) { return std::make_unique<LocalExecutor>(c); }},
      {"slurm", [](const ExecutorContext& c) { return std::make_unique<SlurmExecutor>(c); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> executor_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Executor> make_executor(const std::string& name, const ExecutorContext& context) {
  const auto it = registry().find(name);
  if (it == registry().end()) throw std::invalid_argument("no executor \"" + name + "\"");
  return it->second(context);
}

}  // namespace d2k::sweep
