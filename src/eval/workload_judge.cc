#include "eval/workload_judge.h"

#include <fmt/format.h>

#include "eval/comparison.h"

namespace d2k::eval {

WorkloadJudge::WorkloadJudge(const task::Task& task, std::string workload, int expected_trials)
    : task_(task), workload_(std::move(workload)), expected_trials_(expected_trials) {}

std::vector<WorkloadJudge::ReferenceTensor> WorkloadJudge::take_reference(
    const nlohmann::json& files) {
  std::vector<ReferenceTensor> tensors;
  for (const auto& file : files.get<std::vector<TensorFile>>()) {
    auto data = std::make_shared<const MappedFile>(file.path);
    std::filesystem::remove(file.path);  // the mapping keeps the bytes; the name is gone
    tensors.push_back({file, std::move(data)});
  }
  return tensors;
}

void WorkloadJudge::add_reference_trial(const nlohmann::json& message) {
  ReferenceTrial trial;
  trial.inputs = message.at("inputs_before");
  trial.outputs = take_reference(message.at("outputs"));
  trial.state = take_reference(message.at("state"));
  reference_[message.at("trial").get<int>()] = std::move(trial);
}

void WorkloadJudge::add_candidate_trial(const nlohmann::json& message) {
  record::TrialCheck trial;
  trial.trial = message.at("trial").get<int>();
  trial.seed = message.at("seed").get<uint64_t>();
  trial.kind = message.at("kind").get<std::string>();
  trial.passed = true;
  auto reference = reference_.find(trial.trial);
  if (reference == reference_.end()) {
    fail(record::Verdict::harness_error, "reference_missing",
         fmt::format("no reference outputs for trial {}", trial.trial));
    return;
  }
  check_inputs(message, reference->second, trial);
  compare_all(message.at("outputs").get<std::vector<TensorFile>>(), reference->second.outputs,
              false, trial);
  compare_all(message.at("state").get<std::vector<TensorFile>>(), reference->second.state, true,
              trial);
  trials_.push_back(std::move(trial));
}

void WorkloadJudge::check_inputs(const nlohmann::json& candidate, const ReferenceTrial& reference,
                                 record::TrialCheck& trial) {
  const auto& before = candidate.at("inputs_before");
  const auto& after = candidate.at("inputs_after");
  for (const auto& name : task_.evaluation.arguments) {
    if (before.value(name, "") != reference.inputs.value(name, "")) {
      trial.passed = false;
      trial.failure = "input " + name + " differs from the reference's for the same seed";
      fail(record::Verdict::invalid, "inputs_differ",
           fmt::format("trial {}: {} (a candidate that changes random number generation or the "
                       "inputs before the call, or a nondeterministic get_inputs)",
                       trial.trial, trial.failure));
      return;
    }
    if (!task_.input_rules.is_mutable(name) && after.value(name, "") != before.value(name, "")) {
      trial.passed = false;
      trial.failure = "input " + name + " was modified by the call; it is not a mutable input";
      fail(record::Verdict::invalid, "input_mutated",
           fmt::format("trial {} ({}): {}", trial.trial, trial.kind, trial.failure));
      return;
    }
  }
}

void WorkloadJudge::compare_all(const std::vector<TensorFile>& candidate,
                                const std::vector<ReferenceTensor>& reference, bool state,
                                record::TrialCheck& trial) {
  if (candidate.size() != reference.size()) {
    trial.passed = false;
    trial.failure = fmt::format("{} {} where the reference has {}", candidate.size(),
                                state ? "state tensors" : "outputs", reference.size());
    fail(record::Verdict::incorrect, state ? "state_count" : "output_count", trial.failure);
    return;
  }
  for (size_t i = 0; i < candidate.size(); ++i) {
    Comparison comparison =
        compare_tensors(candidate[i], reference[i].file, *reference[i].data, task_.tolerance);
    std::filesystem::remove(candidate[i].path);
    if (!comparison.check.passed) {
      trial.passed = false;
      if (trial.failure.empty()) trial.failure = comparison.check.failure;
      std::string reason = comparison.reason_code;
      if (state && reason == "output_mismatch") reason = "state_mismatch";
      const auto verdict =
          reason == "harness_error" ? record::Verdict::harness_error : record::Verdict::incorrect;
      fail(verdict, reason,
           fmt::format("trial {} ({}): {}", trial.trial, trial.kind, comparison.check.failure));
    }
    trial.outputs.push_back(std::move(comparison.check));
  }
}

void WorkloadJudge::add_latency(const record::Latency& latency) { latency_ = latency; }

void WorkloadJudge::fail(record::Verdict verdict, std::string reason_code, std::string message) {
  if (failure_) return;  // the first failure is the verdict
  failure_ = Failure{verdict, std::move(reason_code), std::move(message)};
}

record::WorkloadResult WorkloadJudge::finish(double wall_seconds) {
  if (!failure_) {
    if (static_cast<int>(trials_.size()) < expected_trials_) {
      fail(record::Verdict::harness_error, "incomplete",
           fmt::format("the worker reported {} of {} trials", trials_.size(), expected_trials_));
    } else if (!latency_) {
      fail(record::Verdict::harness_error, "no_latency", "the worker reported no latency");
    }
  }
  record::WorkloadResult result;
  result.workload = workload_;
  result.trials = trials_;
  result.wall_seconds = wall_seconds;
  if (failure_) {
    result.verdict = failure_->verdict;
    result.reason_code = failure_->reason_code;
    result.message = failure_->message;
  } else {
    result.verdict = record::Verdict::passed;
    result.latency = latency_;
  }
  return result;
}

}  // namespace d2k::eval
