#pragma once
// How `submit` has a solution evaluated and finds the baseline it is compared with; tests fake
// it, `d2k mcp` uses TaskSubmissionEvaluator (the full protocol of `d2k eval`).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>

#include "record/result.h"

namespace d2k::agent {

class SubmissionEvaluator {
 public:
  virtual ~SubmissionEvaluator() = default;
  // Evaluates `solution` and stores the result (its id is set). When `stop` is requested the
  // evaluation ends early, nothing is stored, and this throws.
  virtual record::EvaluationResult evaluate(const std::filesystem::path& solution,
                                            std::stop_token stop) = 0;
  // The stored evaluation `stored` when given, else a new (stored) evaluation of the task's
  // baseline implementation; `stop` as for evaluate().
  virtual record::EvaluationResult baseline(std::optional<int64_t> stored,
                                            std::stop_token stop) = 0;
};

}  // namespace d2k::agent
