#include "profile/evaluator_profile_runner.h"

namespace d2k::profile {

EvaluatorProfileRunner::EvaluatorProfileRunner(const task::Task& task, eval::EvaluatorOptions options)
    : task_(task), options_(std::move(options)) {}

record::EvaluationResult EvaluatorProfileRunner::run(const std::vector<std::string>& launcher,
                                                     int calls) {
  eval::EvaluatorOptions options = options_;
  options.use_cache = false;
  options.profile_calls = calls;
  options.candidate_launcher = launcher;
  return eval::Evaluator(task_, nullptr, std::move(options)).run();
}

}  // namespace d2k::profile
