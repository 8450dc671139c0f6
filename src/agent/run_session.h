#pragma once
// One agent run as the tool server sees it: counts turns, refuses tool calls once the budget is
// spent, and writes every call, result, submission and evaluation to the store with its time.
//
// Turns: the paper counts a turn as one model response with its tool calls. The server sees
// only tool calls, so it counts each call as a turn. Parallel calls of one response are counted
// separately, so the count never falls below the true number of turns and an agent never gets
// more turns than the budget. When the agent's client reports its own count, `d2k agent run`
// records that instead (turn_source "transcript").
//
// A run prepared with `d2k agent prepare` and driven by a client d2k did not start has no one
// else to end it: the session opens it when the server starts, and closes it (final submission
// selected, status finished) when the client disconnects or the budget is spent.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/call_observer.h"
#include "store/agent_store.h"
#include "store/store.h"

namespace d2k::agent {

inline constexpr int kDefaultTurnBudget = 350;
inline constexpr const char* kTurnsFromToolCalls = "tool_calls";
inline constexpr const char* kTurnsFromTranscript = "transcript";
inline constexpr const char* kClosedEvent = "closed";

class RunSession : public mcp::CallObserver {
 public:
  // `evaluations` (the submissions' store) is what closing selects from; it may be null for a
  // session that never closes a run itself.
  RunSession(store::AgentStore& store, store::AgentRun run, const store::Store* evaluations = nullptr)
      : store_(store), evaluations_(evaluations), run_(std::move(run)) {}

  std::optional<mcp::ToolResult> before_call(const std::string& tool,
                                             const nlohmann::json& arguments) override;
  void after_call(const std::string& tool, const nlohmann::json& arguments,
                  const mcp::ToolResult& result) override;

  // Appends an event in the current turn.
  void record(const std::string& kind, const std::string& tool, const nlohmann::json& payload,
              std::optional<int64_t> evaluation_id = std::nullopt);
  void set_baseline(int64_t evaluation_id);

  // An externally driven run: marks it running (again, after an earlier client closed it).
  void open();
  // An externally driven run that is open: selects its final submission and marks it finished,
  // saying why (`reason`). Nothing for a run `d2k agent run` drives, which ends it itself.
  void close(const std::string& reason);

  const store::AgentRun& run() const { return run_; }
  int turn() const { return run_.turns_used; }

 private:
  bool externally_driven() const { return run_.agent.empty(); }

  store::AgentStore& store_;
  const store::Store* evaluations_;
  store::AgentRun run_;
};

}  // namespace d2k::agent
