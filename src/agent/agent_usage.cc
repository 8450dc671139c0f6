#include "agent/agent_usage.h"

#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/bounded_json.h"

namespace d2k::agent {
namespace {

using nlohmann::json;

// Every line of `text` that is a JSON object within the limits, in order; other lines (logs,
// or whatever an agent printed) are skipped.
std::vector<json> json_lines(const std::string& text) {
  std::vector<json> objects;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    try {
      json value = util::parse_bounded_json(line);
      if (value.is_object()) objects.push_back(std::move(value));
    } catch (const util::JsonInputError&) {
    }
  }
  return objects;
}

std::optional<int64_t> integer(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_number()) return std::nullopt;
  return object[key].get<int64_t>();
}

int64_t sum_present(std::initializer_list<std::optional<int64_t>> values) {
  int64_t total = 0;
  for (const auto& value : values) total += value.value_or(0);
  return total;
}

}  // namespace

AgentUsage parse_claude_usage(const std::string& stdout_text) {
  AgentUsage usage;
  const auto objects = json_lines(stdout_text);
  for (auto it = objects.rbegin(); it != objects.rend(); ++it) {
    if (it->value("type", "") != "result") continue;
    if (it->contains("usage") && (*it)["usage"].is_object()) {
      const json& u = (*it)["usage"];
      usage.prompt_tokens = sum_present({integer(u, "input_tokens"), integer(u, "cache_creation_input_tokens"),
                                         integer(u, "cache_read_input_tokens")});
      usage.completion_tokens = integer(u, "output_tokens");
    }
    if (it->contains("total_cost_usd") && (*it)["total_cost_usd"].is_number()) {
      usage.cost_usd = (*it)["total_cost_usd"].get<double>();
    }
    if (const auto turns = integer(*it, "num_turns")) usage.turns = static_cast<int>(*turns);
    break;
  }
  return usage;
}

AgentUsage parse_codex_usage(const std::string& stdout_text) {
  AgentUsage usage;
  for (const json& event : json_lines(stdout_text)) {
    if (event.value("type", "") != "turn.completed" || !event.contains("usage")) continue;
    const json& u = event["usage"];
    // Codex reports cached input inside input_tokens.
    usage.prompt_tokens = usage.prompt_tokens.value_or(0) + integer(u, "input_tokens").value_or(0);
    usage.completion_tokens = usage.completion_tokens.value_or(0) + integer(u, "output_tokens").value_or(0);
  }
  return usage;
}

AgentUsage parse_command_usage(const std::string& stdout_text) {
  AgentUsage usage;
  const auto objects = json_lines(stdout_text);
  for (auto it = objects.rbegin(); it != objects.rend(); ++it) {
    if (!it->contains("d2k_usage") || !(*it)["d2k_usage"].is_object()) continue;
    const json& u = (*it)["d2k_usage"];
    usage.prompt_tokens = integer(u, "prompt_tokens");
    usage.completion_tokens = integer(u, "completion_tokens");
    if (u.contains("cost_usd") && u["cost_usd"].is_number()) usage.cost_usd = u["cost_usd"].get<double>();
    if (const auto turns = integer(u, "turns")) usage.turns = static_cast<int>(*turns);
    break;
  }
  return usage;
}

}  // namespace d2k::agent
