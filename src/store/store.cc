#include "store/store.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "util/text.h"

namespace d2k::store {
namespace {

// kMigrations[i] takes a store from schema version i to i + 1, inside one transaction. Append new
// steps (new tables, new columns); never edit a step that has shipped.
constexpr std::array<const char*, 7> kMigrations{
    R"sql(
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value NOT NULL
);

-- One row per distinct machine and software stack; evaluations share it.
CREATE TABLE environments (
  id INTEGER PRIMARY KEY,
  device_name TEXT NOT NULL,
  driver TEXT NOT NULL,
  cuda TEXT NOT NULL,
  torch TEXT NOT NULL,
  triton TEXT NOT NULL,
  python TEXT NOT NULL,
  host TEXT NOT NULL,
  d2k_version TEXT NOT NULL,
  UNIQUE (device_name, driver, cuda, torch, triton, python, host, d2k_version)
);

-- AUTOINCREMENT: an id is never reused, so anything that cites an evaluation keeps meaning it.
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  task_id TEXT NOT NULL,
  impl_kind TEXT NOT NULL,
  impl_path TEXT NOT NULL,
  impl_hash TEXT NOT NULL,
  device TEXT NOT NULL,
  protocol_version INTEGER NOT NULL,
  base_seed TEXT NOT NULL,
  environment_id INTEGER NOT NULL REFERENCES environments (id),
  passed INTEGER NOT NULL
);
CREATE INDEX evaluations_by_time ON evaluations (created_at, id);
CREATE INDEX evaluations_by_cache_key
  ON evaluations (task_id, impl_hash, protocol_version, environment_id);

-- REAL columns are nullable because SQLite stores NaN as NULL; the latency_* columns are all
-- NULL when the workload has no latency.
CREATE TABLE workload_results (
  evaluation_id INTEGER NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  workload TEXT NOT NULL,
  verdict TEXT NOT NULL,
  reason_code TEXT NOT NULL,
  message TEXT NOT NULL,
  wall_seconds REAL,
  from_cache INTEGER NOT NULL,
  latency_method TEXT,
  latency_mean_s REAL,
  latency_stdev_s REAL,
  latency_min_s REAL,
  latency_max_s REAL,
  calls_per_sample INTEGER,
  samples_json TEXT,
  trials_json TEXT NOT NULL,
  PRIMARY KEY (evaluation_id, ordinal)
);
)sql",
    R"sql(
-- One row per `d2k judge` assessment (docs/judge.md). Scores are NULL unless the status is
-- verified or skipped_incorrect; levels_json holds the levels with bands, reasons and evidence.
CREATE TABLE judge_assessments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  task_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  candidate_path TEXT NOT NULL,
  candidate_hash TEXT NOT NULL,
  template_version TEXT NOT NULL,
  template_hash TEXT NOT NULL,
  model TEXT NOT NULL,
  base_url_host TEXT NOT NULL,
  response_format TEXT NOT NULL,
  status TEXT NOT NULL,
  l1_score REAL,
  l2_score REAL,
  l3_score REAL,
  js REAL,
  levels_json TEXT NOT NULL,
  correctness TEXT NOT NULL,
  response TEXT NOT NULL,
  error TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  total_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL
);
CREATE INDEX judge_assessments_by_task ON judge_assessments (task_id, kind, created_at, id);
)sql",
    R"sql(
-- Native candidates (docs/native-abi.md): how the shared object was built, and the workspace
-- its setup asked for per workload. NULL for Python candidates.
ALTER TABLE evaluations ADD COLUMN build_json TEXT;
ALTER TABLE workload_results ADD COLUMN workspace_bytes INTEGER;
)sql",
    R"sql(
