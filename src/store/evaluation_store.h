#pragma once
// The evaluations of the store: every EvaluationResult that `d2k eval` produces, kept exactly,
// listed for reports and reused as a latency cache. See docs/store.md for the tables.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/result.h"
#include "store/database.h"

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
  std::string anchor;  // the anchor's name for impl_kind "anchor"
  int workloads_passed = 0;
  int workloads_total = 0;
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

class EvaluationStore {
 public:
  explicit EvaluationStore(std::shared_ptr<const Database> db);

  // Inserts `result` as a new evaluation in one transaction; sets result.id (and created_at, if
  // empty) and returns the id.
  int64_t save(record::EvaluationResult& result);
  std::optional<record::EvaluationResult> load(int64_t id) const;
  // Newest first (by created_at, then id).
  std::vector<EvaluationSummary> list(const Query& query = {}) const;
  // The newest passed result for `key`, as stored (from_cache is not changed).
  std::optional<record::WorkloadResult> cached_workload(const CacheKey& key) const;

 private:
  std::shared_ptr<const Database> db_;
};

}  // namespace d2k::store
