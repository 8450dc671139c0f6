#include "store/agent_rows.h"

#include <algorithm>

#include <sqlite3.h>

namespace d2k::store {
namespace {

template <typename T>
bool selected(const std::vector<T>& wanted, const T& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

std::optional<int64_t> optional_int(const Statement& row, int column) {
  if (row.column_is_null(column)) return std::nullopt;
  return row.column_int(column);
}

}  // namespace

AgentRows::AgentRows(const std::filesystem::path& store_path) : db_(store_path) {
  // The same patience as Store: a harness may be writing a run while a report reads.
  sqlite3_busy_timeout(db_.handle(), 10'000);
}

std::vector<AgentRunRow> AgentRows::runs(const AgentRunQuery& query) const {
  Statement select = db_.prepare(
      "SELECT id, created_at, task_id, config, agent, model, workspace, turn_budget, turns_used, "
      "status, prompt_tokens, completion_tokens, cost_usd, final_evaluation_id, "
      "baseline_evaluation_id FROM agent_runs ORDER BY created_at, id");
  std::vector<AgentRunRow> rows;
  while (select.step()) {
    AgentRunRow run{
        .id = select.column_int(0),
        .created_at = select.column_text(1),
        .task_id = select.column_text(2),
        .config = select.column_text(3),
        .agent = select.column_text(4),
        .model = select.column_text(5),
        .workspace = select.column_text(6),
        .turn_budget = static_cast<int>(select.column_int(7)),
        .turns_used = static_cast<int>(select.column_int(8)),
        .status = select.column_text(9),
        .prompt_tokens = optional_int(select, 10),
        .completion_tokens = optional_int(select, 11),
        .cost_usd = std::nullopt,
        .final_evaluation_id = optional_int(select, 13),
        .baseline_evaluation_id = optional_int(select, 14),
    };
    if (!select.column_is_null(12)) run.cost_usd = select.column_double(12);
    if (selected(query.tasks, run.task_id) && selected(query.models, run.model) &&
        selected(query.ids, run.id)) {
      rows.push_back(std::move(run));
    }
  }
  return rows;
}

std::vector<AgentSubmissionRow> AgentRows::submissions(int64_t run_id) const {
  Statement select = db_.prepare(
      "SELECT seq, turn, evaluation_id FROM agent_events "
      "WHERE run_id = ?1 AND kind = 'submission' AND evaluation_id IS NOT NULL ORDER BY seq");
  select.bind_int(1, run_id);
  std::vector<AgentSubmissionRow> rows;
  while (select.step()) {
    rows.push_back({.run_id = run_id,
                    .seq = select.column_int(0),
                    .turn = static_cast<int>(select.column_int(1)),
                    .evaluation_id = select.column_int(2)});
  }
  return rows;
}

}  // namespace d2k::store
