#pragma once
// The agent runs of the store (schema v6): the agent_runs and agent_events tables.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/agent_event.h"
#include "store/agent_run.h"
#include "store/database.h"

namespace d2k::store {

// Which runs runs() returns; every non-empty list must contain the run's value.
struct AgentRunQuery {
  std::vector<std::string> tasks;
  std::vector<std::string> models;
  std::vector<int64_t> ids;
};

class AgentStore {
 public:
  explicit AgentStore(std::shared_ptr<const Database> db);

  // Inserts `run`; sets its id (and created_at, if empty) and returns the id.
  int64_t create_run(AgentRun& run);
  // Writes every column but id and created_at.
  void update_run(const AgentRun& run);
  std::optional<AgentRun> load_run(int64_t id) const;
  // The newest run prepared in `workspace` (an absolute path, as created).
  std::optional<AgentRun> latest_run_in(const std::string& workspace) const;
  // Oldest first (by created_at, then id).
  std::vector<AgentRun> runs(const AgentRunQuery& query = {}) const;

  // Appends `event` to its run with the next sequence number (and the time, if empty).
  void append_event(AgentEvent& event);
  // The run's events in order; only those of `kind` when given.
  std::vector<AgentEvent> events(int64_t run_id, const std::optional<std::string>& kind = {}) const;
  // The run's submission events that name an evaluation (the scored ones), in order.
  std::vector<AgentEvent> scored_submissions(int64_t run_id) const;

 private:
  std::shared_ptr<const Database> db_;
};

}  // namespace d2k::store
