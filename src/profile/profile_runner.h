#pragma once
// What `d2k profile` runs under the tool: an interface so that tests need no GPU.

#include <string>
#include <vector>

#include "record/result.h"

namespace d2k::profile {

class ProfileRunner {
 public:
  virtual ~ProfileRunner() = default;
  // Runs one workload's correctness trials and then `calls` profiled calls, with the candidate
  // worker started under `launcher`; returns the evaluation's record (nothing timed).
  virtual record::EvaluationResult run(const std::vector<std::string>& launcher, int calls) = 0;
};

}  // namespace d2k::profile
