#pragma once
// One step of an agent run, in order: a tool call, its result, a submission, an evaluation.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace d2k::store {

struct AgentEvent {
  int64_t run_id = 0;
  int seq = 0;               // 1, 2, ... within the run; assigned when appended
  std::string at;            // ISO 8601 UTC; assigned when appended if empty
  int turn = 0;              // the turn it belongs to (0: before the first tool call)
  std::string kind;          // call | result | submission | evaluation | agent
  std::string tool;          // the tool's name, or "" for events that are not tool calls
  nlohmann::json payload;    // arguments, result, summary: what the kind carries
  std::optional<int64_t> evaluation_id;  // for submission and evaluation events
};

}  // namespace d2k::store
