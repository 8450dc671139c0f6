#pragma once
// Token usage and turn counts, as agent CLIs report them at the end of a run.

#include <cstdint>
#include <optional>
#include <string>

namespace d2k::agent {

struct AgentUsage {
  std::optional<int64_t> prompt_tokens;      // input, cached input included
  std::optional<int64_t> completion_tokens;  // output
  std::optional<double> cost_usd;
  std::optional<int> turns;                  // model responses, when the client counts them
};

// Claude Code `-p --output-format json`: the result object (the last JSON line of stdout).
AgentUsage parse_claude_usage(const std::string& stdout_text);
// Codex `exec --json`: the sum over its `turn.completed` events.
AgentUsage parse_codex_usage(const std::string& stdout_text);
// A command agent: the last stdout line of the form {"d2k_usage": {"prompt_tokens": ..,
// "completion_tokens": .., "cost_usd": .., "turns": ..}} (every field optional).
AgentUsage parse_command_usage(const std::string& stdout_text);

}  // namespace d2k::agent