-- Speed of light (docs/scores.md): the ceilings `d2k doctor` measured on a device, and per
-- workload the bound and the fraction of it a latency reached. NULL where the task declares no
-- work model or no ceilings were measured on the evaluation's device.
CREATE TABLE device_ceilings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  environment_id INTEGER NOT NULL REFERENCES environments (id),
  ceilings_json TEXT NOT NULL,
  toolchain_json TEXT NOT NULL
);
CREATE INDEX device_ceilings_by_environment ON device_ceilings (environment_id, created_at, id);
ALTER TABLE workload_results ADD COLUMN sol_json TEXT;
)sql",
    R"sql(
-- Integrity (docs/protocol.md): static findings per evaluation, and per workload the audited
-- kernels, copies and fills of the untimed audit call and its peak auxiliary device memory.
ALTER TABLE evaluations ADD COLUMN validity_json TEXT;
ALTER TABLE workload_results ADD COLUMN audit_json TEXT;
ALTER TABLE workload_results ADD COLUMN peak_aux_bytes INTEGER;
)sql",
    R"sql(
-- Agent runs (docs/agent.md): one row per `d2k agent run`, and every tool call, result,
-- submission and evaluation of it in order.
CREATE TABLE agent_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  task_id TEXT NOT NULL,
  config TEXT NOT NULL,
  agent TEXT NOT NULL,
  model TEXT NOT NULL,
  workspace TEXT NOT NULL,
  turn_budget INTEGER NOT NULL,
  turns_used INTEGER NOT NULL DEFAULT 0,
  turn_source TEXT NOT NULL,
  status TEXT NOT NULL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  cost_usd REAL,
  final_evaluation_id INTEGER REFERENCES evaluations (id),
  baseline_evaluation_id INTEGER REFERENCES evaluations (id)
);
CREATE TABLE agent_events (
  run_id INTEGER NOT NULL REFERENCES agent_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  turn INTEGER NOT NULL,
  kind TEXT NOT NULL,
  tool TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  evaluation_id INTEGER REFERENCES evaluations (id),
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX agent_runs_by_task ON agent_runs (task_id, config, created_at, id);
)sql",
    R"sql(
-- The timing protocol's detail (docs/timing.md): the whole latency record (every sample with
-- its duration, calls and device readings; the cache policy and input sets), and per workload
-- where its time went, the time the protocol itself needs and the traced call on a timed input
-- set. Quick evaluations (`d2k eval --quick`) are kept apart from scored ones by `mode`.
ALTER TABLE workload_results ADD COLUMN latency_json TEXT;
ALTER TABLE workload_results ADD COLUMN timing_json TEXT;
ALTER TABLE evaluations ADD COLUMN mode TEXT NOT NULL DEFAULT 'full';
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(kMigrations.size());

// The columns read_workload() expects, in its order.
constexpr std::string_view kWorkloadColumns =
    "w.workload, w.verdict, w.reason_code, w.message, w.wall_seconds, w.from_cache, "
    "w.latency_method, w.latency_mean_s, w.latency_stdev_s, w.latency_min_s, w.latency_max_s, "
    "w.calls_per_sample, w.samples_json, w.trials_json, w.workspace_bytes, w.sol_json, "
    "w.audit_json, w.latency_json, w.timing_json";

// JSON has no NaN or infinity (nlohmann writes null, which reads back as 0.0), so non-finite
// doubles inside JSON columns are written as {"$double": "nan" | "inf" | "-inf"}.
constexpr const char* kNonFiniteKey = "$double";

