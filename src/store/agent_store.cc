#include "store/agent_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <utility>

#include "store/store_error.h"
#include "util/text.h"

namespace d2k::store {
namespace {

constexpr const char* kRunColumns =
    "id, created_at, finished_at, task_id, config, agent, model, workspace, turn_budget, "
    "turns_used, turn_source, status, prompt_tokens, completion_tokens, cost_usd, "
    "final_evaluation_id, baseline_evaluation_id";

template <typename T>
bool selected(const std::vector<T>& wanted, const T& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

std::optional<int64_t> optional_int(const Statement& row, int column) {
  if (row.column_is_null(column)) return std::nullopt;
  return row.column_int(column);
}

AgentRun read_run(const Statement& row) {
  AgentRun run;
  run.id = row.column_int(0);
  run.created_at = row.column_text(1);
  if (!row.column_is_null(2)) run.finished_at = row.column_text(2);
  run.task_id = row.column_text(3);
  run.config = row.column_text(4);
  run.agent = row.column_text(5);
  run.model = row.column_text(6);
  run.workspace = row.column_text(7);
  run.turn_budget = static_cast<int>(row.column_int(8));
  run.turns_used = static_cast<int>(row.column_int(9));
  run.turn_source = row.column_text(10);
  run.status = row.column_text(11);
  run.prompt_tokens = optional_int(row, 12);
  run.completion_tokens = optional_int(row, 13);
  if (!row.column_is_null(14)) run.cost_usd = row.column_double(14);
  run.final_evaluation_id = optional_int(row, 15);
  run.baseline_evaluation_id = optional_int(row, 16);
  return run;
}

// The columns update_run() writes, bound from ?2 on (?1 is the id).
void bind_mutable(Statement& statement, const AgentRun& run) {
  statement.bind(2, run.finished_at, run.task_id, run.config, run.agent, run.model, run.workspace,
                 run.turn_budget, run.turns_used, run.turn_source, run.status, run.prompt_tokens,
                 run.completion_tokens, run.cost_usd, run.final_evaluation_id,
                 run.baseline_evaluation_id);
}

}  // namespace

AgentStore::AgentStore(std::shared_ptr<const Database> db) : db_(std::move(db)) {}

int64_t AgentStore::create_run(AgentRun& run) {
  if (run.created_at.empty()) run.created_at = util::utc_now_iso8601();
  Statement insert = db_->prepare(
      "INSERT INTO agent_runs (created_at, finished_at, task_id, config, agent, model, workspace, "
      "turn_budget, turns_used, turn_source, status, prompt_tokens, completion_tokens, cost_usd, "
      "final_evaluation_id, baseline_evaluation_id) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)");
  insert.bind_text(1, run.created_at);
  bind_mutable(insert, run);
  insert.step();
  run.id = db_->last_insert_rowid();
  return run.id;
}

void AgentStore::update_run(const AgentRun& run) {
  Statement update = db_->prepare(
      "UPDATE agent_runs SET finished_at = ?2, task_id = ?3, config = ?4, agent = ?5, model = ?6, "
      "workspace = ?7, turn_budget = ?8, turns_used = ?9, turn_source = ?10, status = ?11, "
      "prompt_tokens = ?12, completion_tokens = ?13, cost_usd = ?14, final_evaluation_id = ?15, "
      "baseline_evaluation_id = ?16 WHERE id = ?1");
  update.bind_int(1, run.id);
  bind_mutable(update, run);
  update.step();
  if (sqlite3_changes(db_->handle()) != 1) {
    throw StoreError("no agent run " + std::to_string(run.id) + " to update");
  }
}

std::optional<AgentRun> AgentStore::load_run(int64_t id) const {
  Statement select = db_->prepare(std::string("SELECT ") + kRunColumns + " FROM agent_runs WHERE id = ?1");
  select.bind_int(1, id);
  if (!select.step()) return std::nullopt;
  return read_run(select);
}

std::optional<AgentRun> AgentStore::latest_run_in(const std::string& workspace) const {
  Statement select = db_->prepare(std::string("SELECT ") + kRunColumns +
                                 " FROM agent_runs WHERE workspace = ?1 ORDER BY id DESC LIMIT 1");
  select.bind_text(1, workspace);
  if (!select.step()) return std::nullopt;
  return read_run(select);
}

void AgentStore::append_event(AgentEvent& event) {
  if (event.at.empty()) event.at = util::utc_now_iso8601();
  Transaction transaction(*db_);
  Statement next = db_->prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_events WHERE run_id = ?1");
  next.bind_int(1, event.run_id);
  next.step();
  event.seq = static_cast<int>(next.column_int(0));
  Statement insert = db_->prepare(
      "INSERT INTO agent_events (run_id, seq, at, turn, kind, tool, payload_json, evaluation_id) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  // Tool output may hold invalid UTF-8; it is kept with U+FFFD in its place.
  insert.bind(1, event.run_id, event.seq, event.at, event.turn, event.kind, event.tool,
              event.payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
              event.evaluation_id);
  insert.step();
  transaction.commit();
}

std::vector<AgentRun> AgentStore::runs(const AgentRunQuery& query) const {
  Statement select = db_->prepare(std::string("SELECT ") + kRunColumns +
                                 " FROM agent_runs ORDER BY created_at, id");
  std::vector<AgentRun> runs;
  while (select.step()) {
    AgentRun run = read_run(select);
    if (selected(query.tasks, run.task_id) && selected(query.models, run.model) &&
        selected(query.ids, run.id)) {
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

std::vector<AgentEvent> AgentStore::events(int64_t run_id, const std::optional<std::string>& kind) const {
  Statement select = db_->prepare(
      "SELECT run_id, seq, at, turn, kind, tool, payload_json, evaluation_id FROM agent_events "
      "WHERE run_id = ?1 AND (?2 IS NULL OR kind = ?2) ORDER BY seq");
  select.bind(1, run_id, kind);
  std::vector<AgentEvent> events;
  while (select.step()) {
    AgentEvent event;
    event.run_id = select.column_int(0);
    event.seq = static_cast<int>(select.column_int(1));
    event.at = select.column_text(2);
    event.turn = static_cast<int>(select.column_int(3));
    event.kind = select.column_text(4);
    event.tool = select.column_text(5);
    event.payload = nlohmann::json::parse(select.column_text(6));
    event.evaluation_id = optional_int(select, 7);
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<AgentEvent> AgentStore::scored_submissions(int64_t run_id) const {
  std::vector<AgentEvent> scored = events(run_id, "submission");
  std::erase_if(scored, [](const AgentEvent& event) { return !event.evaluation_id; });
  return scored;
}

}  // namespace d2k::store
