#include "store/schema.h"

#include <array>
#include <string>

#include <sqlite3.h>

#include "store/store_error.h"

namespace d2k::store {
namespace {

// kMigrations[i] takes a store from schema version i to i + 1, inside one transaction. Append new
// steps (new tables, new columns); never edit a step that has shipped.
constexpr std::array<const char*, 9> kMigrations{
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
    R"sql(
-- Anchors (docs/results.md): the library path an evaluation of kind 'anchor' timed, by name.
ALTER TABLE evaluations ADD COLUMN anchor TEXT NOT NULL DEFAULT '';
)sql",
    R"sql(
-- Timing-only anchors (docs/task-format.md): 0 when the outputs were not compared.
ALTER TABLE evaluations ADD COLUMN outputs_compared INTEGER NOT NULL DEFAULT 1;
)sql",
};
constexpr int kSchemaVersion = static_cast<int>(kMigrations.size());

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

}  // namespace

int schema_version() { return kSchemaVersion; }

void migrate(const Database& db) {
  // Checked first without the write lock, so opening an up-to-date store never waits on writers.
  if (known_schema_version(db) == kSchemaVersion) return;
  if (db.read_only()) {
    throw StoreError("store " + db.path().string() + " is read-only and has schema version " +
                     std::to_string(known_schema_version(db)) + "; this d2k needs version " +
                     std::to_string(kSchemaVersion) + " and cannot migrate it");
  }
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

Database open_database(const std::filesystem::path& path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  Database db(path);
  sqlite3_busy_timeout(db.handle(), 10'000);
  try {
    db.exec("PRAGMA foreign_keys = ON");
    // WAL lets readers (reports, `d2k list`) run while an evaluation writes. Setting it writes
    // the file's header, which a read-only file refuses; Store::check_writable() says so.
    if (!db.read_only()) db.exec("PRAGMA journal_mode = WAL");
    migrate(db);
  } catch (const StoreError& error) {
    // SQLite's messages do not name the file (a folder that refuses the WAL files, say).
    const std::string what = error.what();
    if (what.find(path.string()) != std::string::npos) throw;
    throw StoreError("store " + path.string() + ": " + what);
  }
  return db;
}

Database open_database_read_only(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) {
    throw StoreError("no store at " + path.string());
  }
  Database file(path, Database::Access::read_only);
  sqlite3_busy_timeout(file.handle(), 10'000);
  if (known_schema_version(file) == kSchemaVersion) return file;
  Database copy = Database::in_memory_copy(file);
  copy.exec("PRAGMA foreign_keys = ON");
  migrate(copy);
  return copy;
}

}  // namespace d2k::store