void encode_nonfinite(nlohmann::json& j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) {
      j = nlohmann::json::object({{kNonFiniteKey, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"}});
    }
  } else if (j.is_structured()) {
    for (auto& child : j) encode_nonfinite(child);
  }
}

void decode_nonfinite(nlohmann::json& j) {
  if (j.is_object() && j.size() == 1 && j.contains(kNonFiniteKey)) {
    const auto name = j[kNonFiniteKey].get<std::string>();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (name == "nan") j = std::numeric_limits<double>::quiet_NaN();
    if (name == "inf") j = kInf;
    if (name == "-inf") j = -kInf;
  } else if (j.is_structured()) {
    for (auto& child : j) decode_nonfinite(child);
  }
}

std::string to_json_text(nlohmann::json j) {
  encode_nonfinite(j);
  // Invalid UTF-8 (a message cut mid-character) becomes U+FFFD rather than failing the save.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json from_json_text(const std::string& text) {
  auto j = nlohmann::json::parse(text);
  decode_nonfinite(j);
  return j;
}

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

// The stored schema version: 0 for a file without d2k's tables. Refuses versions from the future.
int known_schema_version(const Database& db) {
  Statement has_meta =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!has_meta.step()) return 0;
  Statement version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.step()) {
    throw StoreError("store " + db.path().string() + ": meta table has no schema_version");
  }
  const int64_t value = version.column_int(0);
  if (value > kSchemaVersion) {
    throw StoreError("store " + db.path().string() + " has schema version " +
                     std::to_string(value) + ", newer than this d2k knows (" +
                     std::to_string(kSchemaVersion) + "); use a newer d2k to open it");
  }
  return static_cast<int>(value);
}

void migrate(const Database& db) {
  // Checked first without the write lock, so opening an up-to-date store never waits on writers.
  if (known_schema_version(db) == kSchemaVersion) return;
  Transaction transaction(db);
  // Again under the lock: another process may have migrated in between.
  for (int version = known_schema_version(db); version < kSchemaVersion; ++version) {
    db.exec(kMigrations[version]);
  }
  Statement set_version = db.prepare(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?1) "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  set_version.bind_int(1, kSchemaVersion);
  set_version.step();
  transaction.commit();
}

}  // namespace

