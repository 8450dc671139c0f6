#include "store/judge_store.h"

#include <utility>

#include "store/json_text.h"
#include "store/store_error.h"
#include "util/text.h"

namespace d2k::store {

JudgeStore::JudgeStore(std::shared_ptr<const Database> db) : db_(std::move(db)) {}

int64_t JudgeStore::save(record::JudgeAssessment& assessment) {
  if (assessment.created_at.empty()) assessment.created_at = util::utc_now_iso8601();
  Statement insert = db_->prepare(
      "INSERT INTO judge_assessments (created_at, task_id, kind, candidate_path, candidate_hash, "
      "template_version, template_hash, model, base_url_host, response_format, status, l1_score, "
      "l2_score, l3_score, js, levels_json, correctness, response, error, attempts, "
      "prompt_tokens, completion_tokens, total_tokens, cached_tokens) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22, ?23, ?24)");
  insert.bind(1, assessment.created_at, assessment.task_id, record::to_string(assessment.kind),
              assessment.candidate_path, assessment.candidate_hash, assessment.template_version,
              assessment.template_hash, assessment.model, assessment.base_url_host,
              assessment.response_format, record::to_string(assessment.status));
  // The level columns exist for SQL queries; levels_json is what listing reads back.
  const bool scored = assessment.levels.size() == 3;
  for (int level = 0; level < 3; ++level) {
    if (scored) {
      insert.bind_double(12 + level, assessment.levels[level].score);
    } else {
      insert.bind_null(12 + level);
    }
  }
  insert.bind(15, assessment.js, to_json_text(assessment.levels), assessment.correctness,
              assessment.response, assessment.error, assessment.attempts,
              assessment.usage.prompt_tokens, assessment.usage.completion_tokens,
              assessment.usage.total_tokens, assessment.usage.cached_tokens);
  insert.step();
  assessment.id = db_->last_insert_rowid();
  return assessment.id;
}

std::vector<record::JudgeAssessment> JudgeStore::list(const JudgeQuery& query) const {
  Statement select = db_->prepare(
      "SELECT id, created_at, task_id, kind, candidate_path, candidate_hash, template_version, "
      "template_hash, model, base_url_host, response_format, status, js, levels_json, "
      "correctness, response, error, attempts, prompt_tokens, completion_tokens, total_tokens, "
      "cached_tokens FROM judge_assessments "
      "WHERE (?1 IS NULL OR task_id = ?1) AND (?2 IS NULL OR kind = ?2) "
      "AND (?3 IS NULL OR status = ?3) "
      "ORDER BY created_at DESC, id DESC LIMIT ?4");
  const auto name_of = [](const auto& value) -> std::optional<std::string> {
    if (!value) return std::nullopt;
    return record::to_string(*value);
  };
  select.bind(1, query.task, name_of(query.kind), name_of(query.status),
              query.limit > 0 ? query.limit : -1);

  std::vector<record::JudgeAssessment> rows;
  while (select.step()) {
    record::JudgeAssessment a;
    a.id = select.column_int(0);
    a.created_at = select.column_text(1);
    a.task_id = select.column_text(2);
    const std::string kind = select.column_text(3);
    const std::string status = select.column_text(11);
    const auto parsed_kind = record::parse_judge_kind(kind);
    const auto parsed_status = record::parse_judge_status(status);
    if (!parsed_kind || !parsed_status) {
      throw StoreError("store: judge assessment " + std::to_string(a.id) + " has kind '" + kind +
                       "' and status '" + status + "'");
    }
    a.kind = *parsed_kind;
    a.candidate_path = select.column_text(4);
    a.candidate_hash = select.column_text(5);
    a.template_version = select.column_text(6);
    a.template_hash = select.column_text(7);
    a.model = select.column_text(8);
    a.base_url_host = select.column_text(9);
    a.response_format = select.column_text(10);
    a.status = *parsed_status;
    if (!select.column_is_null(12)) a.js = select.column_double(12);
    a.levels = from_json_text(select.column_text(13)).get<std::vector<record::JudgeLevel>>();
    a.correctness = select.column_text(14);
    a.response = select.column_text(15);
    a.error = select.column_text(16);
    a.attempts = static_cast<int>(select.column_int(17));
    a.usage.prompt_tokens = select.column_int(18);
    a.usage.completion_tokens = select.column_int(19);
    a.usage.total_tokens = select.column_int(20);
    a.usage.cached_tokens = select.column_int(21);
    rows.push_back(std::move(a));
  }
  return rows;
}

}  // namespace d2k::store
