#include "agent/task_submission_evaluator.h"

#include <stdexcept>

#include "eval/evaluator.h"
#include "runtime/cuda_driver.h"

namespace d2k::agent {

record::EvaluationResult TaskSubmissionEvaluator::evaluate(const std::filesystem::path& solution,
                                                           std::stop_token stop) {
  return run(task::ImplKind::solution, solution, stop);
}

record::EvaluationResult TaskSubmissionEvaluator::baseline(std::optional<int64_t> stored,
                                                           std::stop_token stop) {
  if (stored) {
    auto result = store_.evaluations().load(*stored);
    if (!result) throw std::runtime_error("the run's baseline evaluation " + std::to_string(*stored) + " is not in the store");
    return *result;
  }
  const bool has_baseline = std::filesystem::exists(task_.implementation_file(task::ImplKind::baseline));
  return run(has_baseline ? task::ImplKind::baseline : task::ImplKind::reference, {}, stop);
}

record::EvaluationResult TaskSubmissionEvaluator::run(task::ImplKind kind,
                                                      const std::filesystem::path& solution,
                                                      std::stop_token stop) {
  if (task_.evaluation.device == task::Device::cuda) {
    const auto availability = runtime::probe_cuda_device();
    if (!availability.available) {
      throw std::runtime_error("this machine has no usable CUDA device (" + availability.reason +
                               "); the task cannot be evaluated here");
    }
  }
  eval::EvaluatorOptions options;
  options.kind = kind;
  options.solution = solution;
  options.progress = progress_;
  options.stop = stop;
  eval::Evaluator evaluator(task_, &store_, options);
  return evaluator.run();
}

}  // namespace d2k::agent