Store Store::open(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  Database db(path);
  sqlite3_busy_timeout(db.handle(), 10'000);
  db.exec("PRAGMA foreign_keys = ON");
  // WAL lets readers (reports, `d2k list`) run while an evaluation writes.
  db.exec("PRAGMA journal_mode = WAL");
  migrate(db);
  return Store(std::move(db));
}

std::filesystem::path Store::default_path() {
  const char* env = std::getenv("D2K_STORE");
  if (env != nullptr && *env != '\0') return env;
  return std::filesystem::current_path() / "d2k-store.sqlite";
}

int64_t Store::environment_id(const record::Environment& environment) {
  const std::array<const std::string*, 8> fields{
      &environment.device_name, &environment.driver, &environment.cuda, &environment.torch,
      &environment.triton,      &environment.python, &environment.host, &environment.d2k_version};
  Statement insert = db_.prepare(
      "INSERT INTO environments (device_name, driver, cuda, torch, triton, python, host, "
      "d2k_version) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING");
  Statement select = db_.prepare(
      "SELECT id FROM environments WHERE device_name = ?1 AND driver = ?2 AND cuda = ?3 AND "
      "torch = ?4 AND triton = ?5 AND python = ?6 AND host = ?7 AND d2k_version = ?8");
  for (size_t i = 0; i < fields.size(); ++i) {
    insert.bind_text(static_cast<int>(i + 1), *fields[i]);
    select.bind_text(static_cast<int>(i + 1), *fields[i]);
  }
  insert.step();
  select.step();
  return select.column_int(0);
}

int64_t Store::save(record::EvaluationResult& result) {
  if (result.created_at.empty()) result.created_at = util::utc_now_iso8601();
  Transaction transaction(db_);
  const int64_t environment = environment_id(result.environment);

  Statement evaluation = db_.prepare(
      "INSERT INTO evaluations (created_at, task_id, impl_kind, impl_path, impl_hash, device, "
      "protocol_version, base_seed, environment_id, passed, build_json, validity_json, mode) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  evaluation.bind_text(1, result.created_at);
  evaluation.bind_text(2, result.task_id);
  evaluation.bind_text(3, result.impl_kind);
  evaluation.bind_text(4, result.impl_path);
  evaluation.bind_text(5, result.impl_hash);
  evaluation.bind_text(6, result.device);
  evaluation.bind_int(7, result.protocol_version);
  // SQLite integers are signed 64-bit; decimal text keeps every uint64 seed exact.
  evaluation.bind_text(8, std::to_string(result.base_seed));
  evaluation.bind_int(9, environment);
  evaluation.bind_int(10, result.passed() ? 1 : 0);
  if (result.build) {
    evaluation.bind_text(11, to_json_text(*result.build));
  } else {
    evaluation.bind_null(11);
  }
  // Static findings and the sandbox's protections (docs/protocol.md); NULL when neither exists.
  if (!result.findings.empty() || !result.sandbox.empty()) {
    evaluation.bind_text(12, nlohmann::json{{"findings", result.findings},
                                            {"sandbox", result.sandbox}}.dump());
  } else {
    evaluation.bind_null(12);
  }
  evaluation.bind_text(13, result.mode);
  evaluation.step();
  const int64_t id = db_.last_insert_rowid();

  Statement workload = db_.prepare(
      "INSERT INTO workload_results (evaluation_id, ordinal, workload, verdict, reason_code, "
      "message, wall_seconds, from_cache, latency_method, latency_mean_s, latency_stdev_s, "
      "latency_min_s, latency_max_s, calls_per_sample, samples_json, trials_json, "
      "workspace_bytes, sol_json, audit_json, peak_aux_bytes, latency_json, timing_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22)");
  for (size_t ordinal = 0; ordinal < result.workloads.size(); ++ordinal) {
    const record::WorkloadResult& w = result.workloads[ordinal];
    workload.bind_int(1, id);
    workload.bind_int(2, static_cast<int64_t>(ordinal));
    workload.bind_text(3, w.workload);
    workload.bind_text(4, record::to_string(w.verdict));
    workload.bind_text(5, w.reason_code);
    workload.bind_text(6, w.message);
    workload.bind_double(7, w.wall_seconds);
    workload.bind_int(8, w.from_cache ? 1 : 0);
    if (w.latency) {
      workload.bind_text(9, w.latency->method);
      workload.bind_double(10, w.latency->mean_s);
      workload.bind_double(11, w.latency->stdev_s);
      workload.bind_double(12, w.latency->min_s);
      workload.bind_double(13, w.latency->max_s);
      workload.bind_int(14, w.latency->calls_per_sample);
      workload.bind_text(15, to_json_text(w.latency->samples_s));
    } else {
      for (int column = 9; column <= 15; ++column) workload.bind_null(column);
    }
    workload.bind_text(16, to_json_text(w.trials));
    if (w.workspace_bytes) {
      workload.bind_int(17, *w.workspace_bytes);
    } else {
      workload.bind_null(17);
    }
    if (w.sol) {
      workload.bind_text(18, to_json_text(*w.sol));
    } else {
      workload.bind_null(18);
    }
    if (w.audit || !w.findings.empty()) {
      nlohmann::json audit = {{"findings", w.findings}};
      audit["audit"] = w.audit ? nlohmann::json(*w.audit) : nlohmann::json(nullptr);
      workload.bind_text(19, to_json_text(audit));
    } else {
      workload.bind_null(19);
    }
    if (w.audit && w.audit->peak_aux_bytes) {
      workload.bind_int(20, *w.audit->peak_aux_bytes);
    } else {
      workload.bind_null(20);
    }
    if (w.latency) {
      workload.bind_text(21, to_json_text(*w.latency));
    } else {
      workload.bind_null(21);
    }
    nlohmann::json timing = {{"phases", w.phases}, {"irreducible_seconds", w.irreducible_seconds}};
    timing["timed_audit"] = w.timed_audit ? nlohmann::json(*w.timed_audit) : nlohmann::json(nullptr);
    workload.bind_text(22, to_json_text(timing));
    workload.step();
    workload.reset();
  }
  transaction.commit();
  result.id = id;
  return id;
}

std::optional<record::EvaluationResult> Store::load(int64_t id) const {
  // One read transaction, so the evaluation and its workloads come from the same snapshot.
  Transaction transaction(db_, Transaction::Mode::deferred);
  Statement evaluation = db_.prepare(
      "SELECT e.created_at, e.task_id, e.impl_kind, e.impl_path, e.impl_hash, e.device, "
      "e.protocol_version, e.base_seed, env.device_name, env.driver, env.cuda, env.torch, "
      "env.triton, env.python, env.host, env.d2k_version, e.build_json, e.validity_json, e.mode "
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

  Statement workloads = db_.prepare("SELECT " + std::string(kWorkloadColumns) +
                                    " FROM workload_results w WHERE w.evaluation_id = ?1 "
                                    "ORDER BY w.ordinal");
  workloads.bind_int(1, id);
  while (workloads.step()) result.workloads.push_back(read_workload(workloads));
  transaction.commit();
  return result;
}

std::vector<EvaluationSummary> Store::list(const Query& query) const {
  Statement select = db_.prepare(
      "SELECT e.id, e.created_at, e.task_id, e.impl_kind, e.impl_path, e.impl_hash, "
      "env.device_name, e.passed, "
      "(SELECT count(*) FROM workload_results w "
      " WHERE w.evaluation_id = e.id AND w.verdict = 'passed'), "
      "(SELECT count(*) FROM workload_results w WHERE w.evaluation_id = e.id) "
      "FROM evaluations e JOIN environments env ON env.id = e.environment_id "
      "WHERE (?1 IS NULL OR e.task_id = ?1) AND (?2 IS NULL OR e.impl_kind = ?2) "
      "AND (?3 = 0 OR e.passed = 1) AND (?5 IS NULL OR e.impl_hash = ?5) "
      "AND (?6 = 1 OR e.mode = 'full') "
      "ORDER BY e.created_at DESC, e.id DESC LIMIT ?4");
  select.bind_optional_text(1, query.task);
  select.bind_optional_text(2, query.impl_kind);
  select.bind_int(3, query.passed_only ? 1 : 0);
  select.bind_int(4, query.limit > 0 ? query.limit : -1);  // SQLite: a negative LIMIT is none
  select.bind_optional_text(5, query.impl_hash);
  select.bind_int(6, query.include_quick ? 1 : 0);

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
        .workloads_passed = static_cast<int>(select.column_int(8)),
        .workloads_total = static_cast<int>(select.column_int(9)),
    });
  }
  return summaries;
}

