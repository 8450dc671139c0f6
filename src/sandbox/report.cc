#include "sandbox/report.h"

#include <fmt/format.h>

namespace d2k::sandbox {

std::string Report::summary() const {
  if (!enabled) return "sandbox disabled";
  std::vector<std::string> on;
  if (minimal_root) on.push_back("minimal root");
  if (filesystem) on.push_back("filesystem");
  if (network) on.push_back("network");
  if (process_view) on.push_back("process view");
  if (limits) on.push_back("limits");
  if (unprivileged) on.push_back("unprivileged");
  std::string text = on.empty() ? "no protection took effect" : fmt::format("{}", fmt::join(on, ", "));
  if (!limits_in_force.empty()) text += fmt::format("; limits in force: {}", fmt::join(limits_in_force, ", "));
  for (const auto& line : unavailable) text += "; unavailable: " + line;
  return text;
}

void to_json(nlohmann::json& j, const Report& v) {
  j = {{"enabled", v.enabled},           {"filesystem", v.filesystem},
       {"network", v.network},           {"process_view", v.process_view},
       {"limits", v.limits},             {"minimal_root", v.minimal_root},
       {"unprivileged", v.unprivileged}, {"limits_in_force", v.limits_in_force},
       {"unavailable", v.unavailable}};
}

void from_json(const nlohmann::json& j, Report& v) {
  v.enabled = j.value("enabled", false);
  v.filesystem = j.value("filesystem", false);
  v.network = j.value("network", false);
  v.process_view = j.value("process_view", false);
  v.limits = j.value("limits", false);
  v.minimal_root = j.value("minimal_root", false);
  v.unprivileged = j.value("unprivileged", false);
  v.limits_in_force = j.value("limits_in_force", std::vector<std::string>{});
  v.unavailable = j.value("unavailable", std::vector<std::string>{});
}

}  // namespace d2k::sandbox
