#include "store/evaluation_store.h"

#include <charconv>
#include <map>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "store/environment_table.h"
#include "store/json_text.h"
#include "store/store_error.h"
#include "util/text.h"

namespace d2k::store {
namespace {

// The columns read_workload() expects, in its order.
constexpr std::string_view kWorkloadColumns =
    "w.workload, w.verdict, w.reason_code, w.message, w.wall_seconds, w.from_cache, "
    "w.latency_method, w.latency_mean_s, w.latency_stdev_s, w.latency_min_s, w.latency_max_s, "
    "w.calls_per_sample, w.samples_json, w.trials_json, w.workspace_bytes, w.sol_json, "
    "w.audit_json, w.latency_json, w.timing_json";

uint64_t parse_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw StoreError("store: base_seed '" + text + "' is not a decimal uint64");
  }
  return seed;
}

record::WorkloadResult read_workload(const Statement& row) {
  record::WorkloadResult w;
  w.workload = row.column_text(0);
  w.verdict = record::parse_verdict(row.column_text(1));
  w.reason_code = row.column_text(2);
  w.message = row.column_text(3);
  w.wall_seconds = row.column_double(4);
  w.from_cache = row.column_int(5) != 0;
  if (!row.column_is_null(6)) {
    record::Latency latency;
    latency.method = row.column_text(6);
    latency.mean_s = row.column_double(7);
    latency.stdev_s = row.column_double(8);
    latency.min_s = row.column_double(9);
    latency.max_s = row.column_double(10);
    latency.calls_per_sample = row.column_int(11);
    latency.samples_s = from_json_text(row.column_text(12)).get<std::vector<double>>();
    w.latency = std::move(latency);
  }
  w.trials = from_json_text(row.column_text(13)).get<std::vector<record::TrialCheck>>();
  if (!row.column_is_null(14)) w.workspace_bytes = row.column_int(14);
  if (!row.column_is_null(15)) {
    w.sol = from_json_text(row.column_text(15)).get<record::SpeedOfLight>();
  }
  if (!row.column_is_null(16)) {
    // {"findings": [...], "audit": {...} or null}; peak_aux_bytes is a copy kept for SQL queries.
    const nlohmann::json audit = from_json_text(row.column_text(16));
    w.findings = audit.at("findings").get<std::vector<record::Finding>>();
    if (!audit.at("audit").is_null()) w.audit = audit.at("audit").get<record::KernelAudit>();
  }
  if (!row.column_is_null(17)) w.latency = from_json_text(row.column_text(17)).get<record::Latency>();
  if (!row.column_is_null(18)) {
    // {"phases": {...}, "irreducible_seconds": s, "timed_audit": {...} or null}
    const nlohmann::json timing = from_json_text(row.column_text(18));
    w.phases = timing.at("phases").get<std::map<std::string, double>>();
    w.irreducible_seconds = timing.at("irreducible_seconds").get<double>();
    if (!timing.at("timed_audit").is_null()) {
      w.timed_audit = timing.at("timed_audit").get<record::KernelAudit>();
    }
  }
  return w;
}

}  // namespace

EvaluationStore::EvaluationStore(std::shared_ptr<const Database> db) : db_(std::move(db)) {}