std::optional<record::WorkloadResult> Store::cached_workload(const CacheKey& key) const {
  Statement select = db_.prepare(
      "SELECT " + std::string(kWorkloadColumns) +
      " FROM workload_results w "
      "JOIN evaluations e ON e.id = w.evaluation_id "
      "JOIN environments env ON env.id = e.environment_id "
      "WHERE env.device_name = ?1 AND e.task_id = ?2 AND w.workload = ?3 AND e.impl_hash = ?4 "
      "AND e.protocol_version = ?5 AND e.impl_kind = ?6 AND w.verdict = 'passed' "
      "AND e.mode = 'full' "
      "ORDER BY e.created_at DESC, e.id DESC LIMIT 1");
  select.bind_text(1, key.device_name);
  select.bind_text(2, key.task_id);
  select.bind_text(3, key.workload);
  select.bind_text(4, key.impl_hash);
  select.bind_int(5, key.protocol_version);
  select.bind_text(6, key.impl_kind);
  if (!select.step()) return std::nullopt;
  return read_workload(select);
}

int64_t Store::save(record::JudgeAssessment& assessment) {
  if (assessment.created_at.empty()) assessment.created_at = util::utc_now_iso8601();
  Statement insert = db_.prepare(
      "INSERT INTO judge_assessments (created_at, task_id, kind, candidate_path, candidate_hash, "
      "template_version, template_hash, model, base_url_host, response_format, status, l1_score, "
      "l2_score, l3_score, js, levels_json, correctness, response, error, attempts, "
      "prompt_tokens, completion_tokens, total_tokens, cached_tokens) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22, ?23, ?24)");
  insert.bind_text(1, assessment.created_at);
  insert.bind_text(2, assessment.task_id);
  insert.bind_text(3, record::to_string(assessment.kind));
  insert.bind_text(4, assessment.candidate_path);
  insert.bind_text(5, assessment.candidate_hash);
  insert.bind_text(6, assessment.template_version);
  insert.bind_text(7, assessment.template_hash);
  insert.bind_text(8, assessment.model);
  insert.bind_text(9, assessment.base_url_host);
  insert.bind_text(10, assessment.response_format);
  insert.bind_text(11, record::to_string(assessment.status));
  // The level columns exist for SQL queries; levels_json is what listing reads back.
  const bool scored = assessment.levels.size() == 3;
  for (int level = 0; level < 3; ++level) {
    if (scored) {
      insert.bind_double(12 + level, assessment.levels[level].score);
    } else {
      insert.bind_null(12 + level);
    }
  }
  if (assessment.js) {
    insert.bind_double(15, *assessment.js);
  } else {
    insert.bind_null(15);
  }
  insert.bind_text(16, to_json_text(assessment.levels));
  insert.bind_text(17, assessment.correctness);
  insert.bind_text(18, assessment.response);
  insert.bind_text(19, assessment.error);
  insert.bind_int(20, assessment.attempts);
  insert.bind_int(21, assessment.usage.prompt_tokens);
  insert.bind_int(22, assessment.usage.completion_tokens);
  insert.bind_int(23, assessment.usage.total_tokens);
  insert.bind_int(24, assessment.usage.cached_tokens);
  insert.step();
  assessment.id = db_.last_insert_rowid();
  return assessment.id;
}

