#pragma once
// Submissions evaluated like `d2k eval --solution`, with the store as the record and the cache.

#include <functional>
#include <string>

#include "agent/submission_evaluator.h"
#include "store/store.h"
#include "task/task.h"

namespace d2k::agent {

class TaskSubmissionEvaluator : public SubmissionEvaluator {
 public:
  // `progress` receives the evaluator's progress lines (for stderr).
  TaskSubmissionEvaluator(const task::Task& task, store::Store& store,
                          std::function<void(const std::string&)> progress)
      : task_(task), store_(store), progress_(std::move(progress)) {}

  record::EvaluationResult evaluate(const std::filesystem::path& solution,
                                    std::stop_token stop) override;
  // The baseline is baseline/solution.py; a task without one is compared with its reference.
  record::EvaluationResult baseline(std::optional<int64_t> stored, std::stop_token stop) override;

 private:
  record::EvaluationResult run(task::ImplKind kind, const std::filesystem::path& solution,
                               std::stop_token stop);

  const task::Task& task_;
  store::Store& store_;
  std::function<void(const std::string&)> progress_;
};

}  // namespace d2k::agent