int64_t EvaluationStore::save(record::EvaluationResult& result) {
  if (result.created_at.empty()) result.created_at = util::utc_now_iso8601();
  Transaction transaction(*db_);
  const int64_t environment = environment_id(*db_, result.environment);

  Statement evaluation = db_->prepare(
      "INSERT INTO evaluations (created_at, task_id, impl_kind, impl_path, impl_hash, device, "
      "protocol_version, base_seed, environment_id, passed, build_json, validity_json, mode, "
      "anchor, outputs_compared) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  std::optional<std::string> build;
  if (result.build) build = to_json_text(*result.build);
  // Static findings and the sandbox's protections (docs/protocol.md); NULL when neither exists.
  std::optional<std::string> validity;
  if (!result.findings.empty() || !result.sandbox.empty()) {
    validity = nlohmann::json{{"findings", result.findings}, {"sandbox", result.sandbox}}.dump();
  }
  // SQLite integers are signed 64-bit; decimal text keeps every uint64 seed exact.
  evaluation.bind(1, result.created_at, result.task_id, result.impl_kind, result.impl_path,
                  result.impl_hash, result.device, result.protocol_version,
                  std::to_string(result.base_seed), environment, result.passed(), build, validity,
                  result.mode, result.anchor, result.outputs_compared);
  evaluation.step();
  const int64_t id = db_->last_insert_rowid();

  Statement workload = db_->prepare(
      "INSERT INTO workload_results (evaluation_id, ordinal, workload, verdict, reason_code, "
      "message, wall_seconds, from_cache, latency_method, latency_mean_s, latency_stdev_s, "
      "latency_min_s, latency_max_s, calls_per_sample, samples_json, trials_json, "
      "workspace_bytes, sol_json, audit_json, peak_aux_bytes, latency_json, timing_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22)");
  for (size_t ordinal = 0; ordinal < result.workloads.size(); ++ordinal) {
    const record::WorkloadResult& w = result.workloads[ordinal];
    workload.bind(1, id, static_cast<int64_t>(ordinal), w.workload, record::to_string(w.verdict),
                  w.reason_code, w.message, w.wall_seconds, w.from_cache);
    if (const auto& l = w.latency) {
      workload.bind(9, l->method, l->mean_s, l->stdev_s, l->min_s, l->max_s, l->calls_per_sample,
                    to_json_text(l->samples_s));
    } else {
      for (int column = 9; column <= 15; ++column) workload.bind_null(column);
    }
    std::optional<std::string> audit;
    if (w.audit || !w.findings.empty()) {
      nlohmann::json both = {{"findings", w.findings}};
      both["audit"] = w.audit ? nlohmann::json(*w.audit) : nlohmann::json(nullptr);
      audit = to_json_text(both);
    }
    nlohmann::json timing = {{"phases", w.phases}, {"irreducible_seconds", w.irreducible_seconds}};
    timing["timed_audit"] = w.timed_audit ? nlohmann::json(*w.timed_audit) : nlohmann::json(nullptr);
    workload.bind(16, to_json_text(w.trials), w.workspace_bytes,
                  w.sol ? std::optional(to_json_text(*w.sol)) : std::nullopt, audit,
                  w.audit ? w.audit->peak_aux_bytes : std::nullopt,
                  w.latency ? std::optional(to_json_text(*w.latency)) : std::nullopt,
                  to_json_text(timing));
    workload.step();
    workload.reset();
  }
  transaction.commit();
  result.id = id;
  return id;
}

std::optional<record::EvaluationResult> EvaluationStore::load(int64_t id) const {
  // One read transaction, so the evaluation and its workloads come from the same snapshot.
  Transaction transaction(*db_, Transaction::Mode::deferred);
  Statement evaluation = db_->prepare(
      "SELECT e.created_at, e.task_id, e.impl_kind, e.impl_path, e.impl_hash, e.device, "
      "e.protocol_version, e.base_seed, env.device_name, env.driver, env.cuda, env.torch, "
      "env.triton, env.python, env.host, env.d2k_version, e.build_json, e.validity_json, e.mode, "
      "e.anchor, e.outputs_compared "
      "FROM evaluations e JOIN environments env ON env.id = e.environment_id WHERE e.id = ?1");
  evaluation.bind_int(1, id);
  if (!evaluation.step()) return std::nullopt;

  record::EvaluationResult result;
  result.id = id;
  result.created_at = evaluation.column_text(0);
  result.task_id = evaluation.column_text(1);
  result.impl_kind = evaluation.column_text(2);
  result.impl_path = evaluation.column_text(3);
  result.impl_hash = evaluation.column_text(4);
  result.device = evaluation.column_text(5);
  result.protocol_version = static_cast<int>(evaluation.column_int(6));
  result.base_seed = parse_seed(evaluation.column_text(7));
  record::Environment& env = result.environment;
  env.device_name = evaluation.column_text(8);
  env.driver = evaluation.column_text(9);
  env.cuda = evaluation.column_text(10);
  env.torch = evaluation.column_text(11);
  env.triton = evaluation.column_text(12);
  env.python = evaluation.column_text(13);
  env.host = evaluation.column_text(14);
  env.d2k_version = evaluation.column_text(15);
  if (!evaluation.column_is_null(16)) {
    result.build = from_json_text(evaluation.column_text(16)).get<record::Build>();
  }
  if (!evaluation.column_is_null(17)) {
    const nlohmann::json validity = from_json_text(evaluation.column_text(17));
    result.findings = validity.value("findings", std::vector<record::Finding>{});
    result.sandbox = validity.value("sandbox", "");
  }
  result.mode = evaluation.column_text(18);
  result.anchor = evaluation.column_text(19);
  result.outputs_compared = evaluation.column_int(20) != 0;

  Statement workloads = db_->prepare("SELECT " + std::string(kWorkloadColumns) +
                                    " FROM workload_results w WHERE w.evaluation_id = ?1 "
                                    "ORDER BY w.ordinal");
  workloads.bind_int(1, id);
  while (workloads.step()) result.workloads.push_back(read_workload(workloads));
  transaction.commit();
  return result;
}

std::vector<EvaluationSummary> EvaluationStore::list(const Query& query) const {
  Statement select = db_->prepare(
      "SELECT e.id, e.created_at, e.task_id, e.impl_kind, e.impl_path, e.impl_hash, "
      "env.device_name, e.passed, e.anchor, "
      "(SELECT count(*) FROM workload_results w "
      " WHERE w.evaluation_id = e.id AND w.verdict = 'passed'), "
      "(SELECT count(*) FROM workload_results w WHERE w.evaluation_id = e.id) "
      "FROM evaluations e JOIN environments env ON env.id = e.environment_id "
      "WHERE (?1 IS NULL OR e.task_id = ?1) AND (?2 IS NULL OR e.impl_kind = ?2) "
      "AND (?3 = 0 OR e.passed = 1) AND (?5 IS NULL OR e.impl_hash = ?5) "
      "AND (?6 = 1 OR e.mode = 'full') "
      "ORDER BY e.created_at DESC, e.id DESC LIMIT ?4");
  // SQLite: a negative LIMIT is none.
  select.bind(1, query.task, query.impl_kind, query.passed_only, query.limit > 0 ? query.limit : -1,
              query.impl_hash, query.include_quick);

  std::vector<EvaluationSummary> summaries;
  while (select.step()) {
    summaries.push_back({
        .id = select.column_int(0),
        .created_at = select.column_text(1),
        .task_id = select.column_text(2),
        .impl_kind = select.column_text(3),
        .impl_path = select.column_text(4),
        .impl_hash = select.column_text(5),
        .device_name = select.column_text(6),
        .passed = select.column_int(7) != 0,
        .anchor = select.column_text(8),
        .workloads_passed = static_cast<int>(select.column_int(9)),
        .workloads_total = static_cast<int>(select.column_int(10)),
    });
  }
  return summaries;
}

std::optional<record::WorkloadResult> EvaluationStore::cached_workload(const CacheKey& key) const {
  Statement select = db_->prepare(
      "SELECT " + std::string(kWorkloadColumns) +
      " FROM workload_results w "
      "JOIN evaluations e ON e.id = w.evaluation_id "
      "JOIN environments env ON env.id = e.environment_id "
      "WHERE env.device_name = ?1 AND e.task_id = ?2 AND w.workload = ?3 AND e.impl_hash = ?4 "
      "AND e.protocol_version = ?5 AND e.impl_kind = ?6 AND w.verdict = 'passed' "
      "AND e.mode = 'full' "
      "ORDER BY e.created_at DESC, e.id DESC LIMIT 1");
  select.bind(1, key.device_name, key.task_id, key.workload, key.impl_hash, key.protocol_version,
              key.impl_kind);
  if (!select.step()) return std::nullopt;
  return read_workload(select);
}

}  // namespace d2k::store
