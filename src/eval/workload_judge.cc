#include "eval/workload_judge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eval/comparison.h"
#include "eval/distribution_check.h"

namespace d2k::eval {

WorkloadJudge::WorkloadJudge(const task::Task& task, std::string workload, int expected_trials,
                             bool timed, bool draws)
    : task_(task), workload_(std::move(workload)), expected_trials_(expected_trials),
      timed_(timed), draws_expected_(draws) {}

std::vector<WorkloadJudge::ReferenceTensor> WorkloadJudge::take_reference(
    const std::vector<TensorFile>& files) {
  std::vector<ReferenceTensor> tensors;
  for (const auto& file : files) {
    auto data = std::make_shared<const MappedFile>(file.path);
    std::filesystem::remove(file.path);  // the mapping keeps the bytes; the name is gone
    tensors.push_back({file, std::move(data)});
  }
  return tensors;
}

void WorkloadJudge::add_reference_trial(const protocol::Trial& message) {
  ReferenceTrial trial;
  trial.inputs = message.inputs_before;
  trial.outputs = take_reference(message.outputs);
  trial.state = take_reference(message.state);
  reference_[message.trial] = std::move(trial);
}

void WorkloadJudge::add_reference_targets(const protocol::Targets& message) {
  targets_[message.trial] = take_reference(message.files);
}

void WorkloadJudge::add_candidate_trial(const protocol::Trial& message) {
  record::TrialCheck trial;
  trial.trial = message.trial;
  trial.seed = message.seed;
  trial.kind = message.kind;
  trial.passed = true;
  auto reference = reference_.find(trial.trial);
  if (reference == reference_.end()) {
    fail(record::Verdict::harness_error, "reference_missing",
         fmt::format("no reference outputs for trial {}", trial.trial));
    return;
  }
  check_inputs(message, reference->second, trial);
  if (!compare_outputs_) {
    trials_.push_back(std::move(trial));
    return;
  }
  const auto targets = targets_.find(trial.trial);
  compare_all(message.outputs, reference->second.outputs, false, trial,
              targets == targets_.end() ? nullptr : &targets->second);
  compare_all(message.state, reference->second.state, true, trial);
  trials_.push_back(std::move(trial));
}

namespace {

std::string digest_of(const std::map<std::string, std::string>& digests, const std::string& name) {
  const auto found = digests.find(name);
  return found == digests.end() ? "" : found->second;
}

}  // namespace

void WorkloadJudge::check_inputs(const protocol::Trial& candidate, const ReferenceTrial& reference,
                                 record::TrialCheck& trial) {
  const auto& before = candidate.inputs_before;
  const auto& after = candidate.inputs_after;
  for (const auto& name : task_.evaluation.arguments) {
    if (digest_of(before, name) != digest_of(reference.inputs, name)) {
      trial.passed = false;
      trial.failure = "input " + name + " differs from the reference's for the same seed";
      fail(record::Verdict::invalid, "inputs_differ",
           fmt::format("trial {}: {} (a candidate that changes random number generation or the "
                       "inputs before the call, or a nondeterministic get_inputs)",
                       trial.trial, trial.failure));
      return;
    }
    if (!task_.input_rules.is_mutable(name) && digest_of(after, name) != digest_of(before, name)) {
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
                                record::TrialCheck& trial,
                                const std::vector<ReferenceTensor>* targets) {
  if (candidate.size() != reference.size()) {
    trial.passed = false;
    trial.failure = fmt::format("{} {} where the reference has {}", candidate.size(),
                                state ? "state tensors" : "outputs", reference.size());
    fail(record::Verdict::incorrect, state ? "state_count" : "output_count", trial.failure);
    return;
  }
  for (size_t i = 0; i < candidate.size(); ++i) {
    Comparison comparison;
    if (!state && task_.evaluation.distribution_check(reference[i].file.name) != nullptr) {
      comparison.check = check_sampled_output(candidate[i], reference[i], targets,
                                              comparison.reason_code);
    } else {
      comparison =
          compare_tensors(candidate[i], reference[i].file, *reference[i].data, task_.tolerance);
    }
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

record::OutputCheck WorkloadJudge::check_sampled_output(
    const TensorFile& candidate, const ReferenceTensor& reference,
    const std::vector<ReferenceTensor>* targets, std::string& reason_code) {
  record::OutputCheck check;
  check.name = reference.file.name;
  check.elements = candidate.numel();
  const auto failed = [&](std::string code, std::string failure) {
    reason_code = std::move(code);
    check.failure = std::move(failure);
    return check;
  };
  if (candidate.dtype != reference.file.dtype) {
    return failed("output_dtype", fmt::format("output {} is {}; the reference's is {}", check.name,
                                              candidate.dtype, reference.file.dtype));
  }
  if (candidate.shape != reference.file.shape) {
    return failed("output_shape",
                  fmt::format("output {} has shape [{}]; the reference's is [{}]", check.name,
                              fmt::join(candidate.shape, ", "), fmt::join(reference.file.shape, ", ")));
  }
  if (targets == nullptr || targets->size() != 2) {
    return failed("harness_error", "the reference reported no target distribution for this trial");
  }
  try {
    const TargetDistribution target((*targets)[0].file, (*targets)[0].data->data(),
                                    (*targets)[1].file, (*targets)[1].data->data());
    if (candidate.numel() != target.rows()) {
      return failed("harness_error",
                    fmt::format("output {} has {} samples but the target has {} rows", check.name,
                                candidate.numel(), target.rows()));
    }
    const MappedFile data(candidate.path);
    const auto problem = check_membership(target, read_token_ids(candidate, data.data()), 1);
    if (problem) return failed(problem->reason_code, problem->message);
  } catch (const std::exception& error) {
    return failed("harness_error", std::string("distribution check: ") + error.what());
  }
  check.passed = true;
  return check;
}

void WorkloadJudge::add_candidate_draws(const protocol::Draws& message) {
  draws_checked_ = true;
  const int trial_index = message.trial;
  const TensorFile& file = message.samples;
  std::shared_ptr<const MappedFile> data;
  try {
    data = std::make_shared<const MappedFile>(file.path);
  } catch (const std::exception& error) {
    fail(record::Verdict::harness_error, "distribution_check",
         std::string("cannot read the draws: ") + error.what());
    return;
  }
  std::filesystem::remove(file.path);
  const task::DistributionCheck* check = task_.evaluation.distribution_check(file.name);
  const auto targets = targets_.find(trial_index);
  if (check == nullptr || targets == targets_.end() || targets->second.size() != 2) {
    fail(record::Verdict::harness_error, "distribution_check",
         fmt::format("draws of output {} for trial {} have no distribution check or target",
                     file.name, trial_index));
    return;
  }
  record::OutputCheck evidence;
  evidence.elements = file.numel();
  try {
    const auto& target_files = targets->second;
    const TargetDistribution target(target_files[0].file, target_files[0].data->data(),
                                    target_files[1].file, target_files[1].data->data());
    const int64_t draws = file.shape.empty() ? 0 : file.shape[0];
    if (draws <= 0 || file.numel() != draws * target.rows()) {
      fail(record::Verdict::incorrect, "output_shape",
           fmt::format("{} draws of output {} hold {} samples; the target has {} rows", draws,
                       file.name, file.numel(), target.rows()));
      return;
    }
    const std::vector<int64_t> samples = read_token_ids(file, data->data());
    if (const auto problem = check_membership(target, samples, draws)) {
      fail(record::Verdict::incorrect, problem->reason_code,
           fmt::format("trial {} fit-test draws: {}", trial_index, problem->message));
      return;
    }
    const FitResult fit = chi_square_fit(target, samples, draws);
    evidence.name = fmt::format(
        "{} (chi-square fit of {} draws: {:.1f} on {} degrees of freedom, p-value {:.3g}, "
        "rejected below {:g})",
        file.name, draws, fit.chi_square, fit.degrees_of_freedom, fit.p_value,
        check->significance);
    evidence.passed = fit.p_value >= check->significance;
    if (!evidence.passed) {
      evidence.failure = fmt::format(
          "the samples of {} draws do not fit the target distribution: chi-square {:.1f} on {} "
          "degrees of freedom ({} cells over {} rows), p-value {:.3g} < significance {:g}",
          draws, fit.chi_square, fit.degrees_of_freedom, fit.cells, target.rows(), fit.p_value,
          check->significance);
      fail(record::Verdict::incorrect, "distribution_mismatch",
           fmt::format("trial {}: {}", trial_index, evidence.failure));
    }
  } catch (const std::exception& error) {
    fail(record::Verdict::harness_error, "distribution_check",
         std::string("distribution check: ") + error.what());
    return;
  }
  for (auto it = trials_.rbegin(); it != trials_.rend(); ++it) {
    if (it->trial != trial_index) continue;
    it->outputs.push_back(evidence);
    if (!evidence.passed) {
      it->passed = false;
      if (it->failure.empty()) it->failure = evidence.failure;
    }
    break;
  }
}

void WorkloadJudge::add_timing(const protocol::TimingResult& message) {
  latency_ = message.latency;
  if (message.sets_before.size() != message.sets_after.size()) {
    fail(record::Verdict::harness_error, "incomplete", "the worker reported input sets unpaired");
    return;
  }
  for (size_t set = 0; set < message.sets_before.size(); ++set) {
    for (const auto& name : task_.evaluation.arguments) {
      if (task_.input_rules.is_mutable(name)) continue;
      if (digest_of(message.sets_before[set], name) != digest_of(message.sets_after[set], name)) {
        fail(record::Verdict::invalid, "input_mutated",
             fmt::format("input {} of timed input set {} changed during timing; it is not a "
                         "mutable input",
                         name, set));
        return;
      }
    }
  }
}

void WorkloadJudge::fail(record::Verdict verdict, std::string reason_code, std::string message) {
  if (failure_) return;  // the first failure is the verdict
  failure_ = Failure{verdict, std::move(reason_code), std::move(message)};
}

record::WorkloadResult WorkloadJudge::finish(double wall_seconds) {
  if (!failure_) {
    if (static_cast<int>(trials_.size()) < expected_trials_) {
      fail(record::Verdict::harness_error, "incomplete",
           fmt::format("the worker reported {} of {} trials", trials_.size(), expected_trials_));
    } else if (timed_ && !latency_) {
      fail(record::Verdict::harness_error, "no_latency", "the worker reported no latency");
    } else if (draws_expected_ && !task_.evaluation.distribution_checks.empty() && !draws_checked_) {
      fail(record::Verdict::harness_error, "draws_missing",
           "the worker reported no draws for the distribution check");
    }
  }
  record::WorkloadResult result;
  result.workload = workload_;
  result.trials = trials_;
  result.wall_seconds = wall_seconds;
  result.workspace_bytes = workspace_bytes_;
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
