#pragma once
// The judge assessments of the store: every JudgeAssessment `d2k judge` makes (docs/judge.md).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "record/judge_assessment.h"
#include "store/database.h"

namespace d2k::store {

// Which judge assessments list() returns; every set field must match.
struct JudgeQuery {
  std::optional<std::string> task;
  std::optional<record::JudgeKind> kind;
  std::optional<record::JudgeStatus> status;
  int limit = 50;  // 0 or less: no limit
};

class JudgeStore {
 public:
  explicit JudgeStore(std::shared_ptr<const Database> db);

  // Inserts `assessment` as a new row; sets its id (and created_at, if empty) and returns the id.
  int64_t save(record::JudgeAssessment& assessment);
  // Newest first (by created_at, then id), every field as saved.
  std::vector<record::JudgeAssessment> list(const JudgeQuery& query = {}) const;

 private:
  std::shared_ptr<const Database> db_;
};

}  // namespace d2k::store
