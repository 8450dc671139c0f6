#include "task/input_parameters.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace d2k::task {

std::vector<std::string> parameters_not_for_inputs(const Task& task) {
  std::vector<std::string> names{"label", "specialization_params"};
  std::vector<std::string> formulas;
  if (task.work_model) formulas = {task.work_model->flops, task.work_model->bytes};
  if (task.evaluation.peak_aux_bytes) formulas.push_back(*task.evaluation.peak_aux_bytes);
  for (const auto& check : task.evaluation.distribution_checks) formulas.push_back(check.draws);
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  for (const auto& formula : formulas) {
    for (auto it = std::sregex_iterator(formula.begin(), formula.end(), kName); it != std::sregex_iterator(); ++it) {
      names.push_back(it->str());
    }
  }
  return names;
}

std::vector<std::string> unread_parameters(const Task& task) {
  std::ifstream in(task.dir / "get_inputs.py");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string source = buffer.str();
  std::smatch found;
  static const std::regex kSignature(R"(def\s+get_inputs\s*\(\s*([A-Za-z_]\w*))");
  if (!std::regex_search(source, found, kSignature)) return {};
  const std::string config = found[1];
  const std::regex read(config + R"re((?:\[\s*|\.get\(\s*)["']([^"']+)["'])re");
  const std::regex any_use(R"(\b)" + config + R"(\b)");
  size_t uses = 0;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), any_use); it != std::sregex_iterator(); ++it) ++uses;
  std::set<std::string> keys;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), read); it != std::sregex_iterator(); ++it) {
    keys.insert((*it)[1].str());
  }
  size_t reads = 0;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), read); it != std::sregex_iterator(); ++it) ++reads;
  if (uses != reads + 1) return {};  // the parameter itself, then only keyed reads
  const std::vector<std::string> allowed = parameters_not_for_inputs(task);
  std::vector<std::string> problems;
  for (const auto* list : {&task.workloads, &task.quick_workloads}) {
    for (const Workload& workload : *list) {
      nlohmann::json params = task.fixed_params;
      for (const auto& [key, value] : workload.params.items()) params[key] = value;
      for (const auto& [key, value] : params.items()) {
        if (keys.contains(key) || std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        problems.push_back("workload \"" + workload.label + "\": get_inputs never reads " + key);
      }
    }
  }
  return problems;
}

}  // namespace d2k::task