std::vector<record::JudgeAssessment> Store::list_judge_assessments(const JudgeQuery& query) const {
  Statement select = db_.prepare(
      "SELECT id, created_at, task_id, kind, candidate_path, candidate_hash, template_version, "
      "template_hash, model, base_url_host, response_format, status, js, levels_json, "
      "correctness, response, error, attempts, prompt_tokens, completion_tokens, total_tokens, "
      "cached_tokens FROM judge_assessments "
      "WHERE (?1 IS NULL OR task_id = ?1) AND (?2 IS NULL OR kind = ?2) "
      "AND (?3 IS NULL OR status = ?3) "
      "ORDER BY created_at DESC, id DESC LIMIT ?4");
  select.bind_optional_text(1, query.task);
  const auto name_of = [](const auto& value) -> std::optional<std::string> {
    if (!value) return std::nullopt;
    return record::to_string(*value);
  };
  select.bind_optional_text(2, name_of(query.kind));
  select.bind_optional_text(3, name_of(query.status));
  select.bind_int(4, query.limit > 0 ? query.limit : -1);

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

int64_t Store::save_device_ceilings(const record::Environment& environment,
                                   record::DeviceCeilings& ceilings,
                                   const std::vector<record::ToolchainComponent>& toolchain) {
  if (ceilings.created_at.empty()) ceilings.created_at = util::utc_now_iso8601();
  Transaction transaction(db_);
  Statement insert = db_.prepare(
      "INSERT INTO device_ceilings (created_at, environment_id, ceilings_json, toolchain_json) "
      "VALUES (?1, ?2, ?3, ?4)");
  insert.bind_text(1, ceilings.created_at);
  insert.bind_int(2, environment_id(environment));
  insert.bind_text(3, to_json_text(ceilings));
  insert.bind_text(4, to_json_text(toolchain));
  insert.step();
  const int64_t id = db_.last_insert_rowid();
  transaction.commit();
  return id;
}

std::optional<record::DeviceCeilings> Store::latest_device_ceilings(
    const std::string& device_name) const {
  Statement select = db_.prepare(
      "SELECT c.ceilings_json FROM device_ceilings c "
      "JOIN environments env ON env.id = c.environment_id WHERE env.device_name = ?1 "
      "ORDER BY c.created_at DESC, c.id DESC LIMIT 1");
  select.bind_text(1, device_name);
  if (!select.step()) return std::nullopt;
  return from_json_text(select.column_text(0)).get<record::DeviceCeilings>();
}

}  // namespace d2k::store
