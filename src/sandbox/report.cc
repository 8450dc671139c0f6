#include "sandbox/report.h"

#include <fmt/format.h>

namespace d2k::sandbox {

std::string Report::summary() const {
  if (!enabled) return "sandbox disabled";
  std::vector<std::string> on;
  if (filesystem) on.push_back("filesystem");
  if (network) on.push_back("network");
  if (process_view) on.push_back("process view");
  if (limits) on.push_back("limits");
  std::string text = on.empty() ? "no protection took effect" : fmt::format("{}", fmt::join(on, ", "));
  for (const auto& line : unavailable) text += "; unavailable: " + line;
  return text;
}

void to_json(nlohmann::json& j, const Report& v) {
  j = {{"enabled", v.enabled},           {"filesystem", v.filesystem},
       {"network", v.network},           {"process_view", v.process_view},
       {"limits", v.limits},             {"unavailable", v.unavailable}};
}

void from_json(const nlohmann::json& j, Report& v) {
  v.enabled = j.value("enabled", false);
  v.filesystem = j.value("filesystem", false);
  v.network = j.value("network", false);
  v.process_view = j.value("process_view", false);
  v.limits = j.value("limits", false);
  v.unavailable = j.value("unavailable", std::vector<std::string>{});
}

}  // namespace d2k::sandbox
