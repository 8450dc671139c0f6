#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/tensor_file.h"
#include "record/result.h"
#include "task/task.h"

namespace d2k::eval {

// Turns what the two workers reported into one workload's verdict. It holds the reference's
// trial outputs, compares each candidate trial against them, and keeps the first failure as the
// verdict (later trials still add evidence). Pure logic over messages and tensor files, so it is
// tested without processes.
//
// The reference's tensor files are mapped into this process and unlinked as soon as they are
// reported, before the candidate worker starts: the candidate can neither read nor overwrite them.
class WorkloadJudge {
 public:
  WorkloadJudge(const task::Task& task, std::string workload, int expected_trials);

  void add_reference_trial(const nlohmann::json& message);
  // A task with a distribution check: the reference's target of one trial ("targets" message:
  // probabilities and support), and the candidate's fit-test draws ("draws" message).
  void add_reference_targets(const nlohmann::json& message);
  void add_candidate_trial(const nlohmann::json& message);
  void add_candidate_draws(const nlohmann::json& message);
  void add_latency(const record::Latency& latency);
  // A failure the worker reported, or one the orchestrator saw (crash, timeout).
  void fail(record::Verdict verdict, std::string reason_code, std::string message);

  bool failed() const { return failure_.has_value(); }
  record::WorkloadResult finish(double wall_seconds);

 private:
  struct ReferenceTensor {
    TensorFile file;
    std::shared_ptr<const MappedFile> data;
  };
  struct ReferenceTrial {
    nlohmann::json inputs;
    std::vector<ReferenceTensor> outputs;
    std::vector<ReferenceTensor> state;
  };
  struct Failure {
    record::Verdict verdict;
    std::string reason_code;
    std::string message;
  };

  void check_inputs(const nlohmann::json& candidate, const ReferenceTrial& reference,
                    record::TrialCheck& trial);
  void compare_all(const std::vector<TensorFile>& candidate,
                   const std::vector<ReferenceTensor>& reference, bool state,
                   record::TrialCheck& trial, const std::vector<ReferenceTensor>* targets = nullptr);
  // A sampled output: its dtype and shape against the reference's, then every sample in the
  // target's support and greedy rows exact (eval/distribution_check.h).
  record::OutputCheck check_sampled_output(const TensorFile& candidate,
                                           const ReferenceTensor& reference,
                                           const std::vector<ReferenceTensor>* targets,
                                           std::string& reason_code);
  static std::vector<ReferenceTensor> take_reference(const nlohmann::json& files);

  const task::Task& task_;
  std::string workload_;
  int expected_trials_;
  std::map<int, ReferenceTrial> reference_;
  std::map<int, std::vector<ReferenceTensor>> targets_;  // per trial: probabilities, support
  bool draws_checked_ = false;
  std::vector<record::TrialCheck> trials_;
  std::optional<record::Latency> latency_;
  std::optional<Failure> failure_;
};

}  // namespace d2k::eval
