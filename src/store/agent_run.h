#pragma once
// One agent run as the agent_runs table keeps it (docs/agent.md): which task, guidance
// configuration and agent, the turn budget and how much of it was used, token usage when the
// client reported it, and the evaluations it was judged by.

#include <cstdint>
#include <optional>
#include <string>

namespace d2k::store {

struct AgentRun {
  int64_t id = 0;            // 0 until created
  std::string created_at;    // ISO 8601 UTC
  std::optional<std::string> finished_at;
  std::string task_id;
  std::string config;        // none | L1 | L1+L2 | L1+L2+L3 | design
  std::string agent;         // claude | codex | the command line; empty until an agent is started
  std::string model;         // empty when the client's default
  std::string workspace;     // absolute path
  int turn_budget = 0;
  int turns_used = 0;
  std::string turn_source;   // how turns_used was counted: "tool_calls" or "transcript"
  std::string status;        // prepared | running | finished | timed_out | failed
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> completion_tokens;
  std::optional<double> cost_usd;
  std::optional<int64_t> final_evaluation_id;     // the selected submission (§3.1)
  std::optional<int64_t> baseline_evaluation_id;  // what speedups are measured against
};

}  // namespace d2k::store
