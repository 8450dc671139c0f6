#pragma once

#include <functional>
#include <string>

#include "eval/evaluator.h"
#include "profile/profile_runner.h"
#include "task/task.h"

namespace d2k::profile {

// Runs the profile through the evaluator, so the implementation is loaded (and a native one
// built) exactly as `d2k eval` does: the reference worker computes the trials' outputs, the
// candidate worker checks them and then makes the profiled calls. Nothing is stored.
class EvaluatorProfileRunner : public ProfileRunner {
 public:
  // `options` says which implementation and workload; the runner adds the rest.
  EvaluatorProfileRunner(const task::Task& task, eval::EvaluatorOptions options);
  record::EvaluationResult run(const std::vector<std::string>& launcher, int calls) override;

 private:
  const task::Task& task_;
  eval::EvaluatorOptions options_;
};

}  // namespace d2k::profile
