#pragma once
// The SQLite store of evaluations: every EvaluationResult that `d2k eval` produces, kept exactly,
// listed for reports and reused as a latency cache, and every JudgeAssessment `d2k judge` makes.
// See docs/store.md for the schema.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/device_ceilings.h"
#include "record/judge_assessment.h"
#include "record/result.h"
#include "record/toolchain_component.h"
#include "store/database.h"
#include "store/store_error.h"

namespace d2k::store {

// Which evaluations list() returns; every set field must match.
struct Query {
  std::optional<std::string> task;
  std::optional<std::string> impl_kind;
  std::optional<std::string> impl_hash;
  bool passed_only = false;
  bool include_quick = false;  // `d2k eval --quick` records, which nothing scores
  int limit = 50;  // 0 or less: no limit
};

// One evaluation without its workload details, as list() returns it.
struct EvaluationSummary {
  int64_t id = 0;
  std::string created_at;
  std::string task_id;
  std::string impl_kind;
  std::string impl_path;
  std::string impl_hash;
  std::string device_name;
  bool passed = false;
  int workloads_passed = 0;
  int workloads_total = 0;
};

// Which judge assessments list_judge_assessments() returns; every set field must match.
struct JudgeQuery {
  std::optional<std::string> task;
  std::optional<record::JudgeKind> kind;
  std::optional<record::JudgeStatus> status;
  int limit = 50;  // 0 or less: no limit
};

// What must match for a stored workload latency to stand in for a new measurement. The kind
// matters as much as the bytes: a baseline's latency comes only from a baseline evaluation,
// never from a byte-identical submission's measurement.
struct CacheKey {
  std::string device_name;
  std::string task_id;
  std::string workload;
  std::string impl_kind;
  std::string impl_hash;
  int protocol_version = record::kProtocolVersion;
};

class Store {
 public:
  // Opens or creates the store at `path` (and its parent folders) and brings its schema up to
  // date; throws StoreError if the file was written by a newer d2k.
  static Store open(const std::filesystem::path& path);
  // $D2K_STORE if set, else d2k-store.sqlite in the current directory.
  static std::filesystem::path default_path();

  // Inserts `result` as a new evaluation in one transaction; sets result.id (and created_at, if
  // empty) and returns the id.
  int64_t save(record::EvaluationResult& result);
  std::optional<record::EvaluationResult> load(int64_t id) const;
  // Newest first (by created_at, then id).
  std::vector<EvaluationSummary> list(const Query& query = {}) const;
  // The newest passed result for `key`, as stored (from_cache is not changed).
  std::optional<record::WorkloadResult> cached_workload(const CacheKey& key) const;

  // Inserts `assessment` as a new row; sets its id (and created_at, if empty) and returns the id.
  int64_t save(record::JudgeAssessment& assessment);
  // Newest first (by created_at, then id), every field as saved.
  std::vector<record::JudgeAssessment> list_judge_assessments(const JudgeQuery& query = {}) const;

  // Speed of light (docs/scores.md): the ceilings `d2k doctor` measured, one row per run, tied
  // to the environment row of `environment` and stored with the toolchain doctor found. Sets
  // ceilings.created_at (if empty) and returns the row id.
  int64_t save_device_ceilings(const record::Environment& environment,
                               record::DeviceCeilings& ceilings,
                               const std::vector<record::ToolchainComponent>& toolchain);
  // The newest ceilings measured on a device named `device_name`, whatever its software stack.
  std::optional<record::DeviceCeilings> latest_device_ceilings(const std::string& device_name) const;

 private:
  explicit Store(Database db) : db_(std::move(db)) {}

  int64_t environment_id(const record::Environment& environment);

  Database db_;
};

}  // namespace d2k::store
