#pragma once
// Read-only queries on the agent tables (schema v6: agent_runs, agent_events) for reports. The
// agent harness writes these rows; this file only reads them, through its own connection, so it
// needs nothing from Store's internals.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"

namespace d2k::store {

// One `d2k agent run`, as stored.
struct AgentRunRow {
  int64_t id = 0;
  std::string created_at;
  std::string task_id;
  std::string config;  // none | L1 | L1+L2 | L1+L2+L3 | design
  std::string agent;
  std::string model;
  std::string workspace;
  int turn_budget = 0;
  int turns_used = 0;
  std::string status;
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> completion_tokens;
  std::optional<double> cost_usd;
  std::optional<int64_t> final_evaluation_id;
  std::optional<int64_t> baseline_evaluation_id;
};

// A `submission` event that the evaluator scored: which evaluation, at which turn.
struct AgentSubmissionRow {
  int64_t run_id = 0;
  int64_t seq = 0;
  int turn = 0;
  int64_t evaluation_id = 0;
};

// Which runs runs() returns; every non-empty list must contain the run's value.
struct AgentRunQuery {
  std::vector<std::string> tasks;
  std::vector<std::string> models;
  std::vector<int64_t> ids;
};

class AgentRows {
 public:
  // Opens the store file; open it with Store::open first so that its schema is current.
  explicit AgentRows(const std::filesystem::path& store_path);

  // Oldest first (by created_at, then id).
  std::vector<AgentRunRow> runs(const AgentRunQuery& query = {}) const;
  // The run's submission events that name an evaluation, in event order.
  std::vector<AgentSubmissionRow> submissions(int64_t run_id) const;

 private:
  Database db_;
};

}  // namespace d2k::store
